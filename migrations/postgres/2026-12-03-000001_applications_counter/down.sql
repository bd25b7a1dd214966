DROP TRIGGER applications_revision ON applications;
DROP FUNCTION bump_applications_revision();
DROP VIEW revision_totals;
ALTER TABLE revisions DROP COLUMN applications;
CREATE VIEW revision_totals AS SELECT
    1 AS id,
    CAST(SUM(settings) AS BIGINT) AS settings,
    CAST(SUM(users) AS BIGINT) AS users,
    CAST(SUM(sessions) AS BIGINT) AS sessions,
    CAST(SUM(login_failures) AS BIGINT) AS login_failures,
    CAST(SUM(tokens) AS BIGINT) AS tokens
FROM revisions;
