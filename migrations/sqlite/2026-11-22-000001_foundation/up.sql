-- Users, organizations, sessions, settings and login throttling (SQLite).
CREATE TABLE users (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    username TEXT NOT NULL UNIQUE,
    password TEXT NOT NULL,
    first_name TEXT NOT NULL DEFAULT '',
    last_name TEXT NOT NULL DEFAULT '',
    email TEXT NOT NULL DEFAULT '',
    is_superuser BOOLEAN NOT NULL DEFAULT FALSE,
    is_system_auditor BOOLEAN NOT NULL DEFAULT FALSE,
    is_active BOOLEAN NOT NULL DEFAULT TRUE,
    external_account TEXT NULL,
    last_login TIMESTAMP NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL
);

CREATE TABLE organizations (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL UNIQUE,
    description TEXT NOT NULL DEFAULT '',
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL
);

CREATE TABLE organization_roles (
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    PRIMARY KEY (organization_id, user_id, role)
);
CREATE INDEX organization_roles_user ON organization_roles (user_id);

CREATE TABLE sessions (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest BLOB NOT NULL UNIQUE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    created TIMESTAMP NOT NULL,
    expires TIMESTAMP NOT NULL
);
CREATE INDEX sessions_user ON sessions (user_id, created);
CREATE INDEX sessions_expires ON sessions (expires);

CREATE TABLE settings (
    key TEXT PRIMARY KEY NOT NULL,
    value TEXT NOT NULL,
    modified TIMESTAMP NOT NULL
);

-- One row, bumped in the same transaction as every settings write: servers compare it on each
-- request and reload their cached settings only when it moved.
CREATE TABLE settings_revision (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    revision BIGINT NOT NULL
);
INSERT INTO settings_revision (id, revision) VALUES (1, 0);

CREATE TABLE login_failures (
    key TEXT PRIMARY KEY NOT NULL,
    window_start TIMESTAMP NOT NULL,
    failures INTEGER NOT NULL
);
