/** tasks/smaps.ts: the groups of a process's mappings (where the daemon's memory goes). */
import assert from "node:assert/strict";
import { smapsGroups } from "../tasks/smaps.ts";

/** One mapping of an smaps file: its line and its resident kB. */
const map = (range: string, perm: string, name: string, rssKb: number) =>
  `${range} ${perm} 00000000 00:00 0 ${name}\nSize: 4 kB\nRss: ${rssKb} kB\nPss: ${rssKb} kB\n`;

Deno.test("smaps groups: executable, WASM memory, malloc heap and arenas, V8 heap, code", () => {
  const text = [
    map("55d000000000-55d003000000", "r-xp", "/usr/lib/node_modules/deno/deno", 30 * 1024),
    map("55d004000000-55d005000000", "rw-p", "[heap]", 10 * 1024),
    // WASM memory: 128 MiB read-write, then the rest of a 2 GiB reservation.
    map("7f0030000000-7f0038000000", "rw-p", "", 40 * 1024),
    map("7f0038000000-7f00b0000000", "---p", "", 0),
    // A thread arena: 64 MiB-aligned.
    map("7f0114000000-7f0116000000", "rw-p", "", 5 * 1024),
    map("7f0116000000-7f0118000000", "---p", "", 0),
    // A large block mapped on its own, near the libraries.
    map("7f011c5d3000-7f011cc00000", "rw-p", "", 6 * 1024),
    map("7f0120000000-7f0120100000", "r-xp", "/usr/lib/x86_64-linux-gnu/libc.so.6", 1024),
    // V8: heap pages at random low addresses, code.
    map("1c6e9f640000-1c6e9fd40000", "rw-p", "", 7 * 1024),
    map("19372b9ff000-19372bb00000", "rwxp", "", 1024),
    map("7ffddfbe7000-7ffddfc08000", "rw-p", "[stack]", 132),
  ].join("");
  const g = smapsGroups(text);
  assert.deepEqual(
    { ...g },
    {
      executable: 30,
      wasm_memory: 40,
      malloc_heap: 10,
      v8_heap: 7,
      anon_mmaps: 6,
      malloc_arenas: 5,
      files: 1,
      wasm_js_code: 1,
      other: 0.1,
      total: 100.1,
    },
  );
  // Largest first.
  assert.deepEqual(Object.keys(g).slice(0, 3), ["wasm_memory", "executable", "malloc_heap"]);
});
