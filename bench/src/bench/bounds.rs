//! The "What bounds each path" section of `docs/benchmarks.md`: what limits each measured
//! path, from reading the code and from profiles. It is kept here, in the bench's source, so
//! that every run writes it next to the figures it explains; change it when a profile or the
//! code says otherwise. It carries no figures (they would be another run's, beside this
//! run's): earlier measurements and their figures are in `docs/performance-history.md`.

/// Marks what a profile has yet to say.
pub const TO_FILL: &str = "(to be filled from the profile)";

/// Each measured path, in the report's order, and what bounds it.
pub const BOUNDS: &[(&str, &str)] = &[
    (
        "baseline",
        "The machine: HTTP/1.1 parsing, routing and writing a fixed body in actix-web, with the load generator on the same cores. Everything else is reported as a share of it, measured beside each row.",
    ),
    (
        "baseline_half_load",
        "The bare handler under the open loop of bearer_half_load (same rate, same connections): the latency the machine itself gives at that rate, against which bearer_half_load's is to be read. Within one request nothing blocks; a tail beyond the bare handler's is the HTTP workers waiting to be scheduled behind the log writer (which wakes once per 5 ms batch, `acs_api::logging::batched`) and the load generator on the same cores, and, on a shared host, virtual CPUs taken away (the `steal` count of /proc/stat). The server listens with actix-web's backlog (`acs_api::listener`), so the open loop's burst of connections overflows no listen queue. docs/performance-history.md has the traces.",
    ),
    (
        "basic",
        "The cached principal, as bearer: the change feed tells without a database read whether it still holds, so such a request runs on the worker thread like bearer; one user's password is verified once and then cached, so this is Basic's warm cost. A Basic request whose principal is not cached (first use, or a change of its user or of the failed-login counters) goes to the blocking pool, since its check may cost PBKDF2 (one of `ACS_PASSWORD_VERIFIERS` turns) or a directory round trip. Left: base64 and an HMAC for the cache key, besides bearer's costs.",
    ),
    (
        "session",
        "As bearer, keyed by the session's digest and run on the worker thread, plus the sliding expiry (a write when the session is re-armed, at most every tenth of its age) and a `Set-Cookie` on every response.",
    ),
    (
        "bearer",
        "The token's SHA-256, then the cached principal; the token's row is read only when the cache misses, and the change counters not at all (the change feed reads them every 10 ms on its own connection). Safe requests without uncached Basic credentials run on the worker thread when a connection is idle. A profile of this path puts about half of the samples in the kernel's TCP send and receive (client and server on one machine), then actix-web's HTTP work, the access-log line (formatted from pieces on the worker by `logging::text`, written in batches by the log-writer thread) and rendering the user record (timestamps written as digits into a fixed buffer, header names as constants). One token repeated: every request hits the cache; cold_bearer is the same path when most miss.",
    ),
    (
        "team_bearer",
        "bearer as the list user, who holds 1 000 roles directly and 1 000 more through its 50 teams: the same cached principal, so the same path as bearer; the roles are read only when the principal is built (principal_miss). Clones of the cached principal share its grants' set, so a request copies no role.",
    ),
    (
        "principal_miss",
        "On a miss the principal is the user's row, its direct roles (one query), the roles of the teams it may be in (one query per level of nested teams and kind of holder: the teams granted, the teams of the organizations administered; one here), and the domain's fixpoint over those grants: a team's roles are added when the user holds the team's member role, until nothing is added. On PostgreSQL each of those reads its grants first, then their roles by id: as one join, PostgreSQL planned a hash of every role of every object, most of a miss's time.",
    ),
    (
        "token_list",
        "Two queries per page (the count of the user's tokens and the page, both from the `access_tokens (user_id, id)` index, with an offset), the owners' and applications' rows, and rendering 200 records as JSON; the JSON and the rows dominate, not the lookup.",
    ),
    (
        "template_list",
        "A user who belongs to no organization and holds `execute` on 1 000 of the organization's 10 000 templates lists them, 200 a page: two queries from the templates' visibility rule (`id IN` the granted ids, which the bearer's cached principal carries, or the inventory-organization rule), one for the page's roles (`summary_fields.object_roles`), and 200 records rendered with their capabilities from the role graph, no query per record.",
    ),
    (
        "token_issue",
        "One write per token (the token and its activity-stream entry), on the blocking pool, and no read of the change counters: issuing adds only rows no counter counts, so it leaves the change feed's reading trusted. SQLite takes one writer at a time: the pool's own thread checkpoints the log beside the writers (the writer restarts the log itself past 80 MiB), and the writes that queue up for the writer share one transaction and one commit, each in a savepoint; what is left is the kernel (thread hand-offs, the log's writes). On PostgreSQL the token, its refresh token and the entry are one prepared statement (data-modifying `WITH` clauses), atomic without `BEGIN` and `COMMIT`: one round trip and one WAL flush per token or per group the database forms.",
    ),
    (
        "password_grant",
        "Client authentication (a SHA-256 digest against the application's row, which the server caches by client id while the `applications` change counter holds), the cached password check, and one write per pair (access and refresh token and the entry: one statement on PostgreSQL, as token_issue), on the blocking pool; bounded like token_issue by the write and the hand-off.",
    ),
    (
        "refresh_grant",
        "One read of the refresh token with its owner and its access token's description, then one write per rotation (old refresh token marked used if its owner is still active, its access token deleted, the new pair and two activity entries stored). Lookups by a unique key carry no `LIMIT` (SQLite re-plans a statement whose bound LIMIT changes) and the conditional `UPDATE` is a statement of fixed text, so both are prepared once per connection. On PostgreSQL a rotation is two round trips: the refresh token, and one prepared statement that marks it used, deletes its access token, records that and stores the new pair with its entry, selected from the `UPDATE`'s result so that a lost race writes nothing; the deletion's change counter is one of 64 rows (one per session slot), so rotations do not wait on each other's commits, and the server honours the deletion by dropping that token's cached principal, leaving the change feed's reading trusted. On SQLite what is left is the writer's lock and the log's writes.",
    ),
    (
        "cold_bearer",
        "Bearer with one of 100 000 tokens drawn at random for each request, ten times what the principal cache holds (it lets its least recently used entry go): most requests miss it, so each reads its token's row by the digest's unique index, the user's row and roles, and builds and stores the principal, on the blocking pool when no connection is idle. On PostgreSQL the roles are read by id after their grants (`acs_storage::roles::granted_to`): as a join, they were planned as a hash of every role. What it costs beside `bearer` is that miss. SQLite is built with `SQLITE_ENABLE_QPSG`, so a cached lookup keeps its plan whatever digest is bound: without it, on a database with statistics (the seeded one has them, as one on which `ANALYZE` or `PRAGMA optimize` ran), SQLite recompiled the lookup for every digest, which a profile put at most of a miss's time.",
    ),
    (
        "cold_session",
        "session with one of 100 000 sessions drawn at random for each request, as cold_bearer: most requests miss the principal cache and read their session's row by its digest's unique index, then the user's row and roles. The sessions were seeded expiring later than a request re-arms them to, so no request writes: this is a returning session's read, not its re-arming.",
    ),
    (
        "cold_basic",
        "HTTP Basic with one of 10 000 users drawn at random for each request by four clients that each wait for their answer (a flood would measure mostly refusals, and the users already verified), each a whole PBKDF2 verification at the reference's cost (the password cache has seen almost none of them), computed on the `ACS_PASSWORD_VERIFIERS` threads at a lower priority; checks beyond `ACS_PASSWORD_QUEUE` are answered 503 at once and counted as the row's refusals. The rate is what Basic costs when its password cache is cold: about one verification per hashing thread per PBKDF2 time, whatever the rest of the server could do.",
    ),
    (
        "bearer_under_logins",
        "`bearer` while first-time Basic logins of distinct users arrive four at a time, each a whole PBKDF2 verification at the reference's cost: the server computes at most `ACS_PASSWORD_VERIFIERS` of them at once (half the CPUs), the others waiting for a turn or, past `ACS_PASSWORD_QUEUE`, answered 503; the row says what a burst of logins leaves the rest of the API. Target: at least 80% of `bearer` alone.",
    ),
    (
        "job_launch",
        "The launch's write transaction (the run and its activity-stream entry), then, in the background, at most `ACS_MAX_CONCURRENT_RUNS` runs at once, the others waiting `pending` in the node's queue: each run's private directory, its copy of the project and its inventory file, the start recorded, the process spawned inside its bwrap sandbox (started by its path, posix_spawn rather than fork), its end recorded. bwrap's mount namespace set-up and setpriv are most of a run's cost. The rate is of launches accepted; the runs' own starts are in the line below the table. At most `ACS_MAX_WAITING_RUNS` runs wait (by default a hundred per concurrent run); a launch beyond is refused (503) with nothing written, so under a flood launches are accepted as fast as runs start, and a run waits at most that queue's length of starts. The queue holds only ids, so the server's memory does not grow with a flood.",
    ),
    (
        "injection_plan",
        "In process, one core: allocation, Handlebars' template grammar and JSON maps, with no hot spot; a plan costs about a tenth of a millisecond, noise next to a job's seconds, so parsed templates are not cached.",
    ),
    (
        "scale",
        "Bearer authentication looks a token up by its digest's unique index, and only when the principal cache misses (as most of cold_bearer's requests do), so its rate depends on the table's size only through that index's depth. The token list filters on `user_id` alone (the caller, or the members of the organizations it administers) and reads the `(user_id, id)` index; what grows with the table is that the user's rows are scattered over a larger heap, so a page reads more heap pages.",
    ),
    (
        "memory",
        "The server's peak resident set (`VmHWM`): the binary, the HTTP workers, the blocking pool's threads, the pooled connections (SQLite's page cache is 2 MiB per connection) and the caches (the principal cache at most 10 000 entries, its least recently used going first).",
    ),
];
