DROP INDEX refresh_tokens_chain;
ALTER TABLE refresh_tokens DROP COLUMN chain_id;
DROP TABLE authorization_codes;
