-- Roles as the reference has them: one row per role field of every organization, credential,
-- project, inventory and job template (created and deleted with the object by the triggers
-- below, so no writer can forget them), plus the two system singletons; and the users granted
-- each role. Role ids are what the API shows; which role implies which is the domain's
-- (`acs_authz::roles`), not the database's.

CREATE TABLE roles (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    kind TEXT NOT NULL,
    object_id BIGINT,
    field TEXT NOT NULL,
    UNIQUE (kind, object_id, field)
);
INSERT INTO roles (kind, object_id, field) VALUES
    ('system', NULL, 'system_administrator'),
        ('system', NULL, 'system_auditor');

CREATE TABLE role_members (
    role_id BIGINT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (role_id, user_id)
);
CREATE INDEX role_members_user ON role_members (user_id);

INSERT INTO roles (kind, object_id, field)
    SELECT 'organization', organizations.id, f.field FROM organizations 
    CROSS JOIN (SELECT 'admin_role' AS field
        UNION ALL SELECT 'execute_role' AS field
        UNION ALL SELECT 'project_admin_role' AS field
        UNION ALL SELECT 'inventory_admin_role' AS field
        UNION ALL SELECT 'credential_admin_role' AS field
        UNION ALL SELECT 'workflow_admin_role' AS field
        UNION ALL SELECT 'notification_admin_role' AS field
        UNION ALL SELECT 'job_template_admin_role' AS field
        UNION ALL SELECT 'execution_environment_admin_role' AS field
        UNION ALL SELECT 'auditor_role' AS field
        UNION ALL SELECT 'member_role' AS field
        UNION ALL SELECT 'read_role' AS field
        UNION ALL SELECT 'approval_role' AS field) AS f ORDER BY organizations.id;
CREATE TRIGGER organizations_roles_created AFTER INSERT ON organizations
BEGIN
    INSERT INTO roles (kind, object_id, field) VALUES
        ('organization', NEW.id, 'admin_role'),
        ('organization', NEW.id, 'execute_role'),
        ('organization', NEW.id, 'project_admin_role'),
        ('organization', NEW.id, 'inventory_admin_role'),
        ('organization', NEW.id, 'credential_admin_role'),
        ('organization', NEW.id, 'workflow_admin_role'),
        ('organization', NEW.id, 'notification_admin_role'),
        ('organization', NEW.id, 'job_template_admin_role'),
        ('organization', NEW.id, 'execution_environment_admin_role'),
        ('organization', NEW.id, 'auditor_role'),
        ('organization', NEW.id, 'member_role'),
        ('organization', NEW.id, 'read_role'),
        ('organization', NEW.id, 'approval_role');
END;
CREATE TRIGGER organizations_roles_deleted AFTER DELETE ON organizations
BEGIN
    DELETE FROM roles WHERE kind = 'organization' AND object_id = OLD.id;
END;

INSERT INTO roles (kind, object_id, field)
    SELECT 'credential', credentials.id, f.field FROM credentials 
    CROSS JOIN (SELECT 'admin_role' AS field
        UNION ALL SELECT 'use_role' AS field
        UNION ALL SELECT 'read_role' AS field) AS f ORDER BY credentials.id;
CREATE TRIGGER credentials_roles_created AFTER INSERT ON credentials
BEGIN
    INSERT INTO roles (kind, object_id, field) VALUES
        ('credential', NEW.id, 'admin_role'),
        ('credential', NEW.id, 'use_role'),
        ('credential', NEW.id, 'read_role');
END;
CREATE TRIGGER credentials_roles_deleted AFTER DELETE ON credentials
BEGIN
    DELETE FROM roles WHERE kind = 'credential' AND object_id = OLD.id;
END;

INSERT INTO roles (kind, object_id, field)
    SELECT 'project', projects.id, f.field FROM projects 
    CROSS JOIN (SELECT 'admin_role' AS field
        UNION ALL SELECT 'use_role' AS field
        UNION ALL SELECT 'update_role' AS field
        UNION ALL SELECT 'read_role' AS field) AS f ORDER BY projects.id;
CREATE TRIGGER projects_roles_created AFTER INSERT ON projects
BEGIN
    INSERT INTO roles (kind, object_id, field) VALUES
        ('project', NEW.id, 'admin_role'),
        ('project', NEW.id, 'use_role'),
        ('project', NEW.id, 'update_role'),
        ('project', NEW.id, 'read_role');
END;
CREATE TRIGGER projects_roles_deleted AFTER DELETE ON projects
BEGIN
    DELETE FROM roles WHERE kind = 'project' AND object_id = OLD.id;
END;

INSERT INTO roles (kind, object_id, field)
    SELECT 'inventory', inventories.id, f.field FROM inventories 
    CROSS JOIN (SELECT 'admin_role' AS field
        UNION ALL SELECT 'update_role' AS field
        UNION ALL SELECT 'adhoc_role' AS field
        UNION ALL SELECT 'use_role' AS field
        UNION ALL SELECT 'read_role' AS field) AS f ORDER BY inventories.id;
CREATE TRIGGER inventories_roles_created AFTER INSERT ON inventories
BEGIN
    INSERT INTO roles (kind, object_id, field) VALUES
        ('inventory', NEW.id, 'admin_role'),
        ('inventory', NEW.id, 'update_role'),
        ('inventory', NEW.id, 'adhoc_role'),
        ('inventory', NEW.id, 'use_role'),
        ('inventory', NEW.id, 'read_role');
END;
CREATE TRIGGER inventories_roles_deleted AFTER DELETE ON inventories
BEGIN
    DELETE FROM roles WHERE kind = 'inventory' AND object_id = OLD.id;
END;

INSERT INTO roles (kind, object_id, field)
    SELECT 'job_template', job_templates.id, f.field FROM job_templates 
    CROSS JOIN (SELECT 'admin_role' AS field
        UNION ALL SELECT 'execute_role' AS field
        UNION ALL SELECT 'read_role' AS field) AS f ORDER BY job_templates.id;
CREATE TRIGGER job_templates_roles_created AFTER INSERT ON job_templates
BEGIN
    INSERT INTO roles (kind, object_id, field) VALUES
        ('job_template', NEW.id, 'admin_role'),
        ('job_template', NEW.id, 'execute_role'),
        ('job_template', NEW.id, 'read_role');
END;
CREATE TRIGGER job_templates_roles_deleted AFTER DELETE ON job_templates
BEGIN
    DELETE FROM roles WHERE kind = 'job_template' AND object_id = OLD.id;
END;


-- Organization admins and members become members of the organizations' admin and member
-- roles; `organization_roles` stays, as a view over them that reads and writes as the table did.
INSERT INTO role_members (role_id, user_id)
    SELECT roles.id, organization_roles.user_id FROM organization_roles
    JOIN roles ON roles.kind = 'organization' AND roles.object_id = organization_roles.organization_id
        AND roles.field = organization_roles.role || '_role';
DROP TABLE organization_roles;
CREATE VIEW organization_roles AS
    SELECT roles.object_id AS organization_id, role_members.user_id AS user_id,
        CASE roles.field WHEN 'admin_role' THEN 'admin' ELSE 'member' END AS role
    FROM role_members JOIN roles ON roles.id = role_members.role_id
    WHERE roles.kind = 'organization' AND roles.field IN ('admin_role', 'member_role');
CREATE TRIGGER organization_roles_insert INSTEAD OF INSERT ON organization_roles
BEGIN
    SELECT RAISE(ABORT, 'CHECK constraint failed: role IN (''admin'', ''member'')')
        WHERE NEW.role NOT IN ('admin', 'member');
    SELECT RAISE(ABORT, 'FOREIGN KEY constraint failed')
        WHERE NOT EXISTS (SELECT 1 FROM roles WHERE kind = 'organization'
            AND object_id = NEW.organization_id);
    INSERT INTO role_members (role_id, user_id)
        SELECT id, NEW.user_id FROM roles WHERE kind = 'organization'
            AND object_id = NEW.organization_id AND field = NEW.role || '_role';
END;
CREATE TRIGGER organization_roles_delete INSTEAD OF DELETE ON organization_roles
BEGIN
    DELETE FROM role_members WHERE user_id = OLD.user_id AND role_id = (SELECT id FROM roles
        WHERE kind = 'organization' AND object_id = OLD.organization_id
            AND field = OLD.role || '_role');
END;

-- A grant or a revoke changes what a user may do, as a membership did.
CREATE TRIGGER role_members_insert_revision AFTER INSERT ON role_members
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER role_members_update_revision AFTER UPDATE ON role_members
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER role_members_delete_revision AFTER DELETE ON role_members
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
