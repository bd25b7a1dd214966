//! What the Machine, Vault and Network credentials give a playbook run. These types have no
//! injector templates: their inputs become `ansible-playbook` options, files in the run's
//! private directory and, for passwords, variables in the `!unsafe` extra-vars file (so no
//! secret ever appears in the process arguments). Options take their value after `=`, so a
//! value starting with `-` can never be read as another option.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};

use super::credentials::OpenedCredential;

/// Options, files, environment and variables from the built-in credential kinds.
#[derive(Default)]
pub struct BuiltinInjection {
    /// `ansible-playbook` options.
    pub args: Vec<String>,
    /// Files to write (path, content).
    pub files: Vec<(std::path::PathBuf, String)>,
    /// Environment variables.
    pub env: BTreeMap<String, String>,
    /// Variables for the `!unsafe` extra-vars file.
    pub extra_vars: Map<String, Value>,
}

/// Builds what the `ssh`, `vault` and `net` credentials of a job give it; files go in `dir`.
pub fn for_job(credentials: &[OpenedCredential], dir: &Path) -> BuiltinInjection {
    let mut injection = BuiltinInjection::default();
    for (index, credential) in credentials.iter().enumerate() {
        match credential.credential_type.kind.as_str() {
            "ssh" => machine(&mut injection, credential, dir),
            "vault" => vault(&mut injection, credential, dir, index),
            "net" => network(&mut injection, credential, dir, index),
            _ => {}
        }
    }
    injection
}

fn key_text(credential: &OpenedCredential) -> Option<String> {
    credential.text("ssh_key_data").map(|key| {
        if key.ends_with('\n') {
            key.to_owned()
        } else {
            format!("{key}\n")
        }
    })
}

fn machine(injection: &mut BuiltinInjection, credential: &OpenedCredential, dir: &Path) {
    if let Some(user) = credential.text("username") {
        injection.args.push(format!("--user={user}"));
    }
    if let Some(key) = key_text(credential) {
        let path = dir.join("machine_ssh_key");
        injection
            .args
            .push(format!("--private-key={}", path.display()));
        injection.files.push((path, key));
    }
    if let Some(password) = credential.text("password") {
        injection
            .extra_vars
            .insert("ansible_password".into(), password.into());
    }
    if let Some(method) = credential.text("become_method") {
        injection.args.push(format!("--become-method={method}"));
    }
    if let Some(user) = credential.text("become_username") {
        injection.args.push(format!("--become-user={user}"));
    }
    if let Some(password) = credential.text("become_password") {
        injection
            .extra_vars
            .insert("ansible_become_password".into(), password.into());
    }
}

fn vault(
    injection: &mut BuiltinInjection,
    credential: &OpenedCredential,
    dir: &Path,
    index: usize,
) {
    let Some(password) = credential.text("vault_password") else {
        return;
    };
    let path = dir.join(format!("vault_password_{index}"));
    let label = credential.text("vault_id").unwrap_or("default");
    injection
        .args
        .push(format!("--vault-id={label}@{}", path.display()));
    injection.files.push((path, password.to_owned()));
}

fn network(
    injection: &mut BuiltinInjection,
    credential: &OpenedCredential,
    dir: &Path,
    index: usize,
) {
    let mut set = |name: &str, value: String| {
        injection.env.insert(name.to_owned(), value);
    };
    if let Some(user) = credential.text("username") {
        set("ANSIBLE_NET_USERNAME", user.to_owned());
    }
    if let Some(password) = credential.text("password") {
        set("ANSIBLE_NET_PASSWORD", password.to_owned());
    }
    let authorize = credential.flag("authorize");
    set(
        "ANSIBLE_NET_AUTHORIZE",
        if authorize { "1" } else { "0" }.to_owned(),
    );
    if authorize && let Some(password) = credential.text("authorize_password") {
        set("ANSIBLE_NET_AUTH_PASS", password.to_owned());
    }
    if let Some(key) = key_text(credential) {
        let path = dir.join(format!("network_ssh_key_{index}"));
        set("ANSIBLE_NET_SSH_KEYFILE", path.display().to_string());
        injection.files.push((path, key));
    }
}
