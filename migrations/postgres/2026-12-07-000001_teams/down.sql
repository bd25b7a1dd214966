DROP TABLE team_roles;
DROP TRIGGER teams_roles_created ON teams;
DROP TRIGGER teams_roles_deleted ON teams;
DELETE FROM roles WHERE kind = 'team';
DROP TABLE teams;
