-- Client authentication caches applications by client id, so they get a change counter:
-- every change to or deletion of an application bumps it (cascades from a deleted
-- organization included), in the row of the session's slot as the other counters do; a new
-- one cannot change a cached entry, which holds only what was found.
ALTER TABLE revisions ADD COLUMN applications BIGINT NOT NULL DEFAULT 0;
CREATE OR REPLACE VIEW revision_totals AS SELECT
    1 AS id,
    CAST(SUM(settings) AS BIGINT) AS settings,
    CAST(SUM(users) AS BIGINT) AS users,
    CAST(SUM(sessions) AS BIGINT) AS sessions,
    CAST(SUM(login_failures) AS BIGINT) AS login_failures,
    CAST(SUM(tokens) AS BIGINT) AS tokens,
    CAST(SUM(applications) AS BIGINT) AS applications
FROM revisions;
CREATE FUNCTION bump_applications_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET applications = applications + 1 WHERE id = 1 + pg_backend_pid() % 64;
    RETURN NULL;
END $$;
CREATE TRIGGER applications_revision AFTER UPDATE OR DELETE ON applications
    FOR EACH STATEMENT EXECUTE FUNCTION bump_applications_revision();
