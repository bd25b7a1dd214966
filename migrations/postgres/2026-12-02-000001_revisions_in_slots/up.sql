-- The change counters spread over 64 rows ("slots"): a trigger bumps the row of its session's
-- slot, and readers sum the rows. With one row, every transaction that revoked or rotated a
-- token held that row's lock until its commit was flushed, so all of them queued behind one
-- another; now only sessions that share a slot do. Each counter still only grows, so a sum
-- that is unchanged still means nothing it counts has changed.
ALTER TABLE revisions DROP CONSTRAINT revisions_id_check;
ALTER TABLE revisions ADD CONSTRAINT revisions_slot CHECK (id BETWEEN 1 AND 64);
INSERT INTO revisions (id) SELECT generate_series(2, 64);
-- What readers read: the counters summed over the slots, in one row.
CREATE VIEW revision_totals AS SELECT
    1 AS id,
    CAST(SUM(settings) AS BIGINT) AS settings,
    CAST(SUM(users) AS BIGINT) AS users,
    CAST(SUM(sessions) AS BIGINT) AS sessions,
    CAST(SUM(login_failures) AS BIGINT) AS login_failures,
    CAST(SUM(tokens) AS BIGINT) AS tokens
FROM revisions;

CREATE OR REPLACE FUNCTION bump_settings_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET settings = settings + 1 WHERE id = 1 + pg_backend_pid() % 64;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_users_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET users = users + 1 WHERE id = 1 + pg_backend_pid() % 64;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_sessions_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET sessions = sessions + 1 WHERE id = 1 + pg_backend_pid() % 64;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_login_failures_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET login_failures = login_failures + 1 WHERE id = 1 + pg_backend_pid() % 64;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_tokens_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET tokens = tokens + 1 WHERE id = 1 + pg_backend_pid() % 64;
    RETURN NULL;
END $$;
