-- Mneme schema, version 20: one expansion worker at a time per database. Two daemons on one
-- server Postgres (two machines, say) would otherwise ask the model for the same memories, each
-- paying for them. The worker holds this one-row lease (its own id, until when) while it works,
-- renews it each batch and gives it back when it stops; another daemon's worker waits until the
-- lease is given back or has run out (a daemon that died holds it no longer than that).
create table if not exists expansion_lease (
  id smallint primary key check (id = 1),
  holder text not null,
  until timestamptz not null
);
