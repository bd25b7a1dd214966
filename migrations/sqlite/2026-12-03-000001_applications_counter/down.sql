DROP TRIGGER applications_update_revision;
DROP TRIGGER applications_delete_revision;
DROP VIEW revision_totals;
ALTER TABLE revisions DROP COLUMN applications;
CREATE VIEW revision_totals AS SELECT
    1 AS id,
    SUM(settings) AS settings,
    SUM(users) AS users,
    SUM(sessions) AS sessions,
    SUM(login_failures) AS login_failures,
    SUM(tokens) AS tokens
FROM revisions;
