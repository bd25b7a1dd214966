//! `GET /api/v2/auth/` (anonymous): the single-sign-on methods a user may choose, as the
//! reference lists them (`login_url` relative, `complete_url` absolute), one per configured
//! OpenID provider under the key `oidc:<name>` (the reference's one `oidc` key cannot tell
//! several providers apart; its SAML IdPs are keyed the same way, `saml:<idp>`). The login
//! page draws its buttons from the same list. Directory login is not listed: it uses the
//! login form, as in the reference.

use actix_web::{HttpRequest, HttpResponse, web};
use serde::Serialize;
use serde_json::{Map, Value, json};

use super::start::redirect_uri;
use crate::context::run;
use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta};
use crate::state::AppState;

/// What `OPTIONS` says of the list.
const META: ResourceMeta = ResourceMeta {
    name: "Authentication methods",
    description: "The single-sign-on methods, by key (`oidc:<name>`).",
    fields: &[
        FieldMeta::read_only("login_url", "string", "Where a sign-in starts"),
        FieldMeta::read_only(
            "complete_url",
            "string",
            "Where the provider sends the browser back",
        ),
        FieldMeta::read_only("label", "string", "The button's text"),
    ],
};

/// One way to sign in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignOnMethod {
    /// `oidc:<name>`.
    pub key: String,
    /// The button's text.
    pub label: String,
    /// `/sso/login/<name>/`.
    pub login_url: String,
    /// `<base>/sso/complete/<name>/`, where the provider sends the browser back.
    pub complete_url: String,
}

/// The methods `settings` configures, sorted by key; `base` is this service's URL.
pub fn sign_on_methods(settings: &acs_app::settings::Settings, base: &str) -> Vec<SignOnMethod> {
    let mut methods: Vec<SignOnMethod> = acs_app::settings::sso::buttons(settings)
        .into_iter()
        .map(|(name, label)| SignOnMethod {
            key: format!("{}:{name}", super::SOURCE),
            label,
            login_url: format!("/sso/login/{name}/"),
            complete_url: redirect_uri(base, &name),
        })
        .collect();
    methods.sort_by(|a, b| a.key.cmp(&b.key));
    methods
}

/// Lists the methods.
pub async fn list_sign_on_methods(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let settings = ctx.settings()?;
        let base = ctx.base_url()?;
        Ok(sign_on_methods(&settings, &base))
    })
    .await?;
    let listed: Map<String, Value> = reply
        .value
        .into_iter()
        .map(|method| {
            let entry = json!({
                "login_url": method.login_url,
                "complete_url": method.complete_url,
                "label": method.label,
            });
            (method.key, entry)
        })
        .collect();
    Ok(HttpResponse::Ok().json(listed))
}

/// `OPTIONS /api/v2/auth/`: for anyone, as the list is.
pub async fn options_sign_on_methods(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    let reply = run(
        &state,
        &req,
        |_ctx| Ok(META.read_only("GET, HEAD, OPTIONS")),
    )
    .await?;
    Ok(reply.options())
}
