-- A new access token or session cannot change a principal already cached (the caches hold
-- only principals that were found), so inserts no longer bump their counters. Before, every
-- token created or login made dropped every cached bearer or session principal of every
-- server, and concurrent inserts queued on the one counter row.
DROP TRIGGER access_tokens_revision ON access_tokens;
CREATE TRIGGER access_tokens_revision AFTER UPDATE OR DELETE ON access_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_tokens_revision();
DROP TRIGGER sessions_revision ON sessions;
CREATE TRIGGER sessions_revision AFTER UPDATE OR DELETE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sessions_revision();
