-- mneme_impact: A posting's impact, by which a search reads the best postings of a term first:
-- BM25's term weight at k1 = 0.9, b = 0.4 and an average length of 12, as `real`. The index
-- memory_postings_lookup (migrations/0014_compact_postings.sql) is built on it: a change to its
-- body goes with a versioned migration that rebuilds that index (`reindex index
-- memory_postings_lookup`) after defining the new body itself (function files are applied after the
-- versioned migrations).
create or replace function mneme_impact(tf smallint, len smallint) returns real
  language sql immutable parallel safe
  as $$ select (tf * 1.9 / (tf + 0.9 * (0.6 + 0.4 * len / 12.0)))::real $$;
