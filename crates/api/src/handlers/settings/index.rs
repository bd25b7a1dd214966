//! `GET /api/v2/settings/`: the categories, `all` first as the reference controller lists it.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use super::require_reader;
use crate::context::run;
use crate::error::ApiResult;
use crate::state::AppState;
use acs_app::settings::registry::{ALL, CATEGORIES};

/// Lists the settings categories, `all` (every setting) first.
pub async fn list_categories(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        require_reader(&ctx.require_user()?)?;
        let results: Vec<_> = std::iter::once(&ALL)
            .chain(CATEGORIES)
            .map(|c| json!({ "url": format!("/api/v2/settings/{}/", c.slug), "slug": c.slug, "name": c.name }))
            .collect();
        Ok(json!({ "count": results.len(), "next": null, "previous": null, "results": results }))
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// The categories' metadata.
const CATEGORIES_META: crate::http::options::ResourceMeta = crate::http::options::ResourceMeta {
    name: "Setting Categories",
    description: "The settings categories; `all` holds every setting.",
    fields: &[
        crate::http::options::FieldMeta::read_only("url", "string", "URL"),
        crate::http::options::FieldMeta::read_only("slug", "string", "Slug"),
        crate::http::options::FieldMeta::read_only("name", "string", "Name"),
    ],
};

/// `OPTIONS`: the categories are read only; who may read settings may ask.
pub async fn options_categories(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        require_reader(&ctx.require_user()?)?;
        Ok(CATEGORIES_META.read_only("GET, HEAD, OPTIONS"))
    })
    .await?;
    Ok(reply.options())
}
