-- The injection targets (contract §6): projects, inventories with hosts, job templates with
-- their credentials, inventory sources, and the runs of all three kinds in one table (SQLite).
CREATE TABLE projects (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    scm_type TEXT NOT NULL DEFAULT '',
    -- A directory name under the PROJECTS_ROOT setting, never a path.
    local_path TEXT NOT NULL,
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (organization_id, name)
);

CREATE TABLE inventories (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (organization_id, name)
);

CREATE TABLE inventory_sources (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    inventory_id BIGINT NOT NULL REFERENCES inventories (id) ON DELETE CASCADE,
    source TEXT NOT NULL CHECK (source IN ('scm')),
    source_project_id BIGINT NULL REFERENCES projects (id) ON DELETE SET NULL,
    source_path TEXT NOT NULL DEFAULT '',
    credential_id BIGINT NULL REFERENCES credentials (id) ON DELETE SET NULL,
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (inventory_id, name)
);
CREATE INDEX inventory_sources_credential ON inventory_sources (credential_id);

CREATE TABLE hosts (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    inventory_id BIGINT NOT NULL REFERENCES inventories (id) ON DELETE CASCADE,
    -- YAML or JSON text, as given.
    variables TEXT NOT NULL DEFAULT '',
    -- The inventory source that imported the host; null for hosts made through the API.
    inventory_source_id BIGINT NULL REFERENCES inventory_sources (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (inventory_id, name)
);

CREATE TABLE job_templates (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    -- The project's organization, kept so that access survives the project's removal.
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    inventory_id BIGINT NULL REFERENCES inventories (id) ON DELETE SET NULL,
    project_id BIGINT NULL REFERENCES projects (id) ON DELETE SET NULL,
    playbook TEXT NOT NULL,
    extra_vars TEXT NOT NULL DEFAULT '',
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (organization_id, name)
);

CREATE TABLE job_template_credentials (
    job_template_id BIGINT NOT NULL REFERENCES job_templates (id) ON DELETE CASCADE,
    credential_id BIGINT NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
    PRIMARY KEY (job_template_id, credential_id)
);
CREATE INDEX job_template_credentials_credential ON job_template_credentials (credential_id);

-- Jobs, project updates and inventory updates. A run is claimed by the node that launched it
-- (node); a node that starts again ends its own unfinished runs as `error`.
CREATE TABLE unified_jobs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL CHECK (kind IN ('job', 'project_update', 'inventory_update')),
    name TEXT NOT NULL,
    status TEXT NOT NULL
        CHECK (status IN ('pending', 'running', 'successful', 'failed', 'error', 'canceled')),
    job_explanation TEXT NOT NULL DEFAULT '',
    organization_id BIGINT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    job_template_id BIGINT NULL REFERENCES job_templates (id) ON DELETE SET NULL,
    project_id BIGINT NULL REFERENCES projects (id) ON DELETE SET NULL,
    inventory_id BIGINT NULL REFERENCES inventories (id) ON DELETE SET NULL,
    inventory_source_id BIGINT NULL REFERENCES inventory_sources (id) ON DELETE SET NULL,
    playbook TEXT NOT NULL DEFAULT '',
    job_limit TEXT NOT NULL DEFAULT '',
    extra_vars TEXT NOT NULL DEFAULT '',
    -- What ran: arguments, directory and environment, secrets masked.
    job_args TEXT NOT NULL DEFAULT '[]',
    job_cwd TEXT NOT NULL DEFAULT '',
    job_env TEXT NOT NULL DEFAULT '{}',
    stdout TEXT NOT NULL DEFAULT '',
    result_code INTEGER NULL,
    cancel_requested BOOLEAN NOT NULL DEFAULT FALSE,
    node TEXT NOT NULL DEFAULT '',
    launched_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    started TIMESTAMP NULL,
    finished TIMESTAMP NULL
);
CREATE INDEX unified_jobs_kind ON unified_jobs (kind, id);
CREATE INDEX unified_jobs_unfinished ON unified_jobs (node, status);
CREATE INDEX unified_jobs_job_template ON unified_jobs (job_template_id);

-- The credentials a run was launched with.
CREATE TABLE unified_job_credentials (
    unified_job_id BIGINT NOT NULL REFERENCES unified_jobs (id) ON DELETE CASCADE,
    credential_id BIGINT NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
    PRIMARY KEY (unified_job_id, credential_id)
);
CREATE INDEX unified_job_credentials_credential ON unified_job_credentials (credential_id);
