-- A git project may be updated by the launch of a job that uses it (scm_update_on_launch),
-- at most once in scm_update_cache_timeout seconds (0: at every launch), and an update
-- brings the repository's submodules too, at their recorded commits or, with
-- scm_track_submodules, at the head of their branch.
ALTER TABLE projects ADD COLUMN scm_update_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE projects ADD COLUMN scm_update_cache_timeout INTEGER NOT NULL DEFAULT 0;
ALTER TABLE projects ADD COLUMN scm_track_submodules BOOLEAN NOT NULL DEFAULT FALSE;
-- The project update a job waits for before it starts (the reference's `project_update`).
ALTER TABLE unified_jobs ADD COLUMN project_update_id BIGINT NULL REFERENCES unified_jobs (id) ON DELETE SET NULL;
