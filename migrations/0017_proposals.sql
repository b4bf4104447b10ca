-- Mneme schema, version 16: capture's proposals, kept apart from the memories.
-- A proposal is a memory that capture found in a Claude Code session and that waits for review
-- (the inbox). It lives in its own table, never in `memories`, so the bootstrap, the prompt
-- hook, recall and search cannot show it: accepting one creates the memory through the
-- service's ordinary create path and removes the proposal; rejecting removes it.
create table if not exists proposals (
  id uuid primary key,
  content text not null,
  type text not null check (type in ('fact', 'rule', 'decision', 'feedback', 'context', 'bootstrap')),
  scope text not null check (scope in ('global', 'project')),
  project text,
  tags text[] not null default '{}',
  -- Provenance: the session, the transcript event, when it was said and when it was captured.
  session_id text not null,
  event_uuid text,
  said_at timestamptz,
  captured_at timestamptz not null,
  -- The stored memory it contradicts: accepting it supersedes that one. Deleting the memory
  -- makes the proposal an ordinary one.
  replaces uuid references memories (id) on delete set null,
  confidence double precision not null check (confidence >= 0 and confidence <= 1),
  -- The extractor's rule that found it, and the kinds of secret replaced by a marker.
  rule text,
  secrets_removed text[] not null default '{}',
  status text not null default 'pending' check (status in ('pending')),
  constraint proposals_project_scope check ((scope = 'project') = (project is not null))
);
create index if not exists proposals_captured_at on proposals (captured_at desc, id);
create index if not exists proposals_scope_project on proposals (scope, project);

-- Where capture stopped reading each session's transcript (so that a restart resumes and
-- nothing is read twice), and the model tokens the session has spent.
create table if not exists capture_cursors (
  session_id text primary key,
  cursor jsonb not null,
  tokens bigint not null default 0,
  updated_at timestamptz not null
);

-- The model tokens all sessions spent per UTC day (the daily budget survives a restart).
create table if not exists capture_budget (
  day date primary key,
  tokens bigint not null default 0
);
