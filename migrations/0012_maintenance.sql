-- Mneme schema, version 12: the embedded database's vacuums, recorded.
-- PGlite has no autovacuum: the daemon vacuums its tables itself (src/memory/vacuum.ts). The
-- statistics views forget their counts after a crash, so the last vacuum is kept here, where
-- `memcli status` and /healthz read it. One row per task; server Postgres leaves it empty.
create table if not exists mneme_maintenance (
  task text primary key,
  at timestamptz not null,
  took_ms int not null,
  dead_rows bigint not null,
  tables text not null
);
