//! The HTTP-level integration tests of ACS, one module per area, built as one test binary.
//!
//! Each file under `tests/tests/` used to be a test target of its own, and every one of them
//! linked the whole server with its dependency tree: a change to any library crate re-linked
//! 41 large binaries. As modules of one target they link once (the layout of Cargo's own
//! `testsuite`). Run one area with `cargo nextest run --workspace -E 'test(/^settings::/)'`
//! (docs/development.md).

mod account_pages;
mod applications;
mod auth_basic;
mod auth_session;
mod automation_resources;
mod awx_collection;
mod awxkit;
mod browsable_api;
mod browser_login;
mod browser_pages;
mod change_feed;
mod conventions;
mod copies;
mod cors;
mod credential_sublists;
mod credential_type_change;
mod credential_types;
mod credentials;
mod directory_login;
mod faults;
mod git_projects;
mod hostile_input;
mod https_proxy;
mod import_circles;
mod inventory_groups;
mod jobs;
mod key_rotation;
mod launch_prompts;
mod layers;
mod ldap_harness;
mod list_prefixes;
mod log_format;
mod management;
mod metrics;
mod named_urls;
mod oauth_authorize;
mod oauth_clients;
mod oauth_revoke;
mod oauth_token;
mod object_roles;
mod oidc_harness;
mod openapi;
mod org_admin_reach;
mod organizations;
mod out_of_band;
mod role_lists;
mod root;
mod rotation_race;
mod run_limits;
mod run_network;
mod run_output;
mod sandbox;
mod scope_masking;
mod secrets_at_rest;
mod secrets_in_logs;
mod security_headers;
mod settings;
mod several_nodes;
mod single_sign_on;
mod single_sign_on_mapping;
mod source_credentials;
mod teams;
mod tokens;
mod updates;
mod users;
