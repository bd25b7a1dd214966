//! A resource's collection and an inventory's sub-collections
//! (`/api/v2/inventories/<id>/hosts/`): what `GET` and `POST` do there (the handlers are
//! [`crate::handlers::listing`]'s and [`crate::handlers::create`]'s).

use std::marker::PhantomData;

use serde_json::{Value, json};

use super::resource::{Body, Resource, Write, name_conflict};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::automation::Inventories;
use crate::handlers::create::{Create, Submission};
use crate::handlers::listing::{ListAsked, Listing, PageResult, SubList};
use acs_app::activity::{self, Subject};

/// Every row of `R` the caller may see; with a scope, those within that inventory.
impl<R: Resource> Listing for R {
    type Scope = Option<i64>;
    type Item = Value;

    fn page(ctx: &mut Context<'_>, asked: ListAsked<'_, Self::Scope>) -> PageResult<Self::Item> {
        let (principal, inventory, list) = (asked.principal, asked.scope, asked.list);
        let visibility = acs_authz::visible_objects(&principal.actor, R::ROLE_KIND);
        let conn = ctx.conn()?;
        let page = R::list(conn, &visibility, inventory, &list.params)??;
        let mut roles = if R::OWNS_ROLES {
            let ids: Vec<i64> = page.items.iter().map(R::id).collect();
            Some(crate::handlers::roles::summaries_of(
                conn,
                R::ROLE_KIND,
                &ids,
            )?)
        } else {
            None
        };
        let results = page
            .items
            .iter()
            .map(|row| {
                let object_roles = roles
                    .as_mut()
                    .map(|roles| roles.remove(&R::id(row)).unwrap_or_else(|| json!({})));
                R::render_with(conn, principal, row, object_roles)
            })
            .collect::<ApiResult<Vec<_>>>()?;
        list.envelope(page.count, results)
    }
}

/// Creates a row of `R` from the body; within an inventory, the body's parent field is set
/// to it.
impl<R: Resource> Create for R {
    type Created = Value;

    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, mut body, inventory) = (new.principal, new.body, new.scope);
        if let (Some(field), Some(inventory)) = (R::PARENT_FIELD, inventory) {
            body.0.insert(field.to_owned(), json!(inventory));
        }
        let settings = ctx.settings()?;
        let now = ctx.now;
        let mut record = ctx.write(|conn| {
            let sent = Body::new(&body.0, &principal.actor, &settings);
            create_row::<R>(conn, principal, sent, now, |_, _| Ok(()))
        })?;
        R::after_create(ctx, principal, &mut record)?;
        Ok(record)
    }

    fn location(created: &Value) -> Option<String> {
        created["id"].as_i64().map(R::url)
    }
}

/// Creates a row of `R` from `sent` for `principal` at `now`, as `POST` on the collection does
/// (read and checked, its creator made its admin, recorded), then does `also` with the new
/// row in the same transaction; answers the new record.
pub fn create_row<R: Resource>(
    conn: &mut acs_storage::DbConnection,
    principal: &Principal,
    sent: Body<'_, R::Row>,
    now: acs_storage::Timestamp,
    also: impl FnOnce(&mut acs_storage::DbConnection, &R::Row) -> ApiResult<()>,
) -> ApiResult<Value> {
    let (input, organization) = R::read(conn, sent)?;
    R::may_create(conn, &principal.actor, &input, organization)?;
    let by = principal.user.id;
    let row = R::insert(Write { conn, by, now }, input).map_err(name_conflict::<R>)?;
    let granted = if R::OWNS_ROLES {
        make_creator_admin::<R>(conn, principal, &row)?
    } else {
        None
    };
    also(conn, &row)?;
    // The answer shows what the creator may do now, the new grant included.
    let creator = granted.map(|role| principal.with_grant(role));
    let record = R::render(conn, creator.as_ref().unwrap_or(principal), &row)?;
    let subject = Subject::named(R::KIND, R::id(&row), R::name(&row));
    activity::record_creation(conn, now, &principal.user, &subject, &record)?;
    tracing::info!(
        actor = principal.user.id,
        kind = R::KIND,
        id = R::id(&row),
        "created"
    );
    Ok(record)
}

/// The rows of `R` within one inventory (hosts, inventory sources).
#[derive(Debug)]
pub struct InventoryChildren<R>(PhantomData<R>);

impl<R: Resource> SubList for InventoryChildren<R> {
    type Parent = Inventories;
    type Of = R;

    fn scope(inventory: i64, _: &Principal) -> Option<i64> {
        Some(inventory)
    }
}

/// The creator of a row becomes the admin of it, unless they administer it already (an
/// organization admin, a superuser): as in the reference, who made a template may manage it.
/// Returns the role granted, if one was.
fn make_creator_admin<R: Resource>(
    conn: &mut acs_storage::DbConnection,
    principal: &Principal,
    row: &R::Row,
) -> ApiResult<Option<acs_authz::roles::Role>> {
    let governed = R::governed_by(conn, row)?;
    if principal
        .actor
        .holds(&governed, acs_authz::roles::RoleField::Admin)
    {
        return Ok(None);
    }
    let admin = acs_storage::roles::of_field(
        conn,
        R::ROLE_KIND,
        R::id(row),
        acs_authz::roles::RoleField::Admin,
    )?
    .ok_or_else(|| crate::error::ApiError::Internal("a new row without its roles".into()))?;
    acs_storage::roles::grant(conn, admin.id, principal.user.id)?;
    Ok(admin.role())
}
