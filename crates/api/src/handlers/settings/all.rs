//! `/api/v2/settings/all/`: every setting of every category in one object, as the reference
//! controller serves it. The `awx.awx.settings` module reads and patches only this path.
//!
//! Each handler only picks the scope [`ALL`]; the category code does the work, so both paths
//! mask, validate, refuse unknown keys and store identically. The route is registered before
//! `/api/v2/settings/{category}/`, which would otherwise answer 404 for the slug `all`.

use actix_web::{HttpRequest, HttpResponse, web};

use super::category::{options_scope, read_scope, reset_scope, write_scope};
use crate::error::ApiResult;
use crate::http::body::JsonObject;
use crate::state::AppState;
use acs_app::settings::registry::ALL;

/// `GET`: every setting, secrets masked.
pub async fn get_all(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    read_scope(req, state, &ALL).await
}

/// `PATCH`: stores the keys named, whatever their category.
pub async fn patch_all(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    write_scope(req, state, &ALL, body).await
}

/// `PUT`: the same as `PATCH`, as for a category (no setting is required).
pub async fn put_all(
    req: HttpRequest,
    state: web::Data<AppState>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    write_scope(req, state, &ALL, body).await
}

/// `DELETE`: every setting returns to its default.
pub async fn reset_all(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    reset_scope(req, state, &ALL).await
}

/// `OPTIONS`: the metadata of every setting, each under its own category's name.
pub async fn options_all(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    options_scope(req, state, &ALL).await
}
