//! `GET`, `PUT`, `PATCH`, `DELETE` and `OPTIONS` on `/api/v2/settings/<category>/`.
//!
//! The public handlers only resolve the category from the path; the work is done by the
//! `*_scope` functions, which take the [`Category`] whose settings they serve, so that
//! `/api/v2/settings/all/` (`super::all`, scope [`registry::ALL`]) shares every rule with the
//! categories instead of copying them.

use std::collections::BTreeMap;

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Map, Value, json};

use super::{require_reader, require_superuser};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{
    signed_in, signed_in_no_content, signed_in_offering, signed_in_options,
};
use crate::http::body::JsonObject;
use crate::http::browsable::Offer;
use crate::state::AppState;
use acs_app::settings::registry::{self, Category};

/// The category named in the path; only real categories (never `all`, served by its own
/// route) are found here.
fn category(slug: &str) -> ApiResult<&'static Category> {
    registry::category(slug)
        .ok_or_else(|| ApiError::NotFound("The requested resource could not be found.".into()))
}

fn render(ctx: &mut Context<'_>, slug: &str) -> ApiResult<Value> {
    let settings = ctx.settings()?;
    let values: Map<String, Value> = registry::in_category(slug)
        .flat_map(|def| {
            let value = if def.secret {
                json!("$encrypted$")
            } else if def.name == acs_app::settings::sso::SETTING {
                acs_app::settings::sso::masked(&settings.value(def.name))
            } else {
                settings.value(def.name)
            };
            let reference = registry::reference_name(def.name);
            [Some(def.name), reference]
                .into_iter()
                .flatten()
                .map(move |name| (name.to_owned(), value.clone()))
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
    read_scope(req, state, category(&path)?).await
}

/// The settings of `scope`, secrets masked. A browser's page offers the change and reset
/// forms to whom may write.
pub(super) async fn read_scope(
    req: HttpRequest,
    state: web::Data<AppState>,
    scope: &'static Category,
) -> ApiResult<HttpResponse> {
    let slug = scope.slug;
    signed_in_offering(&req, &state, move |ctx, principal, page_wanted| {
        require_reader(principal)?;
        let writer = page_wanted && require_superuser(principal).is_ok();
        let offer = Offer {
            change: writer,
            delete: writer,
            ..Offer::default()
        };
        Ok((offer, render(ctx, slug)?))
    })
    .await
}

/// Stores the given settings (PUT and PATCH both write only the keys they name).
pub async fn patch_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    write_scope(req, state, category(&path)?, body).await
}

/// Same as PATCH: a settings category has no required keys, so a full update is the same
/// operation.
pub async fn put_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    write_scope(req, state, category(&path)?, body).await
}

/// Validates and stores the keys `body` names, all of them or none; a key outside `scope` is
/// refused by name.
pub(super) async fn write_scope(
    req: HttpRequest,
    state: web::Data<AppState>,
    scope: &'static Category,
    body: JsonObject,
) -> ApiResult<HttpResponse> {
    let slug = scope.slug;
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        require_superuser(principal)?;
        let current = ctx.settings()?;
        let cipher = ctx.state.keys.cipher();
        let mut errors: BTreeMap<String, Vec<String>> = BTreeMap::new();
        let mut accepted = Vec::new();
        let mut proposed = Vec::new();
        for (name, value) in &body.0 {
            match registry::find_named(name).filter(|def| def.belongs_to(slug)) {
                None => {
                    errors.insert(name.clone(), vec![unknown_setting(scope)]);
                }
                // Both names of one setting in one change (a GET sent back does that): the
                // same value is written once; different ones are not ours to choose from.
                Some(def) if def.name != name && body.0.contains_key(def.name) => {
                    if body.0.get(def.name) != Some(value) {
                        errors.insert(
                            name.clone(),
                            vec![format!(
                                "The same setting as {}, given another value: give one of the two.",
                                def.name
                            )],
                        );
                    }
                }
                // `$encrypted$` sent back for a secret means "keep the stored value".
                Some(def) if def.secret && value == "$encrypted$" => {}
                Some(def) => match (def.validate)(value).and_then(|normalised| {
                    let text = acs_app::settings::stored_text(
                        def,
                        &normalised,
                        &current.value(def.name),
                        &cipher,
                        &ctx.state.rng,
                    )?;
                    proposed.push((def.name, normalised));
                    Ok(text)
                }) {
                    Ok(text) => accepted.push((def.name, text)),
                    Err(reason) => {
                        errors.insert(name.clone(), vec![reason]);
                    }
                },
            }
        }
        if errors.is_empty() {
            let value = |name: &str| {
                proposed
                    .iter()
                    .find(|(written, _)| *written == name)
                    .map_or_else(|| current.value(name), |(_, value)| value.clone())
            };
            let written = |name: &str| proposed.iter().any(|(written, _)| *written == name);
            for (name, reason) in acs_app::settings::check_together(&value, &written) {
                errors.entry(name.to_owned()).or_default().push(reason);
            }
        }
        if !errors.is_empty() {
            return Err(ApiError::Fields(errors));
        }
        let now = ctx.now;
        let sealed = accepted
            .iter()
            .any(|(name, _)| acs_app::settings::may_seal(name));
        ctx.write(|conn| {
            for (name, text) in &accepted {
                acs_storage::settings::store(conn, name, text, now)?;
            }
            if sealed {
                acs_app::secret_key::refuse_retired(conn, cipher.current_key_id())?;
            }
            Ok(())
        })?;
        let names: Vec<&str> = accepted.iter().map(|(name, _)| *name).collect();
        tracing::info!(actor = principal.user.id, ?names, "settings changed");
        ctx.reload_settings();
        render(ctx, slug)
    })
    .await
}

/// Why a key is refused: it names no setting of `scope` (with `all`, no setting at all).
fn unknown_setting(scope: &Category) -> String {
    if scope.slug == registry::ALL.slug {
        "Unknown setting.".to_owned()
    } else {
        format!("Unknown setting in category {}.", scope.slug)
    }
}

/// `DELETE`: every setting of the category returns to its default.
pub async fn reset_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    reset_scope(req, state, category(&path)?).await
}

/// Every setting of `scope` returns to its default (its stored value is removed).
pub(super) async fn reset_scope(
    req: HttpRequest,
    state: web::Data<AppState>,
    scope: &'static Category,
) -> ApiResult<HttpResponse> {
    let slug = scope.slug;
    signed_in_no_content(&req, &state, move |ctx, principal| {
        require_superuser(principal)?;
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
    .await
}

/// Field metadata of the category.
pub async fn options_category(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    options_scope(req, state, category(&path)?).await
}

/// Field metadata of the settings of `scope`; each field names its own category (under `all`
/// too, where the fields come from every category).
pub(super) async fn options_scope(
    req: HttpRequest,
    state: web::Data<AppState>,
    scope: &'static Category,
) -> ApiResult<HttpResponse> {
    signed_in_options(&req, &state, move |_ctx, principal| {
        require_reader(principal)?;
        let fields: Map<String, Value> = registry::in_category(scope.slug)
            .flat_map(|def| {
                let category = registry::category(def.category).map_or(def.category, |c| c.name);
                let kind = match (def.default)() {
                    Value::Bool(_) => "boolean",
                    Value::Number(_) => "integer",
                    Value::Array(_) => "list",
                    Value::Object(_) => "nested object",
                    _ => "string",
                };
                let field = json!({ "type": kind, "label": def.label, "help_text": def.help_text, "required": false, "category": category });
                let reference = registry::reference_name(def.name).map(|name| {
                    let mut alias = field.clone();
                    alias["help_text"] = json!(format!("{} (ACS's name: {}.)", def.help_text, def.name));
                    (name.to_owned(), alias)
                });
                std::iter::once((def.name.to_owned(), field)).chain(reference)
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
            json!({ "name": format!("{} Settings", scope.name), "description": "", "renders": ["application/json"], "parses": ["application/json"], "actions": actions }),
            allow.to_owned(),
        ))
    })
    .await
}
