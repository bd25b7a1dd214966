-- What readers read: the counters summed over the table's rows, in one row. PostgreSQL
-- spreads the counters over slots (see its migration of the same name); SQLite, with one
-- writer, keeps one row, and the same view reads it.
CREATE VIEW revision_totals AS SELECT
    1 AS id,
    SUM(settings) AS settings,
    SUM(users) AS users,
    SUM(sessions) AS sessions,
    SUM(login_failures) AS login_failures,
    SUM(tokens) AS tokens
FROM revisions;
