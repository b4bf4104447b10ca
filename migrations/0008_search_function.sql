-- (Superseded: searches call mneme_search_scoped, migrations/0015_search_exact.sql, which
-- reads the nearest neighbours of a small scope exactly; this function stays for daemons of
-- 0.12 and before on the same server. What follows describes both.)
-- Mneme schema, version 8: the hybrid search statement as a function, so that its plan is
-- made once per connection and reused (plpgsql keeps the plans of its statements), rather
-- than planned at every search. Planning the statement took about as long as running it
-- (3 ms of 8 on PGlite at 10k memories); a generic plan also runs faster there than the
-- custom ones (3.6 ms against 7.8 ms a search, measured). The statement is the one described
-- in src/store/store.ts (Store.candidates), which computes every weight and passes it in:
--   q_vec      the query's vector; use_vec false leaves the nearest-neighbour side out
--   q_terms    distinct query terms, q_weights their BM25 weight idf × (k1 + 1)
--   k1, b      BM25 parameters; q_avgdl the average length; q_total the normalisation
--   k          candidates per side; per: postings scored per term and project value
--   q_now      now (expired memories are left out)
--   all_projects, with_global, in_project: the scope (every memory; global memories;
--              the memories of project in_project, when not null)
-- The scope's branches that do not apply are constant-false filters of the cached plan and
-- cost nothing. enable_seqscan = off keeps the nearest-neighbour side on the HNSW index.
-- The nearest neighbours are read with one index scan per kind of scope, of which one runs:
-- every memory; the memories that are not project-scoped (a search over global memories),
-- with nothing to filter on server Postgres, where the partial HNSW index
-- memories_embedding_global_hnsw holds them (built by src/store/migrate.ts, which knows the
-- column's dimension); one project's memories; a project's memories with the global ones.
-- With one filtered index scan for every scope, where most memories belong to projects the
-- nearest neighbours of a query over global memories were project memories, read and
-- rejected by the hundred (650 rows, 5-11 ms at 100k memories on server Postgres, against
-- about 1 ms on the partial index).
-- jit = off: the planner's cost of the statement (HNSW scans are priced high) passes
-- jit_above_cost near 100k memories, and compiling the plan then took 50 ms of every search,
-- for a statement that runs in 1-3 ms.
-- Servers keep the call prepared per connection with these parameter types (src/store/store.ts):
-- a later version that changes them adds a function of another name rather than altering this one.
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
  -- Rows of an import in progress are invisible; usually there is none, and then the
  -- postings need no test against them at all.
  no_jobs boolean := not exists (select 1 from mneme_import_jobs);
begin
  return query
  with staged as materialized (
    select s.id from memories s
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
  ), post as (
    select x.id, q.w * x.tf / (x.tf + k1 * (1 - b + b * x.len / q_avgdl)) as s
      from unnest(q_terms, q_weights) as q(term, w) cross join lateral (
        select t.memory_id as id, t.tf, t.len from memory_terms t
         where all_projects and t.term = q.term
           and (no_jobs or t.memory_id not in (select id from staged))
         order by t.impact desc limit per) x
    union all
    select x.id, q.w * x.tf / (x.tf + k1 * (1 - b + b * x.len / q_avgdl)) as s
      from unnest(q_terms, q_weights) as q(term, w) cross join lateral (
        select t.memory_id as id, t.tf, t.len from memory_terms t
         where not all_projects and with_global and t.term = q.term and t.project is null
           and (no_jobs or t.memory_id not in (select id from staged))
         order by t.impact desc limit per) x
    union all
    select x.id, q.w * x.tf / (x.tf + k1 * (1 - b + b * x.len / q_avgdl)) as s
      from unnest(q_terms, q_weights) as q(term, w) cross join lateral (
        select t.memory_id as id, t.tf, t.len from memory_terms t
         where not all_projects and in_project is not null and t.term = q.term
           and t.project = in_project
           and (no_jobs or t.memory_id not in (select id from staged))
         order by t.impact desc limit per) x
  ), bm as (
    select post.id, sum(post.s) as score from post group by post.id
  ), best as (
    select bm.id, bm.score from bm order by bm.score desc, bm.id limit 4 * k
  ), top as (
    select best.id from best join memories m on m.id = best.id
     where (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
       and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
     order by best.score desc, best.id limit k
  ), ids as (
    select top.id from top union select vec.id from vec
  )
  -- At most 2k rows, each fetched by its key (the limit keeps the lookup a lookup: with the
  -- union's row estimate a join could scan every memory instead).
  select m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight, m.created_at,
         m.updated_at, m.expires_at, m.supersedes, m.superseded_by,
         (1 - (m.embedding <=> q_vec))::double precision,
         least(1, coalesce(s.score, 0) / q_total)::double precision
    from (select ids.id, bm.score from ids left join bm on bm.id = ids.id) s
    cross join lateral (select * from memories m where m.id = s.id limit 1) m;
end $$;
