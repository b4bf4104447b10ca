/**
 * Imports go one way: entrypoints → features → core → common. This test reads the import
 * statements of every file under src/ and fails on one that goes the wrong way, on a file no
 * layer claims, and inside core on store/ or embed/ reaching up into memory/ or domain/
 * reaching up into anything else of core. The layer table is the one in
 * docs/architecture.md.
 */
import assert from "node:assert/strict";
import { dirname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = normalize(join(dirname(fileURLToPath(import.meta.url)), "..", ".."));

/** Layers from the bottom up; a file may import its own layer and the layers below it. */
export const LAYERS: readonly { name: string; paths: readonly string[] }[] = [
  { name: "common", paths: ["src/common/"] },
  {
    name: "core",
    paths: [
      "src/domain/",
      "src/memory/",
      "src/store/",
      "src/embed/",
      "src/config.ts",
      "src/permissions.ts",
      "src/permissions/",
      "src/process.ts",
      "src/version.ts",
      "src/info_flags.ts",
    ],
  },
  {
    name: "features",
    paths: [
      "src/admin/",
      "src/capture/",
      "src/mcp/",
      "src/memcli/",
      "src/msg/",
      "src/msgcli/",
      "src/serve/",
    ],
  },
  { name: "entrypoints", paths: ["src/bin/", "src/programs.ts"] },
];

/**
 * The order inside core, from the bottom: domain/ (the memory's types, the error type, the
 * tokenizer), then store/ and embed/, then memory/ (the service). The other core files
 * (config, permissions, ...) are not ranked.
 */
function coreRank(path: string): number {
  if (path.startsWith("src/domain/")) return 0;
  if (/^src\/(store|embed)\//.test(path)) return 1;
  if (path.startsWith("src/memory/")) return 2;
  return -1;
}

/** The layer index of a path under src/, or -1 when no layer claims it. */
export function layerOf(path: string): number {
  return LAYERS.findIndex((l) =>
    l.paths.some((p) => p.endsWith("/") ? path.startsWith(p) : path === p)
  );
}

/** The module specifiers a source file imports: static, re-exports, side-effect and dynamic. */
export function importSpecifiers(source: string): string[] {
  const out: string[] = [];
  const patterns = [
    /^\s*(?:import|export)\s+(?:type\s+)?[^;]*?\bfrom\s*["']([^"']+)["']/gm,
    /^\s*import\s*["']([^"']+)["']/gm,
    /\bimport\(\s*["']([^"']+)["']\s*\)/g,
  ];
  for (const re of patterns) for (const m of source.matchAll(re)) out.push(m[1]);
  return out;
}

/** The wrong-way imports among `files` (path under the root → source text). */
export function violations(files: Map<string, string>): string[] {
  const found: string[] = [];
  for (const [from, source] of files) {
    const fromLayer = layerOf(from);
    if (fromLayer < 0) {
      found.push(`${from}: in no layer (add it to LAYERS and to docs/architecture.md)`);
      continue;
    }
    for (const spec of importSpecifiers(source)) {
      if (!spec.startsWith(".")) continue; // packages: npm:, jsr:, node:, import map names
      const to = normalize(join(dirname(from), spec)).replaceAll("\\", "/");
      if (!to.startsWith("src/")) continue; // deno.json, migrations/, static/
      const toLayer = layerOf(to);
      if (toLayer > fromLayer) {
        found.push(
          `${from} (${LAYERS[fromLayer].name}) imports ${to} (${LAYERS[toLayer].name})`,
        );
      } else if (toLayer < 0) {
        found.push(`${from} imports ${to}, which is in no layer`);
      } else if (toLayer === fromLayer && LAYERS[toLayer].name === "core") {
        const [f, t] = [coreRank(from), coreRank(to)];
        if (f === 0 && !to.startsWith("src/domain/")) {
          found.push(`${from} (domain) imports ${to} (core, above domain)`);
        } else if (f >= 0 && t > f) {
          found.push(`${from} imports ${to} (above it in core)`);
        }
      }
    }
  }
  return found;
}

async function sourcesUnder(dir: string, files = new Map<string, string>()) {
  for await (const e of Deno.readDir(join(ROOT, dir))) {
    const path = `${dir}/${e.name}`;
    if (e.isDirectory) await sourcesUnder(path, files);
    else if (/\.(ts|tsx|js|mjs)$/.test(e.name)) {
      files.set(path, await Deno.readTextFile(join(ROOT, path)));
    }
  }
  return files;
}

Deno.test("the checker finds wrong-way imports of every kind", () => {
  const files = new Map([
    ["src/common/a.ts", 'import { x } from "../config.ts";'],
    ["src/memory/b.ts", 'export { y } from "../serve/flags.ts";'],
    ["src/store/c.ts", 'import type {\n  EmbedderInfo,\n} from "../memory/types.ts";'],
    ["src/embed/d.ts", 'const m = await import("../memory/service.ts");'],
    ["src/msg/e.ts", 'import "../bin/msgcli.ts";'],
    ["src/stray.ts", "export const z = 1;"],
    [
      "src/serve/ok.ts",
      'import { a } from "../msg/api.ts";\nimport { b } from "../common/net.ts";',
    ],
    ["src/store/store.ts", 'import { termCounts } from "../memory/terms.ts";'],
    ["src/domain/f.ts", 'import type { Db } from "../store/db.ts";'],
    ["src/domain/g.ts", 'import { safeEnv } from "../config.ts";'],
    [
      "src/store/ok.ts",
      'import { terms } from "../domain/terms.ts";\nimport { x } from "../embed/embedder.ts";',
    ],
    ["src/memory/ok.ts", 'import { terms } from "../domain/terms.ts";\nimport "../store/db.ts";'],
    ["src/bin/ok.ts", 'import x from "../../deno.json" with { type: "json" };\nimport "npm:hono";'],
  ]);
  const v = violations(files);
  assert.equal(v.length, 9, v.join("\n"));
  for (
    const f of [
      "common/a",
      "memory/b",
      "store/c",
      "embed/d",
      "msg/e",
      "stray",
      "store/store",
      "domain/f",
      "domain/g",
    ]
  ) {
    assert.ok(v.some((line) => line.startsWith(`src/${f}.ts`)), f);
  }
});

Deno.test("imports under src/ go one way: entrypoints → features → core → common", async () => {
  const files = await sourcesUnder("src");
  assert.ok(files.size > 50, `read ${files.size} files`);
  assert.deepEqual(violations(files), []);
});
