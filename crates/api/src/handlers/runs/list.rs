//! `GET /api/v2/<runs>/` and a parent's runs (`/api/v2/job_templates/<id>/jobs/`, …).

use acs_storage::list::{Filter, Lookup};
use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};

use super::{RunType, render_run};
use crate::auth::Principal;
use crate::context::Context;
use crate::error::{ApiError, ApiResult};
use crate::handlers::frame::{signed_in, signed_in_list};
use crate::http::list::{ListPage, ListRequest};
use crate::state::AppState;

/// Every run of `T` the caller may see.
pub async fn list_runs<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    signed_in_list(&req, &state, move |ctx, principal, list| {
        page::<T>(ctx, principal, list)
    })
    .await
}

/// The runs of `T` of one parent (a job template's jobs, a project's updates, …).
pub async fn list_runs_of<T: RunType>(
    req: HttpRequest,
    state: web::Data<AppState>,
    path: web::Path<i64>,
) -> ApiResult<HttpResponse> {
    let mut list = ListRequest::from_request(&req)?;
    let parent = path.into_inner();
    let (field, _) = T::PARENT;
    list.params
        .filters
        .push(Filter::new(field, Lookup::Exact, &parent.to_string()));
    signed_in(&req, &state, StatusCode::OK, move |ctx, principal| {
        let governed = parent_governed::<T>(ctx, parent)?;
        if !acs_authz::can_view_object(&principal.actor, &governed) {
            return Err(ApiError::permission_denied());
        }
        page::<T>(ctx, principal, &list)
    })
    .await
}

/// The object whose roles govern the parent of `T`'s sub-list (a template, a project, an
/// inventory source's inventory).
fn parent_governed<T: RunType>(
    ctx: &mut Context<'_>,
    id: i64,
) -> ApiResult<acs_authz::roles::Resource> {
    use crate::handlers::automation::{InventorySources, JobTemplates, Projects, Resource};
    let conn = ctx.conn()?;
    let found = match T::PARENT.1 {
        "job_templates" => {
            JobTemplates::find(conn, id).map(|row| JobTemplates::viewed_as(conn, &row))
        }
        "projects" => Projects::find(conn, id).map(|row| Projects::governed_by(conn, &row)),
        _ => InventorySources::find(conn, id).map(|row| InventorySources::governed_by(conn, &row)),
    };
    match found {
        Ok(governed) => governed,
        Err(acs_storage::StorageError::NotFound) => Err(ApiError::NotFound("Not found.".into())),
        Err(other) => Err(other.into()),
    }
}

fn page<T: RunType>(
    ctx: &mut Context<'_>,
    principal: &Principal,
    list: &ListRequest,
) -> ApiResult<ListPage<serde_json::Value>> {
    let visibility = acs_authz::visible_objects(&principal.actor, super::governing_kind(T::KIND));
    let conn = ctx.conn()?;
    let page = acs_storage::unified_jobs::list(conn, &visibility, T::KIND, &list.params)??;
    let results = page
        .items
        .iter()
        .map(|job| {
            let credentials = acs_storage::unified_jobs::credential_ids(conn, job.id)?;
            Ok(render_run(principal, job, &credentials))
        })
        .collect::<ApiResult<Vec<_>>>()?;
    list.envelope(page.count, results)
}
