DROP TABLE team_roles;
DROP TRIGGER teams_roles_created;
DROP TRIGGER teams_roles_deleted;
DELETE FROM roles WHERE kind = 'team';
DROP TABLE teams;
