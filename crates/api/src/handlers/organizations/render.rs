//! The organization record.

use acs_storage::organizations::{Organization, RoleCounts};
use serde_json::{Value, json};

use crate::auth::Principal;
use crate::http::render::{capabilities, envelope};

/// Renders `org` as `viewer` sees it; `object_roles` is its roles' summary
/// ([`crate::handlers::roles::summary_of`]).
pub fn render_organization(
    viewer: &Principal,
    org: &Organization,
    counts: RoleCounts,
    object_roles: Value,
) -> Value {
    let caps = acs_authz::organization_capabilities(&viewer.actor, org.id);
    let base = format!("/api/v2/organizations/{}/", org.id);
    let mut record = envelope(
        org.id,
        "organization",
        base.clone(),
        json!({
            "users": format!("{base}users/"),
            "admins": format!("{base}admins/"),
            "applications": format!("{base}applications/"),
            "source_credentials": format!("{base}source_credentials/"),
            "galaxy_credentials": format!("{base}galaxy_credentials/"),
            "activity_stream": format!("{base}activity_stream/"),
            "object_roles": format!("{base}object_roles/"),
            "access_list": format!("{base}access_list/"),
        }),
        json!({
            "object_roles": object_roles,
            "user_capabilities": capabilities(caps),
            "related_field_counts": { "users": counts.users, "admins": counts.admins },
        }),
        &org.created,
        &org.modified,
    );
    record.insert("name".into(), json!(org.name));
    record.insert("description".into(), json!(org.description));
    Value::Object(record)
}

/// `summary_fields.object_roles` of organization `id`.
pub fn roles_of(conn: &mut acs_storage::DbConnection, id: i64) -> crate::error::ApiResult<Value> {
    crate::handlers::roles::summary_of(conn, acs_authz::roles::ResourceKind::Organization, id)
}

/// An organization as `viewer` sees it in the activity stream's record of a write: its roles,
/// and no member counts.
pub fn shown(
    viewer: &Principal,
) -> impl Fn(&mut acs_storage::DbConnection, &Organization) -> crate::error::ApiResult<Value> + '_ {
    move |conn, org| {
        let object_roles = roles_of(conn, org.id)?;
        Ok(render_organization(
            viewer,
            org,
            RoleCounts::default(),
            object_roles,
        ))
    }
}
