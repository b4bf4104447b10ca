-- Mneme schema, version 22: expansions removed by hand (`memcli expansion clear`, POST
-- /api/expansions/clear). `expansion_cleared_at` is when a memory's expansion was removed (or a
-- waiting memory was kept from being expanded): such a memory is searched by its content only
-- and the worker does not take it again until `memcli expansion redo` (POST
-- /api/expansions/redo) sets it back to null. Null for every memory otherwise; an upgrade adds
-- the column and changes no row.
alter table memories add column if not exists expansion_cleared_at timestamptz;
