CREATE INDEX access_tokens_expires ON access_tokens (expires);
