-- A new access token or session cannot change a principal already cached (the caches hold
-- only principals that were found), so inserts no longer bump their counters. Before, every
-- token created or login made dropped every cached bearer or session principal of every
-- server, and token issuance re-read its own caller from the database each time.
DROP TRIGGER access_tokens_insert_revision;
DROP TRIGGER sessions_insert_revision;
