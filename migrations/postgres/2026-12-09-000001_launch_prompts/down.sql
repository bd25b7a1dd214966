ALTER TABLE job_templates DROP COLUMN ask_variables_on_launch;
ALTER TABLE job_templates DROP COLUMN ask_credential_on_launch;
ALTER TABLE job_templates DROP COLUMN ask_inventory_on_launch;
ALTER TABLE job_templates DROP COLUMN ask_limit_on_launch;
ALTER TABLE job_templates DROP COLUMN job_limit;
