ALTER TABLE unified_jobs DROP COLUMN scm_branch;
ALTER TABLE job_templates DROP COLUMN ask_scm_branch_on_launch;
ALTER TABLE job_templates DROP COLUMN scm_branch;
ALTER TABLE projects DROP COLUMN allow_override;
