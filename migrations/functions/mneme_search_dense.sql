-- mneme_search_dense: the hybrid search statement (mneme_search_scoped, whose parameters are the
-- first fifteen here) and the dense leg's nearest neighbours (migrations/0016_dense.sql) in one
-- call, so that a search sends the database one statement instead of two. On the embedded
-- database every statement is a message to its worker, and the dense read was a transaction of
-- its own (begin, `set local enable_seqscan = off`, the read, commit) planned on every search;
-- here its plan is made once per connection, as the hybrid statement's (docs/performance.md,
-- "0.18").
--   d_vec   the query's dense vector; null leaves the dense side out
--   dk      the dense side's candidates
-- The dense side reads what src/store/search.ts's nearestStatement(…, "dense") reads: the `dk`
-- current, not superseded, visible memories of the scope with a dense vector, nearest to d_vec by
-- cosine distance; a small scope (exact) read exactly through the btree on (scope, project), its
-- distance plus 0 (which no index serves), otherwise through memories_dense_hnsw with the scope
-- as a filter. The branches that do not apply are constant-false filters of the cached plan.
-- Each row says where it comes from: in_hybrid (among mneme_search_scoped's rows, which come
-- first, in its order, with its similarity and lexical), dense_similarity (the dense cosine; null
-- when not among the dense side's rows) and dense_rank (its place in the dense side's order).
-- A row only the dense side found has similarity and lexical null.
-- Servers keep this call prepared per connection with these parameter types: a change of them is
-- a function of another name, not a change of this one.
create or replace function mneme_search_dense(
  q_vec vector, use_vec boolean, q_terms text[], q_weights float8[], k1 float8, b float8,
  q_avgdl float8, q_total float8, k int, per int, q_now timestamptz,
  all_projects boolean, with_global boolean, in_project text, exact boolean,
  d_vec vector, dk int
) returns table (
  id uuid, content text, scope text, project text, type text, tags text[],
  weight double precision, created_at timestamptz, updated_at timestamptz,
  expires_at timestamptz, supersedes uuid, superseded_by uuid,
  similarity double precision, lexical double precision,
  in_hybrid boolean, dense_similarity double precision, dense_rank int
) language plpgsql stable
set enable_seqscan = off
set plan_cache_mode = force_generic_plan
set jit = off
set max_parallel_workers_per_gather = 0
as $$
#variable_conflict use_column
begin
  return query
  with h as materialized (
    select s.*, row_number() over () as rn
      from mneme_search_scoped(q_vec, use_vec, q_terms, q_weights, k1, b, q_avgdl, q_total, k,
                               per, q_now, all_projects, with_global, in_project, exact) s
  ), near as materialized (
    select d.id, d.distance, row_number() over () as rn from (
      (select m.id, m.dense <=> d_vec as distance from memories m
        where d_vec is not null and all_projects and m.dense is not null
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.dense <=> d_vec limit dk)
      union all
      (select m.id, m.dense <=> d_vec from memories m
        where d_vec is not null and not exact and not all_projects and with_global
          and in_project is null and m.dense is not null
          and m.scope <> 'project'
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.dense <=> d_vec limit dk)
      union all
      (select m.id, m.dense <=> d_vec from memories m
        where d_vec is not null and not exact and not all_projects and not with_global
          and in_project is not null and m.dense is not null
          and m.scope <> 'global' and coalesce(m.project, '') = in_project
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.dense <=> d_vec limit dk)
      union all
      (select m.id, m.dense <=> d_vec from memories m
        where d_vec is not null and not exact and not all_projects and with_global
          and in_project is not null and m.dense is not null
          and (m.scope <> 'project' or coalesce(m.project, '') = in_project)
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by m.dense <=> d_vec limit dk)
      union all
      -- Exact: the scope's rows through the btree, every distance computed.
      (select m.id, m.dense <=> d_vec from memories m
        where d_vec is not null and exact and not all_projects and with_global
          and in_project is null and m.dense is not null
          and m.scope = 'global'
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by (m.dense <=> d_vec) + 0 limit dk)
      union all
      (select m.id, m.dense <=> d_vec from memories m
        where d_vec is not null and exact and not all_projects and not with_global
          and in_project is not null and m.dense is not null
          and m.scope = 'project' and m.project = in_project
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by (m.dense <=> d_vec) + 0 limit dk)
      union all
      (select m.id, m.dense <=> d_vec from memories m
        where d_vec is not null and exact and not all_projects and with_global
          and in_project is not null and m.dense is not null
          and (m.scope = 'global' or (m.scope = 'project' and m.project = in_project))
          and (m.expires_at is null or m.expires_at > q_now) and m.superseded_by is null
          and (m.import_job is null or m.import_job <> all(array(select j.id from mneme_import_jobs j)))
        order by (m.dense <=> d_vec) + 0 limit dk)
    ) d
  )
  select x.id, x.content, x.scope, x.project, x.type, x.tags, x.weight, x.created_at,
         x.updated_at, x.expires_at, x.supersedes, x.superseded_by, x.similarity, x.lexical,
         x.in_hybrid, x.dense_similarity, x.dense_rank
    from (
      select h.id, h.content, h.scope, h.project, h.type, h.tags, h.weight, h.created_at,
             h.updated_at, h.expires_at, h.supersedes, h.superseded_by, h.similarity, h.lexical,
             true as in_hybrid, (1 - near.distance)::double precision as dense_similarity,
             near.rn::int as dense_rank, 0 as part, h.rn as rn
        from h left join near on near.id = h.id
      union all
      select m.id, m.content, m.scope, m.project, m.type, m.tags, m.weight, m.created_at,
             m.updated_at, m.expires_at, m.supersedes, m.superseded_by, null, null,
             false, (1 - near.distance)::double precision, near.rn::int, 1, near.rn
        from near cross join lateral (select * from memories m where m.id = near.id limit 1) m
       where not exists (select 1 from h where h.id = near.id)
    ) x
   order by x.part, x.rn;
end $$;
