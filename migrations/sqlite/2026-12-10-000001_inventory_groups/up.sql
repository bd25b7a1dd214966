-- Groups of an inventory's hosts (the reference's inventory groups): named within their
-- inventory, with variables of their own, holding hosts and other groups of the same
-- inventory. "groups" is a keyword of SQL window functions, hence the table's name.
CREATE TABLE inventory_groups (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    description TEXT NOT NULL DEFAULT '',
    inventory_id BIGINT NOT NULL REFERENCES inventories (id) ON DELETE CASCADE,
    -- YAML or JSON text, as given.
    variables TEXT NOT NULL DEFAULT '',
    created TIMESTAMP NOT NULL,
    modified TIMESTAMP NOT NULL,
    UNIQUE (inventory_id, name)
);

-- The hosts directly in a group; deleting either side removes the membership only.
CREATE TABLE inventory_group_hosts (
    group_id BIGINT NOT NULL REFERENCES inventory_groups (id) ON DELETE CASCADE,
    host_id BIGINT NOT NULL REFERENCES hosts (id) ON DELETE CASCADE,
    PRIMARY KEY (group_id, host_id)
);
CREATE INDEX inventory_group_hosts_host ON inventory_group_hosts (host_id);

-- The groups directly in a group (never itself, never one of its ancestors).
CREATE TABLE inventory_group_children (
    parent_id BIGINT NOT NULL REFERENCES inventory_groups (id) ON DELETE CASCADE,
    child_id BIGINT NOT NULL REFERENCES inventory_groups (id) ON DELETE CASCADE,
    PRIMARY KEY (parent_id, child_id),
    CHECK (parent_id <> child_id)
);
CREATE INDEX inventory_group_children_child ON inventory_group_children (child_id);

-- Whether runs include the host (the reference's `enabled`): a disabled host stays in its
-- inventory and groups but is left out of every run's inventory.
ALTER TABLE hosts ADD COLUMN enabled BOOLEAN NOT NULL DEFAULT TRUE;
