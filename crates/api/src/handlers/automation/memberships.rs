//! The membership lists of inventory groups: `/api/v2/groups/<id>/hosts/` (the hosts directly
//! in a group), `/groups/<id>/children/` (its child groups) and `/hosts/<id>/groups/` (the
//! groups a host is directly in).
//!
//! `GET` lists the members the caller may see. `POST {"id": n}` adds a member, `{"id": n,
//! "disassociate": true}` takes it out (both 204, both recorded in the activity stream); a
//! body without `id` creates the member in the same inventory and adds it (201). Changing a
//! membership takes the right to change the inventory; members never cross inventories, and
//! a group never ends up beneath itself (400 `{"error": …}`), as in the reference.

use acs_storage::hosts::Host;
use acs_storage::inventories::Within;
use acs_storage::inventory_groups::Group;
use acs_storage::list::{ListError, ListParams, Page};
use acs_storage::{DbConnection, StorageError, StorageResult};
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::collection::create_row;
use super::groups::Groups;
use super::hosts::Hosts;
use super::resource::{Body, Resource, visible};
use crate::auth::Principal;
use crate::context::Reply;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in_list_taking_post, signed_in_reply};
use crate::http::body::JsonObject;
use crate::http::fields::FieldReader;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// A row that lives in an inventory.
pub trait InInventory {
    /// Its inventory.
    fn inventory_id(&self) -> i64;
}

impl InInventory for Host {
    fn inventory_id(&self) -> i64 {
        self.inventory_id
    }
}

impl InInventory for Group {
    fn inventory_id(&self) -> i64 {
        self.inventory_id
    }
}

/// One membership list: the `Member`s directly under an `Owner`.
pub trait Membership: 'static {
    /// The record the list is under.
    type Owner: Resource<Row: InInventory>;
    /// What it lists.
    type Member: Resource<Row: InInventory>;

    /// One page of the members `visibility` allows directly under `owner`.
    fn list(
        conn: &mut DbConnection,
        visibility: &acs_authz::ObjectVisibility,
        owner: i64,
        params: &ListParams,
    ) -> StorageResult<Result<Page<<Self::Member as Resource>::Row>, ListError>>;
    /// Adds `member` under `owner`; false if it was there.
    fn add(conn: &mut DbConnection, owner: i64, member: i64) -> StorageResult<bool>;
    /// Takes `member` out from under `owner`; false if it was not there.
    fn remove(conn: &mut DbConnection, owner: i64, member: i64) -> StorageResult<bool>;
    /// Refuses a membership that may not be, `owner` and `member` in one inventory: a cycle.
    fn check(conn: &mut DbConnection, owner: i64, member: i64, inventory: i64) -> ApiResult<()> {
        let _ = (conn, owner, member, inventory);
        Ok(())
    }
}

/// `/groups/<id>/hosts/`.
#[derive(Debug)]
pub struct GroupHosts;

impl Membership for GroupHosts {
    type Owner = Groups;
    type Member = Hosts;

    fn list(
        conn: &mut DbConnection,
        visibility: &acs_authz::ObjectVisibility,
        group: i64,
        params: &ListParams,
    ) -> StorageResult<Result<Page<Host>, ListError>> {
        acs_storage::hosts::list(conn, visibility, Within::Group(group), params)
    }

    fn add(conn: &mut DbConnection, group: i64, host: i64) -> StorageResult<bool> {
        acs_storage::inventory_groups::add_host(conn, group, host)
    }

    fn remove(conn: &mut DbConnection, group: i64, host: i64) -> StorageResult<bool> {
        acs_storage::inventory_groups::remove_host(conn, group, host)
    }
}

/// `/groups/<id>/children/`.
#[derive(Debug)]
pub struct GroupChildren;

impl Membership for GroupChildren {
    type Owner = Groups;
    type Member = Groups;

    fn list(
        conn: &mut DbConnection,
        visibility: &acs_authz::ObjectVisibility,
        parent: i64,
        params: &ListParams,
    ) -> StorageResult<Result<Page<Group>, ListError>> {
        acs_storage::inventory_groups::list(conn, visibility, Within::Group(parent), params)
    }

    fn add(conn: &mut DbConnection, parent: i64, child: i64) -> StorageResult<bool> {
        acs_storage::inventory_groups::add_child(conn, parent, child)
    }

    fn remove(conn: &mut DbConnection, parent: i64, child: i64) -> StorageResult<bool> {
        acs_storage::inventory_groups::remove_child(conn, parent, child)
    }

    fn check(conn: &mut DbConnection, parent: i64, child: i64, inventory: i64) -> ApiResult<()> {
        if acs_storage::inventory_groups::would_cycle(conn, inventory, parent, child)? {
            return Err(error_body("Cyclical Group association."));
        }
        Ok(())
    }
}

/// `/hosts/<id>/groups/`.
#[derive(Debug)]
pub struct HostGroups;

impl Membership for HostGroups {
    type Owner = Hosts;
    type Member = Groups;

    fn list(
        conn: &mut DbConnection,
        visibility: &acs_authz::ObjectVisibility,
        host: i64,
        params: &ListParams,
    ) -> StorageResult<Result<Page<Group>, ListError>> {
        acs_storage::inventory_groups::list(conn, visibility, Within::Host(host), params)
    }

    fn add(conn: &mut DbConnection, host: i64, group: i64) -> StorageResult<bool> {
        acs_storage::inventory_groups::add_host(conn, group, host)
    }

    fn remove(conn: &mut DbConnection, host: i64, group: i64) -> StorageResult<bool> {
        acs_storage::inventory_groups::remove_host(conn, group, host)
    }
}

/// `GET`: the members under the owner, as the caller may see them.
pub async fn list_members<M: Membership>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let owner = path.into_inner();
    signed_in_list_taking_post(&req, &state, move |ctx, principal, list, page_wanted| {
        let (_, governed) = visible::<M::Owner>(ctx, principal, owner)?;
        let visibility =
            acs_authz::visible_objects(&principal.actor, <M::Member as Resource>::ROLE_KIND);
        let conn = ctx.conn()?;
        let page = M::list(conn, &visibility, owner, &list.params)??;
        let results = page
            .items
            .iter()
            .map(|row| M::Member::render_with(conn, principal, row, None))
            .collect::<ApiResult<Vec<_>>>()?;
        let may_change =
            page_wanted && acs_authz::can_change_object(&principal.actor, &governed).is_ok();
        Ok((may_change, list.envelope(page.count, results)?))
    })
    .await
}

/// `POST`: adds, takes out, or creates and adds a member.
pub async fn change_members<M: Membership>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let owner_id = path.into_inner();
    let reply = signed_in_reply(&req, &state, move |ctx, principal| {
        let (owner, governed) = visible::<M::Owner>(ctx, principal, owner_id)?;
        acs_authz::can_change_object(&principal.actor, &governed)?;
        let owner_subject = Subject::named(
            <M::Owner as Resource>::KIND,
            owner_id,
            M::Owner::name(&owner),
        );
        let inventory = owner.inventory_id();
        let settings = ctx.settings()?;
        let now = ctx.now;
        if body.0.get("id").is_none_or(Value::is_null) {
            // A new member, in the owner's inventory.
            let mut body = body.0;
            body.insert("inventory".into(), json!(inventory));
            return ctx
                .write(|conn| {
                    let sent = Body::new(&body, &principal.actor, &settings);
                    create_row::<M::Member>(conn, principal, sent, now, |conn, row| {
                        let member = M::Member::id(row);
                        M::add(conn, owner_id, member)?;
                        let member = Subject::named(
                            <M::Member as Resource>::KIND,
                            member,
                            M::Member::name(row),
                        );
                        record(conn, now, principal, "associate", &owner_subject, &member)
                    })
                })
                .map(Some);
        }
        let mut fields = FieldReader::new(&body.0, true);
        let member_id = fields.id("id", true);
        let disassociate = fields.boolean("disassociate").unwrap_or(false);
        fields.finish()?;
        let member_id =
            member_id.ok_or_else(|| ApiError::field("id", "This field is required."))?;
        ctx.write(|conn| {
            let member = member_in::<M::Member>(conn, principal, member_id)?;
            if member.inventory_id() != inventory && !disassociate {
                return Err(error_body(
                    "A group and what it holds must be in the same inventory.",
                ));
            }
            let operation = if disassociate {
                if !M::remove(conn, owner_id, member_id)? {
                    return Ok(None);
                }
                "disassociate"
            } else {
                M::check(conn, owner_id, member_id, inventory)?;
                if !M::add(conn, owner_id, member_id)? {
                    return Ok(None);
                }
                "associate"
            };
            let member_subject = Subject::named(
                <M::Member as Resource>::KIND,
                member_id,
                M::Member::name(&member),
            );
            record(
                conn,
                now,
                principal,
                operation,
                &owner_subject,
                &member_subject,
            )?;
            Ok(None)
        })
    })
    .await?;
    let Reply {
        value,
        session,
        secure,
    } = reply;
    Ok(match value {
        Some(record) => {
            let location = record["id"]
                .as_i64()
                .map(M::Member::url)
                .unwrap_or_default();
            Reply {
                value: record,
                session,
                secure,
            }
            .created(&location)
        }
        None => Reply {
            value: (),
            session,
            secure,
        }
        .no_content(),
    })
}

/// `OPTIONS`: the members' fields, and the `POST` of an association or of a new member to
/// whoever may write (awxkit's `export` follows the lists whose `POST` takes an `id`).
pub async fn options_members<M: Membership>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = crate::context::run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        let meta = &<M::Member as Resource>::META;
        Ok(meta.association_or_creation(
            crate::http::options::ASSOCIATION,
            !principal.actor.read_only,
        ))
    })
    .await?;
    Ok(reply.options())
}

/// Member `id`, if it exists and the caller may see it (400 naming `id` otherwise, whichever
/// it is, so that the answer tells nothing of records the caller may not see).
fn member_in<R: Resource>(
    conn: &mut DbConnection,
    principal: &Principal,
    id: i64,
) -> ApiResult<R::Row> {
    let missing = || {
        ApiError::field(
            "id",
            format!("Invalid pk \"{id}\" - object does not exist."),
        )
    };
    let row = match R::find(conn, id) {
        Ok(row) => row,
        Err(StorageError::NotFound) => return Err(missing()),
        Err(other) => return Err(other.into()),
    };
    let governed = R::viewed_as(conn, &row)?;
    if !acs_authz::can_view_object(&principal.actor, &governed) {
        return Err(missing());
    }
    Ok(row)
}

fn record(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    principal: &Principal,
    operation: &str,
    owner: &Subject,
    member: &Subject,
) -> ApiResult<()> {
    activity::record(
        conn,
        now,
        Some(&principal.user),
        operation,
        owner,
        Some(member),
        Value::Null,
    )
    .map_err(Into::into)
}

/// A 400 whose body is `{"error": message}`, as the reference answers a membership it refuses.
fn error_body(message: &str) -> ApiError {
    let mut body = Map::new();
    body.insert("error".into(), json!(message));
    ApiError::Invalid(body)
}
