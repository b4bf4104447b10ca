-- mneme_terms_updated: Trigger of `memory_postings` (after update, per statement): the change of
-- document frequency per (term, project), through the keys.
create or replace function mneme_terms_updated() returns trigger language plpgsql as $$
begin
  insert into memory_term_df (term, project, df)
    select k.term, k.project, sum(d) from (
      select key, -1 as d from mneme_old
      union all select key, 1 from mneme_new) x cross join lateral (
      select k.term, k.project from memory_term_keys k where k.id = x.key limit 1) k
     group by k.term, k.project having sum(d) <> 0;
  return null;
end $$;
