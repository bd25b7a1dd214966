//! One row of a resource: what `GET`, `PUT`, `PATCH`, `DELETE` and `OPTIONS` do with it
//! (the handlers are [`crate::handlers::detail`]'s and [`crate::handlers::change`]'s).

use serde_json::Value;

use super::resource::{Body, Resource, Write, name_conflict, visible};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::change::{Change, Edit};
use crate::handlers::detail::{Delete, Detail, Options};
use crate::handlers::listing::Parent;
use crate::http::options::ResourceMeta;
use acs_app::activity::{self, Subject};

impl<R: Resource> Detail for R {
    type Key = i64;
    type Shown = Value;

    fn get(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Value> {
        let (row, _) = visible::<R>(ctx, principal, id)?;
        R::render(ctx.conn()?, principal, &row)
    }
}

impl<R: Resource> Change for R {
    fn change(ctx: &mut Context<'_>, edit: Edit<'_, i64>) -> ApiResult<Value> {
        let (principal, id, body, full) = (edit.principal, edit.key, edit.body, edit.full);
        let (_, governed) = visible::<R>(ctx, principal, id)?;
        acs_authz::can_change_object(&principal.actor, &governed)?;
        let settings = ctx.settings()?;
        let now = ctx.now;
        ctx.write(|conn| {
            // Read again inside the transaction, so the checks see what the update changes.
            let before = R::find(conn, id)?;
            let sent = Body::new(body, &principal.actor, &settings).updating(&before, full);
            let (input, belongs_to) = R::read(conn, sent)?;
            // Moving it to another organization takes that organization's admin.
            if Some(belongs_to) != governed.organization {
                acs_authz::can_change_automation(&principal.actor, belongs_to)?;
            }
            let old = R::render(conn, principal, &before)?;
            let write = Write {
                conn,
                by: principal.user.id,
                now,
            };
            let row = R::update(write, id, input).map_err(name_conflict::<R>)?;
            let record = R::render(conn, principal, &row)?;
            let subject = Subject::named(R::KIND, id, R::name(&row));
            activity::record_update(conn, now, &principal.user, &subject, &old, &record)?;
            Ok(record)
        })
    }
}

impl<R: Resource> Delete for R {
    fn remove(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<Subject> {
        let (row, governed) = visible::<R>(ctx, principal, id)?;
        acs_authz::can_change_object(&principal.actor, &governed)?;
        let subject = Subject::named(R::KIND, id, R::name(&row));
        let now = ctx.now;
        ctx.write(|conn| {
            let record = R::render(conn, principal, &row)?;
            R::delete(conn, id)?;
            activity::record_deletion(conn, now, &principal.user, &subject, &record)
                .map_err(Into::into)
        })?;
        Ok(subject)
    }
}

impl<R: Resource> Options for R {
    const META: ResourceMeta = <R as Resource>::META;
    const ROLE_KIND: Option<acs_authz::roles::ResourceKind> = if R::OWNS_ROLES {
        Some(R::ROLE_KIND)
    } else {
        None
    };

    /// Superusers, organization admins, and holders of the organization role that creating
    /// takes (`project_admin` for projects, say).
    fn can_create(principal: &Principal) -> bool {
        let actor = &principal.actor;
        let creator = actor.grants.direct().any(|role| {
            role.kind == acs_authz::roles::ResourceKind::Organization
                && role.field == R::CREATOR_ROLE
        });
        !actor.read_only && (actor.is_superuser || actor.is_org_admin_anywhere() || creator)
    }

    /// An object the caller cannot see, or that does not exist, gets the metadata without
    /// the write action.
    fn can_change(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<bool> {
        match visible::<R>(ctx, principal, id) {
            Ok((_, governed)) => {
                Ok(acs_authz::object_capabilities(&principal.actor, &governed).edit)
            }
            Err(ApiError::NotFound(_) | ApiError::Forbidden(_)) => Ok(false),
            Err(other) => Err(other),
        }
    }
}

impl<R: Resource> Parent for R {
    const KIND: &'static str = <R as Resource>::KIND;

    fn visible_id(ctx: &mut Context<'_>, principal: &Principal, id: i64) -> ApiResult<i64> {
        visible::<R>(ctx, principal, id).map(|_| id)
    }
}
