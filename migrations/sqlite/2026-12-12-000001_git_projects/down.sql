ALTER TABLE projects DROP COLUMN credential_id;
ALTER TABLE projects DROP COLUMN scm_revision;
ALTER TABLE projects DROP COLUMN scm_delete_on_update;
ALTER TABLE projects DROP COLUMN scm_clean;
ALTER TABLE projects DROP COLUMN scm_refspec;
ALTER TABLE projects DROP COLUMN scm_branch;
ALTER TABLE projects DROP COLUMN scm_url;
