//! Pure OAuth 2 and secret-handling rules of ACS, the auth layer compatible
//! with AWX 24.6.1.
//!
//! - [`secret`]: random bearer secrets (tokens, session ids), their stored
//!   SHA-256 digests, constant-time comparison, and reading a bearer token
//!   from an `Authorization` header.
//! - [`password`]: Django-compatible PBKDF2-SHA256 password hashes, so users
//!   imported from AWX keep their passwords.
//! - [`identifiers`]: generated `client_id`s and `client_secret`s of OAuth 2
//!   applications, alphanumeric like AWX's and drawn without bias.
//! - [`scope`]: the `read` and `write` scopes, parsed strictly when a client
//!   sends them and leniently when read back from storage.
//! - [`lifetimes`]: expiry of access tokens, refresh tokens and authorization
//!   codes, saturating so huge settings never overflow or exceed what the
//!   databases store.
//! - [`masking`]: the mask every response after creation shows in place of a
//!   token or client secret.
//! - [`external`]: the `ALLOW_OAUTH2_FOR_EXTERNAL_USERS` rule keeping users of
//!   external providers (LDAP, OIDC) from creating tokens.
//! - [`application`]: validation of an application's client type, grant type
//!   and redirect URIs, and exact matching of a presented redirect URI.
//!
//! The protocol endpoints under `/api/o/` (RFC 6749, 7009, 7636, 7662, 8414,
//! 9700), as pure decisions the API layer carries out:
//!
//! - [`protocol_error`]: the `{"error", "error_description"}` errors and the
//!   HTTP status each maps to.
//! - [`form`]: request parameters, refusing repeated ones and treating empty
//!   ones as omitted.
//! - [`client_auth`]: client credentials from HTTP Basic or the form, and
//!   their check against the application.
//! - [`grant`]: the typed grant of a token request and whether the
//!   application may use it.
//! - [`authorization`]: validation of an authorization request, page versus
//!   redirected errors, and the redirects answering it.
//! - [`pkce`]: S256 code challenges and verifiers.
//! - [`code`]: authorization code values and the checks of exchanging one.
//! - [`refresh`]: rotate, refuse, or refuse and revoke on a refresh.
//! - [`revocation`]: the token named to the revocation and introspection
//!   endpoints, and what revoking it does.
//! - [`responses`]: token and introspection response bodies.
//! - [`metadata`]: endpoint paths and the RFC 8414 metadata document.
//!
//! The crate does no I/O and reads no clock or global random source: callers
//! pass a [`ring::rand::SecureRandom`] (and, where relevant, the current time),
//! which keeps every rule deterministic to test and free of runtime choices.

pub mod application;
pub mod authorization;
pub mod client_auth;
pub mod code;
pub mod external;
pub mod form;
pub mod grant;
pub mod identifiers;
pub mod lifetimes;
pub mod masking;
pub mod metadata;
pub mod password;
pub mod pkce;
pub mod protocol_error;
pub mod refresh;
pub mod responses;
pub mod revocation;
pub mod scope;
pub mod secret;

pub use application::{
    ClientType, GrantType, GrantTypeError, RedirectUriError, redirect_uri_allowed,
    validate_redirect_uris,
};
pub use authorization::{
    AuthorizeClient, AuthorizeError, AuthorizeRequest, authorize_client_id, unknown_client,
};
pub use client_auth::{ClientAuthMethod, ClientCredentials};
pub use code::{AuthorizationCodeFacts, CodeExchange, generate_authorization_code};
pub use external::{ExternalUserDenied, check_token_creation};
pub use form::FormParams;
pub use grant::{
    DEFAULT_GRANT_SCOPE, DEFAULT_GRANT_SCOPE_WORDS, GrantRequest, granted_scope_words,
};
pub use identifiers::{
    CLIENT_ID_LENGTH, CLIENT_SECRET_LENGTH, generate_client_id, generate_client_secret,
    random_alphanumeric,
};
pub use lifetimes::{LATEST_EXPIRY, Lifetimes, latest_expiry, saturating_add_seconds};
pub use masking::{MASK, shown};
pub use metadata::{AuthorizationServerMetadata, IssuerError};
pub use password::{
    DEFAULT_ITERATIONS, MAX_ITERATIONS, PasswordError, hash_password, is_usable, iterations_of,
    unusable_password, verify_password,
};
pub use pkce::{ChallengeMethod, CodeChallenge};
pub use protocol_error::{ErrorCode, OAuthError};
pub use refresh::{RefreshDecision, RefreshRequest, RefreshTokenFacts, decide_refresh};
pub use responses::{ActiveToken, IntrospectionResponse, TokenResponse};
pub use revocation::{
    RevocationDecision, TokenOwner, TokenReference, TokenTypeHint, decide_revocation,
};
pub use scope::{DEFAULT_SCOPE, Scope, ScopeError};
pub use secret::{
    PlainSecret, RandomnessError, SecretDigest, TOKEN_LENGTH, constant_time_eq, generate_secret,
    parse_bearer,
};
