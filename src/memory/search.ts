/**
 * The path of one search through the service: validate, weigh the query's terms, read the
 * candidates (the lexical and vector sides and the dense leg's nearest in one statement),
 * rank them (ranking.ts) and give each result its confidence (confidence.ts), with the signals
 * it comes from (which the service's `search` drops and diagnostics.ts keeps).
 * docs/architecture.md, "The path of a search", follows it from the request down.
 * @module
 */
import type { SifEncoder } from "../embed/sif.ts";
import type { WordVectors } from "../embed/words.ts";
import { terms } from "../domain/terms.ts";
import { queryVariants } from "../domain/forms.ts";
import type { ScopeFilter } from "../store/sql.ts";
import type { Store } from "../store/store.ts";
import {
  confidenceOf,
  expandedConfidence,
  profileQuery,
  type Signals,
  signalsOf,
} from "./confidence.ts";
import { calibrated, DENSE_CANDIDATES } from "./dense.ts";
import { dot } from "../embed/dense.ts";
import {
  lexicalQuery,
  namesIdentifier,
  rank,
  RECALL_CANDIDATES,
  type Retrieval,
} from "./ranking.ts";
import type { EmbedderInfo, SearchInput, SearchResult } from "./types.ts";
import { validateSearch } from "./validate.ts";

/** A search result with the signals its confidence comes from (src/memory/confidence.ts). */
export type ExplainedResult = SearchResult & { signals: Signals };

/** What a search needs of the service. */
export interface SearchDeps {
  store: Store;
  /** The configured embedder. */
  embedder: EmbedderInfo;
  /** Embed texts with it (a 503 when it fails). */
  embed: (texts: string[]) => Promise<number[][]>;
  /** Refuse when the stored vectors are another embedder's (maintenance). */
  assertVectorsUsable: () => Promise<void>;
  /**
   * Where each statement is a message to another thread (the embedded database's worker), the
   * check of the recorded embedder is part of the candidates' statement, and this is called
   * when that statement found it to be the configured one; null: the check is a read of its
   * own beside the search (server Postgres: another pooled connection).
   */
  usableInStatement: (() => void) | null;
  /** The word vectors (the confidence's, and the re-rank's). */
  vectors: () => Promise<WordVectors>;
  /** Whether the word vectors re-rank the builtin embedder's candidates. */
  reranks: boolean;
  /** The dense leg's encoder (null: no dense leg in search). */
  denseEncoder: (() => Promise<SifEncoder | null>) | null;
  /** How candidates are found (`hybrid`; the others are diagnostics). */
  retrieval: Retrieval;
  /**
   * Whether memories may have expansions (any was written, whatever MEMORY_EXPANSION says
   * now): the candidates' expansions are read (one more query) and the ranking and the
   * confidence read `content + "\n" + expansion` for those that have one.
   */
  expansion?: () => Promise<boolean>;
  now: () => Date;
}

/** One search, each result with its confidence's signals. */
export async function searchMemories(
  d: SearchDeps,
  input: SearchInput,
): Promise<ExplainedResult[]> {
  const q = validateSearch(input);
  // The check that the stored vectors are usable is one round trip of its own: on server
  // Postgres it runs beside the search (another pooled connection) rather than before it,
  // and its error, when there is one, is the answer. On the embedded database it is part of
  // the candidates' statement (below), one message to the database's worker instead of two.
  const inStatement = d.usableInStatement;
  const usable = inStatement ? null : d.assertVectorsUsable();
  // Without project and scope, search covers global memories only: an agent outside a
  // project never sees other projects' memories.
  const scope: ScopeFilter = q.scope === "all"
    ? { kind: "all" }
    : q.scope === "global"
    ? { kind: "global" }
    : q.scope === "project"
    ? { kind: "project", project: q.project! }
    : q.project !== undefined
    ? { kind: "hierarchy", project: q.project }
    : { kind: "global" };
  const queryTerms = terms(q.query);
  const now = d.now();
  const mode = d.retrieval;
  const groups = mode === "vector" ? [] : queryVariants(queryTerms);
  // The corpus statistics (cached: usually no round trip) weigh the query's terms; the
  // store receives the weights ready-made (ranking.ts).
  // The dense leg (src/memory/dense.ts): the memories nearest by meaning, whatever their
  // words; its query vector is made beside the embedding, and its read is part of the
  // candidates' statement (Store.candidatesWithDense).
  const denseQuery = mode === "hybrid" && d.denseEncoder
    ? d.denseEncoder().then((encoder) => {
      const query = encoder?.vector(q.query);
      return encoder && query ? { encoder, query } : null;
    })
    : Promise.resolve(null);
  const found = Promise.all([
    d.embed([q.query]),
    groups.length ? d.store.corpusStats(scope, [...new Set(groups.flat())]) : null,
    denseQuery,
  ]).then(async ([[embedding], stats, dq]) => {
    const lexical = stats ? lexicalQuery(groups, stats) : null;
    if (!dq) {
      const check = inStatement ? d.assertVectorsUsable() : null;
      const read = d.store.candidates(
        embedding,
        lexical,
        scope,
        RECALL_CANDIDATES,
        now,
        mode !== "lexical",
      );
      read.catch(() => {});
      await check;
      return { candidates: await read, leg: null };
    }
    // With a dense leg of its own (the builtin embedder, whose vector is lexical) the
    // embedding's nearest neighbours are not read, unless the query names an identifier (then
    // ranked without the dense leg): on every seen set no hit of the first 5 came from them
    // alone, and their HNSW walk was half of the statement's pages (docs/performance.md,
    // "0.19"). The lexical side's candidates keep their similarity.
    const denseRead = { vector: dq.query, k: DENSE_CANDIDATES };
    const withVector = namesIdentifier(queryTerms);
    let both = inStatement
      ? await d.store.checkedCandidatesWithDense(
        embedding,
        lexical,
        scope,
        RECALL_CANDIDATES,
        now,
        denseRead,
        withVector,
        d.embedder,
      )
      : null;
    if (inStatement) {
      // Not read: the recorded embedder is another (the check's error is the answer), none
      // yet, or there was no lexical side.
      if (both) inStatement();
      else await d.assertVectorsUsable();
    }
    both ??= await d.store.candidatesWithDense(
      embedding,
      lexical,
      scope,
      RECALL_CANDIDATES,
      now,
      denseRead,
      withVector,
    );
    return { candidates: both.candidates, leg: { ...dq, near: both.near } };
  });
  // Word vectors weigh the query's words for the confidence (and re-rank the builtin
  // embedder's candidates): loaded once, beside the search.
  const vectors = d.vectors();
  const [checked, searched, loaded] = await Promise.allSettled([usable, found, vectors]);
  if (checked.status === "rejected") throw checked.reason;
  if (searched.status === "rejected") throw searched.reason;
  if (loaded.status === "rejected") throw loaded.reason;
  const words = loaded.value;
  const { candidates, leg } = searched.value;
  if (leg) {
    // A memory only the dense leg found shares no word the lexical side weighed: it joins
    // with no lexical relevance, its dense cosine its way into the ranking.
    const seen = new Set(candidates.map((c) => c.memory.id));
    for (const n of leg.near) {
      if (!seen.has(n.memory.id)) {
        candidates.push({ memory: n.memory, similarity: 0, lexical: 0 });
      }
    }
  }
  if (candidates.length && d.expansion && await d.expansion()) {
    // The text the ranking and the confidence read; what is returned stays the content.
    const expansions = await d.store.expansionsOf(candidates.map((c) => c.memory.id));
    for (const c of candidates) {
      const x = expansions.get(c.memory.id);
      if (x) c.text = `${c.memory.content}\n${x}`;
    }
  }
  const ranked = rank(candidates, {
    query: q.query,
    queryTerms,
    retrieval: mode,
    embedder: d.embedder,
    words: d.reranks ? words : null,
    dense: leg && {
      query: leg.query,
      found: new Map(leg.near.map((n) => [n.memory.id, n.similarity])),
      vector: (text) => leg.encoder.vector(text),
      fromSentence: leg.encoder.words === words
        ? (sentence, text) => leg.encoder.fromSentence(sentence, text)
        : undefined,
    },
    limit: q.limit,
    now,
  });
  const profile = profileQuery(q.query, words);
  // The confidence reads the dense cosine without the tool names' category words: two
  // memories naming tools of one category are near in meaning, which ranks a memory about pnpm
  // for "which package manager", but is no evidence that a prompt about eslint wants a memory
  // about prettier (docs/recall.md, 0.16). It keeps the jargon's plain words ("login" is about
  // signing in), with which its coefficients were fitted (docs/recall.md, 0.18).
  const plainQuery = leg ? leg.encoder.vector(q.query, "jargon") : null;
  return ranked.map(({ c, score, cos }) => {
    let semantic = cos === null ? 0 : calibrated(cos);
    if (leg && cos !== null) {
      const m = plainQuery && leg.encoder.vector(c.text ?? c.memory.content, "jargon");
      semantic = m ? calibrated(dot(plainQuery!, m)) : 0;
    }
    const signals = signalsOf(profile, c.text ?? c.memory.content, c.lexical, words, semantic);
    // An expanded memory's confidence on the plain memories' scale (confidence.ts).
    const raw = confidenceOf(signals);
    const confidence = c.text === undefined ? raw : expandedConfidence(raw);
    return { memory: c.memory, score, confidence, signals };
  });
}
