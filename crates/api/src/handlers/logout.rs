//! `GET` or `POST /api/logout/`: ends the session and clears the login cookies.

use acs_oauth2::PlainSecret;
use actix_web::http::header;
use actix_web::{HttpRequest, HttpResponse, web};

use crate::auth::csrf;
use crate::context::{is_safe, run};
use crate::error::ApiResult;
use crate::handlers::login::safe_next;
use crate::http::cookies::cookie;
use crate::http::response::apply_transport;
use crate::state::AppState;

/// Deletes the session (if any) and redirects to `next` or `/api/`. A POST from a logged-in
/// browser must carry the CSRF token, so another site cannot log users out.
pub async fn logout(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: crate::http::body::FormBody,
) -> ApiResult<HttpResponse> {
    let query: Vec<(String, String)> =
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default();
    let next = safe_next(
        query
            .iter()
            .find(|(k, _)| k == "next")
            .map(|(_, v)| v.as_str()),
    )
    .unwrap_or("/api/")
    .to_owned();
    let token = form.get("csrfmiddlewaretoken").map(str::to_owned);
    let reply = run(&state, &req, move |ctx| {
        let settings = ctx.settings()?;
        let name = settings.session_cookie_name().to_owned();
        if let Some(value) = ctx.request.cookie(&name).map(str::to_owned) {
            if !is_safe(&ctx.request.method) {
                let sent = ctx.request.csrf_header.clone().or(token);
                let https = ctx.request.is_https(settings.trusted_proxies());
                csrf::check_token(&ctx.request, sent.as_deref(), https)?;
            }
            let digest = PlainSecret::new(value).digest();
            ctx.write(|conn| {
                Ok(acs_storage::sessions::delete_by_digest(
                    conn,
                    digest.as_bytes(),
                )?)
            })?;
        }
        Ok(name)
    })
    .await?;
    let secure = reply.secure;
    let mut response = HttpResponse::Found();
    apply_transport(&mut response, secure);
    Ok(response
        .insert_header((header::LOCATION, next))
        .cookie(cookie(reply.value, String::new(), true, Some(0), secure))
        .cookie(cookie(
            "userLoggedIn".into(),
            "false".into(),
            false,
            None,
            secure,
        ))
        .cookie(cookie(
            "current_user".into(),
            String::new(),
            false,
            Some(0),
            secure,
        ))
        .finish())
}
