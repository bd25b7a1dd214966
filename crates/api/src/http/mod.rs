//! HTTP conventions shared by every endpoint (contract §2).

pub mod body;
pub mod browsable;
pub mod cookies;
pub mod cors;
pub mod fields;
pub mod headers;
pub mod list;
pub mod metrics;
pub mod named_urls;
pub mod options;
pub mod render;
pub mod request;
pub mod response;
