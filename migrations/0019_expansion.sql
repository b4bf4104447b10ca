-- Mneme schema, version 19: memories expanded at write time by a model (MEMORY_EXPANSION,
-- docs/recall.md "0.20"). `expansion` holds the phrases a model wrote for the memory (joined
-- by '; '), never shown, exported or injected; `expansion_model` the model that wrote them. Both
-- null until the background worker expands the memory: an upgrade changes no row and
-- re-encodes nothing. While a memory has an expansion, its postings, embedding and dense vector
-- are those of `content || E'\n' || expansion`; an update of its content clears both.
-- `expansion_budget` holds the tokens the worker spent per UTC day (its daily budget survives a
-- restart), apart from capture's.
alter table memories add column if not exists expansion text;
alter table memories add column if not exists expansion_model text;
create table if not exists expansion_budget (
  day date primary key,
  tokens bigint not null default 0
);
-- The worker's query of the memories waiting (newest first, src/store/expansion.ts) reads this
-- index, not the table, each batch; it empties as the memories are expanded.
create index if not exists memories_expansion_pending on memories (created_at desc, id)
  where expansion is null and superseded_by is null;
-- Whether any memory has an expansion (search reads the candidates' expansions only then): an
-- index of the expanded memories alone, empty while expansion was never used.
create index if not exists memories_expanded on memories (id) where expansion is not null;
