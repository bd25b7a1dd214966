//! Credential-type kinds.
//!
//! Every credential type has one kind, which decides where its credentials may be used (job
//! templates accept `ssh`, `vault`, `cloud` and `net`; organizations list `source` credentials as
//! content sources; and so on). Types created through the API may only be `cloud` or `net`
//! ([`check_custom_kind`]).

use std::fmt;

use serde::{Deserialize, Serialize};

/// The kind of a credential type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Machine credentials (`ssh`): log in to hosts and escalate privileges.
    Ssh,
    /// Vault credentials (`vault`): decrypt Ansible Vault content.
    Vault,
    /// Network device credentials (`net`).
    Net,
    /// Source control credentials (`scm`) for project checkouts.
    Scm,
    /// Cloud and other service credentials (`cloud`).
    Cloud,
    /// Insights credentials (`insights`).
    Insights,
    /// Content source credentials (`source`): servers collections and roles are fetched from.
    Source,
}

impl Kind {
    /// Every kind, in the order the API lists them.
    pub const ALL: [Kind; 7] = [
        Kind::Ssh,
        Kind::Vault,
        Kind::Net,
        Kind::Scm,
        Kind::Cloud,
        Kind::Insights,
        Kind::Source,
    ];

    /// The value stored and shown in the API (`ssh`, `vault`, `net`, `scm`, `cloud`,
    /// `insights`, `source`).
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Ssh => "ssh",
            Kind::Vault => "vault",
            Kind::Net => "net",
            Kind::Scm => "scm",
            Kind::Cloud => "cloud",
            Kind::Insights => "insights",
            Kind::Source => "source",
        }
    }

    /// The human label shown next to the value (e.g. in `OPTIONS` choices).
    pub fn label(self) -> &'static str {
        match self {
            Kind::Ssh => "Machine",
            Kind::Vault => "Vault",
            Kind::Net => "Network",
            Kind::Scm => "Source Control",
            Kind::Cloud => "Cloud",
            Kind::Insights => "Insights",
            Kind::Source => "Content Source",
        }
    }

    /// The kind whose [`as_str`](Kind::as_str) value is `value` (case-sensitive).
    pub fn parse(value: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|kind| kind.as_str() == value)
    }

    /// Whether types of this kind may be created and changed through the API.
    pub fn allowed_for_custom_types(self) -> bool {
        matches!(self, Kind::Cloud | Kind::Net)
    }
}

impl fmt::Display for Kind {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(self.as_str())
    }
}

/// Checks the `kind` of a custom (API-written) credential type.
///
/// # Errors
///
/// The field message for the API:
/// * `"<value>" is not a valid choice.` when `kind` names no kind at all;
/// * `Must be 'cloud' or 'net', not <kind>` (no trailing period, as in the reference system)
///   for any other kind.
pub fn check_custom_kind(kind: &str) -> Result<Kind, String> {
    match Kind::parse(kind) {
        None => Err(format!("\"{kind}\" is not a valid choice.")),
        Some(parsed) if parsed.allowed_for_custom_types() => Ok(parsed),
        Some(parsed) => Err(format!("Must be 'cloud' or 'net', not {parsed}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_round_trip() {
        for kind in Kind::ALL {
            assert_eq!(Kind::parse(kind.as_str()), Some(kind));
            assert_eq!(kind.to_string(), kind.as_str());
            let json = serde_json::to_value(kind).expect("serialises");
            assert_eq!(json, serde_json::Value::from(kind.as_str()));
            assert_eq!(serde_json::from_value::<Kind>(json).ok(), Some(kind));
        }
        assert_eq!(Kind::parse("SSH"), None);
        assert_eq!(Kind::parse("galaxy"), None);
    }

    #[test]
    fn labels() {
        let labels: Vec<&str> = Kind::ALL.iter().map(|kind| kind.label()).collect();
        assert_eq!(
            labels,
            [
                "Machine",
                "Vault",
                "Network",
                "Source Control",
                "Cloud",
                "Insights",
                "Content Source"
            ]
        );
    }

    #[test]
    fn custom_types_may_only_be_cloud_or_net() {
        assert_eq!(check_custom_kind("cloud"), Ok(Kind::Cloud));
        assert_eq!(check_custom_kind("net"), Ok(Kind::Net));
        for kind in ["ssh", "vault", "scm", "insights", "source"] {
            assert_eq!(
                check_custom_kind(kind),
                Err(format!("Must be 'cloud' or 'net', not {kind}"))
            );
        }
        assert_eq!(
            check_custom_kind("kubernetes"),
            Err("\"kubernetes\" is not a valid choice.".to_owned())
        );
        assert_eq!(
            check_custom_kind(""),
            Err("\"\" is not a valid choice.".to_owned())
        );
    }
}
