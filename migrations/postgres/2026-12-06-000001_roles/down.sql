CREATE TABLE organization_roles_kept (
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    PRIMARY KEY (organization_id, user_id, role)
);
INSERT INTO organization_roles_kept SELECT organization_id, user_id, role FROM organization_roles;
DROP VIEW organization_roles;
DROP FUNCTION organization_roles_write();
DROP TRIGGER organizations_roles_created ON organizations;
DROP TRIGGER organizations_roles_deleted ON organizations;
DROP TRIGGER credentials_roles_created ON credentials;
DROP TRIGGER credentials_roles_deleted ON credentials;
DROP TRIGGER projects_roles_created ON projects;
DROP TRIGGER projects_roles_deleted ON projects;
DROP TRIGGER inventories_roles_created ON inventories;
DROP TRIGGER inventories_roles_deleted ON inventories;
DROP TRIGGER job_templates_roles_created ON job_templates;
DROP TRIGGER job_templates_roles_deleted ON job_templates;
DROP FUNCTION create_object_roles();
DROP FUNCTION delete_object_roles();
DROP TABLE role_members;
DROP TABLE roles;
ALTER TABLE organization_roles_kept RENAME TO organization_roles;
CREATE INDEX organization_roles_user ON organization_roles (user_id);
CREATE TRIGGER organization_roles_revision AFTER INSERT OR UPDATE OR DELETE ON organization_roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER organization_roles_truncated AFTER TRUNCATE ON organization_roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
