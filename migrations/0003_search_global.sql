-- Mneme schema, version 3: the postings of global memories (project null) in an index of
-- their own, ordered by impact within a term. `project is null` is not an equality to the
-- planner, so on memory_terms_lookup the global postings of a term had to be read whole and
-- sorted before the best few hundred were taken; here they are read in order, and a search
-- stops after the ones it scores.
create index if not exists memory_terms_global on memory_terms (term, impact desc)
  include (memory_id, tf, len) where project is null;
