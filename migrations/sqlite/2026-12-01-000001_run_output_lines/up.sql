-- A run's output is kept as lines, one row each, as the reference keeps events: the events
-- endpoint reads one page of rows instead of the whole output (up to 8 MiB) per request, and
-- lists of runs no longer carry every run's output. `text` keeps its line end, so the lines
-- joined in order are the output as it was.
CREATE TABLE unified_job_lines (
    unified_job_id BIGINT NOT NULL REFERENCES unified_jobs (id) ON DELETE CASCADE,
    line INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (unified_job_id, line)
);

WITH RECURSIVE split (id, line, text, rest) AS (
    SELECT id, -1, '', stdout FROM unified_jobs WHERE stdout <> ''
    UNION ALL
    SELECT id, line + 1,
           CASE WHEN instr(rest, char(10)) > 0 THEN substr(rest, 1, instr(rest, char(10))) ELSE rest END,
           CASE WHEN instr(rest, char(10)) > 0 THEN substr(rest, instr(rest, char(10)) + 1) ELSE '' END
    FROM split WHERE rest <> ''
)
INSERT INTO unified_job_lines (unified_job_id, line, text)
SELECT id, line, text FROM split WHERE line >= 0;

ALTER TABLE unified_jobs DROP COLUMN stdout;
