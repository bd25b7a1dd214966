DROP TRIGGER applications_truncated ON applications;
DROP TRIGGER access_tokens_truncated ON access_tokens;
DROP TRIGGER login_failures_truncated ON login_failures;
DROP TRIGGER sessions_truncated ON sessions;
DROP TRIGGER organization_roles_truncated ON organization_roles;
DROP TRIGGER organizations_truncated ON organizations;
DROP TRIGGER users_truncated ON users;
DROP TRIGGER settings_truncated ON settings;
