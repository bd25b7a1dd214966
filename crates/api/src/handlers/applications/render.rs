//! The application record (spec §2.1).

use acs_oauth2::PlainSecret;
use acs_storage::applications::{Application, ApplicationSummaries};
use serde::Serialize;

use crate::auth::Principal;
use crate::http::render::{Capabilities, NamedSummary, Record, UserSummary};

/// An application as the API shows it. The client secret appears in clear only in the response
/// that created it, and never for public clients.
pub type ApplicationRecord = Record<Related, SummaryFields, ApplicationFields>;

/// An application record's own fields.
#[derive(Debug, Clone, Serialize)]
pub struct ApplicationFields {
    name: String,
    description: String,
    client_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_secret: Option<String>,
    client_type: String,
    redirect_uris: String,
    authorization_grant_type: String,
    skip_authorization: bool,
    organization: i64,
    user: Option<i64>,
}

/// An application record's links.
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    tokens: String,
    activity_stream: String,
    organization: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<String>,
}

/// What an application record summarizes: its owners, the viewer's rights, its first tokens.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryFields {
    organization: NamedSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    user: Option<UserSummary>,
    user_capabilities: Capabilities,
    tokens: TokensSummary,
}

#[derive(Debug, Clone, Serialize)]
struct TokensSummary {
    count: i64,
    results: Vec<TokenBrief>,
}

#[derive(Debug, Clone, Serialize)]
struct TokenBrief {
    id: i64,
    token: &'static str,
    scope: String,
}

/// Renders `app` as `viewer` sees it; `secret` is the plain client secret, given only by the
/// request that created the application.
pub fn render_application(
    viewer: &Principal,
    app: &Application,
    summaries: &ApplicationSummaries,
    secret: Option<&PlainSecret>,
) -> ApplicationRecord {
    let caps =
        acs_authz::application_capabilities(&viewer.actor, &acs_app::applications::target_of(app));
    let base = format!("/api/v2/applications/{}/", app.id);
    let public = app.client_type == acs_oauth2::ClientType::Public.as_str();
    let related = Related {
        tokens: format!("{base}tokens/"),
        activity_stream: format!("{base}activity_stream/"),
        organization: format!("/api/v2/organizations/{}/", app.organization_id),
        user: app.user_id.map(|id| format!("/api/v2/users/{id}/")),
    };
    let summary_fields = SummaryFields {
        organization: NamedSummary::from(summaries.organization.clone()),
        user: summaries.user.clone().map(UserSummary::from),
        user_capabilities: caps.into(),
        tokens: TokensSummary {
            count: summaries.token_count,
            results: summaries
                .first_tokens
                .iter()
                .map(|(id, scope)| TokenBrief {
                    id: *id,
                    token: acs_oauth2::MASK,
                    scope: scope.clone(),
                })
                .collect(),
        },
    };
    let fields = ApplicationFields {
        name: app.name.clone(),
        description: app.description.clone(),
        client_id: app.client_id.clone(),
        client_secret: (!public).then(|| acs_oauth2::shown(secret).to_owned()),
        client_type: app.client_type.clone(),
        redirect_uris: app.redirect_uris.clone(),
        authorization_grant_type: app.authorization_grant_type.clone(),
        skip_authorization: app.skip_authorization,
        organization: app.organization_id,
        user: app.user_id,
    };
    let stamps = (&app.created, &app.modified);
    let kind = "o_auth2_application";
    Record::new(kind, app.id, base, stamps, related, summary_fields, fields)
}

impl ApplicationFields {
    /// The public client identifier.
    pub fn client_id(&self) -> &str {
        &self.client_id
    }

    /// The secret as shown (in clear only in the record that created the application); `None`
    /// for public clients, which have none.
    pub fn client_secret(&self) -> Option<&str> {
        self.client_secret.as_deref()
    }
}

/// Renders one application with its summaries (one set of queries).
pub fn render_one(
    conn: &mut acs_storage::DbConnection,
    viewer: &Principal,
    app: &Application,
    secret: Option<&PlainSecret>,
) -> crate::error::ApiResult<ApplicationRecord> {
    let mut summaries = acs_storage::applications::summaries(conn, std::slice::from_ref(app))?;
    let summary = summaries.remove(&app.id).unwrap_or_default();
    Ok(render_application(viewer, app, &summary, secret))
}
