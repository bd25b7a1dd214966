-- A git project may let its job templates and their launches run another branch, tag or
-- commit of its repository (allow_override); a template names one (scm_branch) or prompts
-- for it (ask_scm_branch_on_launch), and a job records the one it ran.
ALTER TABLE projects ADD COLUMN allow_override BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN scm_branch TEXT NOT NULL DEFAULT '';
ALTER TABLE job_templates ADD COLUMN ask_scm_branch_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE unified_jobs ADD COLUMN scm_branch TEXT NOT NULL DEFAULT '';
