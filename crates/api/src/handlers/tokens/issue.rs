//! Issuing tokens is a use case (`acs_app::tokens`); what the API adds is the creation
//! response's plain values.

pub use acs_app::tokens::{IssueRequest, Issued, issue};

use super::render::Plain;

/// The plain values of `issued` for the creation response (shown this once).
pub fn plain(issued: &Issued) -> Plain<'_> {
    Plain {
        token: &issued.value,
        refresh_token: issued.refresh.as_ref(),
    }
}

#[cfg(test)]
mod tests {
    use acs_app::activity::fields_of;
    use acs_app::tokens::RecordedToken;
    use acs_storage::tokens::{AccessToken, TokenRow};

    use super::super::render::render_token;

    fn row(application: Option<i64>) -> TokenRow {
        let at = chrono::NaiveDate::from_ymd_opt(2026, 11, 27)
            .and_then(|day| day.and_hms_micro_opt(12, 30, 0, 123_456))
            .expect("a time");
        TokenRow {
            user: (7, "alice".into(), "Alice".into(), "A.".into()),
            application: application.map(|id| (id, "cli".into(), "client-id".into())),
            token: AccessToken {
                id: 3,
                digest: vec![1, 2, 3],
                user_id: 7,
                application_id: application,
                description: "ci <b>".into(),
                scope: "read write".into(),
                expires: at,
                created: at,
                modified: at,
            },
        }
    }

    #[test]
    fn the_recorded_fields_are_the_records_without_its_envelope() {
        for application in [None, Some(5)] {
            let row = row(application);
            assert_eq!(
                fields_of(&RecordedToken::of(&row)).expect("fields"),
                fields_of(&render_token(&row, None)).expect("fields"),
            );
            // Same order too: the stream shows the changes as stored.
            assert_eq!(
                fields_of(&RecordedToken::of(&row))
                    .expect("fields")
                    .to_string(),
                fields_of(&render_token(&row, None))
                    .expect("fields")
                    .to_string(),
            );
        }
    }
}
