//! One handler per endpoint, grouped by resource.

pub mod account;
pub mod activity_stream;
pub mod applications;
pub mod automation;
pub mod change;
pub mod config;
pub mod create;
pub mod credential_types;
pub mod credentials;
pub mod detail;
pub mod fallback;
pub mod frame;
pub mod listing;
pub mod login;
pub mod logout;
pub mod metrics;
pub mod oauth;
pub mod openapi;
pub mod organizations;
pub mod roles;
pub mod root;
pub mod runs;
pub mod settings;
pub mod sso;
pub mod teams;

pub mod tokens;
pub mod users;
