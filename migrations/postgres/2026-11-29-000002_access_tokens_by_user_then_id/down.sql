CREATE INDEX access_tokens_user ON access_tokens (user_id);
DROP INDEX access_tokens_user_id;
