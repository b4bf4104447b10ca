-- mneme_memories_truncated: Trigger of `memories` (after truncate): the corpus statistics are empty
-- too.
create or replace function mneme_memories_truncated() returns trigger language plpgsql as $$
begin
  delete from memory_corpus;
  return null;
end $$;
