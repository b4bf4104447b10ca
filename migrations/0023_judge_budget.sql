-- Mneme schema, version 23: the daily token budget of the judge of the prompt hook's candidates
-- (RECALL_JUDGE, docs/recall.md "After 0.22: a model's judgement at prompt time"): the tokens its
-- model calls spent per UTC day, apart from capture's and the expansion worker's, so that the
-- budget survives a restart and is shared by the daemons of one server Postgres.
create table if not exists judge_budget (
  day date primary key,
  tokens bigint not null default 0
);
