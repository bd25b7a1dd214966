DROP TABLE sso_states;
