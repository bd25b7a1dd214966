use diesel_migrations::{EmbeddedMigrations, MigrationHarness, embed_migrations};

use crate::{DbConnection, StorageError, StorageResult};

const SQLITE_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/sqlite");
const POSTGRES_MIGRATIONS: EmbeddedMigrations = embed_migrations!("../../migrations/postgres");

/// Applies every pending migration of the connection's backend; returns how many ran.
///
/// Safe to run from several processes at once on PostgreSQL (diesel takes a lock per
/// migration); idempotent everywhere.
pub fn run_migrations(conn: &mut DbConnection) -> StorageResult<usize> {
    let applied = match conn {
        DbConnection::Sqlite(inner) => inner.run_pending_migrations(SQLITE_MIGRATIONS),
        DbConnection::Postgres(inner) => inner.run_pending_migrations(POSTGRES_MIGRATIONS),
    };
    applied
        .map(|versions| versions.len())
        .map_err(|error| StorageError::Migration(error.to_string()))
}

/// How many migrations of the connection's backend have not been applied yet. Management
/// commands refuse to work on a database whose schema is behind the code.
pub fn pending_migrations(conn: &mut DbConnection) -> StorageResult<usize> {
    let pending = match conn {
        DbConnection::Sqlite(inner) => inner
            .pending_migrations(SQLITE_MIGRATIONS)
            .map(|migrations| migrations.len()),
        DbConnection::Postgres(inner) => inner
            .pending_migrations(POSTGRES_MIGRATIONS)
            .map(|migrations| migrations.len()),
    };
    pending.map_err(|error| StorageError::Migration(error.to_string()))
}

#[cfg(test)]
mod tests {
    use diesel::connection::SimpleConnection;
    use diesel::prelude::*;
    use diesel::sql_types::{BigInt, Text};

    use super::*;
    use crate::{Database, DbConnection};

    #[derive(QueryableByName, Debug, PartialEq)]
    struct PathRow {
        #[diesel(sql_type = BigInt)]
        id: i64,
        #[diesel(sql_type = Text)]
        local_path: String,
    }

    #[derive(QueryableByName, Debug)]
    struct ChangeRow {
        #[diesel(sql_type = BigInt)]
        object1_id: i64,
        #[diesel(sql_type = Text)]
        changes: String,
    }

    /// An in-memory SQLite database migrated up to, not including, `version`.
    fn migrated_before(version: &str) -> DbConnection {
        let mut conn = Database::Sqlite(":memory:".into())
            .connect()
            .expect("an in-memory database");
        let DbConnection::Sqlite(inner) = &mut conn else {
            unreachable!("a SQLite connection")
        };
        loop {
            let pending = inner
                .pending_migrations(SQLITE_MIGRATIONS)
                .expect("pending migrations");
            let next = pending.first().expect("the migration under test exists");
            if next.name().version().to_string().starts_with(version) {
                break;
            }
            inner
                .run_next_migration(SQLITE_MIGRATIONS)
                .expect("an earlier migration");
        }
        conn
    }

    /// Projects that shared a directory before directories became unique: the oldest keeps
    /// it, each other loses it with an activity-stream entry, and the index then refuses a
    /// second project on one directory.
    #[test]
    fn shared_project_directories_go_to_the_oldest_project() {
        let mut conn = migrated_before("20261130000001");
        let DbConnection::Sqlite(inner) = &mut conn else {
            unreachable!("a SQLite connection")
        };
        inner
            .batch_execute(
                "INSERT INTO organizations (id, name, created, modified) VALUES \
                   (1, 'a', '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
                   (2, 'b', '2024-01-01 00:00:00', '2024-01-01 00:00:00');
                 INSERT INTO projects (id, name, organization_id, local_path, created, modified) \
                 VALUES (3, 'a-site', 1, 'site', '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
                        (5, 'b-site', 2, 'site', '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
                        (4, 'b-other', 2, 'other', '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
                        (9, 'a-site-2', 1, 'site', '2024-01-01 00:00:00', '2024-01-01 00:00:00');",
            )
            .expect("seed rows");
        run_migrations(&mut conn).expect("the migration and any after it");
        let DbConnection::Sqlite(inner) = &mut conn else {
            unreachable!("a SQLite connection")
        };
        let paths: Vec<PathRow> =
            diesel::sql_query("SELECT id, local_path FROM projects ORDER BY id")
                .load(inner)
                .expect("projects");
        let expected = [(3, "site"), (4, "other"), (5, ""), (9, "")];
        assert_eq!(
            paths,
            expected.map(|(id, path)| PathRow {
                id,
                local_path: path.to_owned()
            })
        );
        let changes: Vec<ChangeRow> = diesel::sql_query(
            "SELECT object1_id, changes FROM activity_stream \
             WHERE object1 = 'project' ORDER BY object1_id",
        )
        .load(inner)
        .expect("activity");
        let recorded: Vec<(i64, serde_json::Value)> = changes
            .into_iter()
            .map(|row| {
                (
                    row.object1_id,
                    serde_json::from_str(&row.changes).expect("json"),
                )
            })
            .collect();
        assert_eq!(
            recorded,
            vec![
                (5, serde_json::json!({"local_path": ["site", ""]})),
                (9, serde_json::json!({"local_path": ["site", ""]})),
            ]
        );
        let duplicate = inner.batch_execute(
            "INSERT INTO projects (name, organization_id, local_path, created, modified) \
             VALUES ('again', 2, 'other', '2024-01-01 00:00:00', '2024-01-01 00:00:00')",
        );
        assert!(duplicate.is_err(), "a second project on one directory");
        // Projects without a directory do not collide with each other.
        inner
            .batch_execute(
                "UPDATE projects SET local_path = '' WHERE id = 3; \
                 UPDATE projects SET local_path = 'site' WHERE id = 9;",
            )
            .expect("directories move");
    }

    #[derive(QueryableByName, Debug, PartialEq)]
    struct LineRow {
        #[diesel(sql_type = BigInt)]
        unified_job_id: i64,
        #[diesel(sql_type = diesel::sql_types::Integer)]
        line: i32,
        #[diesel(sql_type = Text)]
        text: String,
    }

    /// Outputs stored whole before they became lines come out line by line, line ends kept,
    /// an unfinished last line included.
    #[test]
    fn stored_outputs_become_lines() {
        let mut conn = migrated_before("20261201000001");
        let DbConnection::Sqlite(inner) = &mut conn else {
            unreachable!("a SQLite connection")
        };
        inner
            .batch_execute(
                "INSERT INTO unified_jobs (id, kind, name, status, stdout, created, modified) VALUES \
                   (1, 'job', 'a', 'successful', 'a' || char(10) || 'b' || char(10), \
                    '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
                   (2, 'job', 'b', 'failed', 'x' || char(10) || char(10) || 'y', \
                    '2024-01-01 00:00:00', '2024-01-01 00:00:00'), \
                   (3, 'job', 'c', 'error', '', '2024-01-01 00:00:00', '2024-01-01 00:00:00');",
            )
            .expect("seed rows");
        run_migrations(&mut conn).expect("the migration and any after it");
        let DbConnection::Sqlite(inner) = &mut conn else {
            unreachable!("a SQLite connection")
        };
        let lines: Vec<LineRow> = diesel::sql_query(
            "SELECT unified_job_id, line, text FROM unified_job_lines ORDER BY unified_job_id, line",
        )
        .load(inner)
        .expect("lines");
        let expected = [
            (1, 0, "a\n"),
            (1, 1, "b\n"),
            (2, 0, "x\n"),
            (2, 1, "\n"),
            (2, 2, "y"),
        ];
        assert_eq!(
            lines,
            expected.map(|(unified_job_id, line, text)| LineRow {
                unified_job_id,
                line,
                text: text.to_owned()
            })
        );
    }
}
