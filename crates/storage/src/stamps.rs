//! Who made a record and when: the four stamp columns (`created_by`, `modified_by`,
//! `created`, `modified`) of every table whose rows a user makes through the API, written by
//! one type when a row is inserted and another when it changes.

use diesel::prelude::*;

use crate::Timestamp;
use crate::schema::{
    credential_types, credentials, inventories, inventory_sources, job_templates, projects, teams,
};

/// The stamps of a new row (embedded in its insertable): its creator is its last modifier,
/// its creation its last change.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Insertable)]
#[diesel(
    table_name = credential_types,
    table_name = credentials,
    table_name = inventories,
    table_name = inventory_sources,
    table_name = job_templates,
    table_name = projects,
    table_name = teams
)]
#[diesel(treat_none_as_default_value = false)]
pub struct Creation {
    created_by: Option<i64>,
    modified_by: Option<i64>,
    created: Timestamp,
    modified: Timestamp,
}

impl Creation {
    /// Made by user `by` (`None`: by ACS itself, as the managed credential types) at `at`.
    pub fn by(by: Option<i64>, at: Timestamp) -> Self {
        Creation {
            created_by: by,
            modified_by: by,
            created: at,
            modified: at,
        }
    }
}

/// The stamps of a change to a row: who changed it last, and when.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Modification {
    /// The user who changes the row (`None`: ACS itself).
    pub by: Option<i64>,
    /// When.
    pub at: Timestamp,
}

impl Modification {
    /// Changed by user `by` at `at`.
    pub fn by(by: Option<i64>, at: Timestamp) -> Self {
        Modification { by, at }
    }
}
