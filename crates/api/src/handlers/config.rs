//! `GET /api/v2/config/`: what a signed-in client needs to know of the server. Those who may
//! create projects (superusers, system auditors, organization admins) also get the
//! directories under `PROJECTS_ROOT` that no project uses yet, the reference's
//! `project_local_paths`, which is all a non-superuser learns of that directory; the root
//! itself (`project_base_dir`) goes only to those who may read the `jobs` settings.

use std::collections::HashSet;
use std::path::Path;

use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::json;

use crate::context::run;
use crate::error::ApiResult;
use crate::http::options::{FieldMeta, ResourceMeta, answer_read_only};
use crate::state::AppState;

/// What `OPTIONS` says of the configuration.
const META: ResourceMeta = ResourceMeta {
    name: "Configuration",
    description: "The server's configuration; for project creators, the unused project directories.",
    fields: &[
        FieldMeta::read_only("time_zone", "string", "Time zone"),
        FieldMeta::read_only("version", "string", "Version"),
        FieldMeta::read_only("project_local_paths", "list", "Unused project directories"),
        FieldMeta::read_only("project_base_dir", "string", "Projects root directory"),
    ],
};

/// `GET /api/v2/config/`.
pub async fn get_config(req: HttpRequest, state: web::Data<AppState>) -> ApiResult<HttpResponse> {
    let reply = run(&state, &req, |ctx| {
        let principal = ctx.require_user()?;
        let actor = &principal.actor;
        let mut body = json!({
            "time_zone": "UTC",
            "version": env!("CARGO_PKG_VERSION"),
        });
        if actor.reads_everything() || actor.is_org_admin_anywhere() {
            let root = ctx.settings()?.text("PROJECTS_ROOT");
            let used: HashSet<String> = acs_storage::projects::local_paths(ctx.conn()?)?
                .into_iter()
                .collect();
            body["project_local_paths"] = json!(unused_directories(Path::new(&root), &used));
            if actor.reads_everything() {
                body["project_base_dir"] = json!(root);
            }
        }
        Ok(body)
    })
    .await?;
    Ok(HttpResponse::Ok().json(reply.value))
}

/// `OPTIONS /api/v2/config/`.
pub async fn options_config(
    req: HttpRequest,
    state: web::Data<AppState>,
) -> ApiResult<HttpResponse> {
    answer_read_only(req, state, &META, "GET, HEAD, OPTIONS").await
}

/// The directories directly under `root` that no project uses, sorted; hidden ones (a leading
/// `.`) and names that are not UTF-8 are left out, as the reference leaves out hidden ones.
fn unused_directories(root: &Path, used: &HashSet<String>) -> Vec<String> {
    let Ok(entries) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .filter(|entry| entry.file_type().is_ok_and(|kind| kind.is_dir()))
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| !name.starts_with('.') && !used.contains(name))
        .collect();
    names.sort();
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_visible_unused_directories_are_offered() {
        let root = tempfile::tempdir().expect("root");
        for dir in ["b-free", "a-free", "taken", ".hidden"] {
            std::fs::create_dir(root.path().join(dir)).expect("dir");
        }
        std::fs::write(root.path().join("file.yml"), "").expect("file");
        let used = HashSet::from(["taken".to_owned()]);
        assert_eq!(unused_directories(root.path(), &used), ["a-free", "b-free"]);
        assert!(unused_directories(&root.path().join("missing"), &used).is_empty());
    }
}
