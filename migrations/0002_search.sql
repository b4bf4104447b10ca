-- Mneme schema, version 2: postings for the lexical side of hybrid search.
-- Terms come from src/memory/terms.ts (one tokenizer for every database and embedder); BM25
-- statistics (document frequency, length, corpus size) are computed over the memories the
-- search may see. `term_count` is null until a memory's postings are built:
-- memories stored before this migration get theirs at the next start (see src/memory/upgrade.ts).
-- project (null exactly for global memories) and len (the memory's number of terms) are
-- copies of the memory's, which never change after insert, so that a search reads postings
-- from one index (index-only once vacuumed) without visiting memories.
-- impact orders the postings of a term by how much they would add to BM25 (tf saturated,
-- length against a reference of 12 terms), so a search reads the best few hundred of a common
-- term rather than all of them.
create table if not exists memory_terms (
  term text not null,
  memory_id uuid not null references memories (id) on delete cascade,
  tf int not null,
  len int not null,
  project text,
  impact real generated always as (tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * len / 12.0))) stored
);
create index if not exists memory_terms_lookup on memory_terms (term, project, impact desc)
  include (memory_id, tf, len);
create index if not exists memory_terms_memory_id on memory_terms (memory_id);
alter table memories add column if not exists term_count int;
-- The full-text column of version 1 required every query word (websearch_to_tsquery): its
-- job is taken over by the postings above.
drop index if exists memories_content_tsv;
alter table memories drop column if exists content_tsv;
