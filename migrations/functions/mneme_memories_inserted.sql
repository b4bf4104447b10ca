-- mneme_memories_inserted: Trigger of `memories` (after insert, per statement): one delta row of
-- memory_corpus per project value the statement touched. Rows of an import in progress (`set local
-- mneme.staged = 'on'`) are left out: the import adds its own statistics when it is published
-- (src/store/imports.ts).
create or replace function mneme_memories_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_corpus (project, n, len, with_len)
    select project, count(*), coalesce(sum(term_count), 0), count(term_count)
      from mneme_new group by project;
  return null;
end $$;
