//! The OAuth 2 protocol endpoints under `/api/o/` (contract §4; RFC 6749, 7009, 7636, 7662,
//! 8414, 9700). The decisions are `acs_oauth2`'s and the use cases that carry them out
//! `acs_app`'s (`grants`, `client_tokens`); these handlers authenticate the client, read the
//! request and answer.

pub(crate) mod authorize;
mod client;
mod endpoints;
mod form;
mod introspect;
mod reply;
mod revoke;
mod token;

pub use authorize::{authorize_decision, authorize_page};
pub use endpoints::{authorization_server_metadata, oauth_root};
pub use introspect::introspect;
pub use revoke::revoke_token;
pub use token::token;
