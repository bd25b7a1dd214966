//! Injector rendering of ACS (injection plans for jobs, inventory and project updates).
//!
//! This crate is pure: it performs no I/O. Its content arrives with the injectors work
//! (issue 6); the foundation only reserves its place in the workspace.
