//! Inventory updates: `ansible-inventory --list` on a file of a project, with the source's
//! credential injected (environment and files, never extra variables), and the hosts it
//! returns imported into the inventory.

use std::collections::BTreeMap;

use acs_storage::DbConnection;
use acs_storage::unified_jobs::{RunOutcome, RunStatus, UnifiedJob};
use serde_json::{Map, Value};

use super::job::{inject, project_directory};
use super::process::Invocation;
use super::{Explained, Prepared, Preparing, credentials, environment};
use acs_app::automation::relative_path_problem;

/// Everything the update's process needs, written into `dir`.
pub fn prepare(run: Preparing<'_>) -> Result<Prepared, Explained> {
    let (conn, host, settings, row, dir) = (run.conn, run.host, run.settings, run.row, run.dir);
    let source = row
        .inventory_source_id
        .and_then(|id| acs_storage::inventory_sources::find(conn, id).ok())
        .ok_or_else(|| Explained::new("The inventory source no longer exists."))?;
    let project_dir = project_directory(conn, settings, source.source_project_id)?;
    if relative_path_problem(&source.source_path).is_some() {
        return Err(Explained::new(
            "The source path is not a path inside the project.",
        ));
    }
    let source_file = project_dir.join(&source.source_path);
    if !source_file.exists() {
        return Err(Explained::new(format!(
            "The source path {} is not in the project directory {}.",
            source.source_path,
            project_dir.display()
        )));
    }
    let ids = acs_storage::unified_jobs::credential_ids(conn, row.id)?;
    let credentials = credentials::open(conn, host, &ids)?;
    let env_dir = dir.subdirectory("env")?;
    dir.subdirectory("tmp")?;
    let plan = inject(dir, &env_dir, &credentials, false)?;
    let base = environment::base(
        dir.path(),
        &[
            ("INVENTORY_ID", source.inventory_id.to_string()),
            ("INVENTORY_SOURCE_ID", source.id.to_string()),
            ("INVENTORY_UPDATE_ID", row.id.to_string()),
            // A source no plugin can parse must fail the update, not import an empty
            // inventory that would remove every host the source imported before.
            ("ANSIBLE_INVENTORY_UNPARSED_FAILED", "True".to_owned()),
        ],
    );
    Ok(Prepared {
        steps: vec![Invocation {
            program: settings.text("ANSIBLE_INVENTORY_PATH"),
            args: vec![
                "-i".to_owned(),
                source_file.display().to_string(),
                "--list".to_owned(),
            ],
            cwd: project_dir.clone(),
            env: environment::compose(&base, plan.env.clone()),
            hand_over: None,
        }],
        preamble: String::new(),
        recorded_env: environment::recorded(&base, &BTreeMap::new(), &plan.recorded_env),
        output: dir.path().join("inventory.json"),
        errors: Some(dir.path().join("stderr")),
        secrets: credentials::secret_values(&credentials),
        project: Some((project_dir, super::ProjectAccess::Read)),
        sandboxed: false,
    })
}

/// Imports the hosts of a successful update's output; the stored output becomes the
/// process's messages and a summary (the JSON itself is not kept).
pub fn import(
    pool: &acs_storage::Pool,
    conn: &mut DbConnection,
    row: &UnifiedJob,
    prepared: &Prepared,
    outcome: RunOutcome,
) -> Result<RunOutcome, Explained> {
    let messages = prepared.error_output();
    let hosts = match hosts_of(&outcome.stdout) {
        Ok(hosts) => hosts,
        Err(reason) => {
            return Ok(RunOutcome {
                status: RunStatus::Failed,
                explanation: reason,
                stdout: messages,
                result_code: outcome.result_code,
            });
        }
    };
    let (Some(inventory), Some(source)) = (row.inventory_id, row.inventory_source_id) else {
        return Err(Explained::new("The update has no inventory source."));
    };
    let now = super::now();
    let (imported, removed) = pool
        .transaction(conn, |conn| {
            acs_storage::hosts::import(conn, inventory, source, &hosts, now)
        })
        .map_err(Explained::from)?;
    Ok(RunOutcome {
        stdout: format!(
            "{messages}Imported {imported} host(s) into inventory {inventory}; removed {removed}.\n"
        ),
        ..outcome
    })
}

/// The hosts of `ansible-inventory --list` output: every host of every group and of
/// `_meta.hostvars`, each with its variables as JSON text, by name.
fn hosts_of(output: &str) -> Result<Vec<(String, String)>, String> {
    let document: Map<String, Value> = serde_json::from_str(output)
        .map_err(|error| format!("ansible-inventory did not print a JSON inventory: {error}"))?;
    let hostvars = document
        .get("_meta")
        .and_then(|meta| meta.get("hostvars"))
        .and_then(Value::as_object);
    let mut hosts: BTreeMap<String, String> = BTreeMap::new();
    for (name, vars) in hostvars.into_iter().flatten() {
        hosts.insert(name.clone(), vars.to_string());
    }
    for group in document.values() {
        let members = group.get("hosts").and_then(Value::as_array);
        for name in members.into_iter().flatten().filter_map(Value::as_str) {
            hosts
                .entry(name.to_owned())
                .or_insert_with(|| "{}".to_owned());
        }
    }
    Ok(hosts.into_iter().collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_come_from_groups_and_hostvars() {
        let output = r#"{
            "_meta": {"hostvars": {"web1": {"port": 8080}}},
            "all": {"children": ["ungrouped", "web"]},
            "web": {"hosts": ["web1", "web2"]},
            "ungrouped": {"hosts": ["db1"]}
        }"#;
        let hosts = hosts_of(output).expect("parsed");
        assert_eq!(
            hosts,
            vec![
                ("db1".to_owned(), "{}".to_owned()),
                ("web1".to_owned(), r#"{"port":8080}"#.to_owned()),
                ("web2".to_owned(), "{}".to_owned()),
            ]
        );
        assert!(hosts_of("not json").is_err());
        assert!(hosts_of("[1]").is_err());
    }
}
