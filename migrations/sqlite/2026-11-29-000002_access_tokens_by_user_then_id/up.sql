-- A user's tokens in id order (the lists' default order) straight from one index: with
-- (user_id) alone a page of a user's tokens walked the primary key in id order and
-- filtered, reading a share of the whole table, and slowed as it grew.
CREATE INDEX access_tokens_user_id ON access_tokens (user_id, id);
DROP INDEX access_tokens_user;
