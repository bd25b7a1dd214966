-- Back to one row, which keeps the sums so that no counter goes back.
DROP VIEW revision_totals;
UPDATE revisions SET
    settings = totals.settings, users = totals.users, sessions = totals.sessions,
    login_failures = totals.login_failures, tokens = totals.tokens
FROM (SELECT SUM(settings) AS settings, SUM(users) AS users, SUM(sessions) AS sessions,
             SUM(login_failures) AS login_failures, SUM(tokens) AS tokens
      FROM revisions) AS totals
WHERE revisions.id = 1;
DELETE FROM revisions WHERE id <> 1;
ALTER TABLE revisions DROP CONSTRAINT revisions_slot;
ALTER TABLE revisions ADD CONSTRAINT revisions_id_check CHECK (id = 1);

CREATE OR REPLACE FUNCTION bump_settings_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET settings = settings + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_users_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET users = users + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_sessions_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET sessions = sessions + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_login_failures_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET login_failures = login_failures + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE OR REPLACE FUNCTION bump_tokens_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET tokens = tokens + 1 WHERE id = 1;
    RETURN NULL;
END $$;
