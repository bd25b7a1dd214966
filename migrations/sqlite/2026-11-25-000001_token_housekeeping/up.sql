-- Expired access tokens are found by the clean-up's walk over ids (acs_storage::sweeps), which
-- reads the table in order anyway; an index on the expiry would only add a random-order
-- index entry to maintain on every token issued, revoked or deleted.
DROP INDEX access_tokens_expires;
