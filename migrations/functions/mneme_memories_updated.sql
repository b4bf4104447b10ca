-- mneme_memories_updated: Trigger of `memories` (after an update of term_count or project, per
-- row): the memory's old length leaves its project value's statistics and the new one enters.
create or replace function mneme_memories_updated() returns trigger language plpgsql as $$
begin
  insert into memory_corpus (project, n, len, with_len) values
    (old.project, -1, -coalesce(old.term_count, 0), -(old.term_count is not null)::int),
    (new.project, 1, coalesce(new.term_count, 0), (new.term_count is not null)::int);
  return null;
end $$;
