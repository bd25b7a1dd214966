-- Authorization codes of the authorization-code grant, stored only as SHA-256 digests. A code
-- is single-use: exchanging it deletes its row, so of two concurrent exchanges one finds it.
CREATE TABLE authorization_codes (
    id BIGSERIAL PRIMARY KEY,
    digest BYTEA NOT NULL UNIQUE,
    application_id BIGINT NOT NULL REFERENCES applications (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    -- The redirect URI the code was issued for, and whether the client named it (then the
    -- exchange must repeat it).
    redirect_uri TEXT NOT NULL,
    redirect_uri_sent BOOLEAN NOT NULL,
    scope TEXT NOT NULL,
    -- The PKCE S256 challenge, when the client sent one.
    code_challenge TEXT NULL,
    created TIMESTAMP NOT NULL,
    expires TIMESTAMP NOT NULL
);
CREATE INDEX authorization_codes_application ON authorization_codes (application_id);
CREATE INDEX authorization_codes_user ON authorization_codes (user_id);

-- Refresh-token rotation forms a chain: each refresh token is used once and replaced by one
-- new token. chain_id is the id of the chain's first token (null on that first token), so
-- the descendants of a token are the chain's tokens with a greater id (ids only grow), which
-- reuse detection revokes in one statement.
ALTER TABLE refresh_tokens ADD COLUMN chain_id BIGINT NULL;
CREATE INDEX refresh_tokens_chain ON refresh_tokens (chain_id);
