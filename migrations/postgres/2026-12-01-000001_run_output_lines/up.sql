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

INSERT INTO unified_job_lines (unified_job_id, line, text)
SELECT j.id, (t.n - 1)::INTEGER, t.m[1]
FROM unified_jobs j,
     regexp_matches(j.stdout, E'[^\\n]*\\n|[^\\n]+$', 'g') WITH ORDINALITY AS t (m, n)
WHERE j.stdout <> '';

ALTER TABLE unified_jobs DROP COLUMN stdout;
