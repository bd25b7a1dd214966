//! Running cargo from a program that cargo started (`cargo xtask bench` runs the bench, which
//! builds the server).
//!
//! Cargo gives the program it runs the variables of that program's package (`CARGO_PKG_NAME`,
//! `CARGO_MANIFEST_DIR`, …). A nested cargo would see them as its own environment, and build
//! scripts that ask to be rerun when such a variable changes (ring's, through the `cc` crate)
//! would then see a change between a build started by one package's program and one started
//! by another's: ring and everything above it were rebuilt twice on every bench run.

use std::ffi::OsString;
use std::path::Path;
use std::process::Command;

/// What cargo sets for the program it runs, besides `CARGO` itself (kept: the same toolchain).
const PACKAGE_VARIABLES: &[&str] = &[
    "CARGO_MANIFEST_DIR",
    "CARGO_MANIFEST_PATH",
    "CARGO_MANIFEST_LINKS",
    "CARGO_CRATE_NAME",
    "CARGO_BIN_NAME",
    "CARGO_PRIMARY_PACKAGE",
];

/// A `cargo` command run in `workspace`, by the cargo that started this program, without the
/// variables of this program's package.
pub fn command(workspace: &Path) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| OsString::from("cargo"));
    let mut command = Command::new(cargo);
    command.current_dir(workspace);
    for (name, _) in std::env::vars_os() {
        let package = name.to_str().is_some_and(|name| {
            name.starts_with("CARGO_PKG_") || PACKAGE_VARIABLES.contains(&name)
        });
        if package {
            command.env_remove(&name);
        }
    }
    command
}
