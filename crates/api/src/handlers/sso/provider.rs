//! Talking to a provider: discovery, the authorization URL, the code exchange and ID-token
//! verification, with the `openidconnect` crate (a maintained implementation of the checks:
//! signature against the provider's keys, issuer, audience, expiry, nonce).

use openidconnect::core::{
    CoreClient, CoreGenderClaim, CoreJweContentEncryptionAlgorithm, CoreJwsSigningAlgorithm,
    CoreProviderMetadata,
};
use openidconnect::{
    AdditionalClaims, AuthorizationCode, ClientId, ClientSecret, EndpointMaybeSet, EndpointNotSet,
    EndpointSet, IdToken, IdTokenClaims, IssuerUrl, Nonce, PkceCodeVerifier, RedirectUrl,
    TokenResponse as _, reqwest,
};
use serde::{Deserialize, Serialize};

use acs_app::settings::sso::ProviderConfig;

/// How long one call to a provider may take.
const TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// The claims of an ID token beyond the standard ones, as the provider sent them (a groups
/// claim, for one).
#[derive(Debug, Clone, Default, Deserialize, Serialize)]
pub struct OtherClaims {
    /// By name.
    #[serde(flatten)]
    pub claims: serde_json::Map<String, serde_json::Value>,
}

impl AdditionalClaims for OtherClaims {}

/// A verified ID token's claims.
pub type VerifiedClaims = IdTokenClaims<OtherClaims, CoreGenderClaim>;

/// An ID token read with [`OtherClaims`].
type TokenWithOtherClaims = IdToken<
    OtherClaims,
    CoreGenderClaim,
    CoreJweContentEncryptionAlgorithm,
    CoreJwsSigningAlgorithm,
>;

/// Why talking to the provider failed.
#[derive(Debug, thiserror::Error)]
pub enum ProviderError {
    /// It could not be reached or its discovery document is unusable.
    #[error("the provider cannot be reached or its configuration cannot be read ({0})")]
    Unreachable(String),
    /// It refused the code, or answered something that is not a valid token response.
    #[error("the provider did not accept the sign-in ({0})")]
    Exchange(String),
    /// The ID token failed verification (signature, issuer, audience, expiry or nonce).
    #[error("the identity token is not valid ({0})")]
    InvalidToken(String),
}

/// The HTTP client for providers: no redirects followed (a provider must answer itself).
pub fn http_client() -> Result<reqwest::Client, ProviderError> {
    reqwest::ClientBuilder::new()
        .redirect(reqwest::redirect::Policy::none())
        .timeout(TIMEOUT)
        .build()
        .map_err(|error| ProviderError::Unreachable(error.to_string()))
}

/// A provider's client as discovery makes it: authorization endpoint set, token and userinfo
/// endpoints as the provider announced them.
pub type DiscoveredClient = CoreClient<
    EndpointSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointNotSet,
    EndpointMaybeSet,
    EndpointMaybeSet,
>;

/// The provider's client, after discovery.
pub async fn discover(
    http: &reqwest::Client,
    config: &ProviderConfig,
    redirect: &str,
) -> Result<DiscoveredClient, ProviderError> {
    let issuer = IssuerUrl::new(config.issuer.clone())
        .map_err(|error| ProviderError::Unreachable(error.to_string()))?;
    let metadata = CoreProviderMetadata::discover_async(issuer, http)
        .await
        .map_err(|error| ProviderError::Unreachable(error.to_string()))?;
    let redirect = RedirectUrl::new(redirect.to_owned())
        .map_err(|error| ProviderError::Unreachable(error.to_string()))?;
    Ok(CoreClient::from_provider_metadata(
        metadata,
        ClientId::new(config.client_id.clone()),
        Some(ClientSecret::new(config.client_secret.clone())),
    )
    .set_redirect_uri(redirect))
}

/// Exchanges `code` and verifies the ID token against `nonce`; returns its claims, the ones
/// beyond the standard set too.
pub async fn exchange(
    http: &reqwest::Client,
    config: &ProviderConfig,
    redirect: &str,
    code: &str,
    verifier: &str,
    nonce: &str,
) -> Result<VerifiedClaims, ProviderError> {
    let client = discover(http, config, redirect).await?;
    let response = client
        .exchange_code(AuthorizationCode::new(code.to_owned()))
        .map_err(|error| ProviderError::Exchange(error.to_string()))?
        .set_pkce_verifier(PkceCodeVerifier::new(verifier.to_owned()))
        .request_async(http)
        .await
        .map_err(|error| ProviderError::Exchange(error.to_string()))?;
    let id_token = response
        .id_token()
        .ok_or_else(|| ProviderError::InvalidToken("no ID token in the response".into()))?;
    // The same token read again with room for the other claims; verified as it stands.
    let id_token: TokenWithOtherClaims = id_token
        .to_string()
        .parse()
        .map_err(|error: serde_json::Error| ProviderError::InvalidToken(error.to_string()))?;
    let claims = id_token
        .claims(&client.id_token_verifier(), &Nonce::new(nonce.to_owned()))
        .map_err(|error| ProviderError::InvalidToken(error.to_string()))?;
    Ok(claims.clone())
}
