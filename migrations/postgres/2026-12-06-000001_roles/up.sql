-- Roles as the reference has them: one row per role field of every organization, credential,
-- project, inventory and job template (created and deleted with the object by the triggers
-- below, so no writer can forget them), plus the two system singletons; and the users granted
-- each role. Role ids are what the API shows; which role implies which is the domain's
-- (`acs_authz::roles`), not the database's.

CREATE TABLE roles (
    id BIGSERIAL PRIMARY KEY,
    kind TEXT NOT NULL,
    object_id BIGINT,
    field TEXT NOT NULL,
    UNIQUE (kind, object_id, field)
);
INSERT INTO roles (kind, object_id, field) VALUES
    ('system', NULL, 'system_administrator'), ('system', NULL, 'system_auditor');

CREATE TABLE role_members (
    role_id BIGINT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    user_id BIGINT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    PRIMARY KEY (role_id, user_id)
);
CREATE INDEX role_members_user ON role_members (user_id);

-- The object's roles: TG_ARGV[0] is its kind, the other arguments its role fields in order.
CREATE FUNCTION create_object_roles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO roles (kind, object_id, field)
        SELECT TG_ARGV[0], NEW.id, field
        FROM unnest(TG_ARGV[1:TG_NARGS - 1]) WITH ORDINALITY AS f (field, n) ORDER BY n;
    RETURN NULL;
END $$;
CREATE FUNCTION delete_object_roles() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    DELETE FROM roles WHERE kind = TG_ARGV[0] AND object_id = OLD.id;
    RETURN NULL;
END $$;

INSERT INTO roles (kind, object_id, field)
    SELECT 'organization', organizations.id, f.field FROM organizations
    CROSS JOIN unnest(ARRAY[
        'admin_role',
        'execute_role',
        'project_admin_role',
        'inventory_admin_role',
        'credential_admin_role',
        'workflow_admin_role',
        'notification_admin_role',
        'job_template_admin_role',
        'execution_environment_admin_role',
        'auditor_role',
        'member_role',
        'read_role',
        'approval_role']) WITH ORDINALITY AS f (field, n) ORDER BY organizations.id, f.n;
CREATE TRIGGER organizations_roles_created AFTER INSERT ON organizations
    FOR EACH ROW EXECUTE FUNCTION create_object_roles(
        'organization',
        'admin_role',
        'execute_role',
        'project_admin_role',
        'inventory_admin_role',
        'credential_admin_role',
        'workflow_admin_role',
        'notification_admin_role',
        'job_template_admin_role',
        'execution_environment_admin_role',
        'auditor_role',
        'member_role',
        'read_role',
        'approval_role'
    );
CREATE TRIGGER organizations_roles_deleted AFTER DELETE ON organizations
    FOR EACH ROW EXECUTE FUNCTION delete_object_roles('organization');

INSERT INTO roles (kind, object_id, field)
    SELECT 'credential', credentials.id, f.field FROM credentials
    CROSS JOIN unnest(ARRAY[
        'admin_role',
        'use_role',
        'read_role']) WITH ORDINALITY AS f (field, n) ORDER BY credentials.id, f.n;
CREATE TRIGGER credentials_roles_created AFTER INSERT ON credentials
    FOR EACH ROW EXECUTE FUNCTION create_object_roles(
        'credential',
        'admin_role',
        'use_role',
        'read_role'
    );
CREATE TRIGGER credentials_roles_deleted AFTER DELETE ON credentials
    FOR EACH ROW EXECUTE FUNCTION delete_object_roles('credential');

INSERT INTO roles (kind, object_id, field)
    SELECT 'project', projects.id, f.field FROM projects
    CROSS JOIN unnest(ARRAY[
        'admin_role',
        'use_role',
        'update_role',
        'read_role']) WITH ORDINALITY AS f (field, n) ORDER BY projects.id, f.n;
CREATE TRIGGER projects_roles_created AFTER INSERT ON projects
    FOR EACH ROW EXECUTE FUNCTION create_object_roles(
        'project',
        'admin_role',
        'use_role',
        'update_role',
        'read_role'
    );
CREATE TRIGGER projects_roles_deleted AFTER DELETE ON projects
    FOR EACH ROW EXECUTE FUNCTION delete_object_roles('project');

INSERT INTO roles (kind, object_id, field)
    SELECT 'inventory', inventories.id, f.field FROM inventories
    CROSS JOIN unnest(ARRAY[
        'admin_role',
        'update_role',
        'adhoc_role',
        'use_role',
        'read_role']) WITH ORDINALITY AS f (field, n) ORDER BY inventories.id, f.n;
CREATE TRIGGER inventories_roles_created AFTER INSERT ON inventories
    FOR EACH ROW EXECUTE FUNCTION create_object_roles(
        'inventory',
        'admin_role',
        'update_role',
        'adhoc_role',
        'use_role',
        'read_role'
    );
CREATE TRIGGER inventories_roles_deleted AFTER DELETE ON inventories
    FOR EACH ROW EXECUTE FUNCTION delete_object_roles('inventory');

INSERT INTO roles (kind, object_id, field)
    SELECT 'job_template', job_templates.id, f.field FROM job_templates
    CROSS JOIN unnest(ARRAY[
        'admin_role',
        'execute_role',
        'read_role']) WITH ORDINALITY AS f (field, n) ORDER BY job_templates.id, f.n;
CREATE TRIGGER job_templates_roles_created AFTER INSERT ON job_templates
    FOR EACH ROW EXECUTE FUNCTION create_object_roles(
        'job_template',
        'admin_role',
        'execute_role',
        'read_role'
    );
CREATE TRIGGER job_templates_roles_deleted AFTER DELETE ON job_templates
    FOR EACH ROW EXECUTE FUNCTION delete_object_roles('job_template');


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
    WHERE roles.kind = 'organization' AND roles.field IN ('admin_role',
        'member_role');
CREATE FUNCTION organization_roles_write() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    role_row BIGINT;
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.role NOT IN ('admin',
        'member') THEN
            RAISE check_violation USING MESSAGE = 'role must be admin or member';
        END IF;
        SELECT id INTO role_row FROM roles WHERE kind = 'organization'
            AND object_id = NEW.organization_id AND field = NEW.role || '_role';
        IF role_row IS NULL THEN
            RAISE foreign_key_violation USING MESSAGE = 'no such organization';
        END IF;
        INSERT INTO role_members (role_id, user_id) VALUES (role_row, NEW.user_id);
        RETURN NEW;
    END IF;
    DELETE FROM role_members WHERE user_id = OLD.user_id AND role_id = (SELECT id FROM roles
        WHERE kind = 'organization' AND object_id = OLD.organization_id
            AND field = OLD.role || '_role');
    IF NOT FOUND THEN
        RETURN NULL;
    END IF;
    RETURN OLD;
END $$;
CREATE TRIGGER organization_roles_write INSTEAD OF INSERT OR DELETE ON organization_roles
    FOR EACH ROW EXECUTE FUNCTION organization_roles_write();

-- A grant or a revoke changes what a user may do, as a membership did.
CREATE TRIGGER role_members_revision AFTER INSERT OR UPDATE OR DELETE ON role_members
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER role_members_truncated AFTER TRUNCATE ON role_members
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
