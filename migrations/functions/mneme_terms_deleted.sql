-- mneme_terms_deleted: Trigger of `memory_postings` (after delete, per statement): one delta row of
-- memory_term_df per (term, project) the statement touched, through the keys. Rows of an import in
-- progress (`set local mneme.staged = 'on'`) are left out: the import adds its own statistics when
-- it is published (src/store/imports.ts).
create or replace function mneme_terms_deleted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_term_df (term, project, df)
    select k.term, k.project, -count(*) from mneme_old o cross join lateral (
      select k.term, k.project from memory_term_keys k where k.id = o.key limit 1) k
     group by k.term, k.project;
  return null;
end $$;
