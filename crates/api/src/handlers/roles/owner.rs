//! The object that owns a role: its name and what the access rules need of it.

use acs_authz::roles::{Resource, ResourceKind};
use acs_storage::roles::RoleRecord;

use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::automation::{Inventories, JobTemplates, Projects, Resource as _};
use crate::handlers::teams::Teams;

pub use acs_app::role_grants::Owner;

/// The URL of `owner`'s object.
pub fn url(owner: &Owner) -> String {
    let collection = super::collection(owner.resource.kind);
    format!("/api/v2/{collection}/{}/", owner.resource.id)
}

/// The owner of `role`; `None` for a system role.
pub fn of(ctx: &mut Context<'_>, role: &RoleRecord) -> ApiResult<Option<Owner>> {
    let (Some(kind), Some(id)) = (ResourceKind::parse(&role.kind), role.object_id) else {
        return Ok(None);
    };
    find(ctx, kind, id).map(Some)
}

/// The owners of `roles`, each object read once (an organization's thirteen roles share one).
pub fn of_each(ctx: &mut Context<'_>, roles: &[RoleRecord]) -> ApiResult<Owners> {
    let mut owners = Owners::new();
    for role in roles {
        let (Some(kind), Some(id)) = (ResourceKind::parse(&role.kind), role.object_id) else {
            continue;
        };
        if let std::collections::hash_map::Entry::Vacant(entry) = owners.entry((kind, id)) {
            entry.insert(find(ctx, kind, id)?);
        }
    }
    Ok(owners)
}

/// Owners by kind and id, as [`of_each`] reads them.
pub type Owners = std::collections::HashMap<(ResourceKind, i64), Owner>;

/// `role`'s owner among `owners`; `None` for a system role.
pub fn lookup<'a>(owners: &'a Owners, role: &RoleRecord) -> Option<&'a Owner> {
    let kind = ResourceKind::parse(&role.kind)?;
    owners.get(&(kind, role.object_id?))
}

/// Object `id` of `kind`.
pub fn find(ctx: &mut Context<'_>, kind: ResourceKind, id: i64) -> ApiResult<Owner> {
    let conn = ctx.conn()?;
    let plain = |resource: Resource, name: String| Owner {
        resource,
        name,
        credential: None,
    };
    Ok(match kind {
        ResourceKind::Organization => plain(
            Resource::organization(id),
            acs_storage::organizations::find(conn, id)?.name,
        ),
        ResourceKind::Credential => {
            let credential = acs_storage::credentials::find(conn, id)?;
            let target = acs_app::credentials::target_of(conn, &credential)?;
            Owner {
                resource: Resource::of(kind, id, credential.organization_id),
                name: credential.name,
                credential: Some(target),
            }
        }
        ResourceKind::Project => {
            let row = Projects::find(conn, id)?;
            plain(Projects::governed_by(conn, &row)?, row.name)
        }
        ResourceKind::Inventory => {
            let row = Inventories::find(conn, id)?;
            plain(Inventories::governed_by(conn, &row)?, row.name)
        }
        ResourceKind::JobTemplate => {
            let row = JobTemplates::find(conn, id)?;
            plain(JobTemplates::viewed_as(conn, &row)?, row.name)
        }
        ResourceKind::Team => {
            let row = Teams::find(conn, id)?;
            plain(Teams::governed_by(conn, &row)?, row.name)
        }
    })
}
