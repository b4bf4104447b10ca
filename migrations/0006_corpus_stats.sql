-- Mneme schema, version 6: corpus statistics of BM25 kept up to date by triggers.
-- Search needs, per project value (null: global memories), the number of memories, the sum of
-- their lengths and how many have a length, and per query term its document frequency.
-- Counting them from memories and memory_terms cost a scan of every row (70-90 ms) and of every
-- posting of each term (10-40 ms per common term) at 100k memories, paid by the first search
-- after any write. Here every write appends its change (a delta) to two small tables, in the same
-- transaction, so a search reads exact counts by summing a few rows. Rows are only appended,
-- never updated: concurrent writers never wait for each other on a counter row.
-- mneme_compact_stats() folds the deltas of a key into one row (after imports and hourly).
create table if not exists memory_term_df (
  term text not null,
  project text,
  df int not null
);
create index if not exists memory_term_df_term on memory_term_df (term) include (project, df);

create table if not exists memory_corpus (
  project text,
  n int not null,
  len bigint not null,
  with_len int not null
);

-- Postings: one delta row per (term, project) a statement touched.
create or replace function mneme_terms_inserted() returns trigger language plpgsql as $$
begin
  insert into memory_term_df (term, project, df)
    select term, project, count(*) from mneme_new group by term, project;
  return null;
end $$;

create or replace function mneme_terms_deleted() returns trigger language plpgsql as $$
begin
  insert into memory_term_df (term, project, df)
    select term, project, -count(*) from mneme_old group by term, project;
  return null;
end $$;

create or replace function mneme_terms_updated() returns trigger language plpgsql as $$
begin
  insert into memory_term_df (term, project, df)
    select term, project, sum(d) from (
      select term, project, -1 as d from mneme_old
      union all select term, project, 1 from mneme_new) x
     group by term, project having sum(d) <> 0;
  return null;
end $$;

create or replace function mneme_terms_truncated() returns trigger language plpgsql as $$
begin
  delete from memory_term_df;
  return null;
end $$;

drop trigger if exists memory_terms_df_inserted on memory_terms;
create trigger memory_terms_df_inserted after insert on memory_terms
  referencing new table as mneme_new for each statement execute function mneme_terms_inserted();
drop trigger if exists memory_terms_df_deleted on memory_terms;
create trigger memory_terms_df_deleted after delete on memory_terms
  referencing old table as mneme_old for each statement execute function mneme_terms_deleted();
drop trigger if exists memory_terms_df_updated on memory_terms;
create trigger memory_terms_df_updated after update on memory_terms
  referencing old table as mneme_old new table as mneme_new
  for each statement execute function mneme_terms_updated();
drop trigger if exists memory_terms_df_truncated on memory_terms;
create trigger memory_terms_df_truncated after truncate on memory_terms
  for each statement execute function mneme_terms_truncated();

-- Memories: one delta row per project value a statement touched. Updates change a length
-- (term_count, when postings are rebuilt) of one memory at a time: a row trigger, only then.
create or replace function mneme_memories_inserted() returns trigger language plpgsql as $$
begin
  insert into memory_corpus (project, n, len, with_len)
    select project, count(*), coalesce(sum(term_count), 0), count(term_count)
      from mneme_new group by project;
  return null;
end $$;

create or replace function mneme_memories_deleted() returns trigger language plpgsql as $$
begin
  insert into memory_corpus (project, n, len, with_len)
    select project, -count(*), -coalesce(sum(term_count), 0), -count(term_count)
      from mneme_old group by project;
  return null;
end $$;

create or replace function mneme_memories_updated() returns trigger language plpgsql as $$
begin
  insert into memory_corpus (project, n, len, with_len) values
    (old.project, -1, -coalesce(old.term_count, 0), -(old.term_count is not null)::int),
    (new.project, 1, coalesce(new.term_count, 0), (new.term_count is not null)::int);
  return null;
end $$;

create or replace function mneme_memories_truncated() returns trigger language plpgsql as $$
begin
  delete from memory_corpus;
  return null;
end $$;

drop trigger if exists memories_corpus_inserted on memories;
create trigger memories_corpus_inserted after insert on memories
  referencing new table as mneme_new for each statement execute function mneme_memories_inserted();
drop trigger if exists memories_corpus_deleted on memories;
create trigger memories_corpus_deleted after delete on memories
  referencing old table as mneme_old for each statement execute function mneme_memories_deleted();
drop trigger if exists memories_corpus_updated on memories;
create trigger memories_corpus_updated after update of term_count, project on memories
  for each row
  when (old.term_count is distinct from new.term_count or old.project is distinct from new.project)
  execute function mneme_memories_updated();
drop trigger if exists memories_corpus_truncated on memories;
create trigger memories_corpus_truncated after truncate on memories
  for each statement execute function mneme_memories_truncated();

-- Fold the deltas into one row per key. The sums come from the rows this statement deleted, so
-- two compactions at once, or writers appending meanwhile, never count a delta twice or lose
-- one; a reader sees the deltas or their sum, never both.
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

-- The statistics of the memories stored so far (a database upgraded from version 5).
delete from memory_term_df;
insert into memory_term_df (term, project, df)
  select term, project, count(*) from memory_terms group by term, project;
delete from memory_corpus;
insert into memory_corpus (project, n, len, with_len)
  select project, count(*), coalesce(sum(term_count), 0), count(term_count)
    from memories group by project;
