-- mneme_search: The hybrid search of versions 8 and 14, kept for daemons of 0.12 and before on the
-- same server (searches call mneme_search_scoped, which is this statement with `exact` more).
-- Servers keep its call prepared per connection with these parameter types: a change of them is a
-- function of another name, not a change of this one. What the statement does:
-- mneme_search_scoped.sql.
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
