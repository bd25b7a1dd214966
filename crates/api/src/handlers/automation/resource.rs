//! What a resource tells the generic handlers.

use acs_authz::roles::ResourceKind;
use acs_authz::{Actor, ObjectVisibility};
use acs_storage::list::{ListError, ListParams, Page};
use acs_storage::stamps::{Creation, Modification};
use acs_storage::{DbConnection, StorageResult, Timestamp};
use serde_json::{Map, Value, json};

use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::http::fields::FieldReader;
use crate::http::options::ResourceMeta;
use crate::http::render::{capabilities, envelope};
use acs_app::settings::Settings;

/// A create or update body, with what validating it needs.
#[derive(Debug)]
pub struct Body<'r, Row> {
    /// The request's JSON object.
    pub object: &'r Map<String, Value>,
    /// Every field (create and `PUT`) rather than the given ones (`PATCH`).
    pub full: bool,
    /// The row as it is, on update.
    pub before: Option<&'r Row>,
    /// Who sends it: what it refers to must be theirs to use.
    pub actor: &'r Actor,
    /// The settings (`PROJECTS_ROOT`, say).
    pub settings: &'r Settings,
}

impl<'r, Row> Body<'r, Row> {
    /// A body that creates a row: every field is read.
    pub fn new(object: &'r Map<String, Value>, actor: &'r Actor, settings: &'r Settings) -> Self {
        Body {
            object,
            full: true,
            before: None,
            actor,
            settings,
        }
    }

    /// The same body updating `before`: every field (`full`, for `PUT`) or the given ones.
    pub fn updating(self, before: &'r Row, full: bool) -> Self {
        Body {
            full,
            before: Some(before),
            ..self
        }
    }

    /// A reader of the body's fields.
    pub fn fields(&self) -> FieldReader<'_> {
        FieldReader::new(self.object, self.full)
    }
}

/// The write transaction's connection, with who writes and when.
pub struct Write<'c> {
    /// The connection, inside the transaction.
    pub conn: &'c mut DbConnection,
    /// The user who writes.
    pub by: i64,
    /// When.
    pub now: Timestamp,
}

impl std::fmt::Debug for Write<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Write")
            .field("by", &self.by)
            .field("now", &self.now)
            .finish_non_exhaustive()
    }
}

impl Write<'_> {
    /// The stamps of a row this write inserts.
    pub fn creation(&self) -> Creation {
        Creation::by(Some(self.by), self.now)
    }

    /// The stamps of a row this write changes.
    pub fn modification(&self) -> Modification {
        Modification::by(Some(self.by), self.now)
    }
}

/// A record's further `summary_fields` and its own fields, each a name and a value in order.
pub type FieldLists = (Vec<(&'static str, Value)>, Vec<(&'static str, Value)>);

/// One organization-owned resource with a collection and a detail endpoint.
pub trait Resource: 'static {
    /// Its stored row.
    type Row: Send + 'static;
    /// A validated create or update body.
    type Input: Send + 'static;

    /// The name in messages (`Project`).
    const LABEL: &'static str;
    /// The record `type` and activity-stream kind (`project`).
    const KIND: &'static str;
    /// The collection's URL segment (`projects`).
    const COLLECTION: &'static str;
    /// The message when the name is taken where it must be unique.
    const NAME_TAKEN: &'static str;
    /// Other unique columns: the column's name (as the database names it in the constraint or
    /// its message), the body field, and the message when the value is taken.
    const UNIQUE_FIELDS: &'static [(&'static str, &'static str, &'static str)] = &[];
    /// `OPTIONS` metadata.
    const META: ResourceMeta;
    /// The body field a parent's sub-collection fixes (`inventory` for an inventory's hosts).
    const PARENT_FIELD: Option<&'static str> = None;
    /// The kind whose roles govern the rows: their own, or their inventory's.
    const ROLE_KIND: ResourceKind;
    /// Whether the rows carry roles of their own (hosts and inventory sources do not).
    const OWNS_ROLES: bool = true;
    /// The organization role that creating a row takes ([`Resource::may_create`]).
    const CREATOR_ROLE: acs_authz::roles::RoleField = acs_authz::roles::RoleField::Admin;

    /// The row `id`.
    fn find(conn: &mut DbConnection, id: i64) -> StorageResult<Self::Row>;
    /// The row's id.
    fn id(row: &Self::Row) -> i64;
    /// The row's name.
    fn name(row: &Self::Row) -> &str;
    /// The object whose roles govern the row (itself, or its inventory), with its
    /// organization.
    fn governed_by(
        conn: &mut DbConnection,
        row: &Self::Row,
    ) -> ApiResult<acs_authz::roles::Resource>;
    /// [`Resource::governed_by`], with what only seeing the row needs besides (a template's
    /// inventory's organization, whose auditors read it): read for one row at a time.
    fn viewed_as(
        conn: &mut DbConnection,
        row: &Self::Row,
    ) -> ApiResult<acs_authz::roles::Resource> {
        Self::governed_by(conn, row)
    }
    /// One page of the rows `visibility` allows, within `parent` when given.
    fn list(
        conn: &mut DbConnection,
        visibility: &ObjectVisibility,
        parent: Option<i64>,
        params: &ListParams,
    ) -> StorageResult<Result<Page<Self::Row>, ListError>>;
    /// Validates `sent`, including the records it refers to and its sender's right to use
    /// them; returns the input and the organization the resulting row belongs to.
    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)>;
    /// Whether `actor` may create a row from `input` (read and checked), in `organization`:
    /// by default, holding `CREATOR_ROLE` on the organization (its admin always does).
    fn may_create(
        conn: &mut DbConnection,
        actor: &Actor,
        input: &Self::Input,
        organization: i64,
    ) -> ApiResult<()> {
        let _ = (conn, input);
        let org = acs_authz::roles::Resource::organization(organization);
        Ok(acs_authz::can_act_on_object(
            actor,
            &org,
            Self::CREATOR_ROLE,
        )?)
    }
    /// Inserts a row.
    fn insert(write: Write<'_>, input: Self::Input) -> StorageResult<Self::Row>;
    /// Applies an update to row `id`.
    fn update(write: Write<'_>, id: i64, input: Self::Input) -> StorageResult<Self::Row>;
    /// Deletes the row.
    fn delete(conn: &mut DbConnection, id: i64) -> StorageResult<bool>;
    /// The row's description.
    fn description(row: &Self::Row) -> &str;
    /// When the row was created and last changed.
    fn stamps(row: &Self::Row) -> (&Timestamp, &Timestamp);
    /// The link to what owns the row (`organization`, or `inventory` for what lives in one),
    /// first under `related`.
    fn owner_link(row: &Self::Row) -> (&'static str, String);
    /// The record's other links under `related` (`base`: its own URL); none unless a resource
    /// says so.
    fn related(row: &Self::Row, base: &str) -> Value {
        let _ = (row, base);
        json!({})
    }
    /// Whether `viewer` may copy the row (`user_capabilities.copy`), for resources with a
    /// `copy/` endpoint; `None` (not shown) for the others.
    fn may_copy(
        conn: &mut DbConnection,
        viewer: &Principal,
        row: &Self::Row,
    ) -> ApiResult<Option<bool>> {
        let _ = (conn, viewer, row);
        Ok(None)
    }
    /// What the record's `summary_fields` show besides the capabilities and roles (none
    /// unless a resource says so), and its own fields ([`Resource::fields`]): one call, so
    /// that what both show is read once.
    fn summary_and_fields(conn: &mut DbConnection, row: &Self::Row) -> ApiResult<FieldLists> {
        Ok((Vec::new(), Self::fields(conn, row)?))
    }
    /// Work once a creation has committed, which may add to the answered `record`: a git
    /// project's first update. None unless a resource says so.
    fn after_create(
        ctx: &mut Context<'_>,
        principal: &Principal,
        record: &mut Value,
    ) -> ApiResult<()> {
        let _ = (ctx, principal, record);
        Ok(())
    }
    /// The record's own fields, shown after `name` and `description` in this order.
    fn fields(conn: &mut DbConnection, row: &Self::Row) -> ApiResult<Vec<(&'static str, Value)>>;

    /// The record as `viewer` sees it: the envelope (its capabilities those the governing
    /// object's roles give), `name`, `description`, then [`Resource::fields`].
    fn render(conn: &mut DbConnection, viewer: &Principal, row: &Self::Row) -> ApiResult<Value> {
        let object_roles = if Self::OWNS_ROLES {
            Some(crate::handlers::roles::summary_of(
                conn,
                Self::ROLE_KIND,
                Self::id(row),
            )?)
        } else {
            None
        };
        Self::render_with(conn, viewer, row, object_roles)
    }

    /// [`Resource::render`] with the row's `summary_fields.object_roles` read already (a
    /// list's page reads them in one query); `None` for rows without roles.
    fn render_with(
        conn: &mut DbConnection,
        viewer: &Principal,
        row: &Self::Row,
        object_roles: Option<Value>,
    ) -> ApiResult<Value> {
        let governed = Self::governed_by(conn, row)?;
        let caps = acs_authz::object_capabilities(&viewer.actor, &governed);
        let id = Self::id(row);
        let base = Self::url(id);
        let (owner, owner_url) = Self::owner_link(row);
        let mut related = Map::new();
        related.insert(owner.into(), json!(owner_url));
        if let Value::Object(links) = Self::related(row, &base) {
            related.extend(links);
        }
        let mut summary = json!({ "user_capabilities": capabilities(caps) });
        if let Some(copy) = Self::may_copy(conn, viewer, row)? {
            summary["user_capabilities"]["copy"] = json!(copy);
        }
        let (more_summary, fields) = Self::summary_and_fields(conn, row)?;
        for (name, value) in more_summary {
            summary[name] = value;
        }
        if let Some(object_roles) = object_roles {
            related.insert("object_roles".into(), json!(format!("{base}object_roles/")));
            related.insert("access_list".into(), json!(format!("{base}access_list/")));
            summary["object_roles"] = object_roles;
        }
        let (created, modified) = Self::stamps(row);
        let mut record = envelope(
            id,
            Self::KIND,
            base,
            Value::Object(related),
            summary,
            created,
            modified,
        );
        record.insert("name".into(), json!(Self::name(row)));
        record.insert("description".into(), json!(Self::description(row)));
        for (name, value) in fields {
            record.insert(name.into(), value);
        }
        Ok(Value::Object(record))
    }

    /// The detail URL of row `id`.
    fn url(id: i64) -> String {
        format!("/api/v2/{}/{id}/", Self::COLLECTION)
    }
}

/// Row `id` of `R` with the object governing it, if the caller may see it: 404 if missing,
/// 403 if invisible.
pub fn visible<R: Resource>(
    ctx: &mut Context<'_>,
    principal: &Principal,
    id: i64,
) -> ApiResult<(R::Row, acs_authz::roles::Resource)> {
    let row = R::find(ctx.conn()?, id).map_err(|error| match error {
        acs_storage::StorageError::NotFound => ApiError::no_such(R::LABEL),
        other => other.into(),
    })?;
    let governed = R::viewed_as(ctx.conn()?, &row)?;
    if !acs_authz::can_view_object(&principal.actor, &governed) {
        return Err(ApiError::permission_denied());
    }
    Ok((row, governed))
}

/// Maps a uniqueness conflict on write to the field it concerns ([`Resource::UNIQUE_FIELDS`])
/// or else to `R`'s object-level message about the name.
pub fn name_conflict<R: Resource>(error: acs_storage::StorageError) -> ApiError {
    match error {
        acs_storage::StorageError::Conflict(detail) => R::UNIQUE_FIELDS
            .iter()
            .find(|(column, _, _)| detail.contains(column))
            .map_or_else(
                || ApiError::field("__all__", R::NAME_TAKEN),
                |(_, field, message)| ApiError::field(field, *message),
            ),
        other => other.into(),
    }
}

/// Writes the [`Resource`] methods that only reach storage module `$module` (whose rows have
/// `id`, `name`, `description`, `created` and `modified`): `find`, the row's accessors,
/// `delete`, `list`, `organization` and `owner_link`. A resource is
/// owned by an organization (`organization`: its rows carry `organization_id`, its list has
/// no parent) or lives in an inventory (`inventory`: its rows carry `inventory_id`, the
/// inventory's organization owns them, and its list may be an inventory's sub-collection).
/// With `writes: stamped`, also `insert` and `update`: the resource's input is the module's
/// values type (see `acs_storage::row_functions!`), written with the write's stamps.
#[macro_export]
#[doc(hidden)]
macro_rules! stored_rows {
    ($($module:ident)::+, owner: $owner:ident, writes: stamped) => {
        $crate::stored_rows!($($module)::+, owner: $owner);

        fn insert(
            write: $crate::handlers::automation::resource::Write<'_>,
            input: Self::Input,
        ) -> acs_storage::StorageResult<Self::Row> {
            $($module)::+::insert(write.conn, &input, write.creation())
        }

        fn update(
            write: $crate::handlers::automation::resource::Write<'_>,
            id: i64,
            input: Self::Input,
        ) -> acs_storage::StorageResult<Self::Row> {
            $($module)::+::update(write.conn, id, &input, write.modification())
        }
    };
    ($($module:ident)::+, owner: organization) => {
        $crate::stored_rows!(@common $($module)::+);

        fn governed_by(_: &mut acs_storage::DbConnection, row: &Self::Row) -> $crate::error::ApiResult<acs_authz::roles::Resource> {
            Ok(acs_authz::roles::Resource::of(Self::ROLE_KIND, row.id, Some(row.organization_id)))
        }

        fn owner_link(row: &Self::Row) -> (&'static str, String) {
            ("organization", format!("/api/v2/organizations/{}/", row.organization_id))
        }

        fn list(
            conn: &mut acs_storage::DbConnection,
            visibility: &acs_authz::ObjectVisibility,
            _: Option<i64>,
            params: &acs_storage::list::ListParams,
        ) -> acs_storage::StorageResult<Result<acs_storage::list::Page<Self::Row>, acs_storage::list::ListError>> {
            $($module)::+::list(conn, visibility, params)
        }
    };
    ($($module:ident)::+, owner: inventory) => {
        $crate::stored_rows!(@common $($module)::+);

        fn governed_by(conn: &mut acs_storage::DbConnection, row: &Self::Row) -> $crate::error::ApiResult<acs_authz::roles::Resource> {
            let organization = acs_storage::inventories::find(conn, row.inventory_id)?.organization_id;
            Ok(acs_authz::roles::Resource::of(
                acs_authz::roles::ResourceKind::Inventory,
                row.inventory_id,
                Some(organization),
            ))
        }

        fn owner_link(row: &Self::Row) -> (&'static str, String) {
            ("inventory", format!("/api/v2/inventories/{}/", row.inventory_id))
        }

        /// The admins of the row's inventory create what lives in it.
        fn may_create(
            _: &mut acs_storage::DbConnection,
            actor: &acs_authz::Actor,
            input: &Self::Input,
            organization: i64,
        ) -> $crate::error::ApiResult<()> {
            let inventory = acs_authz::roles::Resource::of(
                acs_authz::roles::ResourceKind::Inventory,
                input.inventory_id.unwrap_or_default(),
                Some(organization),
            );
            Ok(acs_authz::can_change_object(actor, &inventory)?)
        }

        fn list(
            conn: &mut acs_storage::DbConnection,
            visibility: &acs_authz::ObjectVisibility,
            inventory: Option<i64>,
            params: &acs_storage::list::ListParams,
        ) -> acs_storage::StorageResult<Result<acs_storage::list::Page<Self::Row>, acs_storage::list::ListError>> {
            let within = inventory.map_or(
                acs_storage::inventories::Within::Anywhere,
                acs_storage::inventories::Within::Inventory,
            );
            $($module)::+::list(conn, visibility, within, params)
        }
    };
    (@common $($module:ident)::+) => {
        fn find(conn: &mut acs_storage::DbConnection, id: i64) -> acs_storage::StorageResult<Self::Row> {
            $($module)::+::find(conn, id)
        }

        fn id(row: &Self::Row) -> i64 {
            row.id
        }

        fn name(row: &Self::Row) -> &str {
            &row.name
        }

        fn description(row: &Self::Row) -> &str {
            &row.description
        }

        fn stamps(row: &Self::Row) -> (&acs_storage::Timestamp, &acs_storage::Timestamp) {
            (&row.created, &row.modified)
        }

        fn delete(conn: &mut acs_storage::DbConnection, id: i64) -> acs_storage::StorageResult<bool> {
            $($module)::+::delete(conn, id)
        }
    };
}
