//! `GET /api/v2/metrics/`: Prometheus text for superusers.

use actix_web::{HttpRequest, HttpResponse, web};

use crate::context::run;
use crate::error::{ApiError, ApiResult};
use crate::http::metrics::REQUESTS;
use crate::state::AppState;

/// Request counters of this process, its connection pool and runs, and row counts of the
/// database.
pub async fn metrics(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        if !principal.actor.is_superuser {
            return Err(ApiError::permission_denied());
        }
        let now = ctx.now;
        let counts = acs_storage::stats::counts(ctx.conn()?, now)?;
        let pool = ctx.state.pool.state();
        let mut text = String::new();
        let mut line = |s: String| {
            text.push_str(&s);
            text.push('\n');
        };
        line("# HELP acs_info Version of this server.".into());
        line("# TYPE acs_info gauge".into());
        line(format!(
            "acs_info{{version=\"{}\"}} 1",
            env!("CARGO_PKG_VERSION")
        ));
        line("# HELP acs_http_responses_total Responses of this process by status class.".into());
        line("# TYPE acs_http_responses_total counter".into());
        for (class, count) in REQUESTS.by_class() {
            line(format!(
                "acs_http_responses_total{{status=\"{class}\"}} {count}"
            ));
        }
        line(
            "# HELP acs_http_response_seconds_total Time this process spent producing responses."
                .into(),
        );
        line("# TYPE acs_http_response_seconds_total counter".into());
        line(format!(
            "acs_http_response_seconds_total {:.6}",
            REQUESTS.seconds()
        ));
        line("# HELP acs_db_pool_connections Database connections of this process.".into());
        line("# TYPE acs_db_pool_connections gauge".into());
        line(format!(
            "acs_db_pool_connections{{state=\"idle\"}} {}",
            pool.idle_connections
        ));
        line(format!(
            "acs_db_pool_connections{{state=\"in_use\"}} {}",
            pool.connections.saturating_sub(pool.idle_connections)
        ));
        let (executing, waiting) = ctx.state.runs.load();
        line("# HELP acs_runs Runs of this node: executing, and waiting for a place.".into());
        line("# TYPE acs_runs gauge".into());
        line(format!("acs_runs{{state=\"executing\"}} {executing}"));
        line(format!("acs_runs{{state=\"waiting\"}} {waiting}"));
        line("# HELP acs_users Users in the database.".into());
        line("# TYPE acs_users gauge".into());
        line(format!("acs_users {}", counts.users));
        line("# HELP acs_organizations Organizations in the database.".into());
        line("# TYPE acs_organizations gauge".into());
        line(format!("acs_organizations {}", counts.organizations));
        line("# HELP acs_sessions_active Unexpired sessions in the database.".into());
        line("# TYPE acs_sessions_active gauge".into());
        line(format!("acs_sessions_active {}", counts.active_sessions));
        Ok(text)
    })
    .await?;
    let mut builder = HttpResponse::Ok();
    crate::http::response::apply_session(&mut builder, reply.session.as_ref(), reply.secure);
    Ok(builder
        .content_type("text/plain; version=0.0.4; charset=utf-8")
        .body(reply.value))
}
