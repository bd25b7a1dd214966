-- Client authentication caches applications by client id, so they get a change counter:
-- every change to or deletion of an application bumps it (cascades from a deleted
-- organization included); a new one cannot change a cached entry, which holds only what was
-- found.
ALTER TABLE revisions ADD COLUMN applications BIGINT NOT NULL DEFAULT 0;
CREATE TRIGGER applications_update_revision AFTER UPDATE ON applications
BEGIN UPDATE revisions SET applications = applications + 1 WHERE id = 1; END;
CREATE TRIGGER applications_delete_revision AFTER DELETE ON applications
BEGIN UPDATE revisions SET applications = applications + 1 WHERE id = 1; END;
DROP VIEW revision_totals;
CREATE VIEW revision_totals AS SELECT
    1 AS id,
    SUM(settings) AS settings,
    SUM(users) AS users,
    SUM(sessions) AS sessions,
    SUM(login_failures) AS login_failures,
    SUM(tokens) AS tokens,
    SUM(applications) AS applications
FROM revisions;
