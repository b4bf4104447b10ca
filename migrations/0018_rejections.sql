-- Mneme schema, version 18: the proposals a user rejected, remembered.
-- A rejected proposal leaves a tombstone: its hierarchy (scope and project) and its text,
-- normalised (lower case, white space collapsed; secrets were replaced by markers before it
-- was ever proposed). Capture drops a later candidate that nearly repeats a tombstone of its
-- hierarchy (the near-duplicate measure of src/capture/dedupe.ts), so a statement rejected
-- once is not proposed again. Tombstones older than a year are removed when a new one is
-- written; a bulk delete of a project's memories removes its tombstones too.
create table if not exists capture_rejections (
  id uuid primary key,
  scope text not null check (scope in ('global', 'project')),
  project text,
  text text not null,
  rejected_at timestamptz not null,
  constraint capture_rejections_project_scope check ((scope = 'project') = (project is not null))
);
create index if not exists capture_rejections_hierarchy
  on capture_rejections (scope, project, rejected_at desc);
