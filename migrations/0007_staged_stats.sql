-- Mneme schema, version 7: rows of an import in progress stay out of the corpus statistics.
-- An import's chunks run with `set local mneme.staged = 'on'`, and so does the deletion of an
-- unfinished import's rows: the insert and delete triggers of version 6 then append nothing.
-- The import adds its statistics in one step when it is published (src/store/store.ts,
-- publishImport), in the transaction that makes its rows visible: search counts N and df over
-- exactly the rows it can see, and an import no longer pays a delta row per term and chunk.
create or replace function mneme_terms_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_term_df (term, project, df)
    select term, project, count(*) from mneme_new group by term, project;
  return null;
end $$;

create or replace function mneme_terms_deleted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_term_df (term, project, df)
    select term, project, -count(*) from mneme_old group by term, project;
  return null;
end $$;

create or replace function mneme_memories_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_corpus (project, n, len, with_len)
    select project, count(*), coalesce(sum(term_count), 0), count(term_count)
      from mneme_new group by project;
  return null;
end $$;

create or replace function mneme_memories_deleted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_corpus (project, n, len, with_len)
    select project, -count(*), -coalesce(sum(term_count), 0), -count(term_count)
      from mneme_old group by project;
  return null;
end $$;

-- Rows of imports still in progress when this version is installed were counted by version 6:
-- take them out, so that their publication (or deletion) counts them once.
insert into memory_term_df (term, project, df)
  select t.term, t.project, -count(*) from memory_terms t join memories m on m.id = t.memory_id
   where m.import_job in (select id from mneme_import_jobs) group by t.term, t.project;
insert into memory_corpus (project, n, len, with_len)
  select project, -count(*), -coalesce(sum(term_count), 0), -count(term_count)
    from memories where import_job in (select id from mneme_import_jobs) group by project;
