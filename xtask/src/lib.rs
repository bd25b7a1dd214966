//! The shared part of the ACS management commands (`src/bin/*.rs`): finding and opening the
//! database the server uses, progress on a terminal, and how errors end a command.
//!
//! The task runner (`cargo xtask`, `src/main.rs`) uses it too, for `migrate`, and it and the
//! bench run cargo through [`nested_cargo`].

pub mod management;
pub mod nested_cargo;
