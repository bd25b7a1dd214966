//! `GET /api/`, `GET /api/v2/` and `GET /api/v2/ping/`: anonymous discovery and health.

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::auth::csrf;
use crate::context::run;
use crate::error::ApiResult;
use crate::state::AppState;

/// `GET /api/`: versions, and the `csrftoken` cookie that awxkit's login reads.
pub async fn api_root(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let mut response = HttpResponse::Ok();
    if let (token, true) = csrf::page_token(&req, &state.rng)? {
        response.cookie(csrf::cookie(&req, token));
    }
    Ok(response.json(json!({
        "description": "ACS REST API",
        "current_version": "/api/v2/",
        "available_versions": { "v2": "/api/v2/" },
        "oauth2": "/api/o/",
        "custom_logo": "",
        "custom_login_info": "",
        "login_redirect_override": "",
    })))
}

/// `GET /api/v2/`: resource name to path; awxkit turns each key into a subcommand. The
/// reference's collections ACS does not serve are listed too (they answer `OPTIONS` with
/// empty actions, 404 otherwise): awxkit's `export` and `import` look up every collection
/// they know in this map.
pub async fn api_v2_root() -> HttpResponse {
    let mut root = json!({
        "ping": "/api/v2/ping/",
        "config": "/api/v2/config/",
        "me": "/api/v2/me/",
        "metrics": "/api/v2/metrics/",
        "users": "/api/v2/users/",
        "organizations": "/api/v2/organizations/",
        "teams": "/api/v2/teams/",
        "roles": "/api/v2/roles/",
        "applications": "/api/v2/applications/",
        "tokens": "/api/v2/tokens/",
        "credential_types": "/api/v2/credential_types/",
        "credentials": "/api/v2/credentials/",
        "projects": "/api/v2/projects/",
        "project_updates": "/api/v2/project_updates/",
        "inventory": "/api/v2/inventories/",
        "hosts": "/api/v2/hosts/",
        "groups": "/api/v2/groups/",
        "inventory_sources": "/api/v2/inventory_sources/",
        "inventory_updates": "/api/v2/inventory_updates/",
        "job_templates": "/api/v2/job_templates/",
        "jobs": "/api/v2/jobs/",
        "activity_stream": "/api/v2/activity_stream/",
        "settings": "/api/v2/settings/",
    });
    for name in crate::handlers::fallback::UNSERVED_COLLECTIONS {
        root[*name] = json!(format!("/api/v2/{name}/"));
    }
    HttpResponse::Ok().json(root)
}

/// `GET /api/v2/ping/`: anonymous health check that also proves the database answers, with
/// the reference's fields: the node answering (`active_node`), the nodes alive on this
/// database (`instances`, by their heartbeats), whether there are several (`ha`), and the one
/// group they all take runs in (`instance_groups`).
pub async fn ping(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let backend = match ctx.conn()? {
            acs_storage::DbConnection::Sqlite(_) => "sqlite",
            acs_storage::DbConnection::Postgres(_) => "postgresql",
        };
        acs_storage::revisions::current(ctx.conn()?)?;
        let since = ctx.now
            - chrono::Duration::from_std(crate::heartbeat::ALIVE_WITHIN).unwrap_or_default();
        let alive = acs_storage::instances::alive(ctx.conn()?, since)?;
        let instances: Vec<_> = alive
            .iter()
            .map(|instance| {
                json!({
                    "node": instance.node,
                    "node_type": "hybrid",
                    "heartbeat": acs_app::timestamp(&instance.heartbeat),
                    "capacity": instance.capacity,
                    "version": instance.version,
                })
            })
            .collect();
        let names: Vec<&str> = alive
            .iter()
            .map(|instance| instance.node.as_str())
            .collect();
        let capacity: i64 = alive.iter().map(|instance| instance.capacity).sum();
        Ok(json!({
            "version": env!("CARGO_PKG_VERSION"),
            "database": backend,
            "status": "ok",
            "ha": alive.len() > 1,
            "active_node": ctx.state.config.node_name,
            "instances": instances,
            "instance_groups": [{"name": "default", "capacity": capacity, "instances": names}],
        }))
    })
    .await?;
    Ok(HttpResponse::Ok().json(reply.value))
}
