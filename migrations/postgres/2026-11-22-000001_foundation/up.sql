-- Users, organizations, sessions, settings and login throttling (PostgreSQL).
CREATE TABLE users (
    id BIGSERIAL PRIMARY KEY,
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
    id BIGSERIAL PRIMARY KEY,
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
    id BIGSERIAL PRIMARY KEY,
    digest BYTEA NOT NULL UNIQUE,
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
    id INTEGER PRIMARY KEY CHECK (id = 1),
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

CREATE FUNCTION bump_settings_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET settings = settings + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE FUNCTION bump_users_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET users = users + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE FUNCTION bump_sessions_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET sessions = sessions + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE FUNCTION bump_login_failures_revision() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    UPDATE revisions SET login_failures = login_failures + 1 WHERE id = 1;
    RETURN NULL;
END $$;
CREATE TRIGGER settings_revision AFTER INSERT OR UPDATE OR DELETE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION bump_settings_revision();
CREATE TRIGGER users_revision AFTER INSERT OR UPDATE OR DELETE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER organizations_revision AFTER INSERT OR UPDATE OR DELETE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER organization_roles_revision AFTER INSERT OR UPDATE OR DELETE ON organization_roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER sessions_revision AFTER INSERT OR UPDATE OR DELETE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sessions_revision();
CREATE TRIGGER login_failures_revision AFTER INSERT OR UPDATE OR DELETE ON login_failures
    FOR EACH STATEMENT EXECUTE FUNCTION bump_login_failures_revision();
