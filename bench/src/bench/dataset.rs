//! The users and personal access tokens a server is started on, written straight into its
//! fresh database with set-based SQL (a recursive CTE on SQLite, `generate_series` on
//! PostgreSQL): a million tokens through the API would take longer than the whole bench.
//!
//! User 1 is the list user, `bench`, who owns [`LIST_TOKENS`] tokens spread evenly over the
//! ids, as a user's tokens are among everyone's in a live database (ids 1 to 1 000 would put
//! them first in every scan by id); the bench knows the value of the first
//! ([`LIST_USER_TOKEN`]). Every other token belongs to one of the other users, spread evenly.
//! Rows look like a live database's: distinct SHA-256 digests, creation dates over the past
//! year, each expiring one personal-token lifetime after it was created (so none has
//! expired), read and write scopes alternating.
//!
//! One organization holds [`TEMPLATES`] job templates on one project and one inventory; the
//! list user belongs to no organization and was granted `execute` on every tenth of them
//! ([`LIST_USER_TEMPLATES`]), so the template list measures visibility by role grants. The
//! list user is also a member of the organization's [`TEAMS`] teams, which hold `read` on
//! those same templates (a thousand team grants, twenty a team): building its principal reads
//! them, and the template list shows the same thousand.

use acs_storage::{Database, DbConnection};
use diesel::connection::SimpleConnection;

use crate::Result;

/// The tokens of the list user.
pub const LIST_TOKENS: u64 = 1_000;
/// The list user's first token, in clear: the bench lists that user's tokens with it.
pub const LIST_USER_TOKEN: &str = "benchListUserToken0000000000000000000000000";
/// The job templates of the seeded organization.
pub const TEMPLATES: u64 = 10_000;
/// The templates the list user holds `execute` on (every tenth).
pub const LIST_USER_TEMPLATES: u64 = TEMPLATES / 10;
/// The teams of the seeded organization, each with the list user as a member.
pub const TEAMS: u64 = 50;
/// Creation dates go back this many days, less than a personal token's year of life.
const CREATED_OVER_DAYS: u64 = 364;

/// Tokens of the cold rows, drawn at random for each request: ten times what the server's
/// principal cache holds, so that most requests miss it.
pub const COLD_TOKENS: u64 = 100_000;
/// The text of cold token `n` (1 to [`COLD_TOKENS`]): this prefix and `n` zero-padded to
/// [`COLD_TOKEN_DIGITS`], as long as a real token.
pub const COLD_TOKEN_PREFIX: &str = "benchCold";
/// See [`COLD_TOKEN_PREFIX`].
pub const COLD_TOKEN_DIGITS: usize = 34;

/// Sessions of the cold_session row, drawn at random for each request: as many as the cold
/// tokens, ten times what the principal cache holds. Owned by the cold tokens' owner.
pub const COLD_SESSIONS: u64 = 100_000;
/// The cookie value of cold session `n` (1 to [`COLD_SESSIONS`]): this prefix and `n`
/// zero-padded to [`COLD_TOKEN_DIGITS`].
pub const COLD_SESSION_PREFIX: &str = "benchSess";

/// Users who have never logged in, for the row of first-time logins beside bearer: more than
/// a row's logins can use up.
pub const LOGIN_USERS: u64 = 5_000;
/// Their first id, after the list user and the cold tokens' owner (see
/// [`seed_cold_credentials`]).
pub const FIRST_LOGIN_USER_ID: u64 = Dataset::LIST_USER_ONLY.users + 2;
/// Their password, hashed once at the reference's cost (PBKDF2, 600 000 rounds) and stored
/// for each: no two share a cache entry, so each first login costs a whole verification.
pub const LOGIN_PASSWORD: &str = "first-login-password";
/// Users of the cold_basic row (`basic<id>`, with [`LOGIN_PASSWORD`]), each request one of
/// them drawn at random: as many as the password cache holds, and more than a row can verify.
pub const COLD_BASIC_USERS: u64 = 10_000;
/// Their first id, after the login users.
pub const FIRST_COLD_BASIC_USER_ID: u64 = FIRST_LOGIN_USER_ID + LOGIN_USERS;

/// What a seeded database holds besides what the server creates (its admin).
#[derive(Debug, Clone, Copy)]
pub struct Dataset {
    /// Users, the list user included.
    pub users: u64,
    /// Personal access tokens, the list user's included.
    pub tokens: u64,
}

impl Dataset {
    /// The list user and its tokens, nothing else.
    pub const LIST_USER_ONLY: Dataset = Dataset {
        users: 1,
        tokens: LIST_TOKENS,
    };

    /// Whether the rows can be laid out as described: the list user's tokens, and other users
    /// for any tokens beyond them.
    fn check(&self) -> Result<()> {
        if self.users == 0 || self.tokens < LIST_TOKENS {
            return Err(format!(
                "a dataset needs the list user and its {LIST_TOKENS} tokens (asked for {} users, {} tokens)",
                self.users, self.tokens
            )
            .into());
        }
        if self.tokens > LIST_TOKENS && self.users < 2 {
            return Err("tokens beyond the list user's need other users to own them".into());
        }
        Ok(())
    }
}

/// Migrates `database` (fresh, no server on it yet) and fills it with `dataset`.
pub fn seed(database: &Database, dataset: Dataset) -> Result<()> {
    dataset.check()?;
    let mut conn = database.connect()?;
    acs_storage::run_migrations(&mut conn)?;
    let sql = Sql::for_connection(&conn);
    conn.batch_execute(&sql.statements(dataset))?;
    // Planner statistics and, on PostgreSQL, a visibility map, as a long-running database
    // would have them (VACUUM cannot run inside the transaction above).
    conn.batch_execute(if sql.postgres {
        "VACUUM ANALYZE"
    } else {
        "ANALYZE"
    })?;
    Ok(())
}

/// The text of cold token `n`, as wrk's script writes it (see `Workload::Drawn`).
pub fn cold_token(n: u64) -> String {
    format!("{COLD_TOKEN_PREFIX}{n:0COLD_TOKEN_DIGITS$}")
}

/// The cookie value of cold session `n`, as wrk's script writes it.
pub fn cold_session(n: u64) -> String {
    format!("{COLD_SESSION_PREFIX}{n:0COLD_TOKEN_DIGITS$}")
}

/// Adds to `database` (seeded by [`seed`] with `seeded`, no server on it yet) a user owning
/// the [`COLD_TOKENS`] tokens and the [`COLD_SESSIONS`] sessions whose texts the cold rows
/// draw from, with the ids that follow the seeded ones (the owner is user 2 beside the list
/// user alone). Their digests are computed here, a thousand rows a statement. The sessions
/// expire a day after the seeding, later than a request re-arms them to (the session's idle
/// time, 30 minutes): the row measures a session's read, not its re-arming.
pub fn seed_cold_credentials(database: &Database, seeded: Dataset) -> Result<()> {
    let owner = seeded.users + 1;
    let mut conn = database.connect()?;
    let sql = Sql::for_connection(&conn);
    let now = sql.timestamp(&sql.now);
    let lifetime = acs_oauth2::Lifetimes::default().personal_access_token_seconds;
    let expires = sql.days_before_now("0", lifetime);
    let mut statements = format!(
        "BEGIN;
         INSERT INTO users (id, username, password, email, created, modified)
           VALUES ({owner}, 'cold', '!', 'cold@example.com', {now}, {now});\n"
    );
    let first_id = seeded.tokens + 1;
    let numbers: Vec<u64> = (1..=COLD_TOKENS).collect();
    for chunk in numbers.chunks(1_000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|n| {
                let digest = acs_oauth2::PlainSecret::new(cold_token(*n)).digest();
                format!(
                    "({}, {}, {owner}, NULL, 'cold', 'read', {expires}, {now}, {now})",
                    first_id + n - 1,
                    sql.blob(digest.as_bytes())
                )
            })
            .collect();
        statements.push_str(&format!(
            "INSERT INTO access_tokens (id, digest, user_id, application_id, description, scope,
               expires, created, modified) VALUES {};\n",
            rows.join(",")
        ));
    }
    let session_expires = sql.days_before_now("0", 86_400);
    let numbers: Vec<u64> = (1..=COLD_SESSIONS).collect();
    for chunk in numbers.chunks(1_000) {
        let rows: Vec<String> = chunk
            .iter()
            .map(|n| {
                let digest = acs_oauth2::PlainSecret::new(cold_session(*n)).digest();
                format!(
                    "({n}, {}, {owner}, {now}, {session_expires})",
                    sql.blob(digest.as_bytes())
                )
            })
            .collect();
        statements.push_str(&format!(
            "INSERT INTO sessions (id, digest, user_id, created, expires) VALUES {};\n",
            rows.join(",")
        ));
    }
    if sql.postgres {
        for table in ["users", "access_tokens", "sessions"] {
            statements.push_str(&format!(
                "SELECT setval(pg_get_serial_sequence('{table}', 'id'), (SELECT MAX(id) FROM {table}));\n"
            ));
        }
    }
    statements.push_str("COMMIT;\n");
    conn.batch_execute(&statements)?;
    conn.batch_execute(if sql.postgres {
        "VACUUM ANALYZE access_tokens, sessions"
    } else {
        "ANALYZE"
    })?;
    Ok(())
}

/// Adds to `database` the [`LOGIN_USERS`] users `login<id>` whose first logins the row of
/// logins beside bearer sends, and the [`COLD_BASIC_USERS`] users `basic<id>` of the
/// cold_basic row.
pub fn seed_login_users(database: &Database) -> Result<()> {
    let mut conn = database.connect()?;
    let sql = Sql::for_connection(&conn);
    let now = sql.timestamp(&sql.now);
    let hash = acs_oauth2::hash_password(LOGIN_PASSWORD, 600_000, &ring::rand::SystemRandom::new())
        .map_err(|error| format!("hashing the login users' password: {error}"))?;
    let mut statements = String::from("BEGIN;\n");
    statements.push_str(&sql.series(
        FIRST_LOGIN_USER_ID,
        FIRST_LOGIN_USER_ID + LOGIN_USERS - 1,
        "INSERT INTO users (id, username, password, email, created, modified)",
        &format!("i, 'login' || i, '{hash}', 'login' || i || '@example.com', {now}, {now}"),
    ));
    statements.push_str(&sql.series(
        FIRST_COLD_BASIC_USER_ID,
        FIRST_COLD_BASIC_USER_ID + COLD_BASIC_USERS - 1,
        "INSERT INTO users (id, username, password, email, created, modified)",
        &format!("i, 'basic' || i, '{hash}', 'basic' || i || '@example.com', {now}, {now}"),
    ));
    if sql.postgres {
        statements.push_str(
            "SELECT setval(pg_get_serial_sequence('users', 'id'), (SELECT MAX(id) FROM users));\n",
        );
    }
    statements.push_str("COMMIT;\n");
    conn.batch_execute(&statements)?;
    Ok(())
}

/// The statements of one backend.
struct Sql {
    postgres: bool,
    /// The seeding's time, `%Y-%m-%d %H:%M:%S`.
    now: String,
}

impl Sql {
    /// The statements for `conn`'s backend, stamped now.
    fn for_connection(conn: &DbConnection) -> Self {
        Sql {
            postgres: matches!(conn, DbConnection::Postgres(_)),
            now: chrono::Utc::now()
                .naive_utc()
                .format("%Y-%m-%d %H:%M:%S")
                .to_string(),
        }
    }

    fn statements(&self, dataset: Dataset) -> String {
        let others = dataset.users.saturating_sub(1).max(1);
        let lifetime = acs_oauth2::Lifetimes::default().personal_access_token_seconds;
        let created = self.days_before_now(&format!("i % {CREATED_OVER_DAYS}"), 0);
        let expires = self.days_before_now(&format!("i % {CREATED_OVER_DAYS}"), lifetime);
        let now = self.timestamp(&self.now);
        // A large page cache for the seeding connection (the bench's own): inserts into the
        // random digest index otherwise spill pages all along.
        let cache = if self.postgres {
            ""
        } else {
            "PRAGMA cache_size = -524288;"
        };
        let mut sql = format!(
            "{cache}
             BEGIN;
             INSERT INTO users (id, username, password, email, created, modified)
               VALUES (1, 'bench', '!', 'bench@example.com', {now}, {now});\n"
        );
        sql.push_str(&self.series(
            2,
            dataset.users,
            "INSERT INTO users (id, username, password, email, created, modified)",
            &format!("i, 'user' || i, '!', 'user' || i || '@example.com', {now}, {now}"),
        ));
        // The list user's tokens are every `stride`-th, the first of them the known one.
        let stride = dataset.tokens / LIST_TOKENS;
        let known = acs_oauth2::PlainSecret::new(LIST_USER_TOKEN.to_owned()).digest();
        let scope = "CASE WHEN i % 2 = 0 THEN 'write' ELSE 'read' END";
        sql.push_str(&self.series(
            1,
            dataset.tokens,
            "INSERT INTO access_tokens (id, digest, user_id, application_id, description, scope,
               expires, created, modified)",
            &format!(
                "i, CASE WHEN i = {stride} THEN {known} ELSE {digest} END,
                 CASE WHEN i % {stride} = 0 AND i <= {last} THEN 1 ELSE 2 + i % {others} END,
                 NULL, 'bench', {scope}, {expires}, {created}, {created}",
                known = self.blob(known.as_bytes()),
                digest = self.digest(),
                last = stride * LIST_TOKENS,
            ),
        ));
        sql.push_str(&self.templates(&now));
        if self.postgres {
            // Rows inserted with their ids leave the sequences behind: the server's own
            // inserts (its admin first) would collide with them.
            for table in [
                "users",
                "access_tokens",
                "organizations",
                "projects",
                "inventories",
                "job_templates",
                "teams",
            ] {
                sql.push_str(&format!(
                    "SELECT setval(pg_get_serial_sequence('{table}', 'id'), \
                     (SELECT MAX(id) FROM {table}));\n"
                ));
            }
        }
        sql.push_str("COMMIT;\n");
        sql
    }

    /// The organization, its project, inventory and templates, and the list user's grants
    /// (the roles' rows are the triggers').
    fn templates(&self, now: &str) -> String {
        let mut sql = format!(
            "INSERT INTO organizations (id, name, created, modified)
               VALUES (1, 'bench', {now}, {now});
             INSERT INTO projects (id, name, organization_id, local_path, created, modified)
               VALUES (1, 'bench', 1, '', {now}, {now});
             INSERT INTO inventories (id, name, organization_id, created, modified)
               VALUES (1, 'bench', 1, {now}, {now});\n"
        );
        sql.push_str(&self.series(
            1,
            TEMPLATES,
            "INSERT INTO job_templates (id, name, organization_id, inventory_id, project_id,
               playbook, created, modified)",
            &format!("i, 'template' || i, 1, 1, 1, 'site.yml', {now}, {now}"),
        ));
        sql.push_str(
            "INSERT INTO role_members (role_id, user_id)
               SELECT id, 1 FROM roles
               WHERE kind = 'job_template' AND field = 'execute_role' AND object_id % 10 = 0;\n",
        );
        sql.push_str(&self.series(
            1,
            TEAMS,
            "INSERT INTO teams (id, name, organization_id, created, modified)",
            &format!("i, 'team' || i, 1, {now}, {now}"),
        ));
        sql.push_str(&format!(
            "INSERT INTO role_members (role_id, user_id)
               SELECT id, 1 FROM roles WHERE kind = 'team' AND field = 'member_role';
             INSERT INTO team_roles (role_id, team_id)
               SELECT id, 1 + (object_id / 10) % {TEAMS} FROM roles
               WHERE kind = 'job_template' AND field = 'read_role' AND object_id % 10 = 0;\n"
        ));
        sql
    }

    /// `head SELECT columns` over `i` = `from..=to` (nothing when the range is empty).
    fn series(&self, from: u64, to: u64, head: &str, columns: &str) -> String {
        if from > to {
            String::new()
        } else if self.postgres {
            format!("{head} SELECT {columns} FROM generate_series({from}, {to}) AS series(i);\n")
        } else {
            format!(
                "WITH RECURSIVE series(i) AS (SELECT {from} UNION ALL SELECT i + 1 FROM series \
                 WHERE i < {to}) {head} SELECT {columns} FROM series;\n"
            )
        }
    }

    /// A digest unique per row and as random as a real one (which matters for the cost of
    /// its unique index); the known token's digest, a SHA-256 of text, cannot be among them.
    fn digest(&self) -> &'static str {
        if self.postgres {
            "sha256(int8send(i::bigint))"
        } else {
            "randomblob(32)"
        }
    }

    fn blob(&self, bytes: &[u8]) -> String {
        let hex: String = bytes.iter().map(|byte| format!("{byte:02x}")).collect();
        if self.postgres {
            format!("decode('{hex}', 'hex')")
        } else {
            format!("X'{hex}'")
        }
    }

    fn timestamp(&self, text: &str) -> String {
        if self.postgres {
            format!("TIMESTAMP '{text}'")
        } else {
            format!("'{text}'")
        }
    }

    /// The seeding's time less `days` (an SQL expression) days, plus `seconds`.
    fn days_before_now(&self, days: &str, seconds: i64) -> String {
        if self.postgres {
            format!(
                "TIMESTAMP '{}' - ({days}) * INTERVAL '1 day' + INTERVAL '{seconds} seconds'",
                self.now
            )
        } else {
            // The format diesel writes SQLite timestamps in.
            format!(
                "strftime('%Y-%m-%d %H:%M:%S', '{}', '-' || ({days}) || ' days', '+{seconds} seconds')",
                self.now
            )
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(conn: &mut DbConnection, sql: &str) -> i64 {
        use diesel::RunQueryDsl;
        diesel::select(diesel::dsl::sql::<diesel::sql_types::BigInt>(sql))
            .get_result(conn)
            .expect("a count")
    }

    #[test]
    fn a_small_dataset_has_the_list_user_and_spread_owners() {
        // An in-memory database lives only as long as its connection: seed a file.
        let dir = std::env::temp_dir().join(format!("acs-dataset-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        let database = Database::Sqlite(dir.join("acs.sqlite3"));
        let dataset = Dataset {
            users: 11,
            tokens: 3 * LIST_TOKENS + 2,
        };
        seed(&database, dataset).expect("seeded");
        let mut conn = database.connect().expect("a connection");
        assert_eq!(count(&mut conn, "(SELECT COUNT(*) FROM users)"), 11);
        assert_eq!(
            count(&mut conn, "(SELECT COUNT(*) FROM access_tokens)"),
            3002
        );
        // Every third token, up to the 3 000th.
        assert_eq!(
            count(
                &mut conn,
                "(SELECT COUNT(*) FROM access_tokens WHERE user_id = 1 AND id % 3 = 0)"
            ),
            1000
        );
        assert_eq!(
            count(
                &mut conn,
                "(SELECT COUNT(*) FROM access_tokens WHERE user_id = 1)"
            ),
            1000
        );
        // The other 2 002 spread over the ten other users.
        assert_eq!(
            count(
                &mut conn,
                "(SELECT MIN(n) FROM (SELECT COUNT(*) AS n FROM access_tokens \
                  WHERE user_id > 1 GROUP BY user_id))"
            ),
            200
        );
        assert_eq!(
            count(
                &mut conn,
                "(SELECT COUNT(DISTINCT user_id) FROM access_tokens WHERE user_id > 1)"
            ),
            10
        );
        let now = chrono::Utc::now()
            .naive_utc()
            .format("%Y-%m-%d %H:%M:%S")
            .to_string();
        assert_eq!(
            count(
                &mut conn,
                &format!("(SELECT COUNT(*) FROM access_tokens WHERE expires <= '{now}')")
            ),
            0
        );
        let known = acs_oauth2::PlainSecret::new(LIST_USER_TOKEN.to_owned()).digest();
        let hex: String = known
            .as_bytes()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        assert_eq!(
            count(
                &mut conn,
                &format!("(SELECT user_id * 10 + id FROM access_tokens WHERE digest = X'{hex}')")
            ),
            13
        );
        assert_eq!(
            count(&mut conn, "(SELECT COUNT(*) FROM job_templates)"),
            10_000
        );
        assert_eq!(
            count(
                &mut conn,
                "(SELECT COUNT(*) FROM role_members JOIN roles ON roles.id = role_id \
                  WHERE user_id = 1 AND kind = 'job_template')"
            ),
            1_000
        );
        // Fifty teams, the list user in each, each holding read on twenty of its templates.
        let roles = acs_storage::roles::user_roles(
            &mut conn,
            1,
            acs_storage::direct_grants::DirectGrants::Unread,
        )
        .expect("the roles");
        assert_eq!(roles.team_grants.len(), 1_000);
        let teams: std::collections::BTreeSet<i64> =
            roles.team_grants.iter().map(|grant| grant.team).collect();
        assert_eq!(teams.len(), 50);
        drop(conn);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn datasets_without_the_list_user_are_refused() {
        let too_few = Dataset {
            users: 1,
            tokens: 10,
        };
        assert!(too_few.check().is_err());
        let no_owner = Dataset {
            users: 1,
            tokens: LIST_TOKENS + 1,
        };
        assert!(no_owner.check().is_err());
        assert!(Dataset::LIST_USER_ONLY.check().is_ok());
    }
}
