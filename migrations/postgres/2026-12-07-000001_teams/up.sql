-- Teams of an organization, with their three roles (made and removed with them, as every
-- role-bearing object's are), and the roles granted to teams: a team holds a role when it is
-- granted to it, and whoever holds the team's member role holds what the team holds.
CREATE TABLE teams (
    id BIGSERIAL PRIMARY KEY,
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
    FOR EACH ROW EXECUTE FUNCTION create_object_roles(
        'team', 'admin_role', 'member_role', 'read_role');
CREATE TRIGGER teams_roles_deleted AFTER DELETE ON teams
    FOR EACH ROW EXECUTE FUNCTION delete_object_roles('team');

CREATE TABLE team_roles (
    role_id BIGINT NOT NULL REFERENCES roles (id) ON DELETE CASCADE,
    team_id BIGINT NOT NULL REFERENCES teams (id) ON DELETE CASCADE,
    PRIMARY KEY (role_id, team_id)
);
CREATE INDEX team_roles_team ON team_roles (team_id);

-- What a team holds is what its members may do: a change is a change of users.
CREATE TRIGGER team_roles_revision AFTER INSERT OR UPDATE OR DELETE ON team_roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
CREATE TRIGGER team_roles_truncated AFTER TRUNCATE ON team_roles
    FOR EACH STATEMENT EXECUTE FUNCTION bump_users_revision();
