-- Credential types, credentials and each organization's ordered content sources (PostgreSQL).
-- Secret credential inputs are stored sealed with AES-256-GCM (`$encrypted$AESGCM$…`) inside
-- the `inputs` JSON; the key is derived from the deployment's secret key and never stored.
CREATE TABLE credential_types (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    kind TEXT NOT NULL
        CHECK (kind IN ('ssh', 'vault', 'net', 'scm', 'cloud', 'insights', 'source')),
    namespace TEXT NULL UNIQUE,
    managed BOOLEAN NOT NULL DEFAULT FALSE,
    inputs TEXT NOT NULL DEFAULT '{}',
    injectors TEXT NOT NULL DEFAULT '{}',
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (name, kind)
);

CREATE TABLE credentials (
    id BIGSERIAL PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    -- RESTRICT: a type in use cannot be deleted, even by raw SQL.
    credential_type_id BIGINT NOT NULL REFERENCES credential_types (id) ON DELETE RESTRICT,
    organization_id BIGINT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id BIGINT NULL REFERENCES users (id) ON DELETE CASCADE,
    inputs TEXT NOT NULL DEFAULT '{}',
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    -- Exactly one owner.
    CHECK ((organization_id IS NULL) <> (user_id IS NULL)),
    UNIQUE (organization_id, name, credential_type_id)
);
CREATE INDEX credentials_type ON credentials (credential_type_id);
CREATE INDEX credentials_user ON credentials (user_id);

CREATE TABLE organization_source_credentials (
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    credential_id BIGINT NOT NULL REFERENCES credentials (id) ON DELETE CASCADE,
    position INTEGER NOT NULL,
    PRIMARY KEY (organization_id, credential_id)
);
CREATE INDEX organization_source_credentials_credential
    ON organization_source_credentials (credential_id);
