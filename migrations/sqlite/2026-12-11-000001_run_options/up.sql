-- How a job runs ansible-playbook (the reference's job template and job fields): run or
-- check, tags to run and to skip, verbosity 0-5, --diff, forks (0: ansible's default) and a
-- timeout in seconds (0: the DEFAULT_JOB_TIMEOUT setting); on the template, whether a
-- launcher may give each instead.
ALTER TABLE job_templates ADD COLUMN job_type TEXT NOT NULL DEFAULT 'run';
ALTER TABLE job_templates ADD COLUMN job_tags TEXT NOT NULL DEFAULT '';
ALTER TABLE job_templates ADD COLUMN skip_tags TEXT NOT NULL DEFAULT '';
ALTER TABLE job_templates ADD COLUMN verbosity INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_templates ADD COLUMN diff_mode BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN forks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_templates ADD COLUMN timeout INTEGER NOT NULL DEFAULT 0;
ALTER TABLE unified_jobs ADD COLUMN job_type TEXT NOT NULL DEFAULT 'run';
ALTER TABLE unified_jobs ADD COLUMN job_tags TEXT NOT NULL DEFAULT '';
ALTER TABLE unified_jobs ADD COLUMN skip_tags TEXT NOT NULL DEFAULT '';
ALTER TABLE unified_jobs ADD COLUMN verbosity INTEGER NOT NULL DEFAULT 0;
ALTER TABLE unified_jobs ADD COLUMN diff_mode BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE unified_jobs ADD COLUMN forks INTEGER NOT NULL DEFAULT 0;
ALTER TABLE unified_jobs ADD COLUMN timeout INTEGER NOT NULL DEFAULT 0;
ALTER TABLE job_templates ADD COLUMN ask_job_type_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_tags_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_skip_tags_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_verbosity_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_diff_mode_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_forks_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_timeout_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
