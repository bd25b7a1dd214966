//! Credential-type rules of ACS (input and injector configurations, their validation).
//!
//! This crate is pure: it performs no I/O. Its content arrives with the credential types
//! work (issue 5); the foundation only reserves its place in the workspace.
