-- Mneme schema, version 1.
-- The embedding column is created without a dimension; startup sets vector(N) from the
-- probed embedder and builds the HNSW index (see src/store/migrate.ts).
create table if not exists memories (
  id uuid primary key,
  content text not null,
  scope text not null check (scope in ('global', 'project')),
  project text,
  type text not null check (type in ('fact', 'rule', 'decision', 'feedback', 'context', 'bootstrap')),
  tags text[] not null default '{}',
  weight double precision not null default 1.0 check (weight >= 0.1 and weight <= 1.0),
  supersedes uuid references memories (id) on delete set null,
  -- Set on the replaced memory; cleared by the foreign key when the newer one is deleted.
  superseded_by uuid references memories (id) on delete set null,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  expires_at timestamptz,
  embedding vector,
  content_tsv tsvector generated always as (to_tsvector('english', content)) stored,
  constraint memories_project_scope check ((scope = 'project') = (project is not null))
);

-- fastupdate = off: no pending list. PGlite has no autovacuum to flush one, and scanning a
-- pending list of a few thousand rows doubled search latency (measured at 10k memories).
create index if not exists memories_content_tsv on memories using gin (content_tsv)
  with (fastupdate = off);
create index if not exists memories_updated_at on memories (updated_at desc);
create index if not exists memories_scope_project on memories (scope, project);
create index if not exists memories_expires_at on memories (expires_at) where expires_at is not null;
create index if not exists memories_supersedes on memories (supersedes) where supersedes is not null;
create index if not exists memories_superseded_by on memories (superseded_by)
  where superseded_by is not null;

-- One row: the embedder that made the stored vectors, and a re-embedding run in progress.
create table if not exists mneme_meta (
  id int primary key check (id = 1),
  embedder_provider text,
  embedder_model text,
  embedder_dimension int,
  reembed_provider text,
  reembed_model text,
  reembed_dimension int
);
insert into mneme_meta (id) values (1) on conflict (id) do nothing;
