-- Secret keys a rotation retired, by key id (never the key). A server that still holds one of
-- them as its current key (a node the rotation's next key never reached) refuses to seal a
-- value under it: the value would open under no key the deployment keeps.
CREATE TABLE retired_secret_keys (
    key_id TEXT PRIMARY KEY,
    retired TIMESTAMP NOT NULL
);
