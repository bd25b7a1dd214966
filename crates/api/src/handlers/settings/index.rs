//! `GET /api/v2/settings/`: the categories, `all` first as the reference controller lists it.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use super::require_reader;
use crate::context::run;
use crate::error::ApiResult;
use crate::settings::registry::{ALL, CATEGORIES};
use crate::state::AppState;

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
