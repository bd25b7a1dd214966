-- Sign-ins started at an OpenID provider and not yet completed, by the SHA-256 digest of their
-- `state`: any server can complete one, and a state is used once (completion deletes the row).
-- The nonce and the PKCE verifier are stored sealed (SQLite).
CREATE TABLE sso_states (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    digest BLOB NOT NULL UNIQUE,
    provider TEXT NOT NULL,
    nonce TEXT NOT NULL,
    pkce_verifier TEXT NOT NULL,
    next TEXT NOT NULL DEFAULT '',
    expires TIMESTAMP NOT NULL
);
CREATE INDEX sso_states_expires ON sso_states (expires);
