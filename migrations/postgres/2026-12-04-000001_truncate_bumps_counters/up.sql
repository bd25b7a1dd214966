-- An emptied table changes what the caches hold as surely as a deleted row: TRUNCATE (an
-- operator's emergency revocation by SQL, say) bumps the same counters as DELETE does. Row
-- and statement triggers on DELETE do not fire for TRUNCATE; these statement triggers do.
CREATE TRIGGER settings_truncated AFTER TRUNCATE ON settings
    FOR EACH STATEMENT EXECUTE FUNCTION bump_settings_revision();
CREATE TRIGGER users_truncated AFTER TRUNCATE ON users
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER organizations_truncated AFTER TRUNCATE ON organizations
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER organization_roles_truncated AFTER TRUNCATE ON organization_roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER sessions_truncated AFTER TRUNCATE ON sessions
    FOR EACH STATEMENT EXECUTE FUNCTION bump_sessions_revision();
CREATE TRIGGER login_failures_truncated AFTER TRUNCATE ON login_failures
    FOR EACH STATEMENT EXECUTE FUNCTION bump_login_failures_revision();
CREATE TRIGGER access_tokens_truncated AFTER TRUNCATE ON access_tokens
    FOR EACH STATEMENT EXECUTE FUNCTION bump_tokens_revision();
CREATE TRIGGER applications_truncated AFTER TRUNCATE ON applications
    FOR EACH STATEMENT EXECUTE FUNCTION bump_applications_revision();
