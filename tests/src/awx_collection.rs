//! The real `awx.awx` Ansible collection (24.6.1, the reference controller's own) driving a
//! test server: where the collection is (`ACS_AWX_COLLECTIONS_DIR`, which
//! `scripts/test-all.sh` points at the directory `scripts/setup-test-env.sh` fills from the
//! `ansible==10.7.0` wheel, Galaxy being out of reach), and running a playbook with the real
//! `ansible-playbook` of `ACS_ANSIBLE_BIN_DIR` on `localhost`, isolated from the machine's own
//! Ansible and controller configuration.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use serde_json::Value;

/// The collection version the tests are written against (the reference controller's).
pub const VERSION: &str = "24.6.1";

/// The directory holding `ansible_collections/awx/awx` at [`VERSION`]; panics (failing the
/// test, never skipping it) when it is not set up.
pub fn collections_dir() -> PathBuf {
    let dir = std::env::var_os("ACS_AWX_COLLECTIONS_DIR")
        .filter(|dir| !dir.is_empty())
        .unwrap_or_else(|| {
            panic!(
                "ACS_AWX_COLLECTIONS_DIR is not set: run scripts/test-all.sh (or \
                 scripts/setup-test-env.sh and export ACS_AWX_COLLECTIONS_DIR=<repo>/.venv/collections)"
            )
        });
    let dir = PathBuf::from(dir);
    let manifest = dir.join("ansible_collections/awx/awx/MANIFEST.json");
    let text = std::fs::read_to_string(&manifest).unwrap_or_else(|error| {
        panic!(
            "the awx.awx collection is missing ({}: {error}): run scripts/setup-test-env.sh",
            manifest.display()
        )
    });
    let manifest: Value = serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not JSON: {error}", manifest.display()));
    assert_eq!(
        manifest["collection_info"]["version"], VERSION,
        "ACS_AWX_COLLECTIONS_DIR holds another awx.awx: run scripts/setup-test-env.sh"
    );
    dir
}

/// Runs `playbook` (YAML text) with `extra_vars` (given as a JSON file, so secrets stay off
/// the command line) in `workdir`, on the inventory `localhost,`. The run sees only the
/// collection directory, `workdir` as its home (no `~/.tower_cli.cfg`, no `~/.ansible`) and
/// no `CONTROLLER_*` or proxy variables from the test's environment.
pub fn run_playbook(workdir: &Path, playbook: &str, extra_vars: &Value) -> Output {
    let ansible_playbook = crate::ansible::bin_dir().join("ansible-playbook");
    let collections = collections_dir();
    let playbook_path = workdir.join("playbook.yml");
    std::fs::write(&playbook_path, playbook).expect("the playbook");
    let vars_path = workdir.join("vars.json");
    std::fs::write(&vars_path, extra_vars.to_string()).expect("the extra vars");
    // An empty configuration of its own: neither /etc/ansible/ansible.cfg nor ~/.ansible.cfg.
    let config_path = workdir.join("ansible.cfg");
    std::fs::write(&config_path, "[defaults]\n").expect("the ansible configuration");
    let mut command = Command::new(&ansible_playbook);
    command
        .current_dir(workdir)
        .arg("-i")
        .arg("localhost,")
        .arg("-e")
        .arg(format!("@{}", vars_path.display()))
        .arg(&playbook_path)
        .env("HOME", workdir)
        .env("ANSIBLE_COLLECTIONS_PATH", &collections)
        .env("ANSIBLE_COLLECTIONS_SCAN_SYS_PATH", "false")
        .env("ANSIBLE_CONFIG", &config_path)
        .env("ANSIBLE_LOCAL_TEMP", workdir.join("tmp"))
        .env("ANSIBLE_REMOTE_TEMP", workdir.join("tmp"))
        .env("ANSIBLE_NOCOLOR", "1")
        .env("ANSIBLE_RETRY_FILES_ENABLED", "false")
        .env("NO_PROXY", "127.0.0.1,localhost")
        .env("no_proxy", "127.0.0.1,localhost");
    for name in [
        "CONTROLLER_HOST",
        "CONTROLLER_USERNAME",
        "CONTROLLER_PASSWORD",
        "CONTROLLER_OAUTH_TOKEN",
        "CONTROLLER_VERIFY_SSL",
        "CONTROLLER_CONFIG_FILE",
        "CONTROLLER_OPTIONAL_API_URLPATTERN_PREFIX",
        "TOWER_HOST",
        "TOWER_USERNAME",
        "TOWER_PASSWORD",
        "TOWER_OAUTH_TOKEN",
        "http_proxy",
        "HTTP_PROXY",
        "https_proxy",
        "HTTPS_PROXY",
        "ANSIBLE_STDOUT_CALLBACK",
    ] {
        command.env_remove(name);
    }
    command
        .output()
        .unwrap_or_else(|error| panic!("cannot run {}: {error}", ansible_playbook.display()))
}
