-- mneme_terms_truncated: Trigger of `memory_postings` (after truncate): the term statistics are
-- empty too.
create or replace function mneme_terms_truncated() returns trigger language plpgsql as $$
begin
  delete from memory_term_df;
  return null;
end $$;
