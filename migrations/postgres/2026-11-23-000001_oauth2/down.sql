DROP TRIGGER access_tokens_revision ON access_tokens;
DROP FUNCTION bump_tokens_revision();
ALTER TABLE revisions DROP COLUMN tokens;
DROP TABLE activity_stream;
DROP TABLE refresh_tokens;
DROP TABLE access_tokens;
DROP TABLE applications;
