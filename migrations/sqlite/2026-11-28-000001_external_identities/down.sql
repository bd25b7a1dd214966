DROP TABLE external_identities;
