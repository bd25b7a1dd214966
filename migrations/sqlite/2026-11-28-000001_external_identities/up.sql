-- Users created by an external identity source are found again by who the source says they
-- are (a directory DN, an OpenID issuer and subject), never by a username another source
-- could also assert (SQLite).
CREATE TABLE external_identities (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    source TEXT NOT NULL CHECK (source IN ('ldap', 'oidc')),
    issuer TEXT NOT NULL,
    subject TEXT NOT NULL,
    created TIMESTAMP NOT NULL,
    UNIQUE (source, issuer, subject)
);
CREATE INDEX external_identities_user ON external_identities (user_id);
