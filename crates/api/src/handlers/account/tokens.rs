//! The profile page's token forms: `POST /accounts/profile/tokens/` creates a personal token
//! (its value shown once, on the page that answers) and
//! `POST /accounts/profile/tokens/<id>/revoke/` revokes one of the user's tokens.

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::page::{Access, as_user, body_of, form_errors, removal, render, stopped};
use super::profile::{PATH, view};
use crate::error::ApiResult;
use crate::handlers::detail::Delete;
use crate::handlers::tokens::{self, Tokens};
use crate::http::body::{FormBody, JsonObject};
use crate::state::AppState;

/// Creates a personal token with the form's description and scope, as
/// `POST /api/v2/users/<me>/personal_tokens/` would.
pub async fn create_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let access = Access::form(&form);
    let body = JsonObject(body_of(&form, &["description", "scope"]));
    let reply = as_user(&state, &req, access, move |ctx, principal| {
        let created = tokens::create_personal(ctx, &principal, &body);
        // The list below must include the new token: read it after the creation.
        let mut page = view(ctx, &principal)?;
        let status = match created {
            Ok(record) => {
                page.new_token = Some(record.fields().value().to_owned());
                StatusCode::CREATED
            }
            Err(error) => {
                let (status, errors) = form_errors(error)?;
                page.errors = errors;
                page.description = text(&body, "description");
                page.scope = text(&body, "scope");
                status
            }
        };
        Ok((status, page))
    })
    .await?;
    match &reply.value {
        Ok((status, page)) => render(&req, &state, *status, "profile", page, &reply),
        Err(stop) => stopped(&state, stop, PATH),
    }
}

/// Revokes token `id` under the API's rules (its owner, or who administers it), then returns
/// to the profile.
pub async fn revoke_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
    form: FormBody,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    let back = format!("{PATH}?done=revoked");
    removal(&state, &req, &form, (PATH, &back), move |ctx, principal| {
        Tokens::delete(ctx, principal, id)
    })
    .await
}

/// A form field of the body, as text (the API's readers reject what is not).
fn text(body: &JsonObject, name: &str) -> String {
    body.0
        .get(name)
        .and_then(serde_json::Value::as_str)
        .unwrap_or_default()
        .to_owned()
}
