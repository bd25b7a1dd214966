//! `GET`, `PUT`, `PATCH`, `DELETE` and `OPTIONS` on `/api/v2/settings/<category>/`.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::{require_reader, require_superuser};
use crate::context::{Context, run};
use crate::error::{ApiError, ApiResult};
use crate::http::body::JsonObject;
use crate::settings::registry::{self, CATEGORIES, Category};
use crate::state::AppState;

fn category(slug: &str) -> ApiResult<&'static Category> {
    CATEGORIES
        .iter()
        .find(|c| c.slug == slug)
        .ok_or_else(|| ApiError::NotFound("The requested resource could not be found.".into()))
}

fn render(ctx: &mut Context<'_>, slug: &str) -> ApiResult<Value> {
    let settings = ctx.settings()?;
    let values: Map<String, Value> = registry::in_category(slug)
        .map(|def| {
            let value = if def.secret {
                json!("$encrypted$")
            } else if def.name == crate::settings::sso::SETTING {
                crate::settings::sso::masked(&settings.value(def.name))
            } else {
                settings.value(def.name)
            };
            (def.name.to_owned(), value)
        })
        .collect();
    Ok(Value::Object(values))
}

/// The settings of one category.
pub async fn get_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let slug = category(&path)?.slug;
    let reply = run(&state, &req, move |ctx| {
        require_reader(&ctx.require_user()?)?;
        render(ctx, slug)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// Stores the given settings (PUT and PATCH both write only the keys they name).
pub async fn patch_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    write(req, state, path.into_inner(), body).await
}

/// Same as PATCH: a settings category has no required keys, so a full update is the same
/// operation.
pub async fn put_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    write(req, state, path.into_inner(), body).await
}

async fn write(
    req: HttpRequest,
    state: web::Data<AppState>,
    slug: String,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let slug = category(&slug)?.slug;
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        require_superuser(&principal)?;
        let current = ctx.settings()?;
        let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut accepted = Vec::new();
        for (name, value) in &body.0 {
            match registry::find(name).filter(|def| def.category == slug) {
                None => {
                    errors.insert(
                        name.clone(),
                        vec![format!("Unknown setting in category {slug}.")],
                    );
                }
                // `$encrypted$` sent back for a secret means "keep the stored value".
                Some(def) if def.secret && value == "$encrypted$" => {}
                Some(def) => match (def.validate)(value).and_then(|normalised| {
                    crate::settings::stored_text(
                        def,
                        &normalised,
                        &current.value(def.name),
                        &ctx.state.input_cipher,
                        &ctx.state.rng,
                    )
                }) {
                    Ok(text) => accepted.push((def.name, text)),
                    Err(reason) => {
                        errors.insert(name.clone(), vec![reason]);
                    }
                },
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Fields(errors));
        }
        let now = ctx.now;
        ctx.write(|conn| {
            for (name, text) in &accepted {
                acs_storage::settings::store(conn, name, text, now)?;
            }
            Ok(())
        })?;
        let names: Vec<&str> = accepted.iter().map(|(name, _)| *name).collect();
        tracing::info!(actor = principal.user.id, ?names, "settings changed");
        ctx.reload_settings();
        render(ctx, slug)
    })
    .await?;
    Ok(reply.json(StatusCode::OK))
}

/// `DELETE`: every setting of the category returns to its default.
pub async fn reset_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let slug = category(&path)?.slug;
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        require_superuser(&principal)?;
        ctx.write(|conn| {
            for def in registry::in_category(slug) {
                acs_storage::settings::remove(conn, def.name)?;
            }
            Ok(())
        })?;
        tracing::info!(
            actor = principal.user.id,
            category = slug,
            "settings reset to defaults"
        );
        Ok(())
    })
    .await?;
    Ok(reply.no_content())
}

/// Field metadata of the category.
pub async fn options_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let category = category(&path)?;
    let reply = run(&state, &req, move |ctx| {
        let principal = ctx.require_user()?;
        require_reader(&principal)?;
        let fields: Map<String, Value> = registry::in_category(category.slug)
            .map(|def| {
                let kind = match (def.default)() {
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "integer",
                    Value::Array(_) => "list",
                    Value::Object(_) => "nested object",
                    _ => "string",
                };
                (def.name.to_owned(), json!({ "type": kind, "label": def.label, "help_text": def.help_text, "required": false, "category": category.name }))
            })
            .collect();
        let mut actions = Map::new();
        actions.insert("GET".into(), Value::Object(fields.clone()));
        let allow = if principal.actor.is_superuser {
            actions.insert("PUT".into(), Value::Object(fields));
            "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
        } else {
            "GET, HEAD, OPTIONS"
        };
        Ok((
            json!({ "name": format!("{} Settings", category.name), "description": "", "renders": ["application/json"], "parses": ["application/json"], "actions": actions }),
            allow.to_owned(),
        ))
    })
    .await?;
    Ok(reply.options())
}
