/**
 * The one contract suite of `MemoryService`. `memoryContract(factory)` registers a test
 * whose steps cover every rule of the service; it runs against PGlite in-process, the
 * Postgres adapter over the wire and the HTTP path (see fixtures.ts). One backend instance
 * is shared by the steps; each step starts from an empty table and the clock at T0.
 */
import assert from "node:assert/strict";
import { MemoryError } from "../../src/domain/errors.ts";
import type { ImportItem, Memory, MemoryService } from "../../src/memory/types.ts";
import { VERSION } from "../../src/version.ts";
import type { ScopeFilter } from "../../src/store/store.ts";
import { axis, type Backend, type BackendFactory, Clock, cosTo0, DIM, newRow } from "./fixtures.ts";
import { weigh } from "../store/lexical.ts";
import { storeOf } from "../../src/memory/diagnostics.ts";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
/**
 * How far a similarity or score may be from the exact one: server Postgres stores halfvec
 * (about three significant digits), the embedded database 4-byte floats.
 */
const tol = (b: Backend) => (b.db.kind === "postgres" ? 2e-3 : 1e-5);
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** Assert that `p` rejects with a MemoryError of `status` whose message starts with `prefix`. */
export async function rejectsWith(
  p: Promise<unknown>,
  status: number,
  prefix = "",
): Promise<MemoryError> {
  let caught: unknown;
  try {
    await p;
  } catch (err) {
    caught = err;
  }
  assert.ok(caught instanceof MemoryError, `expected a MemoryError ${status}, got ${caught}`);
  assert.equal(caught.status, status, `status of "${caught.message}"`);
  assert.ok(
    caught.message.startsWith(prefix),
    `message "${caught.message}" should start with "${prefix}"`,
  );
  return caught;
}

function ids(xs: { id: string }[] | { memory: Memory }[]): string[] {
  return xs.map((x) => ("memory" in x ? x.memory.id : x.id)).sort();
}

function iso(ms: number): string {
  return new Date(Clock.T0.getTime() + ms).toISOString();
}

/** Import `n` memories in chunks of at most 5000. */
async function importMany(s: MemoryService, n: number, make: (i: number) => ImportItem) {
  for (let i = 0; i < n; i += 5000) {
    const items = Array.from({ length: Math.min(5000, n - i) }, (_, k) => make(i + k));
    assert.deepEqual(await s.import(items), { imported: items.length, skipped: 0 });
  }
}

type Step = (b: Backend) => Promise<void>;

const steps: Record<string, Step> = {
  async "create, update and import refuse a secret, naming the field and its kind only"(b) {
    const s = b.service;
    const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    const token = "ghp_" + Array.from({ length: 36 }, (_, i) => alnum[(i * 7 + 3) % 62]).join("");
    const body = Array.from(
      { length: 6 },
      (_, l) => Array.from({ length: 64 }, (_, i) => alnum[(i * 11 + l * 5) % 62]).join(""),
    ).join("\n");
    const key = `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----`;
    const kept = await s.create({ content: "Our password policy: rotate every 90 days" });
    for (const [secret, kind] of [[token, "github"], [key, "private-?key"]]) {
      const content = `The release job reads this:\n${secret}\nat start`;
      const e = await rejectsWith(s.create({ content }), 400, "content: ");
      assert.match(e.message, new RegExp(kind));
      assert.ok(!e.message.includes(secret.slice(0, 30)), "the secret is not in the error");
      const u = await rejectsWith(s.update(kept.memory.id, { content }), 400, "content: ");
      assert.ok(!u.message.includes(secret.slice(0, 30)));
      const i = await rejectsWith(
        s.import([{ content: "an ordinary memory to import" }, { content }]),
        400,
        "items[1].content: ",
      );
      assert.ok(!i.message.includes(secret.slice(0, 30)));
    }
    const all = JSON.stringify(await s.export());
    assert.ok(!all.includes("ghp_") && !all.includes("PRIVATE KEY"), "nothing of a secret stored");
    assert.ok(!all.includes("an ordinary memory to import"), "nothing partial imported");
    assert.equal(
      (await s.get(kept.memory.id)).content,
      "Our password policy: rotate every 90 days",
    );
  },
  async "create applies defaults and returns the memory"(b) {
    const s = b.service;
    const r = await s.create({ content: "  Deploys run on Fridays  " });
    assert.equal(r.contradictions, undefined);
    assert.ok(!("contradictions" in r), "contradictions absent when there are none");
    const m = r.memory;
    assert.match(m.id, UUID_RE);
    assert.deepEqual({ ...m, id: "" }, {
      id: "",
      content: "Deploys run on Fridays",
      scope: "global",
      project: null,
      type: "fact",
      tags: [],
      weight: 1,
      created_at: Clock.T0.toISOString(),
      updated_at: Clock.T0.toISOString(),
      expires_at: null,
      supersedes: null,
      superseded_by: null,
    });
    assert.deepEqual(await s.get(m.id), m);
    assert.deepEqual(await s.get(m.id.toUpperCase()), m, "ids are case-insensitive");
    const t = await s.create({
      content: "tagged",
      tags: [" a ", "a", "b"],
      type: "rule",
      weight: 0.5,
      supersedes: "",
      ttl: "",
    });
    assert.deepEqual(t.memory.tags, ["a", "b"]);
    assert.equal(t.memory.type, "rule");
    assert.equal(t.memory.weight, 0.5);
    assert.equal(t.memory.supersedes, null);
    assert.equal(t.memory.expires_at, null);
    assert.equal(await b.rawCount(), 2);
  },

  async "project implies project scope; scope and project must agree"(b) {
    const s = b.service;
    const a = (await s.create({ content: "implied", project: "alpha" })).memory;
    assert.equal(a.scope, "project");
    assert.equal(a.project, "alpha");
    const e = (await s.create({ content: "explicit", scope: "project", project: "alpha" })).memory;
    assert.equal(e.scope, "project");
    const g = (await s.create({ content: "blank project", project: "  " })).memory;
    assert.equal(g.scope, "global");
    assert.equal(g.project, null);
    await rejectsWith(
      s.create({ content: "x", scope: "global", project: "alpha" }),
      400,
      "project:",
    );
    await rejectsWith(s.create({ content: "x", scope: "project" }), 400, "project:");
    assert.equal(await b.rawCount(), 3);
  },

  async "search is hierarchical with a project; scope filters"(b) {
    const s = b.service;
    b.embedder.set("g", axis(0)).set("a", axis(0)).set("bb", axis(0)).set("q", axis(0));
    const g = (await s.create({ content: "g" })).memory;
    const a = (await s.create({ content: "a", project: "alpha" })).memory;
    const bb = (await s.create({ content: "bb", project: "beta" })).memory;
    assert.deepEqual(ids(await s.search({ query: "q", project: "alpha" })), ids([g, a]));
    assert.deepEqual(ids(await s.search({ query: "q", project: "beta" })), ids([g, bb]));
    assert.deepEqual(ids(await s.search({ query: "q", scope: "global" })), ids([g]));
    assert.deepEqual(
      ids(await s.search({ query: "q", scope: "project", project: "alpha" })),
      ids([a]),
    );
    // Without project and scope: global memories only (fails on the old behaviour, which
    // searched every project); scope "all" is the explicit way to search everything.
    assert.deepEqual(ids(await s.search({ query: "q" })), ids([g]));
    assert.deepEqual(ids(await s.search({ query: "q", scope: "all" })), ids([g, a, bb]));
    await rejectsWith(s.search({ query: "q", scope: "all", project: "alpha" }), 400, "project:");
    assert.deepEqual(ids(await s.search({ query: "q", project: "nobody" })), ids([g]));
  },

  async "contradictions: similarity > 0.75 reported, exactly 0.75 not"(b) {
    const s = b.service;
    const pad = (v: number[]) => [...v, ...new Array(DIM - v.length).fill(0)];
    // [3,2,1,1,1] has norm 4 exactly, so its cosine to axis 0 is exactly 0.75.
    b.embedder.set("existing", axis(0))
      .set("at threshold", pad([3, 2, 1, 1, 1]))
      .set("just above", pad([3.002, 2, 1, 1, 1]));
    const e = (await s.create({ content: "existing" })).memory;
    const at = await s.create({ content: "at threshold" });
    assert.equal(at.contradictions, undefined, "0.75 is not above the threshold");
    await s.delete(at.memory.id);
    const above = await s.create({ content: "just above" });
    assert.equal(above.contradictions?.length, 1);
    assert.deepEqual(above.contradictions![0].memory, e);
    const sim = above.contradictions![0].similarity;
    assert.ok(sim > 0.75 && sim < 0.7505, `similarity ${sim}`);
  },

  async "replace: supersedes the one contradiction in the same call; several are a 409"(b) {
    const s = b.service;
    b.embedder.set("port 5433", axis(0)).set("port 6543", cosTo0(0.9, 1))
      .set("far away", axis(2));
    const old = (await s.create({ content: "port 5433", project: "p" })).memory;
    // The check stores nothing.
    const found = await s.contradictions({ content: "port 6543", project: "p" });
    assert.deepEqual(found.map((c) => c.memory.id), [old.id]);
    assert.equal((await s.list()).length, 1);
    const r = await s.create({ content: "port 6543", project: "p", replace: true });
    assert.equal(r.memory.supersedes, old.id);
    assert.equal(r.contradictions, undefined);
    assert.equal((await s.get(old.id)).superseded_by, r.memory.id);
    // Nothing to replace: stored as usual.
    const lone = await s.create({ content: "far away", replace: true });
    assert.equal(lone.memory.supersedes, null);
    // Two look alike: refused, naming both, nothing stored.
    b.embedder.set("twin a", cosTo0(0.95, 3)).set("twin b", cosTo0(0.95, 4))
      .set("twin c", cosTo0(0.99, 3));
    const a = (await s.create({ content: "twin a" })).memory;
    const bb = (await s.create({ content: "twin b" })).memory;
    const n = (await s.list()).length;
    const err = await rejectsWith(
      s.create({ content: "twin c", replace: true }),
      409,
      "replace: 2 existing memories look similar",
    );
    assert.ok(err.message.includes(a.id) && err.message.includes(bb.id), err.message);
    assert.equal((await s.list()).length, n);
    // An exact duplicate is no candidate to replace: the one similar memory is.
    const near = (j: number) => {
      const v = new Array<number>(DIM).fill(0);
      v[5] = 0.95;
      v[j] = Math.sqrt(1 - 0.95 * 0.95);
      return v;
    };
    b.embedder.set("dup x", near(6)).set("dup y", near(7));
    const dx = (await s.create({ content: "dup x" })).memory;
    const dy = (await s.create({ content: "dup y" })).memory;
    const rd = await s.create({ content: "dup x", replace: true });
    assert.equal(rd.memory.supersedes, dy.id);
    assert.deepEqual(rd.contradictions?.map((c) => c.memory.id), [dx.id]);
    await rejectsWith(s.create({ content: "x", replace: "yes" as never }), 400, "replace:");
    await rejectsWith(
      s.create({ content: "x", replace: true, supersedes: a.id }),
      400,
      "replace: must not be given with supersedes",
    );
  },

  async "import skips what is stored: same content, scope, project and type"(b) {
    const s = b.service;
    await s.create({ content: "kept once", project: "p", type: "rule" });
    const r = await s.import([
      { content: "kept once", project: "p", type: "rule" },
      { content: "kept once", project: "p" },
      { content: "kept once", project: "q", type: "rule" },
      { content: "kept once", type: "rule" },
      { content: "new one" },
      { content: "new one" },
    ]);
    assert.deepEqual(r, { imported: 4, skipped: 2 });
    assert.equal((await s.list({ limit: 100 })).length, 5);
    // An expired memory is not "stored": the same content imports again.
    await s.create({ content: "short", ttl: "1h" });
    b.clock.at(2 * HOUR);
    assert.deepEqual(await s.import([{ content: "short" }]), { imported: 1, skipped: 0 });
  },

  async "contradictions: only the nearest 5 are checked"(b) {
    const s = b.service;
    const sims = [0.8, 0.82, 0.84, 0.86, 0.88, 0.9];
    const made: Memory[] = [];
    for (const [i, c] of sims.entries()) {
      b.embedder.set(`near ${i}`, cosTo0(c, 1 + (i % 5)));
      made.push((await s.create({ content: `near ${i}` })).memory);
    }
    b.embedder.set("probe", axis(0));
    const r = await s.create({ content: "probe" });
    const got = r.contradictions ?? [];
    assert.equal(got.length, 5);
    assert.deepEqual(got.map((c) => c.memory.id), made.slice(1).reverse().map((m) => m.id));
    for (const [k, c] of got.entries()) {
      assert.ok(Math.abs(c.similarity - sims[5 - k]) < tol(b), `similarity ${c.similarity}`);
    }
  },

  async "contradictions: checked within the scope hierarchy"(b) {
    const s = b.service;
    b.embedder.set("other", cosTo0(0.99)).set("global", cosTo0(0.9, 2)).set(
      "alpha",
      cosTo0(0.95, 3),
    ).set("new alpha", axis(0)).set("new global", axis(0)).set("new beta", axis(0));
    await s.create({ content: "other", project: "other" });
    const g = (await s.create({ content: "global" })).memory;
    const a = (await s.create({ content: "alpha", project: "alpha" })).memory;
    const na = await s.create({ content: "new alpha", project: "alpha" });
    assert.deepEqual(na.contradictions?.map((c) => c.memory.id), [a.id, g.id]);
    const ng = await s.create({ content: "new global" });
    assert.deepEqual(ng.contradictions?.map((c) => c.memory.id), [g.id], "global sees global");
  },

  async "contradictions: those of an exact search, create after create, as scopes and time vary"(
    b,
  ) {
    // Thirty creates with the same statements: past the five after which Postgres may keep one
    // plan for a prepared statement (the embedded database prepares the create's nearest-
    // neighbour read), so that plan must hold for every project, time and vector. Each
    // create's contradictions are checked against an exact search over what it may see.
    const s = b.service;
    let seed = 7;
    const rand = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    const made: { id: string; v: number[]; project: string | null; until: number }[] = [];
    for (let i = 0; i < 30; i++) {
      const now = i * 20 * 60_000;
      b.clock.at(now);
      const raw = axis(0).map((x) => 2 * x + rand() - 0.5);
      const norm = Math.hypot(...raw);
      const v = raw.map((x) => x / norm);
      const project = [null, "alpha", "beta"][i % 3];
      const ttl = i % 4 === 1 ? "1h" : undefined;
      b.embedder.set(`m ${i}`, v);
      const r = await s.create({ content: `m ${i}`, project: project ?? undefined, ttl });
      const cos = (a: number[]) => a.reduce((sum, x, k) => sum + x * v[k], 0);
      const want = made
        .filter((m) => m.until > now && (m.project === null || m.project === project))
        .map((m) => ({ id: m.id, sim: cos(m.v) }))
        .sort((x, y) => y.sim - x.sim)
        .slice(0, 5)
        .filter((m) => m.sim > 0.75);
      assert.deepEqual(
        (r.contradictions ?? []).map((c) => c.memory.id),
        want.map((m) => m.id),
        `create ${i} (${project ?? "global"})`,
      );
      made.push({ id: r.memory.id, v, project, until: ttl ? now + HOUR : Infinity });
    }
  },

  async "small scopes among many memories: the nearest neighbours of an exact search"(b) {
    // 600 memories of project "crowd", every one nearer the query than any other memory, and
    // 20 global memories and 20 of project "small" at random: a search without a project, or
    // in project "small", must find its scope's nearest among the crowd. Through the HNSW index
    // of every memory with the scope as a filter, the walk reads the crowd first;
    // hnsw.max_scan_tuples (where the setting reaches the connection the store uses) cuts it
    // short, as the default 20,000 does on a large database, and the scope's memories are then
    // missing. Expired, superseded and staged memories nearest of all stay out.
    const s = b.service;
    const store = storeOf(b.inner);
    let seed = 11;
    const rand = () => (seed = (seed * 48271) % 0x7fffffff) / 0x7fffffff;
    const unit = (raw: number[]) => {
      const norm = Math.hypot(...raw);
      return raw.map((x) => x / norm);
    };
    const q = axis(0);
    const cos = (v: number[]) => v.reduce((sum, x, k) => sum + x * q[k], 0);
    const mems: { content: string; v: number[]; project: string | null }[] = [];
    const items: ImportItem[] = [];
    for (let i = 0; i < 640; i++) {
      const project = i < 600 ? "crowd" : i < 620 ? null : "small";
      const v = unit(
        project === "crowd"
          ? axis(0).map((x) => 8 * x + rand() - 0.5)
          : axis(0).map((x) => 0.6 * x + 2 * rand() - 1),
      );
      const content = `scoped ${i}`;
      b.embedder.set(content, v);
      mems.push({ content, v, project });
      items.push({ content, ...(project ? { project } : {}) });
    }
    await importMany(s, items.length, (i) => items[i]);
    // Left out, each nearest the query: an expired global memory, a superseded one, and a
    // global one of an import still in progress.
    b.embedder.set("expires", axis(0)).set("superseded", axis(0));
    await s.create({ content: "expires", ttl: "1h" });
    const old = (await s.create({ content: "superseded" })).memory;
    const replacement = unit(axis(0).map((x) => 0.3 * x + rand() - 0.5));
    b.embedder.set("replacement", replacement);
    await s.create({ content: "replacement", supersedes: old.id });
    mems.push({ content: "replacement", v: replacement, project: null });
    b.clock.at(2 * HOUR);
    const job = await store.beginImport(1);
    await store.stageImport(job, [newRow("staged", axis(0), b.clock.now())]);
    const byContent = new Map((await s.list({ limit: 1000 })).map((m) => [m.id, m.content]));
    const inScope = (m: { project: string | null }, f: ScopeFilter) =>
      f.kind === "global"
        ? m.project === null
        : f.kind === "project"
        ? m.project === (f as { project: string }).project
        : m.project === null || m.project === (f as { project: string }).project;
    /** The `k` nearest of `f` found are an exact search's, up to the stored precision. */
    const check = (found: string[], f: ScopeFilter, k: number, what: string) => {
      const want = mems.filter((m) => inScope(m, f)).map((m) => ({ ...m, sim: cos(m.v) }))
        .sort((x, y) => y.sim - x.sim);
      const sims = new Map(want.map((m) => [m.content, m.sim]));
      const names = found.map((id) => byContent.get(id) ?? "(not listed)");
      assert.equal(names.length, Math.min(k, want.length), `${what}: ${names}`);
      const last = want[names.length - 1].sim;
      for (const n of names) {
        assert.ok(sims.has(n), `${what}: ${n} is out of the scope or not visible`);
        assert.ok(sims.get(n)! >= last - tol(b), `${what}: ${n} is not among the nearest`);
      }
    };
    const scopes: ScopeFilter[] = [
      { kind: "global" },
      { kind: "project", project: "small" },
      { kind: "hierarchy", project: "small" },
    ];
    await b.db.exec("set hnsw.max_scan_tuples = 100");
    try {
      for (const f of scopes) {
        const now = b.clock.now();
        // The search statement (a query term that matches nothing), then the vector-only read.
        const hybrid = await store.candidates(q, await weigh(store, ["unmatched"], f), f, 15, now);
        check(hybrid.map((c) => c.memory.id), f, 15, `search ${JSON.stringify(f)}`);
        const near = await store.candidates(q, null, f, 15, now);
        check(near.map((c) => c.memory.id), f, 15, `nearest ${JSON.stringify(f)}`);
      }
      // A create's contradiction check (its nearest 5 of the scope hierarchy), global and in
      // project "small": the probes are nearer the query than every memory of those scopes.
      for (const project of [null, "small"]) {
        const content = `probe ${project}`;
        const v = unit(axis(0).map((x) => 4 * x + rand() - 0.5));
        b.embedder.set(content, v);
        const f: ScopeFilter = project ? { kind: "hierarchy", project } : { kind: "global" };
        const r = await s.create({ content, ...(project ? { project } : {}) });
        const want = mems.filter((m) => inScope(m, f))
          .map((m) => ({ ...m, sim: m.v.reduce((sum, x, k) => sum + x * v[k], 0) }))
          .sort((x, y) => y.sim - x.sim).slice(0, 5).filter((m) => m.sim > 0.75 + tol(b));
        const got = (r.contradictions ?? []).map((c) => c.memory.content);
        for (const m of want) assert.ok(got.includes(m.content), `${content}: ${m.content}`);
        mems.push({ content, v, project });
        byContent.set(r.memory.id, content);
      }
    } finally {
      await b.db.exec("reset hnsw.max_scan_tuples");
      await store.abandonImport(job);
    }
  },

  async "supersession: weight 0.1, hidden from search and contradictions, still listed"(b) {
    const s = b.service;
    b.embedder.set("old", axis(0)).set("new", axis(0)).set("third", axis(0)).set("q", axis(0));
    const old = (await s.create({ content: "old", weight: 0.9 })).memory;
    const nw = await s.create({ content: "new", supersedes: old.id });
    assert.equal(nw.contradictions, undefined, "the superseded target is not a contradiction");
    assert.equal(nw.memory.supersedes, old.id);
    assert.equal(nw.memory.superseded_by, null);
    const o = await s.get(old.id);
    assert.equal(o.weight, 0.1);
    assert.equal(o.superseded_by, nw.memory.id);
    assert.equal(o.content, "old");
    const listed = await s.list();
    assert.deepEqual(ids(listed), ids([old, nw.memory]));
    assert.equal(listed.find((m) => m.id === old.id)?.superseded_by, nw.memory.id);
    assert.deepEqual(ids(await s.search({ query: "q", limit: 10 })), [nw.memory.id]);
    assert.deepEqual(ids(await s.search({ query: "old", limit: 10 })), [nw.memory.id]);
    const third = await s.create({ content: "third" });
    assert.deepEqual(third.contradictions?.map((c) => c.memory.id), [nw.memory.id]);
    // A target that does not exist: 400, nothing written, and no target touched.
    const before = await b.rawCount();
    await rejectsWith(
      s.create({ content: "orphan", supersedes: crypto.randomUUID() }),
      400,
      "supersedes:",
    );
    await rejectsWith(
      s.create({ content: "orphan", supersedes: "not-a-uuid" }),
      400,
      "supersedes:",
    );
    assert.equal(await b.rawCount(), before);
    assert.equal((await s.get(third.memory.id)).weight, 1);
  },

  async "supersedes must name a memory not yet superseded, also when two creates race"(b) {
    const s = b.service;
    const old = (await s.create({ content: "The API port is 8080" })).memory;
    const first = (await s.create({ content: "The API port is 9090", supersedes: old.id }))
      .memory;
    const before = await b.rawCount();
    const err = await rejectsWith(
      s.create({ content: "The API port is 7070", supersedes: old.id }),
      400,
      "supersedes:",
    );
    assert.match(err.message, new RegExp(`superseded by ${first.id}`));
    assert.equal(await b.rawCount(), before, "nothing written");
    assert.equal((await s.get(old.id)).superseded_by, first.id, "the first link is kept");
    // The newest memory of the chain can be superseded in turn.
    const second = (await s.create({ content: "The API port is 7070", supersedes: first.id }))
      .memory;
    assert.equal((await s.get(first.id)).superseded_by, second.id);

    const target = (await s.create({ content: "racing target" })).memory;
    const results = await Promise.allSettled([
      s.create({ content: "racer a", supersedes: target.id }),
      s.create({ content: "racer b", supersedes: target.id }),
    ]);
    const won = results.flatMap((r) => (r.status === "fulfilled" ? [r.value.memory] : []));
    const lost = results.flatMap((r) => (r.status === "rejected" ? [r.reason] : []));
    assert.equal(won.length, 1, "exactly one create supersedes the target");
    assert.ok(lost[0] instanceof MemoryError && lost[0].status === 400, String(lost[0]));
    assert.equal((await s.get(target.id)).superseded_by, won[0].id);
    assert.equal((await s.list()).filter((m) => m.content.startsWith("racer")).length, 1);
  },

  async "re-embedding with the same embedder while memories change keeps vectors current"(b) {
    const s = b.service;
    b.embedder.set("alpha", axis(0)).set("beta", axis(1)).set("gamma", axis(2))
      .set("delta", axis(3)).set("epsilon", axis(4));
    const ms = [
      (await s.create({ content: "alpha" })).memory,
      (await s.create({ content: "gamma" })).memory,
    ].sort((x, y) => x.id.localeCompare(y.id));
    // The first batch re-embeds the memory with the smaller id; then both change.
    assert.equal((await s.reembed({ batchSize: 1 })).finished, false);
    await s.update(ms[0].id, { content: "beta" });
    await s.update(ms[1].id, { content: "delta" });
    // A change while a batch is being embedded.
    const embed = b.embedder.embed.bind(b.embedder);
    let hook = true;
    b.embedder.embed = async (texts: string[]) => {
      const out = await embed(texts);
      if (hook && texts.includes("delta")) {
        hook = false;
        await b.inner.update(ms[1].id, { content: "epsilon" });
      }
      return out;
    };
    try {
      let finished = false;
      for (let i = 0; i < 10 && !finished; i++) {
        finished = (await s.reembed({ batchSize: 1 })).finished;
      }
      assert.ok(finished, "the run finishes");
    } finally {
      b.embedder.embed = embed;
    }
    const top = async (q: string) => (await s.search({ query: q, limit: 1 }))[0];
    const beta = await top("beta");
    assert.equal(beta.memory.id, ms[0].id);
    assert.ok(Math.abs(beta.score - 0.8) < tol(b), `score ${beta.score}: the vector is of "beta"`);
    const eps = await top("epsilon");
    assert.equal(eps.memory.id, ms[1].id);
    assert.ok(Math.abs(eps.score - 0.8) < tol(b), `score ${eps.score}: the vector is of "epsilon"`);
  },

  async "two re-embedding calls at once (CLI and web UI, say) do not break each other"(b) {
    const s = b.service;
    for (let i = 0; i < 4; i++) await s.create({ content: `memory ${i}` });
    for (const batchSize of [0, -1, 1.5, 5001]) {
      await rejectsWith(s.reembed({ batchSize }), 400, "batch_size:");
    }
    const both = await Promise.all([s.reembed({ batchSize: 100 }), s.reembed({ batchSize: 100 })]);
    assert.ok(both.some((p) => p.finished), JSON.stringify(both));
    const hits = await s.search({ query: "memory 1", limit: 10 });
    assert.equal(hits.length, 4);
    assert.equal(hits[0].memory.content, "memory 1");
    assert.ok(hits.every((h) => h.score > 0), "every memory kept a vector");
  },

  async "another process recorded a new embedder (reembed finished there): writes refused"(b) {
    const s = b.service;
    const m = (await s.create({ content: "before the switch" })).memory;
    const meta = "update mneme_meta set embedder_model = $1 where id = 1";
    await b.db.query(meta, ["other-model"]);
    try {
      for (
        const call of [
          () => s.create({ content: "with a stale embedder" }),
          () => s.search({ query: "before" }),
          () => s.update(m.id, { content: "changed" }),
          () => s.import([{ content: "imported" }]),
        ]
      ) {
        const err = await rejectsWith(call(), 409, "maintenance:");
        assert.match(err.message, /other-model/);
      }
      assert.equal(await b.rawCount(), 1, "nothing written");
      assert.equal((await s.get(m.id)).content, "before the switch");
    } finally {
      await b.db.query(meta, [b.embedder.info.model]);
    }
    assert.equal((await s.search({ query: "before" }))[0].memory.id, m.id, "usable again");
  },

  async "TTL: expired memories are hidden everywhere and removed by the cleanup"(b) {
    const s = b.service;
    b.embedder.set("short", axis(0)).set("long", axis(0)).set("q", axis(0)).set("later", axis(0));
    const x = (await s.create({ content: "short", ttl: "1h" })).memory;
    const y = (await s.create({ content: "long" })).memory;
    assert.equal(x.expires_at, iso(HOUR));
    b.clock.at(HOUR - 60_000);
    assert.equal((await s.get(x.id)).id, x.id);
    assert.deepEqual(ids(await s.list()), ids([x, y]));
    assert.deepEqual(ids(await s.search({ query: "q" })), ids([x, y]));
    assert.equal((await s.stats()).total, 2);
    assert.equal((await s.export()).length, 2);
    b.clock.at(HOUR);
    await rejectsWith(s.get(x.id), 404);
    await rejectsWith(s.update(x.id, { content: "revived" }), 404);
    assert.deepEqual(ids(await s.list()), [y.id]);
    assert.deepEqual(ids(await s.search({ query: "q" })), [y.id]);
    assert.deepEqual(await s.stats(), {
      total: 1,
      live: 1,
      superseded: 0,
      by_scope: { global: 1 },
      by_project: {},
      by_type: { fact: 1 },
    });
    assert.deepEqual((await s.export()).map((r) => r.id), [y.id]);
    const later = await s.create({ content: "later" });
    assert.deepEqual(later.contradictions?.map((c) => c.memory.id), [y.id], "expired not checked");
    await rejectsWith(s.create({ content: "later", supersedes: x.id }), 400, "supersedes:");
    assert.equal(
      (await storeOf(b.inner).get(x.id))?.superseded_by,
      null,
      "expired target untouched",
    );
    assert.equal(await b.rawCount(), 3, "expired rows stay until the cleanup");
    assert.equal(await storeOf(b.inner).deleteExpired(new Date(Clock.T0)), 0);
    assert.equal(await storeOf(b.inner).deleteExpired(b.clock.now()), 1);
    assert.equal(await b.rawCount(), 2);
  },

  async "TTL grammar: units, combinations, limits and bad values"(b) {
    const s = b.service;
    const good: [string, number][] = [
      ["30m", 30 * 60_000],
      ["24h", DAY],
      ["7d", 7 * DAY],
      ["2w", 14 * DAY],
      ["1d12h", 36 * HOUR],
      [" 2D ", 2 * DAY],
      ["3650d", 3650 * DAY],
    ];
    for (const [ttl, ms] of good) {
      const m = (await s.create({ content: `ttl ${ttl}`, ttl })).memory;
      assert.equal(m.expires_at, iso(ms), ttl);
    }
    const before = await b.rawCount();
    for (const ttl of ["0h", "h", "10", "1y", "-1d", "1.5h", "3651d", "1d 2h", " ", "0d0h"]) {
      await rejectsWith(s.create({ content: `bad ${ttl}`, ttl }), 400, "ttl:");
    }
    await rejectsWith(s.create({ content: "bad", ttl: 5 as never }), 400, "ttl:");
    assert.equal(await b.rawCount(), before);
  },

  async "search score = relevance × scope weight × weight × decay, sorted"(b) {
    const s = b.service;
    b.embedder.set("project close", cosTo0(0.9, 1)).set("global close", cosTo0(0.9, 2))
      .set("light", axis(0)).set("old", axis(0)).set("q", axis(0));
    b.clock.at(-100 * DAY);
    const old = (await s.create({ content: "old", project: "alpha" })).memory;
    b.clock.at(0);
    const p = (await s.create({ content: "project close", project: "alpha" })).memory;
    const g = (await s.create({ content: "global close" })).memory;
    const w = (await s.create({ content: "light", project: "alpha", weight: 0.5 })).memory;
    const res = await s.search({ query: "q", project: "alpha", limit: 10 });
    // "q" has no index term (single letters are dropped), so relevance is the vector side
    // alone: (1 − 0.5) × similarity for a model's embedder.
    const expected = [
      [p.id, 0.5 * 0.9],
      [g.id, 0.5 * 0.9 * 0.8],
      [old.id, 0.5 * Math.exp(-0.5)],
      [w.id, 0.5 * 0.5],
    ] as const;
    assert.deepEqual(res.map((r) => r.memory.id), expected.map((e) => e[0]));
    for (const [i, [, score]] of expected.entries()) {
      assert.ok(Math.abs(res[i].score - score) < tol(b), `score ${res[i].score} vs ${score}`);
    }
    // Default limit 5 and limit bounds.
    for (let i = 0; i < 4; i++) {
      b.embedder.set(`more ${i}`, cosTo0(0.6, 1 + i));
      await s.create({ content: `more ${i}` });
    }
    assert.equal((await s.search({ query: "q", project: "alpha" })).length, 5);
    assert.equal((await s.search({ query: "q", project: "alpha", limit: 100 })).length, 8);
    assert.equal((await s.search({ query: "q", project: "alpha", limit: 1 }))[0].memory.id, p.id);
  },

  async "search: an exact rare word is found by its postings when the vector misses it"(b) {
    const s = b.service;
    for (let i = 0; i < 16; i++) {
      b.embedder.set(`filler note ${i}`, cosTo0(0.6, 1 + (i % 7)));
      await s.create({ content: `filler note ${i}` });
    }
    b.embedder.set("the zygomorphic petals", cosTo0(0.2, 3))
      .set("zygomorphic", axis(0))
      .set("zygomorphic petals", axis(0))
      .set("floral shapes", axis(0));
    const rare = (await s.create({ content: "the zygomorphic petals" })).memory;
    const found = await s.search({ query: "zygomorphic", limit: 20 });
    assert.equal(found[0]?.memory.id, rare.id, "the lexical candidate ranks first");
    const both = await s.search({ query: "zygomorphic petals", limit: 20 });
    assert.equal(both[0]?.memory.id, rare.id, "several words, all present");
    const one = await s.search({ query: "zygomorphic sepals", limit: 20 });
    assert.equal(one[0]?.memory.id, rare.id, "any query word may match");
    const miss = await s.search({ query: "floral shapes", limit: 20 });
    assert.equal(miss.length, 15, "15 vector candidates");
    assert.ok(!miss.some((r) => r.memory.id === rare.id), "not among the 15 nearest");
  },

  async "list: updated_at desc, filters, default limit 50, limit bounds"(b) {
    const s = b.service;
    const types = ["fact", "rule", "decision"] as const;
    await s.import(Array.from({ length: 60 }, (_, i) => ({
      content: `listed ${i}`,
      ...(i % 3 === 0 ? {} : { project: i % 3 === 1 ? "alpha" : "beta" }),
      type: types[i % 3],
      created_at: iso(i * 1000),
    })));
    const all = await s.list();
    assert.equal(all.length, 50);
    assert.equal(all[0].content, "listed 59");
    assert.deepEqual(
      all.map((m) => m.content),
      Array.from({ length: 50 }, (_, i) => `listed ${59 - i}`),
    );
    assert.equal((await s.list({ limit: 1000 })).length, 60);
    assert.equal((await s.list({ limit: 3 })).length, 3);
    assert.equal((await s.list({ limit: "7" as never })).length, 7);
    const alpha = await s.list({ project: "alpha", limit: 100 });
    assert.equal(alpha.length, 20);
    assert.ok(alpha.every((m) => m.project === "alpha"));
    assert.equal((await s.list({ scope: "global", limit: 100 })).length, 20);
    assert.equal((await s.list({ scope: "project", limit: 100 })).length, 40);
    assert.equal((await s.list({ type: "rule", limit: 100 })).length, 20);
    assert.equal(
      (await s.list({ scope: "project", project: "beta", type: "decision" })).length,
      20,
    );
    assert.equal((await s.list({ type: "rule", project: "beta" })).length, 0);
    for (const limit of [0, 1001, -1, 2.5, "abc"]) {
      await rejectsWith(s.list({ limit: limit as number }), 400, "limit:");
    }
    await rejectsWith(s.list({ scope: "team" as never }), 400, "scope:");
    await rejectsWith(s.list({ type: "note" as never }), 400, "type:");
    await rejectsWith(s.list({ colour: "red" } as never), 400, "colour:");
  },

  async "update re-embeds the content and changes updated_at"(b) {
    const s = b.service;
    b.embedder.set("old text", axis(0)).set("new text", axis(1)).set("q new", axis(1));
    const m = (await s.create({ content: "old text", tags: ["t"] })).memory;
    assert.deepEqual(await s.search({ query: "q new" }), [], "nothing relevant yet");
    b.clock.at(HOUR);
    const u = await s.update(m.id, { content: " new text " });
    assert.equal(u.content, "new text");
    assert.equal(u.created_at, Clock.T0.toISOString());
    assert.equal(u.updated_at, iso(HOUR));
    assert.deepEqual({ ...u, content: m.content, updated_at: m.updated_at }, m);
    assert.deepEqual(await s.get(m.id), u);
    assert.ok(b.embedder.seen.includes("new text"), "the new content was embedded");
    const [hit] = await s.search({ query: "q new" });
    assert.equal(hit.memory.id, m.id);
    // Vector side 0.5 × 1 plus the lexical side ("new" now matches), × global 0.8.
    assert.ok(hit.score > 0.5 * 0.8 && hit.score <= 0.8 + 1e-9, `re-embedded: score ${hit.score}`);
    await rejectsWith(s.update(m.id, { content: "  " }), 400, "content:");
    await rejectsWith(s.update(m.id, { content: "x", weight: 1 } as never), 400, "weight:");
    await rejectsWith(s.update(m.id, {} as never), 400, "content:");
    await rejectsWith(s.update(m.id, { content: "a\u0000b" }), 400, "content:");
    await rejectsWith(s.update(crypto.randomUUID(), { content: "x" }), 404);
    await rejectsWith(s.update("123", { content: "x" }), 400, "id:");
    assert.equal((await s.get(m.id)).content, "new text");
  },

  async "delete one: ok, then 404; bad id 400"(b) {
    const s = b.service;
    const m = (await s.create({ content: "to delete" })).memory;
    const keep = (await s.create({ content: "to keep" })).memory;
    assert.deepEqual(await s.delete(m.id), { ok: true });
    await rejectsWith(s.get(m.id), 404);
    await rejectsWith(s.delete(m.id), 404);
    await rejectsWith(s.delete("nope"), 400, "id:");
    await rejectsWith(s.get("12345678-1234-1234-1234-12345678901"), 400, "id:");
    assert.deepEqual(ids(await s.list()), [keep.id]);
  },

  async "bulk delete: filters, and at most 1000 per call"(b) {
    const s = b.service;
    await s.create({ content: "g1" });
    await s.create({ content: "p1", project: "alpha", type: "rule" });
    await s.create({ content: "p2", project: "alpha" });
    await s.create({ content: "b1", project: "beta" });
    await rejectsWith(s.deleteMany({ scope: "team" as never }), 400, "scope:");
    await rejectsWith(s.deleteMany({ limit: 5 } as never), 400, "limit:");
    // A filter given empty (an unset shell variable, say) must not widen to "everything".
    await rejectsWith(s.deleteMany({ project: "" }), 400, "project:");
    await rejectsWith(s.deleteMany({ project: "  " }), 400, "project:");
    await rejectsWith(s.deleteMany({ scope: "" as never }), 400, "scope:");
    await rejectsWith(s.deleteMany({ type: "" as never, project: "alpha" }), 400, "type:");
    if (!b.http) {
      // Nor a filter given as null or a number (a caller's bug, not "no filter"); over HTTP a
      // query parameter is always a string.
      await rejectsWith(s.deleteMany({ project: null } as never), 400, "project:");
      await rejectsWith(s.deleteMany({ scope: 1 } as never), 400, "scope:");
      await rejectsWith(s.deleteMany({ type: null, project: "alpha" } as never), 400, "type:");
    }
    assert.equal(await b.rawCount(), 4);
    assert.deepEqual(await s.deleteMany({ project: "alpha", type: "fact" }), { deleted: 1 });
    assert.deepEqual(await s.deleteMany({ scope: "project" }), { deleted: 2 });
    assert.deepEqual((await s.list()).map((m) => m.content), ["g1"]);
    assert.deepEqual(await s.deleteMany(), { deleted: 1 });
    await importMany(s, 1001, (i) => ({ content: `bulk ${i}` }));
    assert.deepEqual(await s.deleteMany({}), { deleted: 1000 });
    assert.equal(await b.rawCount(), 1);
    assert.deepEqual(await s.deleteMany({}), { deleted: 1 });
    assert.deepEqual(await s.deleteMany({}), { deleted: 0 });
  },

  async "export/import round trip: new ids, fields kept, what was replaced stays replaced"(b) {
    const s = b.service;
    b.embedder.set("a fact", axis(0)).set("its successor", axis(0));
    const a = (await s.create({ content: "a fact", tags: ["x", "y"] })).memory;
    b.clock.at(HOUR);
    await s.create({ content: "its successor", supersedes: a.id });
    await s.create({ content: "a rule", project: "alpha", type: "rule", weight: 0.4 });
    await s.create({ content: "short lived", ttl: "1h" });
    b.clock.at(2 * HOUR);
    const exported = await s.export();
    assert.equal(exported.length, 3, "expired memories are not exported");
    const keys = ["id", "content", "scope", "type", "tags", "weight", "created_at", "updated_at"];
    for (const r of exported) {
      const extra = [
        ...(r.project ? ["project"] : []),
        ...(r.content === "a fact" ? ["superseded"] : []),
      ];
      assert.deepEqual(Object.keys(r).sort(), [...keys, ...extra].sort());
    }
    assert.equal(exported.find((r) => r.content === "a fact")?.superseded, true);
    const before = await s.list();
    await s.deleteMany();
    assert.deepEqual(await s.import(exported), { imported: 3, skipped: 0 });
    const after = await s.list();
    const strip = (m: Memory) => ({ ...m, id: "", supersedes: null, superseded_by: null });
    const byContent = (a: Memory, b: Memory) => a.content.localeCompare(b.content);
    assert.deepEqual(
      after.sort(byContent).map(strip),
      before.filter((m) => m.expires_at === null).sort(byContent).map(strip),
    );
    for (const m of after) {
      assert.ok(!exported.some((r) => r.id === m.id), "new ids");
      assert.equal(m.supersedes, null);
      // No link is kept: the replaced one is superseded by itself, the others are current.
      assert.equal(m.superseded_by, m.content === "a fact" ? m.id : null);
    }
    assert.deepEqual(await s.import([]), { imported: 0, skipped: 0 });
    // Importing the export again stores nothing: every item is already there.
    assert.deepEqual(await s.import(exported), { imported: 0, skipped: 3 });
    assert.equal((await s.list()).length, 3);
  },

  async "an imported superseded memory stays out of search, with its weight; plain records are current"(
    b,
  ) {
    const s = b.service;
    b.embedder.set("port is 8080", axis(0)).set("port is 9090", axis(0)).set("port", axis(0));
    const old = (await s.create({ content: "port is 8080" })).memory;
    const nw = (await s.create({ content: "port is 9090", supersedes: old.id })).memory;
    const searched = async () => (await s.search({ query: "port" })).map((r) => r.memory.content);
    assert.deepEqual(await searched(), ["port is 9090"]);
    const exported = await s.export();
    await s.deleteMany();
    assert.deepEqual(await s.import(exported), { imported: 2, skipped: 0 });
    assert.deepEqual(await searched(), ["port is 9090"], "the replaced one stays out of search");
    const listed = await s.list();
    const copy = listed.find((m) => m.content === "port is 8080")!;
    assert.equal(copy.superseded_by, copy.id);
    assert.equal(copy.weight, 0.1, "the weight it had when superseded");
    assert.equal(listed.find((m) => m.content === "port is 9090")!.superseded_by, null);
    assert.ok(!listed.some((m) => m.id === old.id || m.id === nw.id), "new ids");
    // It cannot be superseded again; it can be deleted.
    await rejectsWith(
      s.create({ content: "port is 7070", supersedes: copy.id }),
      400,
      `supersedes: memory ${copy.id} was already superseded`,
    );
    // Without the field (the spec's plain records), or with false, an import is current.
    await s.deleteMany();
    const plain = exported.map(({ superseded: _, ...r }) => r);
    assert.deepEqual(await s.import([plain[0], { ...plain[1], superseded: false }]), {
      imported: 2,
      skipped: 0,
    });
    assert.deepEqual((await searched()).sort(), ["port is 8080", "port is 9090"]);
  },

  async "deleting the memory that replaced another leaves that one replaced"(b) {
    const s = b.service;
    b.embedder.set("v1", axis(0)).set("v2", axis(0)).set("v3", axis(0)).set("v", axis(0));
    const current = async () => (await s.search({ query: "v" })).map((r) => r.memory.content);
    // One by one, in bulk, and by the TTL cleanup: the older memory stays superseded.
    const v1 = (await s.create({ content: "v1" })).memory;
    const v2 = (await s.create({ content: "v2", supersedes: v1.id })).memory;
    assert.deepEqual(await s.delete(v2.id), { ok: true });
    const after = await s.get(v1.id);
    assert.equal(after.superseded_by, v1.id, "superseded by itself: its replacement is gone");
    assert.equal(after.weight, 0.1);
    assert.deepEqual(await current(), []);
    const v3 = (await s.create({ content: "v3", tags: ["bulk"] })).memory;
    const v1b = (await s.create({ content: "v1", type: "rule" })).memory;
    await s.create({ content: "v2", type: "rule", supersedes: v1b.id });
    assert.deepEqual(await s.deleteMany({ type: "rule" }), { deleted: 2 });
    const v2c = (await s.create({ content: "v2", ttl: "1h", supersedes: v3.id })).memory;
    assert.equal((await s.get(v3.id)).superseded_by, v2c.id);
    b.clock.at(2 * HOUR);
    assert.equal(await storeOf(b.inner).deleteExpired(b.clock.now()), 1);
    assert.equal((await s.get(v3.id)).superseded_by, v3.id);
    assert.deepEqual(await current(), []);
    assert.deepEqual((await s.list()).map((m) => m.content).sort(), ["v1", "v3"]);
  },

  async "export returns at most 10000 memories"(b) {
    const s = b.service;
    await importMany(s, 10_001, (i) => ({ content: `row ${i}` }));
    const exported = await s.export();
    assert.equal(exported.length, 10_000);
    assert.equal((await s.stats()).total, 10_001);
    await rejectsWith(
      s.import(Array.from({ length: 10_001 }, (_, i) => ({ content: `too many ${i}` }))),
      400,
      "body:",
    );
    assert.equal(await b.rawCount(), 10_001);
  },

  async "import refuses the whole batch on one bad item, naming item and field"(b) {
    const s = b.service;
    await s.create({ content: "already there" });
    const ok = { content: "fine" };
    const cases: [unknown, string][] = [
      [[ok, ok, { content: "x", type: "nope" }], "[2].type:"],
      [[ok, { content: "" }], "[1].content:"],
      [[ok, { content: "nul \u0000" }], "[1].content:"],
      [[{ content: "x", weight: 2 }], "[0].weight:"],
      [[ok, { content: "x", foo: 1 }], "[1].foo:"],
      [[{ content: "x", scope: "project" }], "[0].project:"],
      [[{ content: "x", scope: "global", project: "p" }], "[0].project:"],
      [[ok, "text"], "[1]:"],
      [[{ content: "x", created_at: "yesterday" }], "[0].created_at:"],
      [[{ content: "x", tags: "a,b" }], "[0].tags:"],
      [[{ content: "x", ttl: "1d" }], "[0].ttl:"],
      [[{ content: 5 }], "[0].content:"],
      [[ok, { content: "x", superseded: "yes" }], "[1].superseded:"],
      [[{ content: "x", superseded: 1 }], "[0].superseded:"],
      [{ content: "not an array" }, "body:"],
    ];
    for (const [items, prefix] of cases) {
      await rejectsWith(s.import(items as ImportItem[]), 400, prefix);
    }
    assert.equal(await b.rawCount(), 1);
  },

  async "import timestamps: real calendar dates in range only; export returns what was stored"(b) {
    const s = b.service;
    const ok = { content: "fine" };
    const bad: [string, string][] = [
      ["0000-01-01T00:00:00Z", "must be between"],
      ["0001-01-01T00:00:00Z", "must be between"],
      ["0099-12-31T23:59:59Z", "must be between"],
      ["1969-12-31T23:59:59.999Z", "must be between"],
      ["9999-12-31T23:59:59.999-01:00", "must be between"],
      ["2024-02-30T00:00:00Z", "is not a calendar date"],
      ["2023-02-29T00:00:00Z", "is not a calendar date"],
      ["2024-04-31T00:00:00Z", "is not a calendar date"],
      ["2024-13-01T00:00:00Z", "is not a calendar date"],
      ["2024-01-01T24:00:00Z", "is not a valid time"],
      ["2024-01-01T00:00:60Z", "is not a valid time"],
      ["2024-01-01", "must be an ISO 8601"],
    ];
    for (const [value, text] of bad) {
      const err = await rejectsWith(
        s.import([ok, ok, { content: "x", created_at: value }]),
        400,
        "[2].created_at:",
      );
      assert.ok(err.message.includes(text), `${value}: ${err.message}`);
      await rejectsWith(s.import([{ content: "x", updated_at: value }]), 400, "[0].updated_at:");
    }
    assert.equal(await b.rawCount(), 0, "nothing written");
    const good: [string, string][] = [
      ["1970-01-01T00:00:00Z", "1970-01-01T00:00:00.000Z"],
      ["2024-02-29T23:59:59.123456+02:00", "2024-02-29T21:59:59.123Z"],
      ["2000-01-01T10:00", "2000-01-01T10:00:00.000Z"],
      ["9999-12-31T23:59:59.999Z", "9999-12-31T23:59:59.999Z"],
    ];
    await s.import(good.map(([created], i) => ({ content: `dated ${i}`, created_at: created })));
    const exported = new Map((await s.export()).map((r) => [r.content, r]));
    good.forEach(([, want], i) => {
      const r = exported.get(`dated ${i}`);
      assert.equal(r?.created_at, want);
      assert.equal(r?.updated_at, want);
    });
    // What export returns imports again unchanged.
    const again = (await s.export()).map(({ id: _id, ...r }) => r);
    await s.deleteMany({});
    await s.import(again);
    const back = new Map((await s.export()).map((r) => [r.content, r.created_at]));
    for (const r of again) assert.equal(back.get(r.content), r.created_at);
  },

  async "export pages with offset, oldest first; a bad offset is a 400"(b) {
    const s = b.service;
    await s.import([0, 1, 2].map((i) => ({ content: `page ${i}`, created_at: iso(i * 1000) })));
    assert.deepEqual((await s.export({ offset: 1 })).map((r) => r.content), ["page 1", "page 2"]);
    assert.deepEqual(await s.export({ offset: 3 }), []);
    await rejectsWith(s.export({ offset: -1 }), 400, "offset:");
    await rejectsWith(s.export({ offset: 0.5 }), 400, "offset:");
  },

  async "every bad create input is a 400 naming the field, and nothing is written"(b) {
    const s = b.service;
    const target = (await s.create({ content: "target", weight: 0.7 })).memory;
    const cases: [Record<string, unknown>, string][] = [
      [{ content: "x", weight: 0.09 }, "weight:"],
      [{ content: "x", weight: 1.01 }, "weight:"],
      [{ content: "x", weight: 0 }, "weight:"],
      [{ content: "x", weight: "1" }, "weight:"],
      [{ content: "x", scope: "team" }, "scope:"],
      [{ content: "x", scope: 1 }, "scope:"],
      [{ content: "x", type: "note" }, "type:"],
      [{ content: "x", type: ["fact"] }, "type:"],
      [{ content: "x", scope: "project" }, "project:"],
      [{ content: "x", scope: "project", project: "  " }, "project:"],
      [{ content: "x", scope: "global", project: "p" }, "project:"],
      [{ content: "x", project: 5 }, "project:"],
      [{ content: "x", project: "p".repeat(201) }, "project:"],
      [{ content: "x", project: "a\nb" }, "project:"],
      [{ content: "" }, "content:"],
      [{ content: "   " }, "content:"],
      [{}, "content:"],
      [{ content: 42 }, "content:"],
      [{ content: "x".repeat(20_001) }, "content:"],
      [{ content: "x", supersedes: "123" }, "supersedes:"],
      [{ content: "x", supersedes: 5 }, "supersedes:"],
      [{ content: "x", supersedes: crypto.randomUUID() }, "supersedes:"],
      [{ content: "x", ttl: "forever" }, "ttl:"],
      [{ content: "x", ttl: 3600 }, "ttl:"],
      [{ content: "x", tags: "a" }, "tags:"],
      [{ content: "x", tags: [1] }, "tags[0]:"],
      [{ content: "x", tags: ["ok", ""] }, "tags[1]:"],
      [{ content: "x", tags: Array.from({ length: 51 }, (_, i) => `t${i}`) }, "tags:"],
      [{ content: "x", tags: ["t".repeat(101)] }, "tags[0]:"],
      // Text Postgres cannot store: a NUL character, a lone UTF-16 surrogate.
      [{ content: "a\u0000b" }, "content:"],
      [{ content: "a\ud800b" }, "content:"],
      [{ content: "x", tags: ["a\u0000"] }, "tags[0]:"],
      [{ content: "x", tags: ["ok", "\udc00"] }, "tags[1]:"],
      [{ content: "x", project: "p\ud800" }, "project:"],
      [{ content: "x", colour: "red" }, "colour:"],
      [{ content: "x", id: crypto.randomUUID() }, "id:"],
    ];
    if (!b.http) {
      // JSON cannot carry these; in-process they must still be refused.
      cases.push([{ content: "x", weight: NaN }, "weight:"]);
      cases.push([{ content: "x", weight: Infinity }, "weight:"]);
    }
    for (const [input, prefix] of cases) {
      await rejectsWith(s.create(input as never), 400, prefix);
    }
    await rejectsWith(s.create([] as never), 400, "body:");
    await rejectsWith(s.create("text" as never), 400, "body:");
    assert.equal(await b.rawCount(), 1, "nothing was written");
    assert.deepEqual(await s.get(target.id), target, "the supersedes target is untouched");
  },

  async "every bad search input is a 400 naming the field"(b) {
    const s = b.service;
    await s.create({ content: "something" });
    const cases: [Record<string, unknown>, string][] = [
      [{}, "query:"],
      [{ query: "" }, "query:"],
      [{ query: "  " }, "query:"],
      [{ query: 7 }, "query:"],
      [{ query: "x", limit: 0 }, "limit:"],
      [{ query: "x", limit: 101 }, "limit:"],
      [{ query: "x", limit: 1.5 }, "limit:"],
      [{ query: "x", limit: "5" }, "limit:"],
      [{ query: "a\u0000b" }, "query:"],
      [{ query: "a\ud800" }, "query:"],
      [{ query: "x", scope: "team" }, "scope:"],
      [{ query: "x", scope: "project" }, "project:"],
      [{ query: "x", project: 3 }, "project:"],
      [{ query: "x", type: "fact" }, "type:"],
    ];
    for (const [input, prefix] of cases) {
      await rejectsWith(s.search(input as never), 400, prefix);
    }
  },

  async "stats count current memories by scope, project and type, the superseded apart"(b) {
    const s = b.service;
    assert.deepEqual(await s.stats(), {
      total: 0,
      live: 0,
      superseded: 0,
      by_scope: {},
      by_project: {},
      by_type: {},
    });
    const { memory: one } = await s.create({ content: "one" });
    await s.create({ content: "two", type: "rule" });
    await s.create({ content: "three", project: "alpha", type: "rule" });
    await s.create({ content: "four", project: "beta", type: "bootstrap" });
    await s.create({ content: "five", project: "beta" });
    assert.deepEqual(await s.stats(), {
      total: 5,
      live: 5,
      superseded: 0,
      by_scope: { global: 2, project: 3 },
      by_project: { alpha: 1, beta: 2 },
      by_type: { fact: 2, rule: 2, bootstrap: 1 },
    });
    // A memory superseded by a newer one: counted apart from the live ones.
    await s.create({ content: "one, corrected", supersedes: one.id });
    assert.deepEqual(await s.stats(), {
      total: 6,
      live: 5,
      superseded: 1,
      by_scope: { global: 3, project: 3 },
      by_project: { alpha: 1, beta: 2 },
      by_type: { fact: 3, rule: 2, bootstrap: 1 },
    });
  },

  async "health reports database, embedder and version"(b) {
    const h = await b.service.health();
    assert.equal(h.status, "ok");
    assert.equal(h.version, VERSION);
    const { size_bytes, dead_rows, last_vacuum, ...db } = h.database;
    assert.deepEqual(db, { kind: b.name === "postgres" ? "postgres" : "pglite", ok: true });
    if (db.kind === "pglite") {
      // The embedded database vacuums itself (issue 31): its dead rows and last vacuum.
      assert.equal(typeof dead_rows, "number");
      assert.ok(last_vacuum === null || typeof last_vacuum?.at === "string");
    } else {
      assert.equal(dead_rows, undefined, "server Postgres: autovacuum's business");
    }
    assert.ok(typeof size_bytes === "number" && size_bytes > 1_000_000, `size ${size_bytes}`);
    assert.deepEqual(h.embedder, { ...b.embedder.info, ok: true });
    assert.deepEqual(h.stored_embedder, b.embedder.info);
    assert.equal(h.maintenance, undefined);
  },
};

/** Register the contract suite for one backend. */
export function memoryContract(
  name: string,
  factory: BackendFactory,
  opts: { ignore?: boolean } = {},
): void {
  Deno.test({
    name: `MemoryService contract: ${name}`,
    ignore: opts.ignore,
    sanitizeOps: false,
    sanitizeResources: false,
    async fn(t) {
      const b = await factory();
      try {
        for (const [title, step] of Object.entries(steps)) {
          await t.step(title, async () => {
            await b.reset();
            await step(b);
          });
        }
      } finally {
        await b.close();
      }
    },
  });
}
