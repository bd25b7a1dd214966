//! The tables whose writes move a change counter (`crate::revisions`), and the check, in debug
//! builds, that a write run under [`crate::local_changes::keeping_counters`] changed none of
//! them beyond those it declared.
//!
//! A write that keeps the counters leaves the change feed's reading trusted: a counted change
//! it made without saying so would go unseen by this server's caches until another write
//! moved the counters. The list here mirrors the migrations' triggers; a test holds the two
//! equal on a freshly migrated database, and the check reads each statement's text (the
//! tables after `INSERT INTO`, `UPDATE` and `DELETE FROM`), so it cannot see rows that a
//! foreign key's cascade changes: a write that deletes a counted table's parent declares the
//! counted table.

use std::cell::{Cell, RefCell};

/// A table whose changes a change counter counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CountedTable {
    /// `users` (the `users` counter).
    Users,
    /// `organizations` (the `users` counter).
    Organizations,
    /// `role_members`: who holds which role (the `users` counter).
    RoleMembers,
    /// `team_roles`: the roles granted to teams (the `users` counter).
    TeamRoles,
    /// `settings` (the `settings` counter).
    Settings,
    /// `login_failures`: the failed-login counters (the `login_failures` counter).
    LoginFailures,
    /// `sessions`, changes and deletions (the `sessions` counter).
    Sessions,
    /// `access_tokens`, changes and deletions (the `tokens` counter).
    AccessTokens,
    /// `applications`, changes and deletions (the `applications` counter).
    Applications,
}

impl CountedTable {
    /// Every counted table.
    pub const ALL: [CountedTable; 9] = [
        CountedTable::Users,
        CountedTable::Organizations,
        CountedTable::RoleMembers,
        CountedTable::TeamRoles,
        CountedTable::Settings,
        CountedTable::LoginFailures,
        CountedTable::Sessions,
        CountedTable::AccessTokens,
        CountedTable::Applications,
    ];

    /// The table's name in the schema.
    pub fn name(self) -> &'static str {
        match self {
            CountedTable::Users => "users",
            CountedTable::Organizations => "organizations",
            CountedTable::RoleMembers => "role_members",
            CountedTable::TeamRoles => "team_roles",
            CountedTable::Settings => "settings",
            CountedTable::LoginFailures => "login_failures",
            CountedTable::Sessions => "sessions",
            CountedTable::AccessTokens => "access_tokens",
            CountedTable::Applications => "applications",
        }
    }

    /// Whether a new row moves the counter. A new session, token or application cannot
    /// change anything a cache holds (caches hold only what was found), so those count
    /// changes and deletions only.
    pub fn counts_inserts(self) -> bool {
        !matches!(
            self,
            CountedTable::Sessions | CountedTable::AccessTokens | CountedTable::Applications
        )
    }

    fn bit(self) -> u16 {
        1 << (self as u16)
    }

    fn named(name: &str) -> Option<CountedTable> {
        CountedTable::ALL
            .into_iter()
            .find(|table| table.name().eq_ignore_ascii_case(name))
    }
}

thread_local! {
    /// The counted tables the write under way on this thread declared, as bits.
    static DECLARED: Cell<u16> = const { Cell::new(0) };
    /// Counted tables that write changed without declaring them.
    static UNDECLARED: RefCell<Vec<&'static str>> = const { RefCell::new(Vec::new()) };
}

/// Starts checking the statements of a write that declared `honoured`.
pub(crate) fn declare(honoured: &[CountedTable]) {
    DECLARED.with(|declared| declared.set(honoured.iter().fold(0, |bits, t| bits | t.bit())));
    UNDECLARED.with(|undeclared| undeclared.borrow_mut().clear());
}

/// Ends the check begun by [`declare`]: the counted tables the write changed undeclared.
pub(crate) fn undeclared() -> Vec<&'static str> {
    DECLARED.with(|declared| declared.set(0));
    UNDECLARED.with(|undeclared| std::mem::take(&mut *undeclared.borrow_mut()))
}

/// Notes the counted tables that `statement` (diesel's text of it, binds after ` -- binds: `)
/// changes and the write under way did not declare.
pub(crate) fn check(statement: &str) {
    let declared = DECLARED.with(Cell::get);
    for table in counted_changes(statement) {
        if declared & table.bit() == 0 {
            UNDECLARED.with(|undeclared| {
                let mut undeclared = undeclared.borrow_mut();
                if !undeclared.contains(&table.name()) {
                    undeclared.push(table.name());
                }
            });
        }
    }
}

/// The counted tables `statement` changes in a way their counter counts.
fn counted_changes(statement: &str) -> Vec<CountedTable> {
    // Bound values are listed after the SQL: a description reading "DELETE FROM users" is
    // not a statement.
    let sql = statement
        .split_once(" -- binds: ")
        .map_or(statement, |(sql, _)| sql);
    let words: Vec<&str> = sql
        .split(|c: char| c.is_whitespace() || matches!(c, '(' | ')' | ',' | ';'))
        .filter(|word| !word.is_empty())
        .collect();
    let mut changed = Vec::new();
    for (at, word) in words.iter().enumerate() {
        let next = |n: usize| words.get(at + n).copied().unwrap_or_default();
        let (table, insert) =
            if word.eq_ignore_ascii_case("INSERT") && next(1).eq_ignore_ascii_case("INTO") {
                (next(2), true)
            } else if word.eq_ignore_ascii_case("UPDATE") {
                (next(1), false)
            } else if word.eq_ignore_ascii_case("DELETE") && next(1).eq_ignore_ascii_case("FROM") {
                (next(2), false)
            } else {
                continue;
            };
        let name = table.rsplit('.').next().unwrap_or_default();
        let name = name.trim_matches(|c| matches!(c, '"' | '`'));
        if let Some(table) = CountedTable::named(name)
            && (!insert || table.counts_inserts())
        {
            changed.push(table);
        }
    }
    changed
}

#[cfg(test)]
mod tests {
    use diesel::RunQueryDsl;
    use diesel::sql_types::Text;

    use super::*;

    #[test]
    fn counted_changes_are_read_from_either_backends_text() {
        let changes = |sql: &str| {
            counted_changes(sql)
                .into_iter()
                .map(CountedTable::name)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            changes("UPDATE `users` SET `is_active` = ? -- binds: [false]"),
            ["users"]
        );
        assert_eq!(
            changes("DELETE FROM \"access_tokens\" WHERE \"id\" = $1"),
            ["access_tokens"]
        );
        // A new token is not counted; its deletion in the same statement is.
        assert_eq!(
            changes(
                "WITH gone AS (DELETE FROM access_tokens WHERE id = $1) INSERT INTO access_tokens (digest) VALUES ($2)"
            ),
            ["access_tokens"]
        );
        assert!(changes("INSERT INTO `access_tokens` (`digest`) VALUES (?)").is_empty());
        assert_eq!(
            changes("INSERT INTO public.role_members (role_id) VALUES ($1)"),
            ["role_members"]
        );
        // Tables no counter counts, reads, and binds that look like SQL.
        assert!(changes("INSERT INTO activity_stream (changes) VALUES (?)").is_empty());
        assert!(changes("SELECT * FROM users").is_empty());
        assert!(
            changes(
                "INSERT INTO activity_stream (changes) VALUES (?) -- binds: [\"DELETE FROM users\"]"
            )
            .is_empty()
        );
        assert_eq!(
            changes(
                "INSERT INTO settings (key) VALUES ($1) ON CONFLICT (key) DO UPDATE SET value = $2"
            ),
            ["settings"]
        );
    }

    #[test]
    fn only_undeclared_tables_are_reported_and_each_once() {
        declare(&[CountedTable::AccessTokens]);
        check("DELETE FROM access_tokens WHERE id = 1");
        check("UPDATE users SET x = 1");
        check("UPDATE \"users\" SET x = 2");
        assert_eq!(undeclared(), ["users"]);
        assert!(undeclared().is_empty(), "the check ended");
    }

    #[derive(diesel::QueryableByName)]
    struct Counted {
        #[diesel(sql_type = Text)]
        tbl_name: String,
        #[diesel(sql_type = Text)]
        sql: String,
    }

    /// The list mirrors the migrations: every table a revision trigger watches is in it, with
    /// inserts counted exactly where a trigger fires on them.
    #[test]
    fn the_list_is_the_tables_the_triggers_watch() {
        let mut conn = crate::test_support::seeded();
        let crate::DbConnection::Sqlite(inner) = &mut conn else {
            unreachable!("an SQLite connection")
        };
        let triggers: Vec<Counted> = diesel::sql_query(
            "SELECT tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND sql LIKE '%revision%'",
        )
        .load(inner)
        .expect("the triggers");
        let mut watched: Vec<(String, bool)> = Vec::new();
        for trigger in &triggers {
            let on_insert = trigger.sql.to_ascii_uppercase().contains(" INSERT ON ");
            match watched
                .iter_mut()
                .find(|(table, _)| *table == trigger.tbl_name)
            {
                Some((_, inserts)) => *inserts |= on_insert,
                None => watched.push((trigger.tbl_name.clone(), on_insert)),
            }
        }
        watched.sort();
        let mut listed: Vec<(String, bool)> = CountedTable::ALL
            .iter()
            .map(|table| (table.name().to_owned(), table.counts_inserts()))
            .collect();
        listed.sort();
        assert_eq!(listed, watched);
    }
}
