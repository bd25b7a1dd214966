-- OAuth 2 applications, access and refresh tokens, and the activity stream (SQLite).
-- Secrets are stored only as SHA-256 digests: client secrets, tokens and refresh tokens are
-- random (at least 256 bits), so a fast unsalted digest cannot be brute-forced and lets a
-- presented value be looked up by index.
CREATE TABLE applications (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    client_id TEXT NOT NULL UNIQUE,
    client_secret_digest BLOB NOT NULL,
    client_type TEXT NOT NULL CHECK (client_type IN ('confidential', 'public')),
    redirect_uris TEXT NOT NULL DEFAULT '',
    authorization_grant_type TEXT NOT NULL
        CHECK (authorization_grant_type IN ('authorization-code', 'password')),
    skip_authorization BOOLEAN NOT NULL DEFAULT FALSE,
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (name, organization_id)
);
CREATE INDEX applications_user ON applications (user_id);

CREATE TABLE access_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest BLOB NOT NULL UNIQUE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application_id BIGINT NULL REFERENCES applications (id) ON DELETE CASCADE,
    description TEXT NOT NULL DEFAULT '',
    scope TEXT NOT NULL,
    expires TIMESTAMP NOT NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL
);
CREATE INDEX access_tokens_user ON access_tokens (user_id);
CREATE INDEX access_tokens_application ON access_tokens (application_id);
CREATE INDEX access_tokens_expires ON access_tokens (expires);

CREATE TABLE refresh_tokens (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest BLOB NOT NULL UNIQUE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    access_token_id BIGINT NULL UNIQUE REFERENCES access_tokens (id) ON DELETE SET NULL,
    scope TEXT NOT NULL,
    created TIMESTAMP NOT NULL,
    revoked TIMESTAMP NULL
);
CREATE INDEX refresh_tokens_user ON refresh_tokens (user_id);
CREATE INDEX refresh_tokens_application ON refresh_tokens (application_id);

CREATE TABLE activity_stream (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    timestamp TIMESTAMP NOT NULL,
    actor_id BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    operation TEXT NOT NULL,
    object1 TEXT NOT NULL,
    object1_id BIGINT NOT NULL,
    object2 TEXT NOT NULL DEFAULT '',
    object2_id BIGINT NULL,
    changes TEXT NOT NULL,
    summary TEXT NOT NULL
);
CREATE INDEX activity_stream_object1 ON activity_stream (object1, object1_id);
CREATE INDEX activity_stream_object2 ON activity_stream (object2, object2_id);
CREATE INDEX activity_stream_actor ON activity_stream (actor_id);

-- Cached bearer principals depend on the access tokens (revocation, scope change, expiry).
ALTER TABLE revisions ADD COLUMN tokens BIGINT NOT NULL DEFAULT 0;
CREATE TRIGGER access_tokens_insert_revision AFTER INSERT ON access_tokens
BEGIN UPDATE revisions SET tokens = tokens + 1 WHERE id = 1; END;
CREATE TRIGGER access_tokens_update_revision AFTER UPDATE ON access_tokens
BEGIN UPDATE revisions SET tokens = tokens + 1 WHERE id = 1; END;
CREATE TRIGGER access_tokens_delete_revision AFTER DELETE ON access_tokens
BEGIN UPDATE revisions SET tokens = tokens + 1 WHERE id = 1; END;
