//! The workspace's layering (`docs/architecture.md`), checked on the dependency graph cargo
//! resolves: a crate that gains a dependency its layer forbids, directly or through another
//! crate, fails here.

use std::collections::{BTreeSet, HashMap};
use std::process::Command;

use serde_json::Value;

/// What no pure domain crate may reach: storage, web servers and clients, async runtimes.
const NOT_IN_THE_DOMAIN: &[&str] = &[
    "acs-storage",
    "acs-app",
    "acs-runner",
    "acs-api",
    "diesel",
    "r2d2",
    "actix-web",
    "actix-rt",
    "tokio",
    "openidconnect",
    "ldap3",
];

/// What the use cases may not reach: execution, HTTP serving and the single sign-on clients.
const NOT_IN_THE_USE_CASES: &[&str] = &[
    "acs-runner",
    "acs-api",
    "actix-web",
    "actix-http",
    "actix-rt",
    "openidconnect",
    "ldap3",
];

/// What the job runner may not reach: HTTP serving and the single sign-on clients. It runs
/// processes, and is started by the API, never the other way round.
const NOT_IN_THE_RUNNER: &[&str] = &[
    "acs-api",
    "actix-web",
    "actix-http",
    "actix-rt",
    "openidconnect",
    "ldap3",
];

/// What the management commands may not link: a web server or the sign-on clients.
const NOT_IN_THE_COMMANDS: &[&str] = &["acs-api", "actix-web", "openidconnect", "ldap3"];

/// Each workspace crate with a rule, and the packages it must not depend on.
const RULES: &[(&str, &[&str])] = &[
    ("acs-authz", NOT_IN_THE_DOMAIN),
    ("acs-oauth2", NOT_IN_THE_DOMAIN),
    ("acs-credential-types", NOT_IN_THE_DOMAIN),
    ("acs-injectors", NOT_IN_THE_DOMAIN),
    ("acs-mapping", NOT_IN_THE_DOMAIN),
    ("acs-browsable", NOT_IN_THE_DOMAIN),
    ("acs-app", NOT_IN_THE_USE_CASES),
    ("acs-runner", NOT_IN_THE_RUNNER),
    ("xtask", NOT_IN_THE_COMMANDS),
];

/// The platform the tests run on (`rustc -vV`'s `host`), whose dependency graph is checked.
fn host() -> String {
    let output = Command::new("rustc")
        .arg("-vV")
        .output()
        .expect("rustc runs");
    String::from_utf8_lossy(&output.stdout)
        .lines()
        .find_map(|line| line.strip_prefix("host: "))
        .expect("rustc names its host")
        .to_owned()
}

/// `cargo metadata` of the workspace for this platform, from the lock file, without the
/// network (the build fetched everything this platform needs).
fn metadata() -> Value {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let output = Command::new(cargo)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .args(["metadata", "--format-version", "1", "--locked", "--offline"])
        .args(["--filter-platform", &host()])
        .output()
        .expect("cargo metadata runs");
    assert!(
        output.status.success(),
        "cargo metadata failed: {}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("cargo metadata's JSON")
}

/// The names of the packages `root` (a package name) reaches through normal dependencies:
/// what it links, whatever is only for its tests or build scripts left out.
fn linked_by(metadata: &Value, root: &str) -> BTreeSet<String> {
    let packages = metadata["packages"].as_array().expect("packages");
    let name_of: HashMap<&str, &str> = packages
        .iter()
        .map(|package| {
            (
                package["id"].as_str().expect("an id"),
                package["name"].as_str().expect("a name"),
            )
        })
        .collect();
    let nodes = metadata["resolve"]["nodes"]
        .as_array()
        .expect("the resolved graph");
    let normal_deps: HashMap<&str, Vec<&str>> = nodes
        .iter()
        .map(|node| {
            let deps = node["deps"]
                .as_array()
                .expect("deps")
                .iter()
                .filter(|dep| {
                    dep["dep_kinds"]
                        .as_array()
                        .expect("dependency kinds")
                        .iter()
                        .any(|kind| kind["kind"].is_null())
                })
                .map(|dep| dep["pkg"].as_str().expect("a package id"))
                .collect();
            (node["id"].as_str().expect("an id"), deps)
        })
        .collect();
    let start = name_of
        .iter()
        .find(|(_, name)| **name == root)
        .map(|(id, _)| *id)
        .unwrap_or_else(|| panic!("{root} is in the workspace"));
    let mut seen = BTreeSet::new();
    let mut pending = vec![start];
    while let Some(id) = pending.pop() {
        for dep in normal_deps.get(id).into_iter().flatten() {
            if seen.insert(*dep) {
                pending.push(dep);
            }
        }
    }
    seen.into_iter().map(|id| name_of[id].to_owned()).collect()
}

#[test]
fn no_crate_depends_on_what_its_layer_forbids() {
    let metadata = metadata();
    let broken: Vec<String> = RULES
        .iter()
        .flat_map(|(krate, forbidden)| {
            let linked = linked_by(&metadata, krate);
            forbidden
                .iter()
                .filter(move |name| linked.contains(**name))
                .map(move |name| format!("{krate} depends on {name}"))
        })
        .collect();
    assert!(broken.is_empty(), "layering broken: {broken:?}");
}

#[test]
fn the_check_sees_what_a_crate_links() {
    // The rule is only as good as the graph walk: the API links actix-web and storage.
    let linked = linked_by(&metadata(), "acs-api");
    assert!(linked.contains("actix-web") && linked.contains("acs-storage"));
    assert!(
        !linked.contains("proptest"),
        "dev-dependencies are not linked"
    );
}

/// Authentication reads a request's credentials and its store; the request context holds what
/// it found. So nothing under `crates/api/src/auth/` may reach back for the context.
#[test]
fn authentication_does_not_reach_back_for_the_request_context() {
    let dir = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../crates/api/src/auth"
    ));
    let mut checked = 0;
    for entry in std::fs::read_dir(dir).expect("auth sources") {
        let path = entry.expect("entry").path();
        let source = std::fs::read_to_string(&path).expect("source");
        assert!(
            !source.contains("crate::context"),
            "{} uses the request context",
            path.display()
        );
        checked += 1;
    }
    assert!(checked >= 5, "only {checked} files under {}", dir.display());
}
