//! The automation resources (contract §6): projects, inventories, hosts, groups, inventory sources and
//! job templates, served by one set of generic handlers over the [`Resource`] trait, plus the
//! endpoints that start runs (launch, project and inventory updates).
//!
//! Every resource belongs to one organization; `acs_authz`'s automation rules decide who sees,
//! changes and runs it.

mod collection;
mod copy;
mod groups;
mod hosts;
mod inventories;
mod inventory_sources;
mod job_templates;
mod member;
mod memberships;
mod projects;
pub mod references;
pub mod resource;
pub mod run_options;
mod template_credentials;

pub use collection::InventoryChildren;
pub use copy::{Copied, copy, copy_check};
pub use groups::Groups;
pub use hosts::Hosts;
pub use inventories::Inventories;
pub use inventory_sources::InventorySources;
pub use job_templates::JobTemplates;
pub use memberships::{
    GroupChildren, GroupHosts, HostGroups, Membership, change_members, list_members,
    options_members,
};
pub use projects::{Projects, git_argument_problem};
pub use references::{parse_variables, relative_path_problem};
pub use resource::{Resource, visible};
pub use template_credentials::{
    change_template_credentials, list_template_credentials, options_template_credentials,
};
