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
        "basic",
        "Per request the change counters (`revisions`) are read, then the principal built by \
         the first request is reused: PBKDF2 runs once, the verified password being cached. \
         Then the `/api/v2/me/` record. What dominates: (to be filled from the profile)",
    ),
    (
        "session",
        "As bearer, keyed by the session's digest, plus the sliding expiry (a write when the \
         session is re-armed, at most every tenth of its age) and a `Set-Cookie` on every \
         response. What dominates: (to be filled from the profile)",
    ),
    (
        "bearer",
        "The token's SHA-256, one read of the change counters, then the cached principal; the \
         token's row is read only when the cache misses. What dominates: (to be filled from \
         the profile)",
    ),
    (
        "token_list",
        "Two queries per page (the count of the user's tokens and the page, by the \
         `access_tokens (user_id)` index with an offset), the owners' and applications' rows, \
         and rendering 200 records as JSON. What dominates: (to be filled from the profile)",
    ),
    (
        "token_issue",
        "A write transaction per token (the token and its activity-stream entry); SQLite \
         takes one writer at a time. What dominates: (to be filled from the profile)",
    ),
    (
        "password_grant",
        "Client authentication (a SHA-256 digest), the cached password check, and one write \
         transaction per pair (access and refresh token). What dominates: (to be filled from \
         the profile)",
    ),
    (
        "refresh_grant",
        "One write transaction per rotation (old refresh token marked used, its access token \
         deleted, the new pair stored). An earlier profile on SQLite showed allocation (about \
         15%), SQLite re-reading pages after other connections' writes, and statement \
         parsing, with no single hot spot.",
    ),
    (
        "job_launch",
        "The launch's write transaction (the run and its activity-stream entry), then, in the \
         background, a thread per run: its private directory and inventory file, the start \
         recorded, the process spawned, its end recorded. What dominates: (to be filled from \
         the profile)",
    ),
    (
        "injection_plan",
        "In process, one core: an earlier profile put a third of the time in allocation, 18% \
         in Handlebars' template grammar and 11% in JSON maps, with no hot spot; 0.12 ms is \
         noise next to a job's seconds, so parsed templates are not cached.",
    ),
    (
        "scale",
        "Bearer authentication looks a token up by its digest's unique index, and only when \
         the principal cache misses, so its rate should not depend on the table's size. The \
         token list filters by visibility, `user_id = the caller OR user_id IN (users of the \
         organizations the caller administers)`: an EXPLAIN of a hand-written equivalent on \
         PostgreSQL with a million tokens showed neither condition used to find rows, the \
         count scanning the whole `access_tokens (user_id)` index and the page walking the \
         primary key in id order and filtering, so both grow with the table. To be confirmed \
         on the server's own queries: (to be filled from the profile)",
    ),
    (
        "memory",
        "The server's peak resident set (`VmHWM`). What makes it up (SQLite page caches, \
         connection pools, run threads): (to be filled from the profile)",
    ),
];
