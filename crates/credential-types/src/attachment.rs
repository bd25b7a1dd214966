//! Which credentials may be attached together to a job template (the reference's rules).
//!
//! A job template holds at most one credential per *unique hash*: the credential type, or for a
//! vault credential with a `vault_id`, the type and that id. So a template may have one Machine
//! credential, one credential of each cloud or network type, and several vault credentials with
//! distinct vault ids. Only the kinds `ssh`, `vault`, `cloud` and `net` may be attached.

/// What the rules need to know about one credential.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AttachedCredential {
    /// The credential's id.
    pub id: i64,
    /// Its type's id.
    pub type_id: i64,
    /// Its type's name, for messages.
    pub type_name: String,
    /// Its type's kind (`ssh`, `vault`, …).
    pub kind: String,
    /// The `vault_id` input of a vault credential, if set and not empty.
    pub vault_id: Option<String>,
}

impl AttachedCredential {
    /// The key two credentials of one template may not share.
    fn unique_hash(&self) -> (i64, Option<&str>) {
        let vault_id = if self.kind == "vault" {
            self.vault_id.as_deref().filter(|id| !id.is_empty())
        } else {
            None
        };
        (self.type_id, vault_id)
    }

    /// The name messages use: the type's, with the vault id when there is one.
    fn display(&self) -> String {
        match self.unique_hash().1 {
            Some(vault_id) => format!("{} (id={vault_id})", self.type_name),
            None => self.type_name.clone(),
        }
    }
}

/// Why a credential cannot be attached.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AttachError {
    /// Its kind is never injected into jobs.
    #[error("Cannot assign a Credential of kind `{0}`.")]
    Kind(String),
    /// The template already has one with the same unique hash.
    #[error("Cannot assign multiple {0} credentials.")]
    Multiple(String),
}

/// The kinds a job template may hold.
pub const ATTACHABLE_KINDS: [&str; 4] = ["ssh", "vault", "cloud", "net"];

/// Whether `candidate` may join `attached` on one job template. Attaching a credential that is
/// already there is allowed (it changes nothing).
///
/// # Errors
///
/// [`AttachError::Kind`] for a kind outside [`ATTACHABLE_KINDS`], [`AttachError::Multiple`]
/// when another attached credential has the same unique hash.
pub fn check_attach(
    attached: &[AttachedCredential],
    candidate: &AttachedCredential,
) -> Result<(), AttachError> {
    if !ATTACHABLE_KINDS.contains(&candidate.kind.as_str()) {
        return Err(AttachError::Kind(candidate.kind.clone()));
    }
    let clash = attached
        .iter()
        .any(|other| other.id != candidate.id && other.unique_hash() == candidate.unique_hash());
    if clash {
        return Err(AttachError::Multiple(candidate.display()));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn credential(
        id: i64,
        type_id: i64,
        name: &str,
        kind: &str,
        vault_id: Option<&str>,
    ) -> AttachedCredential {
        AttachedCredential {
            id,
            type_id,
            type_name: name.to_owned(),
            kind: kind.to_owned(),
            vault_id: vault_id.map(str::to_owned),
        }
    }

    #[test]
    fn one_per_type_but_distinct_vault_ids() {
        let machine = credential(1, 1, "Machine", "ssh", None);
        let other_machine = credential(2, 1, "Machine", "ssh", None);
        assert_eq!(
            check_attach(std::slice::from_ref(&machine), &other_machine),
            Err(AttachError::Multiple("Machine".into()))
        );
        assert_eq!(
            check_attach(std::slice::from_ref(&machine), &machine),
            Ok(())
        );

        let dev = credential(3, 3, "Vault", "vault", Some("dev"));
        let prod = credential(4, 3, "Vault", "vault", Some("prod"));
        let plain = credential(5, 3, "Vault", "vault", None);
        let dev_again = credential(6, 3, "Vault", "vault", Some("dev"));
        let attached = [dev.clone(), prod, plain];
        assert_eq!(check_attach(&attached[..2], &attached[2]), Ok(()));
        assert_eq!(
            check_attach(&attached, &dev_again),
            Err(AttachError::Multiple("Vault (id=dev)".into()))
        );
        assert_eq!(
            AttachError::Multiple("Väult (id=🐉🐉🐉)".into()).to_string(),
            "Cannot assign multiple Väult (id=🐉🐉🐉) credentials."
        );
    }

    #[test]
    fn different_cloud_types_mix() {
        let aws = credential(1, 5, "Amazon Web Services", "cloud", None);
        let custom = credential(2, 40, "My cloud", "cloud", None);
        let custom_again = credential(3, 40, "My cloud", "cloud", None);
        assert_eq!(check_attach(std::slice::from_ref(&aws), &custom), Ok(()));
        assert_eq!(
            check_attach(&[aws, custom], &custom_again).map_err(|e| e.to_string()),
            Err("Cannot assign multiple My cloud credentials.".into())
        );
    }

    #[test]
    fn only_job_kinds_attach() {
        for kind in ["scm", "insights", "source"] {
            let error = check_attach(&[], &credential(1, 9, "X", kind, None)).unwrap_err();
            assert_eq!(
                error.to_string(),
                format!("Cannot assign a Credential of kind `{kind}`.")
            );
        }
        for kind in ATTACHABLE_KINDS {
            assert_eq!(
                check_attach(&[], &credential(1, 9, "X", kind, None)),
                Ok(())
            );
        }
    }
}
