-- The nodes serving this database: each writes its row when it starts and every heartbeat,
-- so `/api/v2/ping/` can list the live ones (those whose heartbeat is recent).
CREATE TABLE instances (
    node TEXT PRIMARY KEY NOT NULL,
    version TEXT NOT NULL,
    capacity BIGINT NOT NULL,
    started TIMESTAMP NOT NULL,
    heartbeat TIMESTAMP NOT NULL
);
