-- mneme_terms_inserted: Trigger of `memory_postings` (after insert, per statement): one delta row
-- of memory_term_df per (term, project) the statement touched, through the keys. Every lookup of a
-- key is a lateral subquery with a limit, which the planner cannot turn into a join (on server
-- Postgres it otherwise hashed the whole dictionary for a few postings). Rows of an import in
-- progress (`set local mneme.staged = 'on'`) are left out: the import adds its own statistics when
-- it is published (src/store/imports.ts).
create or replace function mneme_terms_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_term_df (term, project, df)
    select k.term, k.project, count(*) from mneme_new n cross join lateral (
      select k.term, k.project from memory_term_keys k where k.id = n.key limit 1) k
     group by k.term, k.project;
  return null;
end $$;
