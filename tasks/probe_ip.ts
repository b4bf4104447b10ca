/**
 * `deno run -A --lock=tests/deno.lock tasks/probe_ip.ts [--memories 2000] [--rounds 1500]`
 *
 * perf50's gate: HNSW indexes by cosine (`vector_cosine_ops`, `<=>`) against inner product
 * (`vector_ip_ops`, `<#>`) on the embedded database. `bench:memory`'s generated memories
 * (`--memories`, and `--rounds` more whose vectors are the new rows') are imported into a new
 * DATA_DIR; the extra ones are deleted and the database vacuumed; two copies are opened in this
 * process, one with its `embedding` and `dense` HNSW indexes rebuilt by cosine, the other by
 * inner product (same parameters). Each round, in alternating order on the two copies: the
 * contradiction check's nearest 5 (src/store/search.ts `nearestStatement`, the HNSW walk at the
 * check's breadth, the create's scope) and the insert of a row with the new vectors (its two
 * HNSW entries). Prints the p50s and their ratios, which stored vectors are unit length, and
 * whether the nearest 5 are the same either way (HNSW and exact reads). `--control`: both copies
 * by cosine, to see what two copies' graphs (random levels) differ by alone; `--ip-first`: the
 * copy opened first is the inner product's. Development only (not a test, not shipped).
 */
import { parseArgs } from "node:util";
import { loadMemoryConfig } from "../src/config.ts";
import { openMemoryService } from "../src/memory/open.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { CONTRADICTION_SETTINGS, nearestStatement } from "../src/store/search.ts";
import type { Db } from "../src/store/db.ts";
import type { ScopeFilter } from "../src/store/sql.ts";
import { item, reseed } from "./bench_items.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    memories: { type: "string", default: "2000" },
    rounds: { type: "string", default: "1500" },
    control: { type: "boolean", default: false },
    "ip-first": { type: "boolean", default: false },
  },
  strict: true,
});
const n = Number(values.memories);
const rounds = Number(values.rounds);
reseed();
const dir = await Deno.makeTempDir({ prefix: "mneme-probe-ip-" });
const env: Record<string, string> = { EMBEDDING_PROVIDER: "builtin", DATA_DIR: dir };
const cfg = loadMemoryConfig((k) => env[k] ?? Deno.env.get(k));
{
  const s = await openMemoryService(cfg, { log: () => {} });
  const all = Array.from({ length: n + rounds }, (_, i) => item(i));
  for (let i = 0; i < all.length; i += 10_000) await s.import(all.slice(i, i + 10_000));
  await s.close();
}
interface Extra {
  content: string;
  scope: string;
  project: string | null;
  embedding: string;
  dense: string | null;
}
let extra: Extra[];
{
  const db = await openPglite(`${dir}/db`, { durable: false });
  const norms = await db.query<Record<string, number>>(
    `select min(vector_norm(embedding)) as emin, max(vector_norm(embedding)) as emax,
            min(vector_norm(dense)) as dmin, max(vector_norm(dense)) as dmax,
            count(*) filter (where abs(vector_norm(embedding) - 1) > 1e-5) as enonunit,
            count(*) filter (where dense is not null and abs(vector_norm(dense) - 1) > 1e-5)
              as dnonunit, count(*) as n, count(dense) as ndense
       from memories`,
  );
  console.log("norms", JSON.stringify(norms[0]));
  extra = await db.query<Extra>(
    `select content, scope, project, embedding::text as embedding, dense::text as dense
       from memories where (substring(content from '\\(note (\\d+)\\)$'))::int >= $1
      order by created_at`,
    [n],
  );
  await db.query(
    `delete from memories where (substring(content from '\\(note (\\d+)\\)$'))::int >= $1`,
    [n],
  );
  await db.exec("vacuum analyze memories");
  await db.close();
}
const copy = `${dir}-ip`;
await new Deno.Command("cp", { args: ["-a", dir, copy] }).output();
const first = await openPglite(`${dir}/db`, { durable: false });
const second = await openPglite(`${copy}/db`, { durable: false });
// --ip-first: the copy opened first is the inner product's (the order of the copies alone
// may favour one: see --control).
const [cos, ip] = values["ip-first"] ? [second, first] : [first, second];
// --control: the second copy by cosine too (what two copies' graphs differ by alone).
const IP = !values.control;
for (const [db, ops] of [[cos, "cosine"], [ip, IP ? "ip" : "cosine"]] as const) {
  await db.exec(`drop index memories_embedding_hnsw; drop index memories_dense_hnsw;
    create index memories_embedding_hnsw on memories
      using hnsw (embedding vector_${ops}_ops) with (m = 8, ef_construction = 32);
    create index memories_dense_hnsw on memories
      using hnsw (dense vector_${ops}_ops) with (m = 8, ef_construction = 32)`);
  await db.exec("vacuum analyze memories");
}
console.log(
  "rows",
  (await cos.query<{ n: number }>("select count(*)::int as n from memories"))[0].n,
);

const INSERT = `insert into memories (id, content, scope, project, type, tags, embedding, dense,
                  term_count, created_at, updated_at)
                values (gen_random_uuid(), $1, $2, $3, 'fact', '{}', $4::vector, $5::vector, 10, now(), now())`;
function check(e: Extra, asIp: boolean, exact = false): [string, unknown[]] {
  const scope: ScopeFilter = e.project
    ? { kind: "hierarchy", project: e.project }
    : { kind: "global" };
  const vec = e.embedding.slice(1, -1).split(",").map(Number);
  const [text, params] = nearestStatement(vec, scope, 5, new Date(), exact);
  if (!asIp || !IP) return [text, params];
  return [
    text.replace("1 - (m.embedding <=>", "-(m.embedding <#>").replace(/<=>/g, "<#>"),
    params,
  ];
}
async function nearestIds(db: Db, e: Extra, asIp: boolean, exact = false) {
  const [text, params] = check(e, asIp, exact);
  return await db.transaction(async (tx) => {
    await tx.query(CONTRADICTION_SETTINGS, []);
    return await tx.query<{ content: string; similarity: number }>(text, params);
  });
}
for (const [db, asIp] of [[cos, false], [ip, true]] as const) {
  const [text, params] = check(extra[0], asIp);
  const plan = await db.transaction(async (tx) => {
    await tx.query(CONTRADICTION_SETTINGS, []);
    return await tx.query<Record<string, string>>(`explain ${text}`, params);
  });
  const used = plan.map((r) => r["QUERY PLAN"].trim()).filter((l) => /hnsw|Sort|Seq Scan/.test(l));
  console.log(asIp && IP ? "ip plan:" : "cosine plan:", used.join(" / "));
}
const times = {
  cosCheck: [] as number[],
  ipCheck: [] as number[],
  cosIns: [] as number[],
  ipIns: [] as number[],
};
type Near = { content: string; similarity: number }[];
/** Agreement of two lists of nearest memories: same set, same order, largest similarity gap. */
const agree = { hnsw: [0, 0, 0], exact: [0, 0, 0], cosRecall: [0, 0, 0], ipRecall: [0, 0, 0] };
function compare(into: number[], a: Near, b: Near) {
  const la = a.map((r) => r.content), lb = b.map((r) => r.content);
  if ([...la].sort().join("|") === [...lb].sort().join("|")) into[0]++;
  if (la.join("|") === lb.join("|")) into[1]++;
  for (let j = 0; j < Math.min(a.length, b.length); j++) {
    into[2] = Math.max(into[2], Math.abs(Number(a[j].similarity) - Number(b[j].similarity)));
  }
}
const warm = Math.min(200, Math.floor(rounds / 5));
for (let i = 0; i < rounds; i++) {
  const e = extra[i];
  const sides = [
    { db: cos, asIp: false, c: times.cosCheck, ins: times.cosIns, found: [] as Near },
    { db: ip, asIp: true, c: times.ipCheck, ins: times.ipIns, found: [] as Near },
  ];
  if (i % 2) sides.reverse();
  // Before this round's inserts, both copies hold the same memories. The exact reads go in
  // the reverse of the timed order: each copy's timed check then follows the same work
  // whichever goes first (read in the timed order, the side going first came straight after
  // its own exact read, warm, and was 0.05-0.1 ms faster).
  const exactOf = new Map<Db, Near>();
  for (const s of [...sides].reverse()) {
    exactOf.set(s.db, await nearestIds(s.db, e, s.asIp, true) as unknown as Near);
  }
  const exactCos = exactOf.get(cos)!, exactIp = exactOf.get(ip)!;
  for (const s of sides) {
    let t = performance.now();
    s.found = await nearestIds(s.db, e, s.asIp) as unknown as Near;
    if (i >= warm) s.c.push(performance.now() - t);
    t = performance.now();
    await s.db.query(INSERT, [e.content, e.scope, e.project, e.embedding, e.dense]);
    if (i >= warm) s.ins.push(performance.now() - t);
  }
  const [c, p] = i % 2 ? [sides[1], sides[0]] : [sides[0], sides[1]];
  compare(agree.hnsw, c.found, p.found);
  compare(agree.exact, exactCos, exactIp);
  compare(agree.cosRecall, c.found, exactCos);
  compare(agree.ipRecall, p.found, exactIp);
}
const p50 = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
const r = {
  memories: n,
  second: IP ? "ip" : "cosine (control)",
  ipOpenedFirst: values["ip-first"],
  rounds: rounds - warm,
  load: Deno.loadavg(),
  check: { cosine: p50(times.cosCheck), ip: p50(times.ipCheck) },
  insert: { cosine: p50(times.cosIns), ip: p50(times.ipIns) },
  savedPerCreateMs: 0,
  agreement: Object.fromEntries(
    Object.entries(agree).map(([k, v]) => [k, { sameSet: v[0], sameOrder: v[1], maxSimGap: v[2] }]),
  ),
  of: rounds,
};
r.savedPerCreateMs = r.check.cosine + r.insert.cosine - r.check.ip - r.insert.ip;
console.log(
  `check p50 cosine ${r.check.cosine.toFixed(3)} ${IP ? "ip" : "cosine (control)"} ${
    r.check.ip.toFixed(3)
  } ratio ${(r.check.ip / r.check.cosine).toFixed(3)}; insert p50 cosine ${
    r.insert.cosine.toFixed(3)
  } ${IP ? "ip" : "cosine (control)"} ${r.insert.ip.toFixed(3)} ratio ${
    (r.insert.ip / r.insert.cosine).toFixed(3)
  }; saved a create ${r.savedPerCreateMs.toFixed(3)} ms`,
);
for (const [k, v] of Object.entries(agree)) {
  console.log(
    `nearest 5 ${k}: same set ${v[0]}/${rounds}, same order ${v[1]}/${rounds}, max similarity gap ${
      v[2].toExponential(2)
    }`,
  );
}
const out = `bench/results/probe-ip${IP ? "" : "-control"}-${
  new Date().toISOString().replace(/[:.]/g, "-")
}.json`;
await Deno.writeTextFile(out, JSON.stringify(r, null, 2) + "\n");
console.log(out);
await cos.close();
await ip.close();
await Deno.remove(dir, { recursive: true });
await Deno.remove(copy, { recursive: true });
