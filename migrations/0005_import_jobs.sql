-- Mneme schema, version 5: staged imports.
-- (Numbered 5: version 4 is unused; versions only need to increase.)
-- An import is written in small committed chunks, so that the daemon keeps answering while
-- it runs. Its rows carry the import's id, and every read of the store leaves out rows whose
-- import still has a row in mneme_import_jobs (src/store/store.ts, VISIBLE). Publishing an
-- import deletes its job row (one tiny statement); a failed import deletes its rows, and an
-- import left behind by a killed process is deleted at the next start.
create table if not exists mneme_import_jobs (
  id uuid primary key,
  items int not null,
  started_at timestamptz not null default now(),
  -- Set at each chunk: a job untouched for long on server Postgres belongs to a dead process.
  touched_at timestamptz not null default now()
);
alter table memories add column if not exists import_job uuid;
create index if not exists memories_import_job on memories (import_job)
  where import_job is not null;
