//! `GET /accounts/profile/`: where a login without `next` lands. Anonymous visitors are sent to
//! the login page and come back.

use actix_web::http::{StatusCode, header};
use actix_web::{HttpRequest, HttpResponse, web};

use crate::auth::csrf;
use crate::context::run;
use crate::error::ApiResult;
use crate::http::response::apply_session;
use crate::pages::{ProfilePage, page_response};
use crate::state::AppState;

/// The signed-in user's profile page.
pub async fn profile(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| ctx.session_user()).await?;
    let Some(user) = &reply.value else {
        return Ok(HttpResponse::Found()
            .insert_header((header::LOCATION, "/api/login/?next=/accounts/profile/"))
            .finish());
    };
    let token = req
        .cookie(csrf::COOKIE)
        .map(|c| c.value().to_owned())
        .unwrap_or_default();
    let role = if user.is_superuser {
        "Superuser"
    } else if user.is_system_auditor {
        "System auditor"
    } else {
        "User"
    };
    let html = state.pages.html(
        "profile",
        &ProfilePage {
            username: &user.username,
            first_name: &user.first_name,
            last_name: &user.last_name,
            email: &user.email,
            role,
            csrf_token: &token,
        },
    )?;
    let mut response = page_response(StatusCode::OK);
    apply_session(&mut response, reply.session.as_ref(), reply.secure);
    Ok(response.body(html))
}
