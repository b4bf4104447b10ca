-- The dense leg of search (docs/recall.md, "The dense leg"): a sentence vector per memory that
-- carries meaning, beside the lexical index, so that a memory phrased in other words than a
-- query can be retrieved. With the builtin embedder (lexical) it is the SIF vector of the word
-- vectors that ship with Mneme (src/embed/sif.ts, 100 dimensions); null for a memory without a
-- known word, and for every memory with a model's embedder (ollama, openai), whose own vector is
-- the dense leg. Adding a column without a default changes only the catalog: no table rewrite.
alter table memories add column if not exists dense vector(100);

-- Memories stored before this column get their vector from a backfill at start, in id order
-- from a cursor, resumable (src/memory/dense.ts); writes made meanwhile encode their own.
-- dense_*: the encoder every memory has a vector of (the backfill finished); dense_running_*:
-- the encoder of a backfill under way, and its cursor.
alter table mneme_meta
  add column if not exists dense_provider text,
  add column if not exists dense_model text,
  add column if not exists dense_dimension int,
  add column if not exists dense_running_provider text,
  add column if not exists dense_running_model text,
  add column if not exists dense_running_dimension int,
  add column if not exists dense_cursor uuid;

-- Its HNSW index (the parameters of the embedding's, src/store/migrate.ts HNSW_WITH); null
-- vectors are not indexed. Dropped and built once around a bulk import, as the embedding's.
create index if not exists memories_dense_hnsw on memories
  using hnsw (dense vector_cosine_ops) with (m = 8, ef_construction = 32);
