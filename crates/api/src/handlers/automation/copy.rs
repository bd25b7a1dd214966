//! `GET` and `POST /api/v2/{job_templates,inventories,projects}/<id>/copy/`, the reference's
//! copy. A copy is a creation from the original's own fields with the new name (and any
//! other field the body gives), so it meets every check `POST` on the collection meets: a
//! template's copier must be allowed to use its project and inventory, an inventory's to
//! create inventories in its organization. What belongs with the row goes with it (a
//! template's credentials the copier may use, an inventory's hosts), in the same
//! transaction. `GET` says whether a copy would be allowed, and what it would leave out.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::collection::create_row;
use super::resource::{Body, Resource, visible};
use super::{Inventories, JobTemplates, Projects};
use crate::error::ApiResult;
use crate::handlers::frame::signed_in;
use crate::http::body::JsonObject;
use crate::state::AppState;
use acs_authz::Actor;
use acs_storage::{DbConnection, Timestamp};

/// A resource that can be copied.
pub trait Copied: Resource {
    /// The credentials a copy of `original` made by `actor` leaves out, as `{id, name}`: those
    /// `actor` may not use.
    fn left_out(
        conn: &mut DbConnection,
        actor: &Actor,
        original: &Self::Row,
    ) -> ApiResult<Vec<Value>> {
        let _ = (conn, actor, original);
        Ok(Vec::new())
    }

    /// Copies what belongs with `original` to `copy` (all but what [`Copied::left_out`]
    /// names).
    fn copy_related(
        conn: &mut DbConnection,
        actor: &Actor,
        (original, copy): (&Self::Row, &Self::Row),
        now: Timestamp,
    ) -> ApiResult<()> {
        let _ = (conn, actor, original, copy, now);
        Ok(())
    }
}

impl Copied for Projects {}

impl Copied for Inventories {
    fn copy_related(
        conn: &mut DbConnection,
        _: &Actor,
        (original, copy): (&Self::Row, &Self::Row),
        now: Timestamp,
    ) -> ApiResult<()> {
        acs_storage::hosts::copy_all(conn, original.id, copy.id, now)?;
        acs_storage::inventory_groups::copy_all(conn, original.id, copy.id, now)?;
        Ok(())
    }
}

impl Copied for JobTemplates {
    fn left_out(
        conn: &mut DbConnection,
        actor: &Actor,
        original: &Self::Row,
    ) -> ApiResult<Vec<Value>> {
        let mut left = Vec::new();
        for credential in acs_storage::job_templates::credentials_of(conn, original.id)? {
            let target = acs_app::credentials::target_of(conn, &credential)?;
            if acs_authz::can_use_credential(actor, &target).is_err() {
                left.push(json!({"id": credential.id, "name": credential.name}));
            }
        }
        Ok(left)
    }

    fn copy_related(
        conn: &mut DbConnection,
        actor: &Actor,
        (original, copy): (&Self::Row, &Self::Row),
        _: Timestamp,
    ) -> ApiResult<()> {
        for credential in acs_storage::job_templates::credentials_of(conn, original.id)? {
            let target = acs_app::credentials::target_of(conn, &credential)?;
            if acs_authz::can_use_credential(actor, &target).is_ok() {
                acs_storage::job_templates::attach(conn, copy.id, credential.id)?;
            }
        }
        Ok(())
    }
}

/// The creation body of a copy of `original`: its own fields and description, then what the
/// request gives (the name, which the original's is not, so that it must be given).
fn body_of<R: Copied>(
    conn: &mut DbConnection,
    original: &R::Row,
    sent: &Map<String, Value>,
) -> ApiResult<Map<String, Value>> {
    let mut body = Map::new();
    body.insert("description".into(), json!(R::description(original)));
    for (field, value) in R::fields(conn, original)? {
        body.insert(field.into(), value);
    }
    body.extend(
        sent.iter()
            .map(|(field, value)| (field.clone(), value.clone())),
    );
    Ok(body)
}

/// Whether the caller may copy the row, and what a copy would leave out.
pub async fn copy_check<R: Copied>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (original, _) = visible::<R>(ctx, principal, id)?;
        let settings = ctx.settings()?;
        let conn = ctx.conn()?;
        // A dry run of the creation's checks, under a name that only has to be valid.
        let probe = body_of::<R>(
            conn,
            &original,
            &Map::from_iter([("name".into(), json!("copy"))]),
        )?;
        let allowed = R::read(conn, Body::new(&probe, &principal.actor, &settings))
            .and_then(|(input, organization)| {
                R::may_create(conn, &principal.actor, &input, organization)
            })
            .is_ok();
        let left_out = R::left_out(conn, &principal.actor, &original)?;
        Ok(json!({
            "can_copy": allowed,
            "can_copy_without_user_input": allowed && left_out.is_empty(),
            "templates_unable_to_copy": [],
            "credentials_unable_to_copy": left_out,
            "inventories_unable_to_copy": [],
        }))
    })
    .await
}

/// Copies the row under the name the body gives.
pub async fn copy<R: Copied>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::CREATED, move |ctx, principal| {
        let (original, _) = visible::<R>(ctx, principal, id)?;
        let settings = ctx.settings()?;
        let now = ctx.now;
        let mut record = ctx.write(|conn| {
            let object = body_of::<R>(conn, &original, &body.0)?;
            let sent = Body::new(&object, &principal.actor, &settings);
            create_row::<R>(conn, principal, sent, now, |conn, copy| {
                R::copy_related(conn, &principal.actor, (&original, copy), now)
            })
        })?;
        // A copy is a creation: a git project's copy is checked out into its own directory.
        R::after_create(ctx, principal, &mut record)?;
        Ok(record)
    })
    .await
}
