CREATE TABLE organization_roles_kept (
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    role TEXT NOT NULL CHECK (role IN ('admin', 'member')),
    PRIMARY KEY (organization_id, user_id, role)
);
INSERT INTO organization_roles_kept SELECT organization_id, user_id, role FROM organization_roles;
DROP VIEW organization_roles;
DROP TABLE role_members;
DROP TABLE roles;
ALTER TABLE organization_roles_kept RENAME TO organization_roles;
CREATE INDEX organization_roles_user ON organization_roles (user_id);
CREATE TRIGGER organization_roles_insert_revision AFTER INSERT ON organization_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organization_roles_update_revision AFTER UPDATE ON organization_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER organization_roles_delete_revision AFTER DELETE ON organization_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
DROP TRIGGER organizations_roles_created;
DROP TRIGGER organizations_roles_deleted;
DROP TRIGGER credentials_roles_created;
DROP TRIGGER credentials_roles_deleted;
DROP TRIGGER projects_roles_created;
DROP TRIGGER projects_roles_deleted;
DROP TRIGGER inventories_roles_created;
DROP TRIGGER inventories_roles_deleted;
DROP TRIGGER job_templates_roles_created;
DROP TRIGGER job_templates_roles_deleted;
