ALTER TABLE hosts DROP COLUMN enabled;
DROP TABLE inventory_group_children;
DROP TABLE inventory_group_hosts;
DROP TABLE inventory_groups;
