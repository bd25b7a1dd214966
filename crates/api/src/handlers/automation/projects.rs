//! `/api/v2/projects/`: a directory of playbooks under the `PROJECTS_ROOT` setting: a local
//! directory an admin fills (`scm_type` `""`), or the checkout of a git repository that the
//! project's updates fetch (`scm_type` `git`, in a directory ACS names `_<id>__<name>`).

use acs_storage::DbConnection;
use acs_storage::projects::{Project, ProjectValues};
use acs_storage::unified_jobs::UnifiedJob;
use serde_json::{Value, json};

use super::references;
use super::resource::{Body, FieldLists, Resource, Write};
use crate::error::ApiResult;
use crate::http::fields::{FieldReader, Text};
use crate::http::options::{FieldMeta, ResourceMeta};
use acs_app::settings::Settings;

/// The project resource.
#[derive(Debug)]
pub struct Projects;

impl Resource for Projects {
    type Row = Project;
    type Input = ProjectValues;

    const LABEL: &'static str = "Project";
    const KIND: &'static str = "project";
    const COLLECTION: &'static str = "projects";
    const NAME_TAKEN: &'static str = "Project with this Organization and Name already exists.";
    // One directory, one project (the index `projects_local_path`): else an admin of one
    // organization runs, reads and installs into another organization's directory.
    const UNIQUE_FIELDS: &'static [(&'static str, &'static str, &'static str)] = &[(
        "local_path",
        "local_path",
        "This path is already being used by another manual project.",
    )];
    const ROLE_KIND: acs_authz::roles::ResourceKind = acs_authz::roles::ResourceKind::Project;
    const CREATOR_ROLE: acs_authz::roles::RoleField = acs_authz::roles::RoleField::ProjectAdmin;
    const META: ResourceMeta = ResourceMeta {
        name: "Project List",
        description: "Directories of playbooks under the PROJECTS_ROOT setting.",
        fields: &[
            FieldMeta::name("Unique within the organization.", 512),
            FieldMeta::DESCRIPTION,
            FieldMeta::ORGANIZATION,
            FieldMeta::writable(
                "scm_type",
                "choice",
                "Source control type",
                "\"\": a local directory; git: a repository that updates fetch.",
            )
            .choices(&[("", "Manual"), ("git", "Git")]),
            FieldMeta::writable(
                "local_path",
                "string",
                "Local path",
                "The name of a directory directly under PROJECTS_ROOT (ACS names a git project's).",
            )
            .max_length(1024),
            FieldMeta::writable("scm_url", "string", "Source control URL", "").max_length(1024),
            FieldMeta::writable(
                "scm_branch",
                "string",
                "Source control branch",
                "A branch, tag or commit; empty: the repository's default branch.",
            )
            .max_length(256),
            FieldMeta::writable(
                "scm_refspec",
                "string",
                "Source control refspec",
                "Fetched besides the branches and tags.",
            )
            .max_length(1024),
            FieldMeta::writable(
                "scm_clean",
                "boolean",
                "Clean",
                "An update removes what is not in the repository.",
            ),
            FieldMeta::writable(
                "scm_delete_on_update",
                "boolean",
                "Delete on update",
                "An update starts from an empty directory.",
            ),
            FieldMeta::writable(
                "scm_update_on_launch",
                "boolean",
                "Update on launch",
                "A job's launch updates the project first, and the job waits for it.",
            ),
            FieldMeta::writable(
                "scm_update_cache_timeout",
                "integer",
                "Cache timeout",
                "Seconds a successful update spares launches from updating (0: none).",
            ),
            FieldMeta::writable(
                "scm_track_submodules",
                "boolean",
                "Track submodules",
                "Submodules at the head of their branch rather than their recorded commit.",
            ),
            FieldMeta::writable(
                "allow_override",
                "boolean",
                "Allow branch override",
                "Job templates and their launches may run another branch, tag or commit.",
            ),
            FieldMeta::read_only("scm_revision", "string", "Revision"),
            FieldMeta::read_only("status", "choice", "Status"),
        ],
    };

    crate::stored_rows!(acs_storage::projects, owner: organization);

    fn read(conn: &mut DbConnection, sent: Body<'_, Self::Row>) -> ApiResult<(Self::Input, i64)> {
        let mut fields = sent.fields();
        let name = fields.text("name", Text::required(512));
        let description = fields.text("description", Text::optional(4096));
        let organization = fields.id("organization", true);
        let scm_type = fields.choice("scm_type", &["", "git"]);
        let git = match &scm_type {
            Some(scm_type) => scm_type == "git",
            None => sent.before.is_some_and(Project::is_git) && !sent.full,
        };
        let scm_url = fields.text("scm_url", Text::optional(1024));
        let scm_branch = fields.text("scm_branch", Text::optional(256));
        let scm_refspec = fields.text("scm_refspec", Text::optional(1024));
        let scm_clean = fields.boolean("scm_clean");
        let scm_delete_on_update = fields.boolean("scm_delete_on_update");
        let scm_update_on_launch = fields.boolean("scm_update_on_launch");
        let scm_update_cache_timeout = fields
            .integer("scm_update_cache_timeout", 0, i64::from(i32::MAX))
            .and_then(|seconds| i32::try_from(seconds).ok());
        let scm_track_submodules = fields.boolean("scm_track_submodules");
        let allow_override = fields.boolean("allow_override");
        for (field, value) in [
            ("scm_update_on_launch", scm_update_on_launch),
            ("scm_track_submodules", scm_track_submodules),
            ("allow_override", allow_override),
        ] {
            if value == Some(true) && !git {
                fields.error(field, "Only a git project takes this.");
            }
        }
        for (field, value) in [("scm_branch", &scm_branch), ("scm_refspec", &scm_refspec)] {
            if let Some(problem) = value.as_deref().and_then(git_argument_problem) {
                fields.error(field, problem);
            }
        }
        let credential =
            super::inventory_sources::optional_id(&mut fields, sent.object, "credential");
        let url = scm_url.or_else(|| {
            sent.before
                .filter(|_| git && !sent.full)
                .map(|project| project.scm_url.clone())
        });
        if git {
            match url.as_deref().unwrap_or_default() {
                "" => fields.error("scm_url", "A git project needs scm_url."),
                url => {
                    if let Some(problem) = git_url_problem(url, sent.actor.is_superuser) {
                        fields.error("scm_url", problem);
                    }
                }
            }
        }
        // A git project's directory is ACS's to name (once the row has its id: see
        // `own_directory`); a local one's is the admin's.
        let local_path = if git {
            sent.full.then(String::new)
        } else {
            let required = sent.full || sent.before.is_some_and(Project::is_git);
            let path = fields.text("local_path", Text::optional(1024));
            if required
                && path.as_deref().unwrap_or_default().is_empty()
                && !fields.has_error("local_path")
            {
                fields.error("local_path", "This field is required.");
            }
            path.and_then(|path| directory(&mut fields, sent.settings, path))
        };
        fields.finish()?;
        let blank = |value: Option<String>| value.or_else(|| sent.full.then(String::new));
        let off = |value: Option<bool>| value.or_else(|| sent.full.then_some(false));
        let before = sent.before.map(|project| project.organization_id);
        let (organization, owner) = references::organization(conn, organization, before)?;
        if let Some(Some(id)) = credential {
            source_control(conn, sent.actor, id, git)?;
        }
        let allow_override = if git {
            off(allow_override)
        } else {
            Some(false)
        };
        if let (Some(before), Some(false)) = (sent.before, allow_override)
            && before.allow_override
        {
            branches_kept(conn, before.id)?;
        }
        let input = ProjectValues {
            name,
            description: blank(description),
            organization_id: organization,
            local_path,
            scm_type: scm_type.or_else(|| sent.full.then(String::new)),
            scm_url: if git { url } else { Some(String::new()) },
            scm_branch: blank(scm_branch),
            scm_refspec: blank(scm_refspec),
            scm_clean: off(scm_clean),
            scm_delete_on_update: off(scm_delete_on_update),
            scm_update_on_launch: if git {
                off(scm_update_on_launch)
            } else {
                Some(false)
            },
            scm_update_cache_timeout: scm_update_cache_timeout.or_else(|| sent.full.then_some(0)),
            scm_track_submodules: if git {
                off(scm_track_submodules)
            } else {
                Some(false)
            },
            allow_override,
            credential_id: if git {
                credential.or_else(|| sent.full.then_some(None))
            } else {
                Some(None)
            },
        };
        Ok((input, owner))
    }

    /// A git project's directory is named after it once it has an id.
    fn insert(write: Write<'_>, input: Self::Input) -> acs_storage::StorageResult<Self::Row> {
        let project = acs_storage::projects::insert(write.conn, &input, write.creation())?;
        own_directory(write, project)
    }

    fn update(
        write: Write<'_>,
        id: i64,
        input: Self::Input,
    ) -> acs_storage::StorageResult<Self::Row> {
        let project = acs_storage::projects::update(write.conn, id, &input, write.modification())?;
        own_directory(write, project)
    }

    fn related(row: &Project, base: &str) -> Value {
        let mut related = json!({
            "update": format!("{base}update/"),
            "project_updates": format!("{base}project_updates/"),
            "copy": format!("{base}copy/"),
        });
        if let Some(credential) = row.credential_id {
            related["credential"] = json!(format!("/api/v2/credentials/{credential}/"));
        }
        related
    }

    /// The update running or waiting (`current_update`, which the reference's clients wait
    /// on) and the last one, beside the fields that say how it went: one read of it.
    fn summary_and_fields(conn: &mut DbConnection, row: &Project) -> ApiResult<FieldLists> {
        let last = acs_storage::unified_jobs::last_project_update(conn, row.id)?;
        Ok((updates_shown(last.as_ref()), own_fields(row, last.as_ref())))
    }

    /// A new git project is checked out at once, as in the reference: its first update starts
    /// once the project is committed, and the answer names it (`current_update`).
    fn after_create(
        ctx: &mut crate::context::Context<'_>,
        principal: &crate::auth::Principal,
        record: &mut Value,
    ) -> ApiResult<()> {
        if record["scm_type"] != "git" {
            return Ok(());
        }
        let id = record["id"].as_i64().unwrap_or_default();
        let project = acs_storage::projects::find(ctx.conn()?, id)?;
        let update = crate::handlers::runs::queue_project_update(ctx, principal, &project)?;
        for (name, shown) in updates_shown(Some(&update)) {
            record["summary_fields"][name] = shown;
        }
        record["status"] = json!(update.status);
        Ok(())
    }

    /// A copy is a creation in the same organization (and reads the original, which the
    /// caller sees).
    fn may_copy(
        _: &mut DbConnection,
        viewer: &crate::auth::Principal,
        row: &Project,
    ) -> ApiResult<Option<bool>> {
        let organization = acs_authz::roles::Resource::organization(row.organization_id);
        let allowed =
            acs_authz::can_act_on_object(&viewer.actor, &organization, Self::CREATOR_ROLE);
        Ok(Some(allowed.is_ok()))
    }

    fn fields(conn: &mut DbConnection, row: &Project) -> ApiResult<Vec<(&'static str, Value)>> {
        let last = acs_storage::unified_jobs::last_project_update(conn, row.id)?;
        Ok(own_fields(row, last.as_ref()))
    }
}

/// `summary_fields` of a project whose latest update is `last`.
fn updates_shown(last: Option<&UnifiedJob>) -> Vec<(&'static str, Value)> {
    let Some(last) = last else {
        return Vec::new();
    };
    let shown = json!({
        "id": last.id,
        "name": last.name,
        "description": "",
        "status": last.status,
        "failed": last.has_failed(),
    });
    if last.is_finished() {
        vec![("last_update", shown)]
    } else {
        vec![("current_update", shown.clone()), ("last_update", shown)]
    }
}

/// The project's own fields, `last` its latest update.
fn own_fields(row: &Project, last: Option<&UnifiedJob>) -> Vec<(&'static str, Value)> {
    let status = match last {
        Some(update) => update.status.as_str(),
        None if row.is_git() => "never updated",
        None => "ok",
    };
    let last_failed = last.is_some_and(UnifiedJob::has_failed);
    let last_run = last.and_then(|update| update.finished);
    vec![
        ("organization", json!(row.organization_id)),
        ("scm_type", json!(row.scm_type)),
        ("local_path", json!(row.local_path)),
        ("scm_url", json!(row.scm_url)),
        ("scm_branch", json!(row.scm_branch)),
        ("scm_refspec", json!(row.scm_refspec)),
        ("scm_clean", json!(row.scm_clean)),
        ("scm_delete_on_update", json!(row.scm_delete_on_update)),
        ("scm_revision", json!(row.scm_revision)),
        ("credential", json!(row.credential_id)),
        ("scm_track_submodules", json!(row.scm_track_submodules)),
        ("scm_update_on_launch", json!(row.scm_update_on_launch)),
        (
            "scm_update_cache_timeout",
            json!(row.scm_update_cache_timeout),
        ),
        ("allow_override", json!(row.allow_override)),
        ("status", json!(status)),
        (
            "last_job_run",
            crate::http::render::optional_timestamp(last_run.as_ref()),
        ),
        ("last_job_failed", json!(last_failed)),
        ("last_update_failed", json!(last_failed)),
        (
            "last_updated",
            crate::http::render::optional_timestamp(last_run.as_ref()),
        ),
    ]
}

/// Refuses to take `allow_override` away from project `id` while templates depend on it, as
/// the reference does (their jobs would run a branch the project no longer allows).
fn branches_kept(conn: &mut DbConnection, id: i64) -> ApiResult<()> {
    let templates = acs_storage::job_templates::overriding_branch(conn, id)?;
    if templates.is_empty() {
        return Ok(());
    }
    let ids: Vec<String> = templates.iter().map(i64::to_string).collect();
    Err(crate::error::ApiError::field(
        "allow_override",
        format!(
            "One or more job templates depend on branch override behavior for this project (ids: {}).",
            ids.join(" ")
        ),
    ))
}

/// Checks credential `id` for a project's updates: a git project's, of the Source Control
/// kind, one `actor` may use.
fn source_control(
    conn: &mut DbConnection,
    actor: &acs_authz::Actor,
    id: i64,
    git: bool,
) -> ApiResult<()> {
    let refuse = |message: &str| Err(crate::error::ApiError::field("credential", message));
    if !git {
        return refuse("Only a git project takes a credential.");
    }
    let (_, credential_type) = references::credential(conn, actor, "credential", id)?;
    if credential_type.kind != "scm" {
        return refuse("Credential kind must be 'scm'.");
    }
    Ok(())
}

/// Names a git project's directory after it, `_<id>__<name>` as the reference does (the
/// name reduced to letters, digits and `_`): the name may change, the directory stays.
fn own_directory(write: Write<'_>, project: Project) -> acs_storage::StorageResult<Project> {
    if !project.is_git()
        || project
            .local_path
            .starts_with(&format!("_{}__", project.id))
    {
        return Ok(project);
    }
    let slug: String = project
        .name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_lowercase()
            } else {
                '_'
            }
        })
        .collect();
    let values = ProjectValues {
        local_path: Some(format!("_{}__{slug}", project.id)),
        ..ProjectValues::default()
    };
    acs_storage::projects::update(write.conn, project.id, &values, write.modification())
}

/// Why `value` may not reach git as a branch or refspec: an option, or characters no ref has.
pub fn git_argument_problem(value: &str) -> Option<&'static str> {
    if value.starts_with('-') {
        return Some("May not start with \"-\".");
    }
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("May not hold spaces or control characters.");
    }
    None
}

/// Why git may not be given `url`: the reference's forms are `https://`, `http://`,
/// `ssh://`, `git://`, `user@host:path`, and `file://` for superusers only (it reads the
/// server's own disk). A password in the URL would be stored in clear: that is a
/// credential's job.
fn git_url_problem(url: &str, superuser: bool) -> Option<String> {
    if url.starts_with('-') || url.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Some("Invalid URL: it may not start with \"-\" nor hold spaces.".into());
    }
    if let Some((scheme, rest)) = url.split_once("://") {
        let scheme = scheme.to_ascii_lowercase();
        if scheme == "file" {
            return (!superuser).then(|| "Only superusers may use file:// URLs.".to_owned());
        }
        if !matches!(scheme.as_str(), "https" | "http" | "ssh" | "git") {
            return Some(format!("Unsupported URL scheme: {scheme}."));
        }
        let authority = rest.split('/').next().unwrap_or_default();
        let (user_info, host) = authority.rsplit_once('@').unwrap_or(("", authority));
        if host.is_empty() {
            return Some("Invalid URL: it names no host.".into());
        }
        if user_info.contains(':') {
            return Some("Put the password in a Source Control credential, not in the URL.".into());
        }
        return None;
    }
    // scp-like `[user@]host:path`.
    match url.split_once(':') {
        Some((host, path)) if !host.is_empty() && !host.contains('/') && !path.is_empty() => None,
        _ => Some("Invalid URL: use https://, ssh://, git:// or user@host:path.".into()),
    }
}

/// `name` if it names a directory directly under `PROJECTS_ROOT`.
fn directory(fields: &mut FieldReader<'_>, settings: &Settings, name: String) -> Option<String> {
    if name.contains('/') || references::relative_path_problem(&name).is_some() {
        fields.error(
            "local_path",
            "Must be the name of a directory directly under PROJECTS_ROOT.",
        );
        return None;
    }
    let root = settings.text("PROJECTS_ROOT");
    if !std::path::Path::new(&root).join(&name).is_dir() {
        // The server's own paths (PROJECTS_ROOT is a `jobs` setting, which only superusers
        // and auditors read) are not for everyone who may create a project.
        fields.error(
            "local_path",
            format!("Invalid path choice: {name} is not a directory of projects."),
        );
        return None;
    }
    Some(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn git_urls_take_the_references_forms_and_no_password() {
        for url in [
            "https://git.example.com/ops/site.git",
            "http://10.0.0.1:8080/site",
            "ssh://git@git.example.com:2222/ops/site.git",
            "git://10.213.0.2/site",
            "git@github.com:ops/site.git",
        ] {
            assert_eq!(git_url_problem(url, false), None, "{url}");
        }
        assert_eq!(git_url_problem("file:///srv/git/site", true), None);
        for (url, problem) in [
            ("file:///etc", "superusers"),
            ("https://deploy:hunter2@git.example.com/site", "credential"),
            ("ftp://example.com/site", "scheme"),
            ("--upload-pack=touch /tmp/x", "\"-\""),
            ("https:///path-only", "no host"),
            ("just-a-name", "Invalid URL"),
            ("https://example.com/a b", "spaces"),
        ] {
            let found = git_url_problem(url, false).unwrap_or_default();
            assert!(found.contains(problem), "{url}: {found}");
        }
    }

    #[test]
    fn branches_and_refspecs_cannot_read_as_options() {
        assert_eq!(git_argument_problem("release/1.2"), None);
        assert_eq!(
            git_argument_problem("+refs/pull/*:refs/remotes/origin/pull/*"),
            None
        );
        assert!(git_argument_problem("--upload-pack=x").is_some());
        assert!(git_argument_problem("main\nother").is_some());
    }
}
