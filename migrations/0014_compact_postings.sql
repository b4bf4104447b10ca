-- Mneme schema, version 14: compact postings. A posting of version 2 held its term and project
-- as text and its memory as a 16-byte uuid, in the table and again in the index a search reads
-- (78 bytes a row in the table, 63 MB of 176 MiB at 20,000 memories with their indexes). Here:
--   memory_nums       a 4-byte number per memory (deleted with it), which postings carry;
--   memory_term_keys  a 4-byte key per (term, project value) pair (null: global memories),
--                     never deleted (a dictionary: a few thousand rows);
--   memory_postings   (key, num, tf, len): 12 bytes of data a row, tf and len as smallint (a
--                     memory has at most 20,000 characters, so fewer than 32,768 terms);
-- and one index a search reads, by key and impact (computed in the index only, by
-- mneme_impact: the generated column of version 2, same values), so that a search still reads
-- the best few hundred postings of each term and project value in order, index-only once
-- vacuumed. The index of global postings (version 3) is no longer needed: global postings
-- have keys of their own. The statistics (memory_term_df, memory_corpus) keep their text keys.
-- Existing postings are converted here, in the migration's one transaction (a start killed
-- half-way leaves version 13's tables, and the next start does it again).
create or replace function mneme_impact(tf smallint, len smallint) returns real
  language sql immutable parallel safe
  as $$ select (tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * len / 12.0)))::real $$;

create table if not exists memory_nums (
  num int generated always as identity primary key,
  id uuid not null unique references memories (id) on delete cascade
);

create table if not exists memory_term_keys (
  id int generated always as identity primary key,
  term text not null,
  project text
);
-- Projects are never empty (src/memory/validate.ts), so '' stands for null here.
create unique index if not exists memory_term_keys_term
  on memory_term_keys (term, (coalesce(project, ''))) include (project, id);

create table if not exists memory_postings (
  key int not null,
  num int not null references memory_nums (num) on delete cascade,
  tf smallint not null,
  len smallint not null
);

-- The statistics' triggers of version 6 and 7, on the new table: the same deltas by
-- (term, project), through the keys. Every lookup of a key or a memory number in this file is
-- a lateral subquery with a limit, which the planner cannot turn into a join: on server
-- Postgres it otherwise hashed the whole dictionary (100,000 keys) for a few postings, and a
-- create took 23 ms instead of 5 at 100k memories.
create or replace function mneme_terms_inserted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_term_df (term, project, df)
    select k.term, k.project, count(*) from mneme_new n cross join lateral (
      select k.term, k.project from memory_term_keys k where k.id = n.key limit 1) k
     group by k.term, k.project;
  return null;
end $$;

create or replace function mneme_terms_deleted() returns trigger language plpgsql as $$
begin
  if current_setting('mneme.staged', true) = 'on' then return null; end if;
  insert into memory_term_df (term, project, df)
    select k.term, k.project, -count(*) from mneme_old o cross join lateral (
      select k.term, k.project from memory_term_keys k where k.id = o.key limit 1) k
     group by k.term, k.project;
  return null;
end $$;

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

-- The conversion: every memory gets its number (staged ones too), every pair its key.
insert into memory_nums (id) select id from memories order by created_at, id;
insert into memory_term_keys (term, project)
  select distinct term, project from memory_terms order by term, project;
-- No trigger yet: the statistics already count these postings. In the old table's order, so
-- that postings of equal impact come in the same order as before (an index's ties are in the
-- order of the rows in the table): a search picks the same ones.
insert into memory_postings (key, num, tf, len)
  select k.id, n.num, least(t.tf, 32767)::smallint, least(t.len, 32767)::smallint
    from memory_terms t
    join memory_term_keys k on k.term = t.term and coalesce(k.project, '') = coalesce(t.project, '')
    join memory_nums n on n.id = t.memory_id
   order by t.ctid;
drop table memory_terms;

create index if not exists memory_postings_lookup
  on memory_postings (key, mneme_impact(tf, len) desc) include (num, tf, len);
create index if not exists memory_postings_num on memory_postings (num);

create trigger memory_postings_df_inserted after insert on memory_postings
  referencing new table as mneme_new for each statement execute function mneme_terms_inserted();
create trigger memory_postings_df_deleted after delete on memory_postings
  referencing old table as mneme_old for each statement execute function mneme_terms_deleted();
create trigger memory_postings_df_updated after update on memory_postings
  referencing old table as mneme_old new table as mneme_new
  for each statement execute function mneme_terms_updated();
create trigger memory_postings_df_truncated after truncate on memory_postings
  for each statement execute function mneme_terms_truncated();

-- The postings as version 2 laid them out, for reading (tests, inspection).
create view memory_terms as
  select k.term, n.id as memory_id, p.tf::int as tf, p.len::int as len, k.project,
         mneme_impact(p.tf, p.len) as impact
    from memory_postings p join memory_term_keys k on k.id = p.key
    join memory_nums n on n.num = p.num;

-- The search of version 8 (same parameters) over the new tables. Per query term, its keys in
-- the scope (every project value; null; the project; null and the project), and per key the
-- `per` postings of highest impact, read in order from memory_postings_lookup; over every
-- memory, the `per` best of each term are kept (as before: a term's best across projects).
-- Memories are numbers until the best lexical matches are picked.
create or replace function mneme_search(
  q_vec vector, use_vec boolean, q_terms text[], q_weights float8[], k1 float8, b float8,
  q_avgdl float8, q_total float8, k int, per int, q_now timestamptz,
  all_projects boolean, with_global boolean, in_project text
) returns table (
  id uuid, content text, scope text, project text, type text, tags text[],
  weight double precision, created_at timestamptz, updated_at timestamptz,
  expires_at timestamptz, supersedes uuid, superseded_by uuid,
  similarity double precision, lexical double precision
) language plpgsql stable
set enable_seqscan = off
set plan_cache_mode = force_generic_plan
set jit = off
as $$
#variable_conflict use_column
declare
  no_jobs boolean := not exists (select 1 from mneme_import_jobs);
begin
  return query
  with staged as materialized (
    select n.num from memories s
      cross join lateral (select n.num from memory_nums n where n.id = s.id limit 1) n
     where not no_jobs and s.import_job = any(array(select j.id from mneme_import_jobs j))
  ), vec as materialized (
    select near.id from (
      (select m.id from memories m
        where use_vec and all_projects
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.embedding <=> q_vec limit k)
      union all
      (select m.id from memories m
        where use_vec and not all_projects and with_global and in_project is null
          and m.scope <> 'project'
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.embedding <=> q_vec limit k)
      union all
      (select m.id from memories m
        where use_vec and not all_projects and not with_global and in_project is not null
          and m.scope <> 'global' and coalesce(m.project, '') = in_project
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.embedding <=> q_vec limit k)
      union all
      (select m.id from memories m
        where use_vec and not all_projects and with_global and in_project is not null
          and (m.scope <> 'project' or coalesce(m.project, '') = in_project)
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.embedding <=> q_vec limit k)
    ) near
  ), keyed as (
    -- Over every memory, every key of the term; otherwise the keys of the scope's project
    -- values ('' for null), each looked up.
    select q.term, q.w, t.id as key from unnest(q_terms, q_weights) as q(term, w)
      cross join lateral (select t.id from memory_term_keys t where t.term = q.term
                           offset 0) t
     where all_projects
    union all
    select q.term, q.w, t.id from unnest(q_terms, q_weights) as q(term, w)
      cross join unnest(case when with_global and in_project is not null then array['', in_project]
                             when with_global then array['']
                             else array[in_project] end) as v(project)
      cross join lateral (select t.id from memory_term_keys t
                           where t.term = q.term and coalesce(t.project, '') = v.project limit 1) t
     where not all_projects
  ), read as materialized (
    select kd.term, kd.w, x.num, x.tf, x.len, x.impact from keyed kd cross join lateral (
      select p.num, p.tf, p.len, mneme_impact(p.tf, p.len) as impact from memory_postings p
       where p.key = kd.key and (no_jobs or p.num not in (select num from staged))
       order by mneme_impact(p.tf, p.len) desc limit per) x
  ), post as (
    select r.num, r.w * r.tf / (r.tf + k1 * (1 - b + b * r.len / q_avgdl)) as s
      from read r where not all_projects
    union all
    -- Over every memory, a term's `per` best across its keys (a sort of at most `per` per key).
    select r.num, r.w * r.tf / (r.tf + k1 * (1 - b + b * r.len / q_avgdl)) from (
      select read.*, row_number() over (partition by read.term order by read.impact desc) as rn
        from read where all_projects) r
     where r.rn <= per
  ), bm as (
    select post.num, sum(post.s) as score from post group by post.num
  ), best as (
    select bm.num, bm.score from bm order by bm.score desc, bm.num limit 4 * k
  ), top as (
    select n.id from best
      cross join lateral (select n.id from memory_nums n where n.num = best.num limit 1) n
      join memories m on m.id = n.id
     where (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
       and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
     order by best.score desc, n.id limit k
  ), ids as (
    select top.id from top union select vec.id from vec
  ), numbered as materialized (
    -- Materialized, so that bm is joined once (hashed) rather than scanned for every id.
    select ids.id, n.num from ids
      left join lateral (select n.num from memory_nums n where n.id = ids.id limit 1) n on true
  )
  select m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight, m.created_at,
         m.updated_at, m.expires_at, m.supersedes, m.superseded_by,
         (1 - (m.embedding <=> q_vec))::double precision,
         least(1, coalesce(s.score, 0) / q_total)::double precision
    from (select numbered.id, bm.score from numbered left join bm on bm.num = numbered.num) s
    cross join lateral (select * from memories m where m.id = s.id limit 1) m;
end $$;
