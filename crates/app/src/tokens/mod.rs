//! Issuing an access token (and, for an application, its refresh token): the one path every
//! token creation takes, through the API or the `create_oauth2_token` command, so the
//! external-user rule, the lifetimes and the activity record apply to all of them; and a
//! stored token changed or revoked ([`change`], [`revoke`]).

mod change;

pub use change::{change, revoke, target_of, visible};

use acs_oauth2::{PlainSecret, Scope, SecretDigest};
use acs_storage::DbConnection;
use acs_storage::applications::Application;
use acs_storage::issued_tokens::{CreationEntry, PairedRefresh, Rotation};
use acs_storage::tokens::{AccessToken, NewAccessToken, TokenRow};
use acs_storage::users::User;
use ring::rand::SecureRandom;
use serde::Serialize;

use crate::activity::NewRowCreation;
use crate::settings::Settings;
use crate::{AppError, AppResult, timestamp};

/// The longest description a token takes, in characters.
pub const MAX_DESCRIPTION_CHARS: usize = 4096;

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

/// What to issue.
#[derive(Debug, Clone, Copy)]
pub struct IssueRequest<'a> {
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

/// The fields of a token the activity stream records on its creation: the API's token
/// record without its envelope, values masked (`acs_api`'s tests hold the two equal).
#[derive(Debug, Serialize)]
pub struct RecordedToken<'a> {
    description: &'a str,
    user: i64,
    token: &'static str,
    refresh_token: Option<&'static str>,
    application: Option<i64>,
    expires: String,
    scope: &'a str,
}

impl<'a> RecordedToken<'a> {
    /// The recorded fields of `row`.
    pub fn of(row: &'a TokenRow) -> Self {
        let token = &row.token;
        RecordedToken {
            description: &token.description,
            user: token.user_id,
            token: acs_oauth2::MASK,
            // Application tokens always carry a refresh token.
            refresh_token: token.application_id.map(|_| acs_oauth2::MASK),
            application: token.application_id,
            expires: timestamp(&token.expires),
            scope: &token.scope,
        }
    }
}

/// Checks the external-user rule, generates the values and stores their digests (inside the
/// caller's transaction when `conn` is in one), and records the creation.
pub fn issue(
    conn: &mut DbConnection,
    rng: &dyn SecureRandom,
    settings: &Settings,
    now: acs_storage::Timestamp,
    request: IssueRequest<'_>,
) -> AppResult<Issued> {
    let prepared = Prepared::new(rng, settings, now, &request)?;
    // One write, and on PostgreSQL one statement: the token, its refresh token and the entry.
    let token = acs_storage::issued_tokens::insert(
        conn,
        &prepared.token(&request),
        prepared.refresh(&request),
        &prepared.entry(&request),
    )?;
    Ok(prepared.issued(token, &request))
}

/// [`issue`] for a refresh grant, in the write of `rotation` (on PostgreSQL in one statement
/// with it): `None`, and nothing written, when the rotation lost.
pub fn reissue(
    conn: &mut DbConnection,
    rng: &dyn SecureRandom,
    settings: &Settings,
    now: acs_storage::Timestamp,
    request: IssueRequest<'_>,
    rotation: &Rotation<'_>,
) -> AppResult<Option<Issued>> {
    let prepared = Prepared::new(rng, settings, now, &request)?;
    let Some(refresh) = prepared.refresh(&request) else {
        return Err(AppError::invalid(
            "application",
            "Only an application's token is refreshed.",
        ));
    };
    let token = acs_storage::issued_tokens::rotate(
        conn,
        rotation,
        &prepared.token(&request),
        refresh,
        &prepared.entry(&request),
    )?;
    Ok(token.map(|token| prepared.issued(token, &request)))
}

/// A token about to be stored: its values, checked and generated, and the texts of the entry
/// recording its creation.
struct Prepared {
    now: acs_storage::Timestamp,
    value: PlainSecret,
    digest: SecretDigest,
    refresh: Option<(PlainSecret, SecretDigest)>,
    expires: acs_storage::Timestamp,
    creation: NewRowCreation,
}

impl Prepared {
    fn new(
        rng: &dyn SecureRandom,
        settings: &Settings,
        now: acs_storage::Timestamp,
        request: &IssueRequest<'_>,
    ) -> AppResult<Self> {
        acs_oauth2::check_token_creation(
            request.owner.external_account.as_deref(),
            settings.allow_oauth2_for_external_users(),
        )
        .map_err(|denied| AppError::Forbidden(denied.to_string()))?;
        let value = acs_oauth2::generate_secret(rng).map_err(|_| AppError::Random)?;
        let refresh = match request.application {
            Some(_) => Some(acs_oauth2::generate_secret(rng).map_err(|_| AppError::Random)?),
            None => None,
        };
        let expires = settings
            .oauth2_provider()
            .access_token_expires(now, request.application.is_none());
        let recorded = RecordedToken {
            description: request.description,
            user: request.owner.id,
            token: acs_oauth2::MASK,
            refresh_token: refresh.as_ref().map(|_| acs_oauth2::MASK),
            application: request.application.map(|a| a.id),
            expires: timestamp(&expires),
            scope: request.scope,
        };
        let creation = NewRowCreation::of(
            request.actor,
            acs_storage::activity::TOKEN,
            request.description,
            &recorded,
        )?;
        Ok(Prepared {
            now,
            digest: value.digest(),
            value,
            refresh: refresh.map(|refresh| {
                let digest = refresh.digest();
                (refresh, digest)
            }),
            expires,
            creation,
        })
    }

    fn token<'a>(&'a self, request: &IssueRequest<'a>) -> NewAccessToken<'a> {
        NewAccessToken {
            digest: self.digest.as_bytes(),
            user_id: request.owner.id,
            application_id: request.application.map(|a| a.id),
            description: request.description,
            scope: request.scope,
            expires: self.expires,
            created: self.now,
            modified: self.now,
        }
    }

    fn refresh<'a>(&'a self, request: &IssueRequest<'_>) -> Option<PairedRefresh<'a>> {
        self.refresh.as_ref().map(|(_, digest)| PairedRefresh {
            digest: digest.as_bytes(),
            chain_id: request.chain,
        })
    }

    fn entry<'a>(&'a self, request: &IssueRequest<'_>) -> CreationEntry<'a> {
        CreationEntry {
            timestamp: self.now,
            actor_id: request.actor.map(|actor| actor.id),
            changes: &self.creation.changes,
            summary_around_id: (
                &self.creation.summary_before_id,
                &self.creation.summary_after_id,
            ),
        }
    }

    /// The issued token, once stored as `token`. The owner and application are at hand: no
    /// need to read their summaries back inside the write (on SQLite every statement there
    /// holds up all other writers).
    fn issued(self, token: AccessToken, request: &IssueRequest<'_>) -> Issued {
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
        Issued {
            row,
            value: self.value,
            refresh: self.refresh.map(|(value, _)| value),
        }
    }
}

/// Issues a personal token (no application) for `owner` with no actor, for the
/// `create_oauth2_token` command: `scope` and `description` are checked as
/// `POST /api/v2/tokens/` checks them.
pub fn issue_personal(
    conn: &mut DbConnection,
    rng: &dyn SecureRandom,
    settings: &Settings,
    now: acs_storage::Timestamp,
    owner: &User,
    scope: &str,
    description: &str,
) -> AppResult<Issued> {
    Scope::parse(scope).map_err(|error| AppError::invalid("scope", error.to_string()))?;
    if description.contains('\0') {
        return Err(AppError::invalid(
            "description",
            "Null characters are not allowed.",
        ));
    }
    if description.chars().count() > MAX_DESCRIPTION_CHARS {
        return Err(AppError::invalid(
            "description",
            format!("Ensure this field has no more than {MAX_DESCRIPTION_CHARS} characters."),
        ));
    }
    issue(
        conn,
        rng,
        settings,
        now,
        IssueRequest {
            actor: None,
            owner,
            application: None,
            scope,
            description,
            chain: None,
        },
    )
}
