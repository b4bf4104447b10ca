/**
 * The pages of the `help` tool, written for an agent that has never seen the service.
 * @module
 */
import { HELP_TOPICS, type HelpTopic } from "./schemas.ts";

const OVERVIEW = `# Mneme memory: overview

Mneme is a persistent memory shared by you, other agents and the user. What you store
here survives this conversation: a later session (yours or another agent's) can recall it.

Each memory is one short text with metadata:
- scope: 'global' (applies everywhere) or 'project' (applies to one named project)
- type: fact, rule, decision, feedback, context or bootstrap
- tags, weight (importance 0.1..1.0), optional ttl (expiry)

Search is by meaning and by words (recall). Storing a memory that looks like an existing
one returns contradiction warnings, so that you can replace outdated knowledge
(remember with supersedes) instead of piling up conflicting memories.

Typical session:
1. Read the resource mneme://bootstrap/{project} (or mneme://bootstrap) for standing
   instructions, if your client shows resources.
2. recall before you act: recall(query, project) searches global and project memories.
3. remember what is worth keeping: decisions, user feedback, facts you had to discover.
4. When something you recalled turns out wrong, fix it: remember(..., supersedes=id),
   update(id, content) or forget(id).

Other pages: help(topic) with topic = ${HELP_TOPICS.join(", ")}.`;

const TOOLS = `# Mneme memory: tools

remember(content, scope?, project?, type?, tags?, weight?, ttl?, supersedes?)
  Store a memory. Returns it with its id, and 'contradictions': existing memories in the
  same scope hierarchy with similarity > 0.75 (id, content, similarity). Review them.
  supersedes = id of a memory this one replaces (it drops to weight 0.1 and no longer
  appears in recall).

recall(query, project?, scope?, limit?)
  Search. With project and no scope: global memories plus that project's (hierarchical).
  With scope 'global' or 'project': only that scope; 'all': every project's and the global
  memories. With neither: global memories only. limit 1..100, default 5. Results are best
  first with a score: relevance (0..1, the query's words found in the memory, rare words
  counting most, fused with the similarity of meaning) x scope weight x memory weight x
  recency; project memories rank above equally relevant global ones. Each result also has
  a confidence (0..1) that it is about the query, the same scale for any query or project:
  0.7 or more means it covers the query (what the prompt hook injects); lower ones are
  loose matches. Memories that are not
  relevant at all are left out, so fewer results (or none) mean nothing better is stored.

list(scope?, project?, type?, limit?)
  Browse memories, most recently updated first (limit 1..1000, default 50). Unlike
  recall it also shows superseded memories (with superseded_by set).

update(id, content)
  Replace the text of a memory (re-embedded). Other fields stay.

forget(id)
  Delete a memory permanently.

stats()
  Totals by scope, project and type.

help(topic?)
  These pages: ${HELP_TOPICS.join(", ")}.

Errors come back as tool errors whose text starts with the field at fault, e.g.
"weight: must be between 0.1 and 1.0" or "project: is required when scope is project".
Nothing is written when a call is refused.`;

const SCOPES = `# Mneme memory: scopes

global   Applies everywhere: the user's preferences, their general conventions, facts about
         their tools. Default scope.
project  Applies to one project, named by 'project' (use the repository or directory name,
         consistently, e.g. 'mneme'). Required: project. Example: how to run this
         repository's tests.

Rules:
- Giving only 'project' (no scope) stores a project memory.
- scope 'global' with a project is refused; scope 'project' without one is refused.
- recall(query, project='X') searches global + project X (the usual call).
  recall(query, scope='project', project='X') searches only project X.
  recall(query, scope='global') searches only global memories.
  recall(query) with neither searches global memories only.
  recall(query, scope='all') searches every project's and the global memories.
- At equal relevance a project memory scores higher than a global one (1.0 vs 0.8).`;

const TYPES = `# Mneme memory: types

fact       Something true about the user, the system or the project (default).
           "The staging database is Postgres 16 on db.internal:5433."
rule       An instruction to follow. "Never push directly to main; open a pull request."
decision   A choice that was made, with its reason.
           "Chose Hono over Express: runs on Deno natively."
feedback   A correction or preference the user expressed about your work.
           "User wants shorter commit messages, imperative mood."
context    Background or temporary state; often with a ttl.
           "Currently migrating auth to OAuth; the old login path is deprecated." ttl='14d'
bootstrap  Shown to every new session at start (the mneme://bootstrap resources). Keep
           these few and essential. A bootstrap memory tagged rule, feedback, fact,
           decision or context is shown under that heading.

Types are for organising and filtering (list(type=...)); recall searches all types.`;

const EXAMPLES = `# Mneme memory: examples

Recall before working in a project:
  recall({"query": "how to run the tests", "project": "mneme"})

Store a project rule:
  remember({"content": "Run 'deno task ok' before every commit.", "project": "mneme",
            "type": "rule", "tags": ["ci"]})

Store a global preference from the user:
  remember({"content": "The user prefers British spelling in docs.", "type": "feedback"})

Temporary context that expires:
  remember({"content": "Release freeze until Friday; only bug fixes.", "project": "mneme",
            "type": "context", "ttl": "7d"})

remember answered with a contradiction (id 3f2a..., "Tests run with npm test"), and the
new fact is the correct one: replace the old memory.
  remember({"content": "Tests run with 'deno task test', not npm.", "project": "mneme",
            "supersedes": "3f2a9c1e-..."})

Fix the wording of a memory, or remove it:
  update({"id": "3f2a9c1e-...", "content": "..."})
  forget({"id": "3f2a9c1e-..."})

See what is stored:
  list({"project": "mneme", "type": "rule"})
  stats({})`;

const BEST = `# Mneme memory: best practices

- Recall first. Before a non-trivial task, recall with the project name; it is cheap.
- One idea per memory, self-contained: name the thing ("The API server in mneme ..."), not
  "it" or "this file". A future reader has none of your current context.
- Store what was hard to learn or what the user told you: decisions with their reason,
  corrections (feedback), conventions, commands that work, pitfalls. Do not store what is
  obvious from the code, or long transcripts.
- Never store secrets: no passwords, tokens, API keys or personal data.
- Use project scope for project knowledge and a stable project name; global for the user's
  general preferences.
- Resolve contradictions at once: when remember reports one, decide which is right and
  use supersedes (or update/forget), so recall does not return conflicting answers.
- Use ttl for temporary state (current task, freezes, incidents) so it cleans itself up.
- Lower the weight (e.g. 0.5) for minor or uncertain notes; keep 1.0 for important ones.
- Keep bootstrap memories few and short: every session reads all of them.`;

const PAGES: Record<HelpTopic, string> = {
  overview: OVERVIEW,
  tools: TOOLS,
  scopes: SCOPES,
  types: TYPES,
  examples: EXAMPLES,
  "best-practices": BEST,
};

/** The text of one help page. */
export function helpText(topic: HelpTopic): string {
  return PAGES[topic];
}
