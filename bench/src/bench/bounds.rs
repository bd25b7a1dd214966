//! The "What bounds each path" section of `docs/benchmarks.md`: what limits each measured
//! path, from reading the code and from profiles. It is kept here, in the bench's source, so
//! that every run writes it next to the figures it explains; change it when a profile or the
//! code says otherwise.

/// Marks what a profile has yet to say.
pub const TO_FILL: &str = "(to be filled from the profile)";

/// Each measured path, in the report's order, and what bounds it.
pub const BOUNDS: &[(&str, &str)] = &[
    (
        "baseline",
        "The machine: HTTP/1.1 parsing, routing and writing a fixed body in actix-web, with \
         the load generator on the same cores. Everything else is reported as a share of it.",
    ),
    (
        "baseline_half_load",
        "The bare handler under the open loop of bearer_half_load (same rate, same connections): the latency the machine itself gives at that rate, against which the p99 of bearer_half_load is to be read. In a run on SQLite (10 s, 26 056 requests/s) it was 1.1 ms where bearer_half_load's was 7.2 ms, p50 0.29 and 0.54 ms: the tail at half load is the server's, not the machine's. A scheduler trace of that phase (`perf sched`, 8 s at 27 313 requests/s, p99 2.4 ms against 1.0 ms) puts it in the run queue: the two HTTP workers waited 0.08 ms on average and up to 5.5 ms to be scheduled, the log writer ran 1.0 s of the 8 (12% of a CPU, 2 266 wake-ups) and the load generator 2.7 s on the same two cores. Within one request nothing blocks; the tail is the workers queuing behind the log writer and the generator. Without the access log (`RUST_LOG=warn`) one run gave 6.3 ms against 3.3 ms with it, so this machine's noise is larger than the log writer's share. A later trace (2026-11-29, 6 s at 14 390 requests/s) found why the workers queued with a core to spare: the log writer (tracing-appender's) was woken for every line, about every 70 µs, and slept between lines, so its core alternated between it and idle in spells too short for Linux to pull a waiting worker over (a newly idle core balances load only when its idle spells average over 0.5 ms); the workers waited over 1 ms to run 272 times in the 6 s, up to 6.4 ms, while the writer used 11% of a CPU. The writer now wakes once per batch and writes it 5 ms later (`acs_api::logging::batched`): 0.6% of the samples of a `perf` profile of the same phase. Three alternated runs, same binaries otherwise: p99 4.1 / 5.0 / 3.6 ms against 6.7 / 9.3 / 34.1 ms before; two more runs of the new binary gave 16.2 and 42.7 ms, and its scheduler trace still has 366 waits over 1 ms in 6 s, so this is not the whole tail. What else is in this phase is the machine's: the load generator takes a quarter of the two cores, and on a shared host the virtual CPUs are taken away now and then (the `steal` count of /proc/stat rose by 65 s in the session's first 25 minutes), which also set the bare handler's own p99 at 0.9 to 34 ms. On slower days bearer_half_load's p99 reached 50 to 800 ms against the bare handler's 15 to 28: `nstat` counted listen-queue overflows and as many SYN retransmissions as the open loop opened its connections (about 180 at once), since acs-server listened with the standard library's backlog of 128 and the bare handler with actix-web's 1 024. Each client whose SYN was dropped waited a second to send it again, and the open loop charged its late requests to the server. With the same backlog as actix-web (`acs_api::listener`), same binaries otherwise, no overflow and no retransmission: 27.6 ms against the bare handler's 22.2 on SQLite, 25.0 against 33.2 on PostgreSQL (before: 51 to 276 ms, and 49 to 797).",
    ),
    (
        "basic",
        "The cached principal, as bearer: the change feed tells without a database read whether it still holds, so such a request runs on the worker thread like bearer; PBKDF2 runs once, the verified password being cached. A Basic request whose principal is not cached (first use, or a change of its user or of the failed-login counters) goes to the blocking pool, since its check may cost PBKDF2 or a directory round trip. Left: base64 and an HMAC for the cache key, besides bearer's costs.",
    ),
    (
        "session",
        "As bearer, keyed by the session's digest and run on the worker thread, plus the sliding expiry (a write when the session is re-armed, at most every tenth of its age) and a `Set-Cookie` on every response.",
    ),
    (
        "bearer",
        "The token's SHA-256, then the cached principal; the token's row is read only when the cache misses, and the change counters not at all (the change feed reads them every 10 ms on its own connection; before it, their read was a PostgreSQL round trip per request and bearer on PostgreSQL was at 20% of the baseline). Safe requests without uncached Basic credentials run on the worker thread when a connection is idle. A profile of this path on SQLite: about half of the samples in the kernel's TCP send and receive (client and server on one machine), then actix-web's HTTP work, the access-log line (formatted on the worker, written in batches by the log-writer thread, now woken once per 5 ms batch: 0.6% of the samples, 3% when it was woken per line; a blocking `write` per line had cost 5 to 6 points of the baseline) and rendering the user record. Counted by callgrind (4 000 requests, user space only): 78 100 instructions per request with tracing-subscriber's formatter, of which 12 500 were the access line (65 600 without it, `RUST_LOG=warn`); the line written from pieces by `logging::text` (the date and time formatted once a second, no style wrappers, integers by `itoa`) costs 5 700, 71 300 in all. With `wrk` the gap between the default level and `warn` went from 13% to 4% (six runs each, same binaries). In the same count, the record's timestamps (`format!` with seven padded integers, 3 000 instructions each) are now digits written into a fixed buffer (6 200 instructions a request to 740), and the header names read or set on every request are constants instead of strings parsed on each lookup: 62 100 instructions a request in all, 20% under where this began.",
    ),
    (
        "team_bearer",
        "bearer as the list user, who holds 1 000 roles directly and 1 000 more through its 50 \
         teams: the same cached principal, so the same path as bearer; the roles are read \
         only when the principal is built (principal_miss). The first measure (2026-12-03, \
         SQLite, 5 s, two runs) found it at 20 246 and 26 416 requests/s beside bearer's \
         67 066 and 65 630: the cached principal was cloned for each request (twice) with its \
         2 000 roles, under the cache's lock. Grants now share their set between clones: \
         47 466 and 59 285 beside 57 938 and 47 637, within this machine's noise.",
    ),
    (
        "principal_miss",
        "On a miss the principal is the user's row, its direct roles (one query), the roles of \
         the teams it may be in (one query per level of nested teams; one here), and the \
         domain's fixpoint over those grants: a team's roles are added when the user holds \
         the team's member role, until nothing is added.",
    ),
    (
        "token_list",
        "Two queries per page (the count of the user's tokens and the page, both from the `access_tokens (user_id, id)` index, with an offset), the owners' and applications' rows, and rendering 200 records as JSON; the JSON and the rows dominate, not the lookup.",
    ),
    (
        "template_list",
        "A user who belongs to no organization and holds `execute` on 1 000 of the organization's 10 000 templates lists them, 200 a page: two queries from the templates' visibility rule (`id IN` the granted ids, which the bearer's cached principal carries), one for the page's roles (`summary_fields.object_roles`), and 200 records rendered with their capabilities from the role graph, no query per record. The first measure (2026-12-02, 5 s, 32 connections): 288 pages/s on SQLite (p50 108 ms, p99 162 ms), 315 on PostgreSQL; about 60 000 templates a second, 7 ms of the two CPUs a page. With the inventory-organization rule added to the template visibility (a third `OR`, a subquery on `inventories`, empty for this user), the same run on SQLite gave 255 pages/s (p50 122 ms, p99 184 ms): within this machine's noise or a tenth slower; not yet profiled.",
    ),
    (
        "token_issue",
        "One write per token (the token and its activity-stream entry), on the blocking pool, and no read of the change counters: issuing adds only rows no counter counts, so it runs under `keeping_counters` and leaves the change feed's reading trusted; every other write is counted by the pooled connection that makes it (a diesel instrumentation), which is what let the end of an unsafe request stop distrusting the feed. SQLite takes one writer at a time: the pool's own thread checkpoints the log beside the writers (a commit crossing SQLite's 1 000-page threshold used to copy the log and wait for two `fsync`s while every other write waited), and the writes that queue up for the writer share one transaction and one commit, each in a savepoint (with `wrk` on a fresh database: 1 760 tokens/s before the checkpoint thread; on a faster machine 5 140 to 5 410 before group commit, 7 940 to 8 410 after it, p99 10 to 12 ms). With groups a quarter of the machine is still idle and a third is in the kernel (thread hand-offs, the log's writes). On PostgreSQL the token, its refresh token and the entry are one statement (data-modifying `WITH` clauses, prepared once per connection), atomic without `BEGIN` and `COMMIT`: one round trip where there were five (the counters, `BEGIN`, two inserts, `COMMIT`). `pgbench` on the same tables gave 1 700-1 800 transactions/s for the five, 2 050-2 200 without the counters, 3 330-3 650 for the one statement; the server, same binaries alternated with `wrk` (10 s, a slow day of this machine): 1 070-1 240 tokens/s before, 1 290-1 420 with the one statement, 1 720-2 240 with the counters kept as well. Each commit is one WAL flush (`fdatasync` 117 µs here) or one per group the database forms; a backend spent about 500 µs of CPU per token before, spread over executor, index inserts, the foreign keys' trigger checks and the flush; a pool of 4 or 16 connections instead of 8 was slower or equal.",
    ),
    (
        "password_grant",
        "Client authentication (a SHA-256 digest against the application's row, which the server caches by client id while the `applications` change counter holds), the cached password check, and one write per pair (access and refresh token and the entry: one statement on PostgreSQL, keeping the counters as token_issue does), on the blocking pool; bounded like token_issue by the write and the hand-off. The application's row used to be read on every request: on PostgreSQL a round trip of three (three alternated runs of 10 s, same binaries otherwise: 2 584, 2 408 and 2 108 grants/s before the cache, 3 079, 2 708 and 2 573 with it; refresh_grant 2 200, 1 819 and 2 082 before, 2 513, 2 132 and 2 201 with it; SQLite within its noise, 4 152 to 4 352 before, 4 101 to 4 592 with it).",
    ),
    (
        "refresh_grant",
        "One read of the refresh token with its owner and its access token's description, then \
         one write per rotation (old refresh token marked used if its owner is still \
         active, its access token deleted, the new pair and two activity entries stored; on \
         PostgreSQL one statement, see below). A profile of the \
         server on SQLite (2 600 rotations/s, the server using 1.25 of the 2 CPUs, the load \
         generator the rest): 41% of its samples in the kernel, of which 12% waiting for and \
         handing over the writer's lock (futex, task switches) and 10% writing the log \
         (pwrite); allocation about 11%, SQLite's own work (statement execution, parsing, the \
         page cache) about 8%. Keeping the writer's savepoint journal in memory \
         (`temp_store = MEMORY`) left the rate unchanged (2 608 against 2 609 per s), and so \
         did mimalloc in place of glibc's allocator within this machine's noise (2 600 to \
         2 940 either way). Its two reads (the client's application, the refresh token) were parsed and planned \
         again on every call (`sqlite3Reprepare` under both in a call-graph profile): diesel's \
         `first` binds `LIMIT ?`, SQLite 3.50 plans with a bound LIMIT's value, and so every \
         rebinding expired the cached statement. Lookups by a unique key now carry no LIMIT \
         (runs of 10 s on one slow day, before and after: token_issue 4 949 and 5 991 per s, \
         password_grant 2 704 and 3 679, refresh_grant 1 767 and 2 075; PostgreSQL, which \
         does not re-plan, unchanged within its noise). The rotation's conditional \
         `UPDATE` was prepared afresh on every call too (diesel caches no `UPDATE` it builds, \
         since a changeset's SQL may vary): written out as a statement whose text is fixed, it \
         is prepared once per connection (SQLite, runs of 10 s, same binaries otherwise: \
         2 075 and 2 296 rotations/s before, 2 470 and 2 575 after). On PostgreSQL a rotation was eleven round trips (the counters, the client's application, the refresh token, `BEGIN`, the conditional `UPDATE`, the access token's `DELETE`, four inserts, `COMMIT`), the `UPDATE` parsed and planned every time (diesel prepares no `UPDATE` for its statement cache); it is now two: the refresh token and one prepared statement (the application comes from the server's cache, see password_grant) that marks the token used, deletes its access token, records that and stores the new pair with its entry, the new rows selected from the `UPDATE`'s result so that a lost race writes nothing. On PostgreSQL \
         the deletion's change counter was one row, which every rotation then held locked \
         until its commit was flushed, so rotations ran one at a time; the counters are now \
         64 rows, one per session slot (same run: 0.4% to 0.7% of the baseline, 0.9% with \
         inserts prepared once). The deletion of the old access token is the rotation's only \
         change a counter counts, and it used to make the request after every rotation read \
         the counters itself (on PostgreSQL a fourth round trip); the server now honours it by \
         dropping that token's cached principal, and the rotation leaves the change feed's \
         reading trusted (three runs of 10 s each, same binaries otherwise, alternated: SQLite \
         2 061, 2 301 and 2 814 rotations/s before, 2 901, 2 964 and 3 018 after; PostgreSQL \
         1 694, 1 631 and 2 175 before, 2 178, 1 967 and 2 446 after). The change watch of \
         every pooled connection had diesel write out each statement's text, bound values \
         included, to tell a write from a read: about 20 000 instructions a statement; the \
         hot lookups now skip it, 718 000 instructions a rotation before, 632 000 after \
         (callgrind, 1 000 sequential rotations on SQLite).",
    ),
    (
        "job_launch",
        "The launch's write transaction (the run and its activity-stream entry), then, in the background, at most `ACS_MAX_CONCURRENT_RUNS` runs at once (8 on two CPUs), the others waiting `pending` in the node's queue: each run's private directory and inventory file, the start recorded, the process spawned inside its bwrap sandbox, its end recorded. A profile of a launch flood on SQLite put 28% of the machine in bwrap (mount namespace set-up, reading mountinfo) and 10% in setpriv; the runs' own fork had taken another 39% until bwrap was started by its path (posix_spawn instead of fork). The rate is of launches accepted; the queue holds only ids, so the server's memory no longer grows with a flood.",
    ),
    (
        "injection_plan",
        "In process, one core: an earlier profile put a third of the time in allocation, 18% \
         in Handlebars' template grammar and 11% in JSON maps, with no hot spot; 0.12 ms is \
         noise next to a job's seconds, so parsed templates are not cached.",
    ),
    (
        "scale",
        "Bearer authentication looks a token up by its digest's unique index, and only when the principal cache misses, so its rate does not depend on the table's size (within a few percent from 1 000 to 1 000 000 tokens). The token list filters on `user_id` alone (the caller, or the members of the organizations it administers) and reads the `(user_id, id)` index; with `user_id = me OR user_id IN (…)` PostgreSQL used no index and served 22 pages/s among a million tokens. What remains with a million tokens is that the user's rows are scattered over a heap a thousand times larger, so a page reads about 200 heap pages instead of a handful.",
    ),
    (
        "memory",
        "The server's peak resident set (`VmHWM`): the binary, two HTTP workers, the blocking pool's threads, the pooled connections (SQLite's page cache is 2 MiB per connection) and the principal cache (at most 10 000 entries). Before the token list's fix, a list among a million tokens scanned them and took the SQLite server to 111 MiB.",
    ),
];
