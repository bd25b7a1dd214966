DROP TABLE login_failures;
DROP TABLE revisions;
DROP TABLE settings;
DROP TABLE sessions;
DROP TABLE organization_roles;
DROP TABLE organizations;
DROP TABLE users;
