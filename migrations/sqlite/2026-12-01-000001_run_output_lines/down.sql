ALTER TABLE unified_jobs ADD COLUMN stdout TEXT NOT NULL DEFAULT '';
UPDATE unified_jobs SET stdout = COALESCE((
    SELECT group_concat(text, '') FROM (
        SELECT text FROM unified_job_lines WHERE unified_job_id = unified_jobs.id ORDER BY line
    )
), '');
DROP TABLE unified_job_lines;
