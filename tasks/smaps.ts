/**
 * `deno run --allow-read tasks/smaps.ts FILE…`: where a process's resident memory is, from a
 * copy of its `/proc/<pid>/smaps` (`deno task bench:peers --smaps PREFIX` saves the idle
 * daemon's). Prints the resident MiB of each group of mappings, largest first; `--json` prints
 * them as JSON instead. Linux x86-64, glibc, Deno's V8 (the groups follow where each puts its
 * memory):
 *
 * - `executable`: the Deno executable's own file (its code and data, shared with other Deno
 *   processes but counted in each one's RSS);
 * - `files`: other mapped files (the C library, …);
 * - `wasm_memory`: WebAssembly linear memory (PGlite's Postgres heap and buffer pool): a
 *   read-write mapping followed by the rest of its reservation (512 MiB or more, inaccessible);
 * - `wasm_js_code`: anonymous executable mappings (WebAssembly code, compiled lazily, and V8's
 *   code range);
 * - `malloc_heap`: the C allocator's main heap (`[heap]`);
 * - `malloc_arenas`: the allocator's per-thread arenas (64 MiB-aligned heaps);
 * - `v8_heap`: V8's heap pages (read-write, at the random addresses V8 picks, below the
 *   libraries);
 * - `anon_mmaps`: other anonymous mappings near the libraries: the allocator's own mappings of
 *   large blocks (PGlite's WASM module bytes and data file, array buffers, …), thread stacks;
 * - `other`: the rest (the main stack, vdso, …).
 * @module
 */

/** Resident MiB of each group (see the module's documentation). */
export type SmapsGroups = Record<string, number>;

interface Mapping {
  start: bigint;
  end: bigint;
  perm: string;
  name: string;
  rssKb: number;
}

function parse(text: string): Mapping[] {
  const maps: Mapping[] = [];
  for (const line of text.split("\n")) {
    const m = /^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (m) {
      maps.push({
        start: BigInt(`0x${m[1]}`),
        end: BigInt(`0x${m[2]}`),
        perm: m[3],
        name: m[4].trim(),
        rssKb: 0,
      });
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && maps.length) maps[maps.length - 1].rssKb = Number(rss[1]);
  }
  return maps;
}

const MIB = 1n << 20n;
const LIBS = 0x7f0000000000n;
const V8_BELOW = 0x500000000000n;

/** The groups of the mappings in `text` (an smaps file), in MiB (one decimal). */
export function smapsGroups(text: string): SmapsGroups {
  const maps = parse(text);
  const kb: Record<string, number> = {};
  maps.forEach((m, i) => {
    const next = maps[i + 1];
    let group: string;
    if (m.name.startsWith("/")) group = /\/deno$/.test(m.name) ? "executable" : "files";
    else if (m.name === "[heap]") group = "malloc_heap";
    else if (m.name.startsWith("[")) group = "other";
    else if (m.perm.includes("x")) group = "wasm_js_code";
    else if (!m.perm.startsWith("rw")) group = "other";
    else if (
      next && next.start === m.end && next.perm.startsWith("---") &&
      next.end - next.start >= 512n * MIB
    ) group = "wasm_memory";
    else if (m.start >= LIBS && m.start % (64n * MIB) === 0n && m.end - m.start <= 64n * MIB) {
      group = "malloc_arenas";
    } else if (m.start < V8_BELOW) group = "v8_heap";
    else group = "anon_mmaps";
    kb[group] = (kb[group] ?? 0) + m.rssKb;
  });
  const out: SmapsGroups = {};
  const total = Object.values(kb).reduce((a, b) => a + b, 0);
  for (const [k, v] of Object.entries(kb).sort((a, b) => b[1] - a[1])) {
    out[k] = Math.round(v / 102.4) / 10;
  }
  out.total = Math.round(total / 102.4) / 10;
  return out;
}

if (import.meta.main) {
  const json = Deno.args.includes("--json");
  const files = Deno.args.filter((a) => a !== "--json");
  if (files.length === 0) {
    console.error("usage: deno run --allow-read tasks/smaps.ts [--json] FILE…");
    Deno.exit(2);
  }
  const all: Record<string, SmapsGroups> = {};
  for (const f of files) all[f] = smapsGroups(await Deno.readTextFile(f));
  if (json) console.log(JSON.stringify(all, null, 2));
  else {
    for (const [f, g] of Object.entries(all)) {
      console.log(f);
      for (const [k, v] of Object.entries(g)) console.log(`  ${v.toFixed(1).padStart(7)}  ${k}`);
    }
  }
}
