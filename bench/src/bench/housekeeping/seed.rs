//! Seeding a fresh database with many tokens, fast: one transaction of set-based inserts
//! (a recursive CTE on SQLite, `generate_series` on PostgreSQL), so a million rows take
//! seconds rather than a million round trips.

use acs_storage::{Database, DbConnection};
use diesel::connection::SimpleConnection;

use crate::Result;

/// Long expired, whatever the lifetimes.
const PAST: &str = "2000-01-01 00:00:00";
/// Far from expiring.
const FUTURE: &str = "2999-01-01 00:00:00";

/// What a seeded database holds, and so what each command should find.
#[derive(Debug, Clone, Copy)]
pub struct Dataset {
    /// Access tokens, all of one user; every tenth is unexpired.
    pub access_tokens: u64,
}

impl Dataset {
    /// A quarter of the access tokens are application tokens with a refresh token.
    pub fn refresh_tokens(&self) -> u64 {
        self.access_tokens / 4
    }

    /// Sessions, one in ten of the tokens; half of them expired.
    pub fn sessions(&self) -> u64 {
        self.access_tokens / 10
    }

    /// Access tokens `cleanup_tokens` deletes: all but every tenth.
    pub fn expired_access_tokens(&self) -> u64 {
        self.access_tokens - self.access_tokens / 10
    }

    /// Refresh tokens `cleanup_tokens` deletes: all but every fifth, which is new.
    pub fn expired_refresh_tokens(&self) -> u64 {
        self.refresh_tokens() - self.refresh_tokens() / 5
    }

    /// Sessions `cleanup_tokens` deletes: the odd ones.
    pub fn expired_sessions(&self) -> u64 {
        self.sessions().div_ceil(2)
    }
}

/// Migrates `database` (fresh) and fills it with `dataset`.
pub fn seed(database: &Database, dataset: Dataset) -> Result<()> {
    let mut conn = database.connect()?;
    acs_storage::run_migrations(&mut conn)?;
    let postgres = matches!(conn, DbConnection::Postgres(_));
    let now = chrono::Utc::now()
        .naive_utc()
        .format("%Y-%m-%d %H:%M:%S")
        .to_string();
    let blob_zero = if postgres {
        "decode('00', 'hex')"
    } else {
        "X'00'"
    };
    let n = dataset.access_tokens;
    let with_refresh = dataset.refresh_tokens();
    // A large page cache for the seeding connection (the bench's own): inserts into the
    // random digest indexes otherwise spill pages all along.
    let cache = if postgres {
        ""
    } else {
        "PRAGMA cache_size = -524288;"
    };
    let mut sql = format!(
        "{cache}
         BEGIN;
         INSERT INTO users (id, username, password, created, modified)
           VALUES (1, 'bench', '!', '{now}', '{now}');
         INSERT INTO organizations (id, name, created, modified)
           VALUES (1, 'bench', '{now}', '{now}');
         INSERT INTO applications (id, name, client_id, client_secret_digest, client_type,
           authorization_grant_type, organization_id, created, modified)
           VALUES (1, 'bench', 'bench', {blob_zero}, 'confidential', 'password', 1,
             '{now}', '{now}');\n"
    );
    sql.push_str(&series(
        postgres,
        n,
        "INSERT INTO access_tokens (id, digest, user_id, application_id, description, scope,
           expires, created, modified)",
        &format!(
            "i, {digest}, 1, CASE WHEN i <= {with_refresh} THEN 1 ELSE NULL END, '', 'write',
             {expires}, {now_value}, {now_value}",
            digest = digest(postgres),
            expires = timestamp_case(postgres, "i % 10 = 0", FUTURE, PAST),
            now_value = timestamp(postgres, &now),
        ),
    ));
    sql.push_str(&series(
        postgres,
        with_refresh,
        "INSERT INTO refresh_tokens (id, digest, user_id, application_id, access_token_id,
           scope, created, revoked)",
        &format!(
            "i, {digest}, 1, 1, i, 'write', {created}, NULL",
            digest = digest(postgres),
            created = timestamp_case(postgres, "i % 5 = 0", &now, PAST),
        ),
    ));
    sql.push_str(&series(
        postgres,
        dataset.sessions(),
        "INSERT INTO sessions (id, digest, user_id, created, expires)",
        &format!(
            "i, {digest}, 1, {now_value}, {expires}",
            digest = digest(postgres),
            now_value = timestamp(postgres, &now),
            expires = timestamp_case(postgres, "i % 2 = 0", FUTURE, PAST),
        ),
    ));
    sql.push_str("COMMIT;\n");
    // Planner statistics, as a long-running database would have them.
    sql.push_str("ANALYZE;\n");
    conn.batch_execute(&sql)?;
    Ok(())
}

/// `head SELECT columns` over `i` = 1..=count.
fn series(postgres: bool, count: u64, head: &str, columns: &str) -> String {
    if postgres {
        format!("{head} SELECT {columns} FROM generate_series(1, {count}) AS series(i);\n")
    } else {
        format!(
            "WITH RECURSIVE series(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM series \
             WHERE i < {count}) {head} SELECT {columns} FROM series;\n"
        )
    }
}

/// A random-looking digest, unique per row (real digests are random too, which matters for
/// the cost of maintaining their unique index).
fn digest(postgres: bool) -> &'static str {
    if postgres {
        "sha256(int8send(i::bigint))"
    } else {
        "randomblob(32)"
    }
}

fn timestamp(postgres: bool, text: &str) -> String {
    if postgres {
        format!("TIMESTAMP '{text}'")
    } else {
        format!("'{text}'")
    }
}

fn timestamp_case(postgres: bool, condition: &str, then: &str, otherwise: &str) -> String {
    format!(
        "CASE WHEN {condition} THEN {} ELSE {} END",
        timestamp(postgres, then),
        timestamp(postgres, otherwise)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_small_dataset_seeds_with_the_expected_counts() {
        let dataset = Dataset { access_tokens: 100 };
        assert_eq!(
            (
                dataset.refresh_tokens(),
                dataset.sessions(),
                dataset.expired_access_tokens(),
                dataset.expired_refresh_tokens(),
                dataset.expired_sessions()
            ),
            (25, 10, 90, 20, 5)
        );
        // An in-memory database lives only as long as its connection: seed a file.
        let dir = std::env::temp_dir().join(format!("acs-seed-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let database = Database::Sqlite(dir.join("acs.sqlite3"));
        seed(&database, dataset).expect("seeded");
        let mut conn = database.connect().expect("a connection");
        let count = |conn: &mut DbConnection, sql: &str| -> i64 {
            use diesel::RunQueryDsl;
            diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(sql))
                .get_result(conn)
                .expect("a count")
        };
        assert_eq!(
            count(&mut conn, "(SELECT COUNT(*) FROM access_tokens)"),
            100
        );
        assert_eq!(
            count(
                &mut conn,
                &format!("(SELECT COUNT(*) FROM access_tokens WHERE expires = '{PAST}')")
            ),
            90
        );
        assert_eq!(
            count(&mut conn, "(SELECT COUNT(*) FROM refresh_tokens)"),
            25
        );
        assert_eq!(count(&mut conn, "(SELECT COUNT(*) FROM sessions)"), 10);
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
