DROP TABLE unified_job_credentials;
DROP TABLE unified_jobs;
DROP TABLE job_template_credentials;
DROP TABLE job_templates;
DROP TABLE hosts;
DROP TABLE inventory_sources;
DROP TABLE inventories;
DROP TABLE projects;
