DROP TRIGGER access_tokens_revision ON access_tokens;
CREATE TRIGGER access_tokens_revision AFTER INSERT OR UPDATE OR DELETE ON access_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_tokens_revision();
DROP TRIGGER sessions_revision ON sessions;
CREATE TRIGGER sessions_revision AFTER INSERT OR UPDATE OR DELETE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sessions_revision();
