ALTER TABLE unified_jobs DROP COLUMN project_update_id;
ALTER TABLE projects DROP COLUMN scm_track_submodules;
ALTER TABLE projects DROP COLUMN scm_update_cache_timeout;
ALTER TABLE projects DROP COLUMN scm_update_on_launch;
