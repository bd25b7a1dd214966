//! A role record (`type: "role"`), as the reference's `RoleSerializer` shapes it.

use acs_storage::roles::RoleRecord;
use serde_json::{Value, json};

use super::owner::Owner;
use super::summaries::name_and_description;

/// The role record.
pub fn role_record(role: &RoleRecord, owner: Option<&Owner>) -> Value {
    let url = format!("/api/v2/roles/{}/", role.id);
    let mut related = json!({
        "users": format!("{url}users/"),
        "teams": format!("{url}teams/"),
    });
    let summary = match owner {
        Some(owner) => {
            let kind = owner.resource.kind;
            related[kind.type_name()] = json!(super::owner::url(owner));
            json!({
                "resource_name": owner.name,
                "resource_type": kind.type_name(),
                "resource_type_display_name": kind.display_name(),
                "resource_id": owner.resource.id,
            })
        }
        None => json!({}),
    };
    let (name, description) = name_and_description(role);
    json!({
        "id": role.id,
        "type": "role",
        "url": url,
        "related": related,
        "summary_fields": summary,
        "name": name,
        "description": description,
    })
}

/// The records of `roles` whose objects `principal` may see (system roles always), in order:
/// a user's or a team's roles as the caller is shown them.
pub fn visible_role_records(
    ctx: &mut crate::context::Context<'_>,
    principal: &crate::auth::Principal,
    roles: &[RoleRecord],
) -> crate::error::ApiResult<Vec<Value>> {
    let owners = super::owner::of_each(ctx, roles)?;
    Ok(roles
        .iter()
        .map(|role| (role, super::owner::lookup(&owners, role)))
        .filter(|(_, owner)| owner.is_none_or(|owner| owner.visible_to(&principal.actor)))
        .map(|(role, owner)| role_record(role, owner))
        .collect())
}
