-- A job template's limit, and which of its values a launcher may give instead (the
-- reference's `ask_*_on_launch`): off unless the template says so.
ALTER TABLE job_templates ADD COLUMN job_limit TEXT NOT NULL DEFAULT '';
ALTER TABLE job_templates ADD COLUMN ask_limit_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_inventory_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_credential_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
ALTER TABLE job_templates ADD COLUMN ask_variables_on_launch BOOLEAN NOT NULL DEFAULT FALSE;
