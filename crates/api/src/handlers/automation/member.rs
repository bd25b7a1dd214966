//! `GET`, `PUT`, `PATCH`, `DELETE` and `OPTIONS` on one row of a resource.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::resource::{Resource, name_conflict, visible};
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in, signed_in_no_content, signed_in_options};
use crate::http::body::JsonObject;
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// One row of `R`.
pub async fn get_resource<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (row, _) = visible::<R>(ctx, principal, id)?;
        R::render(ctx.conn()?, principal, &row)
    })
    .await
}

/// Full update.
pub async fn put_resource<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    update::<R>(req, state, path.into_inner(), body, true).await
}

/// Partial update.
pub async fn patch_resource<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    update::<R>(req, state, path.into_inner(), body, false).await
}

async fn update<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    id: i64,
    body: JsonObject,
    full: bool,
) -> ApiResult<HttpResponse> {
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let (_, organization) = visible::<R>(ctx, principal, id)?;
        acs_authz::can_change_automation(&principal.actor, organization)?;
        let settings = ctx.settings()?;
        let now = ctx.now;
        ctx.write(|conn| {
            // Read again inside the transaction, so the checks see what the update changes.
            let before = R::find(conn, id)?;
            let (input, moved_to) = R::read(
                conn,
                &principal.actor,
                &settings,
                &body.0,
                Some(&before),
                full,
            )?;
            acs_authz::can_change_automation(&principal.actor, moved_to)?;
            let old = R::render(conn, principal, &before)?;
            let row =
                R::update(conn, id, input, principal.user.id, now).map_err(name_conflict::<R>)?;
            let record = R::render(conn, principal, &row)?;
            activity::record_update(
                conn,
                now,
                &principal.user,
                &Subject::named(R::KIND, id, R::name(&row)),
                &old,
                &record,
            )?;
            Ok(record)
        })
    })
    .await
}

/// Deletes one row of `R`.
pub async fn delete_resource<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_no_content(&req, &state, move |ctx, principal| {
        let (row, organization) = visible::<R>(ctx, principal, id)?;
        acs_authz::can_change_automation(&principal.actor, organization)?;
        let now = ctx.now;
        ctx.write(|conn| {
            let record = R::render(conn, principal, &row)?;
            R::delete(conn, id)?;
            activity::record_deletion(
                conn,
                now,
                &principal.user,
                &Subject::named(R::KIND, id, R::name(&row)),
                &record,
            )
            .map_err(Into::into)
        })?;
        tracing::info!(actor = principal.user.id, kind = R::KIND, id, "deleted");
        Ok(())
    })
    .await
}

/// Detail metadata of `R`.
pub async fn options_member<R: Resource>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_options(&req, &state, move |ctx, principal| {
        // Answers for any id, as the other details do (awxkit probes `OPTIONS <collection>/1/`
        // to learn the subcommands, whichever object 1 is): an object the caller cannot see,
        // or that does not exist, gets the metadata without the write action.
        let can_change = match visible::<R>(ctx, principal, id) {
            Ok((_, organization)) => {
                acs_authz::automation_capabilities(&principal.actor, organization).edit
            }
            Err(ApiError::NotFound(_) | ApiError::Forbidden(_)) => false,
            Err(other) => return Err(other),
        };
        Ok(R::META.detail(can_change))
    })
    .await
}
