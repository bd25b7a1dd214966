//! `PUT` and `PATCH /api/v2/applications/<id>/`. Grant type, organization, owner and client
//! credentials are fixed at creation.

use acs_storage::applications::ApplicationValues;

use super::input::{ApplicationInput, Fixed};

use super::render::{ApplicationRecord, render_one};
use super::{Applications, name_conflict, visible};
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};
use acs_app::activity::{self, Subject};

/// Also what the applications page's form does, from a body of the API's shape.
impl Change for Applications {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<ApplicationRecord> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let app = visible(ctx, principal, id)?;
        acs_authz::can_change_application(&principal.actor, &super::target_of(&app))?;
        let grant_type = acs_oauth2::GrantType::parse(&app.authorization_grant_type)
            .map_err(|e| ApiError::Internal(format!("stored grant type: {e}")))?;
        let fixed = Fixed {
            grant_type,
            organization: app.organization_id,
            user: app.user_id,
        };
        let input = ApplicationInput::read(body, full, Some(fixed))?;
        let target = super::target_of(&app);
        if input.skip_authorization == Some(true) && !app.skip_authorization {
            acs_authz::can_skip_authorization(&principal.actor, &target)?;
        }
        if input.skip_authorization.unwrap_or(app.skip_authorization) {
            let client_type = input.client_type.map(|t| t.as_str());
            let changed = [
                (
                    "redirect_uris",
                    input.redirect_uris.as_deref(),
                    &app.redirect_uris,
                ),
                ("client_type", client_type, &app.client_type),
            ];
            for (field, sent, stored) in changed {
                if sent.is_some_and(|sent| sent != stored) {
                    acs_authz::can_repoint_consentless(&principal.actor, &target, field)?;
                }
            }
        }
        let before = render_one(ctx.conn()?, principal, &app, None)?;
        let values = ApplicationValues {
            name: input.name,
            description: input.description,
            client_type: input.client_type.map(|t| t.as_str().to_owned()),
            redirect_uris: input.redirect_uris,
            skip_authorization: input.skip_authorization,
            ..ApplicationValues::default()
        };
        let now = ctx.now;
        let updated = ctx.write(|conn| {
            let updated =
                acs_storage::applications::update(conn, id, &values, now).map_err(name_conflict)?;
            let after = render_one(conn, principal, &updated, None)?;
            let subject = Subject::named(acs_storage::activity::APPLICATION, id, &updated.name);
            activity::record_update(conn, now, &principal.user, &subject, &before, &after)?;
            Ok(after)
        })?;
        Ok(updated)
    }
}
