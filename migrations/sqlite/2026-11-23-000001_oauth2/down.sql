DROP TRIGGER access_tokens_delete_revision;
DROP TRIGGER access_tokens_update_revision;
DROP TRIGGER access_tokens_insert_revision;
ALTER TABLE revisions DROP COLUMN tokens;
DROP TABLE activity_stream;
DROP TABLE refresh_tokens;
DROP TABLE access_tokens;
DROP TABLE applications;
