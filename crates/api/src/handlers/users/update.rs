//! `PUT` and `PATCH /api/v2/users/<id or username>/`.

use super::input::{self, UserInput};
use super::{Users, render_user, visible};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};

impl Change for Users {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, String>) -> ApiResult<super::UserRecord> {
        let (principal, segment, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let (user, memberships, target) = visible(ctx, principal, &segment)?;
        let input = input::read(body, full, false)?;
        acs_authz::can_change_user(&principal.actor, &target, input.flags())?;
        if input.password.is_some()
            && let Some(source) = &user.external_account
        {
            return Err(ApiError::field(
                "password",
                format!(
                    "This user signs in through an external account (\"{source}\"), which keeps its password: it cannot be set here."
                ),
            ));
        }
        refuse_external_flags(ctx, &user, &input)?;

        let password = match &input.password {
            Some(password) => {
                ctx.release();
                Some(
                    acs_oauth2::hash_password(
                        password,
                        ctx.state.config.password_iterations,
                        &ctx.state.rng,
                    )
                    .map_err(|e| ApiError::Internal(e.to_string()))?,
                )
            }
            None => None,
        };
        // A password change ends the user's other sessions (the caller keeps theirs).
        let keep = if principal.user.id == user.id {
            principal.session_id()
        } else {
            None
        };
        let writer = ctx.writer(principal);
        let shown = |user: &_| render_user(principal, user, &memberships);
        let change = (&input, password, keep);
        let updated = acs_app::users::change(&writer, ctx.conn()?, &user, change, shown)?;
        Ok(render_user(principal, &updated, &memberships))
    }
}

/// Refuses a change of a flag the user's identity source sets at each of their logins
/// (`AUTH_LDAP_USER_FLAGS_BY_GROUP` for a directory user, the `groups` mapping of their
/// OpenID provider): it would be undone at the next one. The same value sent back passes.
fn refuse_external_flags(
    ctx: &mut Context<'_>,
    user: &acs_storage::users::User,
    input: &UserInput,
) -> ApiResult<()> {
    let owned: Vec<(&str, String)> = match user.external_account.as_deref() {
        Some(crate::auth::directory_login::SOURCE) => {
            let settings = ctx.settings()?;
            acs_app::settings::directory_groups::flags_owned_by_directory(&settings)
                .into_iter()
                .map(|flag| (flag, "AUTH_LDAP_USER_FLAGS_BY_GROUP sets {flag} of directory users at every login: change the user's groups in the directory instead.".to_owned()))
                .collect()
        }
        Some(crate::handlers::sso::SOURCE) => {
            let settings = ctx.settings()?;
            let issuers = acs_storage::external_identities::issuers_of(
                ctx.conn()?,
                user.id,
                crate::handlers::sso::SOURCE,
            )?;
            issuers
                .iter()
                .flat_map(|issuer| acs_app::settings::sso::flags_owned_by_provider(&settings, issuer))
                .map(|(flag, provider)| (flag, format!("The groups mapping of OpenID provider {provider} (OIDC_PROVIDERS) sets {{flag}} of its users at every sign-in: change the user's groups at the provider instead.")))
                .collect()
        }
        _ => return Ok(()),
    };
    for (flag, wanted, held) in [
        ("is_superuser", input.is_superuser, user.is_superuser),
        (
            "is_system_auditor",
            input.is_system_auditor,
            user.is_system_auditor,
        ),
    ] {
        let changed = wanted.is_some_and(|wanted| wanted != held);
        if let Some((_, reason)) = owned.iter().find(|(owned, _)| *owned == flag && changed) {
            return Err(ApiError::field(flag, reason.replace("{flag}", flag)));
        }
    }
    Ok(())
}
