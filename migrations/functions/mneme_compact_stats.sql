-- mneme_compact_stats: Folds the deltas of the corpus statistics into one row per key (after
-- imports and hourly). The sums come from the rows this statement deleted, so two compactions at
-- once, or writers appending meanwhile, never count a delta twice or lose one; a reader sees the
-- deltas or their sum, never both.
create or replace function mneme_compact_stats() returns void language sql as $$
  with d as (
    delete from memory_term_df where term in (
      select term from memory_term_df group by term
      having count(*) > count(distinct project) + max(case when project is null then 1 else 0 end))
    returning term, project, df)
  insert into memory_term_df (term, project, df)
    select term, project, sum(df) from d group by term, project having sum(df) <> 0;
  with d as (delete from memory_corpus returning project, n, len, with_len)
  insert into memory_corpus (project, n, len, with_len)
    select project, sum(n), sum(len), sum(with_len) from d group by project
    having sum(n) <> 0 or sum(len) <> 0 or sum(with_len) <> 0;
$$;
