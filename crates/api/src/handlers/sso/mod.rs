//! Single sign-on with OpenID Connect (contract §3): `/sso/login/<name>/` sends the browser
//! to provider `name` (authorization code with PKCE, `state` and `nonce`), and
//! `/sso/complete/<name>/` takes it back: the code is exchanged, the ID token's signature and
//! claims are verified, the user linked to the provider's issuer and subject is found or
//! created, and a session starts as with a form login. `/api/v2/auth/` lists the providers
//! (`methods`), and the login page draws its buttons from that list.
//!
//! The sign-in in progress is stored by the digest of its `state` (nonce and PKCE verifier
//! sealed), so any server can complete it, once, and only in the browser that started it
//! (`binding`). Whatever goes wrong answers an error page
//! (400 for a bad or replayed state, 502/503 for a provider that misbehaves or cannot be
//! reached), never a 500 and never a session.

mod binding;
mod complete;
mod methods;
mod provider;
mod start;

pub use complete::complete_sign_in;
pub use methods::{SignOnMethod, list_sign_on_methods, options_sign_on_methods, sign_on_methods};
pub use start::start_sign_in;

use actix_web::HttpResponse;
use actix_web::http::StatusCode;

use crate::error::ApiResult;
use crate::pages::{MessagePage, message_page};
use crate::state::AppState;

/// The identity source name users created here carry.
pub const SOURCE: &str = "oidc";

/// How long a started sign-in may take to complete.
const SIGN_IN_SECONDS: i64 = 600;

/// The error page of a sign-in that could not complete.
fn failure(state: &AppState, status: StatusCode, message: &str) -> ApiResult<HttpResponse> {
    message_page(
        &state.pages,
        status,
        &MessagePage {
            title: "Single sign-on failed",
            message,
            detail: Some("Nobody was signed in. Go back to the login page and try again."),
        },
    )
}
