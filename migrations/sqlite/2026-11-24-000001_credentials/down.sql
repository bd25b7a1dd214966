DROP TABLE organization_source_credentials;
DROP TABLE credentials;
DROP TABLE credential_types;
