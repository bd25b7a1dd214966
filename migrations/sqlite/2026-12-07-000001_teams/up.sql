-- Teams of an organization, with their three roles (made and removed with them, as every
-- role-bearing object's are), and the roles granted to teams: a team holds a role when it is
-- granted to it, and whoever holds the team's member role holds what the team holds.
CREATE TABLE teams (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    organization_id BIGINT NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
    created_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    modified_by BIGINT NULL REFERENCES users (id) ON DELETE SET NULL,
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (organization_id, name)
);

CREATE TRIGGER teams_roles_created AFTER INSERT ON teams
BEGIN
    INSERT INTO roles (kind, object_id, field) VALUES
        ('team', NEW.id, 'admin_role'),
        ('team', NEW.id, 'member_role'),
        ('team', NEW.id, 'read_role');
END;
CREATE TRIGGER teams_roles_deleted AFTER DELETE ON teams
BEGIN
    DELETE FROM roles WHERE kind = 'team' AND object_id = OLD.id;
END;

CREATE TABLE team_roles (
    role_id BIGINT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    PRIMARY KEY (role_id, team_id)
);
CREATE INDEX team_roles_team ON team_roles (team_id);

-- What a team holds is what its members may do: a change is a change of users.
CREATE TRIGGER team_roles_insert_revision AFTER INSERT ON team_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER team_roles_update_revision AFTER UPDATE ON team_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
CREATE TRIGGER team_roles_delete_revision AFTER DELETE ON team_roles
BEGIN UPDATE revisions SET users = users + 1 WHERE id = 1; END;
