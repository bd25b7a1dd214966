DROP TABLE login_failures;
DROP TABLE settings_revision;
DROP TABLE settings;
DROP TABLE sessions;
DROP TABLE organization_roles;
DROP TABLE organizations;
DROP TABLE users;
