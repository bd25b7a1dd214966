//! The ACS HTTP API: actix-web handlers over the `acs-storage` repositories and the pure
//! domain crates, and the `acs-server` binary.
//!
//! A request is parsed on actix's async threads, then its whole blocking part (authentication,
//! authorization, database work in one transaction) runs in one task on the blocking pool: see
//! [`context::run`].

pub mod auth;
pub mod bootstrap;
pub mod caches;
pub mod config;
pub mod context;
pub mod error;
pub mod handlers;
pub mod heartbeat;
#[cfg(test)]
mod hostile_input;
pub mod housekeeping;
pub mod http;
pub mod listener;
pub mod logging;
pub mod openapi;
pub mod pages;
pub mod password_gate;
pub mod principal;
pub mod routes;
pub mod server;
pub mod state;
pub mod store;
