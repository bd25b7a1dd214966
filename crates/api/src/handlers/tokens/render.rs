//! The token record (spec §2.2). Token values appear in clear only in the response that
//! created them; every later response shows the mask.

use acs_oauth2::PlainSecret;
use acs_storage::tokens::TokenRow;
use serde::Serialize;

use crate::http::render::{Record, UserSummary, timestamp};

/// A token as the API shows it.
pub type TokenRecord = Record<Related, SummaryFields, TokenFields>;

/// A token record's own fields.
#[derive(Debug, Clone, Serialize)]
pub struct TokenFields {
    description: String,
    user: i64,
    token: String,
    refresh_token: Option<String>,
    application: Option<i64>,
    expires: String,
    scope: String,
}

/// A token record's links.
#[derive(Debug, Clone, Serialize)]
pub struct Related {
    user: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    application: Option<String>,
    activity_stream: String,
}

/// What a token record summarizes: its user and application.
#[derive(Debug, Clone, Serialize)]
pub struct SummaryFields {
    user: UserSummary,
    #[serde(skip_serializing_if = "Option::is_none")]
    application: Option<ApplicationSummary>,
}

#[derive(Debug, Clone, Serialize)]
struct ApplicationSummary {
    id: i64,
    name: String,
    client_id: String,
}

impl TokenFields {
    /// The value as shown: in clear only in the record that created the token.
    pub fn value(&self) -> &str {
        &self.token
    }
}

/// The plain values of a token being created, shown once.
#[derive(Debug, Clone, Copy)]
pub struct Plain<'a> {
    /// The access token.
    pub token: &'a PlainSecret,
    /// The refresh token (application tokens only).
    pub refresh_token: Option<&'a PlainSecret>,
}

/// Renders a token; `plain` only in the creation response.
pub fn render_token(row: &TokenRow, plain: Option<Plain<'_>>) -> TokenRecord {
    let token = &row.token;
    let base = format!("/api/v2/tokens/{}/", token.id);
    // Application tokens always carry a refresh token: it is issued with them, and revoking
    // it revokes the access token too.
    let refresh_token = token
        .application_id
        .map(|_| acs_oauth2::shown(plain.and_then(|p| p.refresh_token)).to_owned());
    let related = Related {
        user: format!("/api/v2/users/{}/", token.user_id),
        application: token
            .application_id
            .map(|id| format!("/api/v2/applications/{id}/")),
        activity_stream: format!("{base}activity_stream/"),
    };
    let summary_fields = SummaryFields {
        user: UserSummary::from(row.user.clone()),
        application: row
            .application
            .clone()
            .map(|(id, name, client_id)| ApplicationSummary {
                id,
                name,
                client_id,
            }),
    };
    let fields = TokenFields {
        description: token.description.clone(),
        user: token.user_id,
        token: acs_oauth2::shown(plain.map(|p| p.token)).to_owned(),
        refresh_token,
        application: token.application_id,
        expires: timestamp(&token.expires),
        scope: token.scope.clone(),
    };
    let stamps = (&token.created, &token.modified);
    Record::new(
        "o_auth2_access_token",
        token.id,
        base,
        stamps,
        related,
        summary_fields,
        fields,
    )
}

/// Renders one stored token with its summaries; `plain` only in the creation response.
pub fn render_one(
    conn: &mut acs_storage::DbConnection,
    token: acs_storage::tokens::AccessToken,
    plain: Option<Plain<'_>>,
) -> crate::error::ApiResult<TokenRecord> {
    let rows = acs_storage::tokens::rows(conn, vec![token])?;
    let row = rows
        .first()
        .ok_or_else(|| crate::error::ApiError::Internal("token row vanished".into()))?;
    Ok(render_token(row, plain))
}
