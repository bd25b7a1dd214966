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

-- One row of counters. Triggers bump a counter with every write to the tables it covers, from
-- any process. Servers read the row once per request: settings are reloaded, and cached
-- authentication reused, only while the counters they were built under are unchanged.
CREATE TABLE revisions (
    id INTEGER PRIMARY KEY NOT NULL CHECK (id = 1),
    settings BIGINT NOT NULL DEFAULT 0,
    users BIGINT NOT NULL DEFAULT 0,
    sessions BIGINT NOT NULL DEFAULT 0,
    login_failures BIGINT NOT NULL DEFAULT 0
);
INSERT INTO revisions (id) VALUES (1);

CREATE TABLE login_failures (
    key TEXT PRIMARY KEY NOT NULL,
    window_start TIMESTAMP NOT NULL,
    failures INTEGER NOT NULL
);

CREATE TRIGGER settings_insert_revision AFTER INSERT ON settings
BEGIN UPDATE revisions SET settings = settings + 1 WHERE id = 1; END;
CREATE TRIGGER settings_update_revision AFTER UPDATE ON settings
BEGIN UPDATE revisions SET settings = settings + 1 WHERE id = 1; END;
CREATE TRIGGER settings_delete_revision AFTER DELETE ON settings
BEGIN UPDATE revisions SET settings = settings + 1 WHERE id = 1; END;
CREATE TRIGGER users_insert_revision AFTER INSERT ON users
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER users_update_revision AFTER UPDATE ON users
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER users_delete_revision AFTER DELETE ON users
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organizations_insert_revision AFTER INSERT ON organizations
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organizations_update_revision AFTER UPDATE ON organizations
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organizations_delete_revision AFTER DELETE ON organizations
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organization_roles_insert_revision AFTER INSERT ON organization_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organization_roles_update_revision AFTER UPDATE ON organization_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organization_roles_delete_revision AFTER DELETE ON organization_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER sessions_insert_revision AFTER INSERT ON sessions
BEGIN UPDATE revisions SET sessions = sessions + 1 WHERE id = 1; END;
CREATE TRIGGER sessions_update_revision AFTER UPDATE ON sessions
BEGIN UPDATE revisions SET sessions = sessions + 1 WHERE id = 1; END;
CREATE TRIGGER sessions_delete_revision AFTER DELETE ON sessions
BEGIN UPDATE revisions SET sessions = sessions + 1 WHERE id = 1; END;
CREATE TRIGGER login_failures_insert_revision AFTER INSERT ON login_failures
BEGIN UPDATE revisions SET login_failures = login_failures + 1 WHERE id = 1; END;
CREATE TRIGGER login_failures_update_revision AFTER UPDATE ON login_failures
BEGIN UPDATE revisions SET login_failures = login_failures + 1 WHERE id = 1; END;
CREATE TRIGGER login_failures_delete_revision AFTER DELETE ON login_failures
BEGIN UPDATE revisions SET login_failures = login_failures + 1 WHERE id = 1; END;
