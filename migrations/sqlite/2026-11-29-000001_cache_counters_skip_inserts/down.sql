CREATE TRIGGER access_tokens_insert_revision AFTER INSERT ON access_tokens
BEGIN UPDATE revisions SET tokens = tokens + 1 WHERE id = 1; END;
CREATE TRIGGER sessions_insert_revision AFTER INSERT ON sessions
BEGIN UPDATE revisions SET sessions = sessions + 1 WHERE id = 1; END;
