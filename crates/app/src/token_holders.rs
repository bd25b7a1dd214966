//! Deleting what holds access tokens: a user, an application or an organization. The
//! database cascades the deletion to their tokens without telling anyone, so the tokens are
//! found first and each is recorded as deleted beside the object itself.

use acs_storage::DbConnection;
use acs_storage::tokens::TokenHolder;
use acs_storage::users::User;
use serde::Serialize;
use serde_json::{Map, json};

use crate::AppResult;
use crate::activity::{Subject, record, record_deletion};

/// Deletes `holder` inside the caller's write transaction, and records that `actor` deleted
/// it (`subject`, with the fields of `rendered`, its record as the API shows it) and each of
/// its access tokens. Deleting a row that is already gone records the same.
pub fn delete(
    conn: &mut DbConnection,
    now: acs_storage::Timestamp,
    actor: &User,
    holder: TokenHolder,
    subject: &Subject,
    rendered: &impl Serialize,
) -> AppResult<()> {
    let tokens = acs_storage::tokens::ids_held_by(conn, holder)?;
    match holder {
        TokenHolder::User(id) => acs_storage::users::delete(conn, id)?,
        TokenHolder::Application(id) => acs_storage::applications::delete(conn, id)?,
        TokenHolder::Organization(id) => acs_storage::organizations::delete(conn, id)?,
    };
    record_deletion(conn, now, actor, subject, rendered)?;
    for id in tokens {
        record(
            conn,
            now,
            Some(actor),
            "delete",
            &Subject::named(acs_storage::activity::TOKEN, id, ""),
            None,
            json!({ "id": id, "deleted_with": Map::from_iter([(subject.kind.to_owned(), subject.summary.clone())]) }),
        )?;
    }
    Ok(())
}
