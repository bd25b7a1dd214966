DROP TABLE retired_secret_keys;
