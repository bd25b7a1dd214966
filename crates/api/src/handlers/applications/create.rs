//! `POST /api/v2/applications/`, `/api/v2/users/<id>/applications/` (owned by that user) and
//! `/api/v2/organizations/<id>/applications/` (in that organization).

use super::Applications;
use super::input;
use super::render::{ApplicationRecord, render_one};
use crate::context::Context;
use crate::error::ApiResult;
use crate::handlers::create::{Create, Submission};

/// Creates an application; under a user, owned by them; under an organization, in it.
impl Create for Applications {
    type Created = ApplicationRecord;

    /// The record carries the client secret in clear.
    fn create(ctx: &mut Context<'_>, new: Submission<'_, Self::Scope>) -> ApiResult<Self::Created> {
        let (principal, mut body, scope) = (new.principal, new.body, new.scope);
        if let Some(user) = scope.user {
            body.0.insert("user".into(), user.into());
        }
        if let Some(organization) = scope.organization {
            body.0.insert("organization".into(), organization.into());
        }
        let input = input::read(&body.0, true, None)?;
        let writer = ctx.writer(principal);
        let rng = &ctx.state.rng;
        let masked = |conn: &mut _, app: &_| render_one(conn, principal, app, None);
        let (app, secret) =
            acs_app::applications::create(&writer, rng, ctx.conn()?, &input, masked)?;
        render_one(ctx.conn()?, principal, &app, Some(&secret))
    }

    fn location(created: &ApplicationRecord) -> Option<String> {
        Some(format!("/api/v2/applications/{}/", created.id()))
    }
}
