//! Token creation: `POST /api/v2/tokens/`, `/api/v2/users/<id>/tokens/`,
//! `…/personal_tokens/`, `…/authorized_tokens/` and `/api/v2/applications/<id>/tokens/`.
//! Whichever path, the token belongs to the caller (the user in a `users/<id>/` path only has
//! to be visible), as in the reference.

use super::Tokens;
use super::input::TokenInput;
use super::issue::{IssueRequest, issue};
use super::render::{TokenRecord, render_token};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::create::{Create, Submission};
use crate::http::body::JsonObject;
use acs_storage::local_changes::keeping_counters;

/// Which application the new token is for.
#[derive(Debug, Clone, Copy)]
enum Kind {
    /// As the body says (`application` optional or null).
    FromBody,
    /// A personal token; a posted `application` is ignored.
    Personal,
    /// An application token; `application` required.
    Authorized,
    /// For the application in the path.
    Of(i64),
}

/// The token belongs to the caller whichever list it is posted to; the list decides which
/// application it is for.
impl Create for Tokens {
    type Created = TokenRecord;

    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, body, scope) = (new.principal, new.body, new.scope);
        let kind = match (scope.application, scope.personal) {
            (Some(application), _) => Kind::Of(application),
            (None, Some(true)) => Kind::Personal,
            (None, Some(false)) => Kind::Authorized,
            (None, None) => Kind::FromBody,
        };
        create(ctx, principal, &body, kind)
    }

    fn location(created: &TokenRecord) -> Option<String> {
        Some(format!("/api/v2/tokens/{}/", created.id()))
    }
}

/// Creates a personal token for `principal` from a body of the API's shape, exactly as
/// `POST /api/v2/users/<id>/personal_tokens/` does (the profile page uses it). The record
/// carries the value in clear.
pub fn create_personal(
    ctx: &mut Context<'_>,
    principal: &Principal,
    body: &JsonObject,
) -> ApiResult<TokenRecord> {
    create(ctx, principal, body, Kind::Personal)
}

fn create(
    ctx: &mut Context<'_>,
    principal: &Principal,
    body: &JsonObject,
    kind: Kind,
) -> ApiResult<TokenRecord> {
    let reads_application = matches!(kind, Kind::FromBody | Kind::Authorized);
    let input = TokenInput::read(&body.0, true, reads_application)?;
    let application_id = match kind {
        Kind::FromBody => input.application.flatten(),
        Kind::Personal => None,
        Kind::Authorized => match input.application {
            Some(Some(id)) => Some(id),
            Some(None) => {
                return Err(ApiError::field(
                    "application",
                    "This field may not be null.",
                ));
            }
            None => return Err(ApiError::field("application", "This field is required.")),
        },
        Kind::Of(id) => Some(id),
    };
    let application = match application_id {
        Some(id) => match acs_storage::applications::find(ctx.conn()?, id) {
            Ok(app) => Some(app),
            Err(acs_storage::StorageError::NotFound) => {
                return Err(ApiError::field(
                    "application",
                    format!("Invalid pk \"{id}\" - object does not exist."),
                ));
            }
            Err(other) => return Err(other.into()),
        },
        None => None,
    };
    let target = application.as_ref().map(acs_app::applications::target_of);
    acs_authz::can_create_token(&principal.actor, target.as_ref())?;
    let settings = ctx.settings()?;
    let now = ctx.now;
    let rng = ctx.state.rng.clone();
    let (Some(scope), Some(description)) = (input.scope.as_deref(), input.description.as_deref())
    else {
        return Err(ApiError::Internal("validated fields missing".into()));
    };
    // Issuing writes with one statement (`acs_storage::issued_tokens`), and only rows no change
    // counter counts: the change feed's reading stays trusted.
    let issued = keeping_counters(&[], || {
        ctx.write_single_statement(|conn| {
            issue(
                conn,
                &rng,
                &settings,
                now,
                IssueRequest {
                    actor: Some(&principal.user),
                    owner: &principal.user,
                    application: application.as_ref(),
                    scope,
                    description,
                    chain: None,
                },
            )
            .map_err(ApiError::from)
        })
    })?;
    tracing::info!(
        actor = principal.user.id,
        token = issued.row.token.id,
        application = ?application_id,
        "token created"
    );
    Ok(render_token(
        &issued.row,
        Some(super::issue::plain(&issued)),
    ))
}
