ALTER TABLE unified_jobs ADD COLUMN stdout TEXT NOT NULL DEFAULT '';
UPDATE unified_jobs SET stdout = COALESCE((
    SELECT string_agg(text, '' ORDER BY line) FROM unified_job_lines
    WHERE unified_job_id = unified_jobs.id
), '');
DROP TABLE unified_job_lines;
