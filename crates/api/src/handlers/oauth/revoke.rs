//! `POST /api/o/revoke_token/` (also `revoke-token/`), RFC 7009: a client revokes one of its
//! own tokens by value. Revoking an access token also revokes its refresh token and the other
//! way round; another client's token or an unknown value changes nothing and answers 200
//! alike, so the endpoint reveals nothing; a personal token is refused (contract §4).

use acs_oauth2::{RevocationDecision, TokenReference, decide_revocation};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::client;
use super::form::OAuthForm;
use super::lookup::{self, FoundToken};
use super::reply::{OAuthResult, no_store, run_oauth};
use crate::state::AppState;
use acs_app::activity::{self, Subject};

/// Revokes the named token; 200 with an empty body.
pub async fn revoke_token(
    req: HttpRequest,
    state: web::Data<AppState>,
    form: OAuthForm,
) -> OAuthResult<HttpResponse> {
    run_oauth(&state, &req, move |ctx| {
        let application = client::authenticate(ctx, form.authorization.as_deref(), &form.params)?;
        let reference = TokenReference::from_form(&form.params)?;
        let found = lookup::find(ctx.conn()?, &reference)?;
        let decision = decide_revocation(found.as_ref().map(FoundToken::owner), application.id);
        let found = match (decision, found) {
            (RevocationDecision::Refuse(refused), _) => return Err(refused.into()),
            (RevocationDecision::Revoke, Some(found)) => found,
            (RevocationDecision::Revoke | RevocationDecision::Ignore, _) => return Ok(()),
        };
        let now = ctx.now;
        ctx.write(|conn| {
            let access_token = match &found {
                FoundToken::Access(token) => {
                    acs_storage::tokens::revoke(conn, token.id, now)?;
                    Some(token.id)
                }
                FoundToken::Refresh(token) => {
                    acs_storage::refresh_tokens::mark_used(conn, token, now)?;
                    token.access_token_id
                }
            };
            // The access token is gone as if deleted through /api/v2/tokens/<id>/.
            if let Some(id) = access_token {
                activity::record(
                    conn,
                    now,
                    None,
                    "delete",
                    &Subject::named(acs_storage::activity::TOKEN, id, ""),
                    None,
                    serde_json::json!({ "id": id, "revoked_by_client": application.client_id }),
                )?;
            }
            Ok(())
        })?;
        tracing::info!(application = application.id, "token revoked by its client");
        Ok(())
    })
    .await?;
    Ok(no_store(StatusCode::OK).finish())
}
