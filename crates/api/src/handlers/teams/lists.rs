//! The lists of teams under other records, and of what a team holds roles on:
//! `organizations/<id>/teams/`, `users/<id>/teams/`, `credentials/<id>/owner_teams/`,
//! `teams/<id>/projects/` and `teams/<id>/credentials/`. Each shows only what the caller may
//! see.

use acs_authz::roles::{ResourceKind, RoleField};
use acs_storage::DbConnection;
use acs_storage::teams::Team;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

use super::Teams;
use crate::auth::Principal;
use crate::error::ApiResult;
use crate::handlers::automation::{Projects, Resource, visible};
use crate::handlers::frame::signed_in_list;
use crate::handlers::listing::declare_sub_list;
use crate::handlers::organizations::Organizations;
use crate::http::options::answer_read_only;
use crate::state::AppState;

declare_sub_list!(
    /// `/api/v2/organizations/<id>/teams/`: the organization's teams (POST makes one there).
    OrganizationTeams: Organizations => Teams,
    |organization, _| Some(organization)
);

/// `GET /api/v2/users/<id>/teams/`: the teams the user was made a member or an admin of.
pub async fn list_user_teams(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<String>,
) -> ApiResult<HttpResponse> {
    let segment = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        let (user, _, _) = crate::handlers::users::visible(ctx, principal, &segment)?;
        let visibility = acs_authz::visible_objects(&principal.actor, ResourceKind::Team);
        let within = Some(acs_storage::teams::Within::User(user.id));
        let conn = ctx.conn()?;
        let page = acs_storage::teams::list(conn, &visibility, within, &list.params)??;
        let results = render_teams(conn, principal, &page.items)?;
        list.envelope(page.count, results)
    })
    .await
}

/// `teams`, as `viewer` sees them, their roles read in one query.
fn render_teams(
    conn: &mut DbConnection,
    viewer: &Principal,
    teams: &[Team],
) -> ApiResult<Vec<Value>> {
    let ids: Vec<i64> = teams.iter().map(|team| team.id).collect();
    let mut roles = crate::handlers::roles::summaries_of(conn, ResourceKind::Team, &ids)?;
    teams
        .iter()
        .map(|team| {
            let object_roles = roles.remove(&team.id).unwrap_or_else(|| json!({}));
            Teams::render_with(conn, viewer, team, Some(object_roles))
        })
        .collect()
}

/// `GET /api/v2/credentials/<id>/owner_teams/`: the teams granted the credential's admin role.
pub async fn list_owner_teams(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        crate::handlers::credentials::visible(ctx, principal, id)?;
        let conn = ctx.conn()?;
        let admin =
            acs_storage::roles::of_field(conn, ResourceKind::Credential, id, RoleField::Admin)?;
        let holding = match admin {
            Some(role) => acs_storage::teams::holding(conn, role.id)?,
            None => Vec::new(),
        };
        let shown: Vec<Team> = holding
            .into_iter()
            .filter(|team| {
                let governed = acs_authz::roles::Resource::of(
                    ResourceKind::Team,
                    team.id,
                    Some(team.organization_id),
                );
                acs_authz::can_view_object(&principal.actor, &governed)
            })
            .collect();
        list.envelope_of(render_teams(conn, principal, &shown)?)
    })
    .await
}

/// The objects of `kind` team `team` was granted a role on, in id order.
fn held_by_team(conn: &mut DbConnection, team: i64, kind: ResourceKind) -> ApiResult<Vec<i64>> {
    let mut ids: Vec<i64> = acs_storage::teams::roles_of(conn, team)?
        .iter()
        .filter_map(|record| record.role())
        .filter(|role| role.kind == kind)
        .map(|role| role.object)
        .collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(ids)
}

/// `GET /api/v2/teams/<id>/projects/`: the projects the team holds a role on.
pub async fn list_team_projects(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        visible::<Teams>(ctx, principal, id)?;
        let mut shown = Vec::new();
        for project in held_by_team(ctx.conn()?, id, ResourceKind::Project)? {
            let conn = ctx.conn()?;
            let row = Projects::find(conn, project)?;
            let governed = Projects::governed_by(conn, &row)?;
            if acs_authz::can_view_object(&principal.actor, &governed) {
                shown.push(Projects::render(conn, principal, &row)?);
            }
        }
        list.envelope_of(shown)
    })
    .await
}

/// `GET /api/v2/teams/<id>/credentials/`: the credentials the team holds a role on.
pub async fn list_team_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let id = path.into_inner();
    signed_in_list(&req, &state, move |ctx, principal, list| {
        visible::<Teams>(ctx, principal, id)?;
        let mut shown = Vec::new();
        for credential in held_by_team(ctx.conn()?, id, ResourceKind::Credential)? {
            let conn = ctx.conn()?;
            let row = acs_storage::credentials::find(conn, credential)?;
            let target = acs_app::credentials::target_of(conn, &row)?;
            if acs_authz::can_view_credential(&principal.actor, &target) {
                shown.push(row);
            }
        }
        let records = crate::handlers::credentials::render_page(ctx.conn()?, principal, &shown)?;
        list.envelope_of(records)
    })
    .await
}

/// Metadata of the read-only team lists (`credentials/<id>/owner_teams/`).
pub async fn options_team_list(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &Teams::META, "GET, HEAD, OPTIONS").await
}

/// Metadata of `teams/<id>/projects/` (read only: a team's projects are its grants).
pub async fn options_team_projects(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &Projects::META, "GET, HEAD, OPTIONS").await
}

/// Metadata of `teams/<id>/credentials/` (read only: a team's credentials are its grants).
pub async fn options_team_credentials(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(
        req,
        state,
        &crate::handlers::credentials::META,
        "GET, HEAD, OPTIONS",
    )
    .await
}
