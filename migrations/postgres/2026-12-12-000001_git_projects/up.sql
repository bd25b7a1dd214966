-- Projects from git (scm_type 'git'): where the repository is, what to check out, how an
-- update treats the directory, and the commit the last successful update checked out. A
-- git project's directory (local_path) is named by ACS, `_<id>__<name>`, as the reference
-- names it.
ALTER TABLE projects ADD COLUMN scm_url TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN scm_branch TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN scm_refspec TEXT NOT NULL DEFAULT '';
ALTER TABLE projects ADD COLUMN scm_clean BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN scm_delete_on_update BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN scm_revision TEXT NOT NULL DEFAULT '';
-- The Source Control credential a git project's updates authenticate with.
ALTER TABLE projects ADD COLUMN credential_id BIGINT NULL REFERENCES credentials (id) ON DELETE SET NULL;
