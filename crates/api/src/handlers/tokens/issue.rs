//! Issuing an access token (and, for an application, its refresh token): the one path every
//! token creation takes, so the external-user rule, the lifetimes and the activity record
//! apply to all of them.

use acs_oauth2::PlainSecret;
use acs_storage::DbConnection;
use acs_storage::applications::Application;
use acs_storage::tokens::{NewAccessToken, NewRefreshToken, TokenRow};
use acs_storage::users::User;

use super::input::TokenInput;
use super::render::{Plain, render_token};
use crate::error::{ApiError, ApiResult};
use acs_app::activity::{self, Subject};

/// A token just issued, with its plain values (shown once).
#[derive(Debug)]
pub struct Issued {
    /// The stored row with its owner and application summaries.
    pub row: TokenRow,
    /// The access token value.
    pub value: PlainSecret,
    /// The refresh token value, for application tokens.
    pub refresh: Option<PlainSecret>,
}

impl Issued {
    /// The plain values for the creation response.
    pub fn plain(&self) -> Plain<'_> {
        Plain {
            token: &self.value,
            refresh_token: self.refresh.as_ref(),
        }
    }
}

/// What to issue.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// Who acts (recorded in the activity stream); `None` for the system.
    pub actor: Option<&'a User>,
    /// The user the token acts for.
    pub owner: &'a User,
    /// The application, or `None` for a personal token.
    pub application: Option<&'a Application>,
    /// Validated scope.
    pub scope: &'a str,
    /// Free text.
    pub description: &'a str,
    /// For a refresh: the rotation chain the new refresh token continues.
    pub chain: Option<i64>,
}

/// Checks the external-user rule, generates the values and stores their digests (inside the
/// caller's transaction when `conn` is in one), and records the creation.
pub fn issue(
    conn: &mut DbConnection,
    rng: &dyn ring::rand::SecureRandom,
    settings: &acs_app::settings::Settings,
    now: acs_storage::Timestamp,
    request: Request<'_>,
) -> ApiResult<Issued> {
    acs_oauth2::check_token_creation(
        request.owner.external_account.as_deref(),
        settings.allow_oauth2_for_external_users(),
    )
    .map_err(|denied| ApiError::Forbidden(denied.to_string()))?;
    let random_failed = |_| ApiError::Internal("random number generator failed".into());
    let value = acs_oauth2::generate_secret(rng).map_err(random_failed)?;
    let refresh = match request.application {
        Some(_) => Some(acs_oauth2::generate_secret(rng).map_err(random_failed)?),
        None => None,
    };
    let lifetimes = settings.oauth2_provider();
    let digest = value.digest();
    let token = acs_storage::tokens::insert(
        conn,
        &NewAccessToken {
            digest: digest.as_bytes(),
            user_id: request.owner.id,
            application_id: request.application.map(|a| a.id),
            description: request.description,
            scope: request.scope,
            expires: lifetimes.access_token_expires(now, request.application.is_none()),
            created: now,
            modified: now,
        },
    )?;
    if let (Some(application), Some(refresh)) = (request.application, &refresh) {
        acs_storage::tokens::insert_refresh(
            conn,
            &NewRefreshToken {
                digest: refresh.digest().as_bytes(),
                user_id: request.owner.id,
                application_id: application.id,
                access_token_id: Some(token.id),
                scope: request.scope,
                created: now,
                chain_id: request.chain,
            },
        )?;
    }
    // The owner and application are at hand: no need to read their summaries back inside
    // the write transaction (on SQLite every statement there holds up all other writers).
    let owner = request.owner;
    let row = TokenRow {
        user: (
            owner.id,
            owner.username.clone(),
            owner.first_name.clone(),
            owner.last_name.clone(),
        ),
        application: request
            .application
            .map(|app| (app.id, app.name.clone(), app.client_id.clone())),
        token,
    };
    let masked = render_token(&row, None);
    activity::record(
        conn,
        now,
        request.actor,
        "create",
        &Subject::named(
            acs_storage::activity::TOKEN,
            row.token.id,
            request.description,
        ),
        None,
        activity::fields_of(&masked)?,
    )?;
    Ok(Issued {
        row,
        value,
        refresh,
    })
}

/// Issues a personal token (no application) for `owner` from a body of the API's shape,
/// `{"scope": …, "description": …}`, validated exactly as `POST /api/v2/tokens/` validates it
/// (scope `write` and an empty description when absent), with no actor: for the
/// `create_oauth2_token` management command.
pub fn issue_personal(
    conn: &mut DbConnection,
    rng: &dyn ring::rand::SecureRandom,
    settings: &acs_app::settings::Settings,
    now: acs_storage::Timestamp,
    owner: &User,
    body: &serde_json::Map<String, serde_json::Value>,
) -> ApiResult<Issued> {
    let input = TokenInput::read(body, true, false)?;
    let (Some(scope), Some(description)) = (input.scope.as_deref(), input.description.as_deref())
    else {
        return Err(ApiError::Internal("validated fields missing".into()));
    };
    issue(
        conn,
        rng,
        settings,
        now,
        Request {
            actor: None,
            owner,
            application: None,
            scope,
            description,
            chain: None,
        },
    )
}
