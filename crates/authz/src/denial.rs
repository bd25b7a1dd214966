//! Why an action is refused.

use std::fmt;

/// Why an action is refused.
///
/// `Display` is the user-facing message; the API renders it as
/// `{"detail": message}` with status 403.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Denied {
    /// The actor has no role granting the action. Its text is Django REST
    /// framework's, which AWX clients may match on.
    NotPermitted,
    /// The actor may edit or create the user, but not set or clear
    /// `is_superuser` / `is_system_auditor`.
    OnlySuperuserGrantsPrivileges,
    /// Users may not delete their own account, so a controller cannot lose
    /// its last superuser by accident.
    CannotDeleteSelf,
    /// An application's owner may change it, but not make it skip the consent
    /// page: that would let the owner have tokens issued in the name of anyone
    /// who follows a link.
    OnlyOrganizationAdminsSkipAuthorization,
    /// The owner of an application that skips the consent page may not change
    /// where its codes go nor whether it needs its secret (the named field):
    /// that would re-point the organization's trust at a site of the owner's.
    OnlyOrganizationAdminsRepointConsentless(&'static str),
}

impl fmt::Display for Denied {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Denied::OnlyOrganizationAdminsRepointConsentless(field) = self {
            return write!(
                f,
                "{field}: only a superuser or an admin of the application's organization may change it while the application skips the consent page (skip_authorization)."
            );
        }
        f.write_str(match self {
            Denied::NotPermitted => "You do not have permission to perform this action.",
            Denied::OnlySuperuserGrantsPrivileges => {
                "Only superusers may grant or revoke superuser or system auditor status."
            }
            Denied::CannotDeleteSelf => "You cannot delete your own account.",
            Denied::OnlyOrganizationAdminsSkipAuthorization => {
                "skip_authorization: only a superuser or an admin of the application's organization may set it."
            }
            Denied::OnlyOrganizationAdminsRepointConsentless(_) => unreachable!("written above"),
        })
    }
}

impl std::error::Error for Denied {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages() {
        #[rustfmt::skip]
        let rows = [
            (Denied::NotPermitted, "You do not have permission to perform this action."),
            (Denied::OnlySuperuserGrantsPrivileges, "Only superusers may grant or revoke superuser or system auditor status."),
            (Denied::CannotDeleteSelf, "You cannot delete your own account."),
            (Denied::OnlyOrganizationAdminsSkipAuthorization, "skip_authorization: only a superuser or an admin of the application's organization may set it."),
        ];
        for (denied, expected) in rows {
            assert_eq!(denied.to_string(), expected, "{denied:?}");
        }
    }

    #[test]
    fn is_a_std_error() {
        let error: Box<dyn std::error::Error> = Box::new(Denied::NotPermitted);
        assert!(error.source().is_none());
    }
}
