//! The environment of a run's process. Nothing is inherited from the server (whose own
//! environment may hold its database URL or admin password): the runner sets a small base,
//! credentials add theirs, and the base wins where both set a name.

use std::collections::BTreeMap;
use std::path::Path;

/// Every name a runner passes to [`base`] as a run's own variable. Credentials may set none of
/// them (`acs_credential_types::env_name_allowed` refuses each; a test below keeps the two
/// lists together).
pub const RUN_VARIABLES: &[&str] = &[
    "JOB_ID",
    "ACS_JOB_ID",
    "INVENTORY_ID",
    "PROJECT_ID",
    "PROJECT_UPDATE_ID",
    "INVENTORY_SOURCE_ID",
    "INVENTORY_UPDATE_ID",
    "ANSIBLE_INVENTORY_UNPARSED_FAILED",
];

/// The names and values the runner itself sets for a run in `dir`; `ids` are the run's own
/// variables (`JOB_ID`, `INVENTORY_ID`, …), each one of [`RUN_VARIABLES`].
pub fn base(dir: &Path, ids: &[(&str, String)]) -> BTreeMap<String, String> {
    debug_assert!(
        ids.iter().all(|(name, _)| RUN_VARIABLES.contains(name)),
        "a run variable missing from RUN_VARIABLES: {ids:?}"
    );
    let path = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
    let tmp = dir.join("tmp").display().to_string();
    let mut env = BTreeMap::from([
        ("PATH".to_owned(), path),
        // Ansible keeps state under ~/.ansible: give each run its own home, gone with it.
        ("HOME".to_owned(), dir.display().to_string()),
        ("TMPDIR".to_owned(), tmp.clone()),
        ("ANSIBLE_LOCAL_TEMP".to_owned(), tmp),
        ("LANG".to_owned(), "C.UTF-8".to_owned()),
        ("LC_ALL".to_owned(), "C.UTF-8".to_owned()),
        ("PYTHONUNBUFFERED".to_owned(), "1".to_owned()),
        ("ANSIBLE_FORCE_COLOR".to_owned(), "False".to_owned()),
        ("ANSIBLE_HOST_KEY_CHECKING".to_owned(), "False".to_owned()),
        ("ANSIBLE_RETRY_FILES_ENABLED".to_owned(), "False".to_owned()),
        ("PRIVATE_DATA_DIR".to_owned(), dir.display().to_string()),
    ]);
    for (name, value) in ids {
        env.insert((*name).to_owned(), value.clone());
    }
    env
}

/// The process environment: `injected` (credential variables), then `base` over it.
pub fn compose(
    base: &BTreeMap<String, String>,
    injected: impl IntoIterator<Item = (String, String)>,
) -> Vec<(String, String)> {
    let mut env: BTreeMap<String, String> = injected.into_iter().collect();
    env.extend(base.iter().map(|(k, v)| (k.clone(), v.clone())));
    env.into_iter().collect()
}

/// The environment as a run records it: `injected_recorded` (credential variables already
/// masked by their templates), then the base and built-in variables masked by name.
pub fn recorded(
    base: &BTreeMap<String, String>,
    builtin: &BTreeMap<String, String>,
    injected_recorded: &BTreeMap<String, String>,
) -> BTreeMap<String, String> {
    let mut env = injected_recorded.clone();
    env.extend(acs_injectors::redact_recorded_env(builtin));
    env.extend(acs_injectors::redact_recorded_env(base));
    env
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every variable the runner sets is one a credential may not set: a credential that set
    /// one would be overridden silently (the base wins), or worse, change how the run works.
    #[test]
    fn credentials_may_set_none_of_the_runners_variables() {
        let ids: Vec<(&str, String)> = RUN_VARIABLES
            .iter()
            .map(|name| (*name, "1".to_owned()))
            .collect();
        for name in base(Path::new("/runs/r1"), &ids).keys() {
            assert!(
                acs_credential_types::env_name_allowed(name).is_err(),
                "the runner sets {name}, which a credential type may declare"
            );
        }
    }

    #[test]
    fn the_base_wins_and_nothing_is_inherited() {
        let base = base(Path::new("/runs/r1"), &[("JOB_ID", "7".to_owned())]);
        let env = compose(
            &base,
            [
                ("JOB_ID".to_owned(), "666".to_owned()),
                ("MY_TOKEN".to_owned(), "t".to_owned()),
            ],
        );
        let env: BTreeMap<_, _> = env.into_iter().collect();
        assert_eq!(env["JOB_ID"], "7");
        assert_eq!(env["MY_TOKEN"], "t");
        assert_eq!(env["HOME"], "/runs/r1");
        assert!(!env.contains_key("ACS_ADMIN_PASSWORD"));
    }

    #[test]
    fn recorded_masks_builtin_secrets_by_name() {
        let builtin = BTreeMap::from([
            ("ANSIBLE_NET_PASSWORD".to_owned(), "p".to_owned()),
            ("ANSIBLE_NET_USERNAME".to_owned(), "u".to_owned()),
        ]);
        let recorded = recorded(&BTreeMap::new(), &builtin, &BTreeMap::new());
        assert_eq!(recorded["ANSIBLE_NET_PASSWORD"], "**********");
        assert_eq!(recorded["ANSIBLE_NET_USERNAME"], "u");
    }
}
