/**
 * Nothing heavy loads before the handshake in API mode: the static import graph of the
 * entrypoint (what Deno loads before `main` runs) reaches neither PGlite nor postgres.js
 * nor the store; those come only through the dynamic `import()` of direct mode.
 */
import assert from "node:assert/strict";
import { ROOT } from "../helpers.ts";
import { MCP_LOCK } from "../../src/programs.ts";

interface Dep {
  code?: { specifier: string };
  isDynamic?: boolean;
}

Deno.test("mcp entrypoint: database modules load only through dynamic import", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["info", "--json", `--lock=${ROOT}${MCP_LOCK}`, `${ROOT}src/bin/mcp.ts`],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
  const info = JSON.parse(new TextDecoder().decode(out.stdout)) as {
    roots: string[];
    modules: { specifier: string; dependencies?: Dep[] }[];
    redirects: Record<string, string>;
  };
  const bySpec = new Map(info.modules.map((m) => [m.specifier, m]));
  const resolve = (s: string) => info.redirects[s] ?? s;
  const staticGraph = new Set<string>();
  const dynamic = new Set<string>();
  const queue = [info.roots[0]];
  while (queue.length) {
    const spec = resolve(queue.pop()!);
    if (staticGraph.has(spec)) continue;
    staticGraph.add(spec);
    for (const d of bySpec.get(spec)?.dependencies ?? []) {
      if (!d.code) continue;
      if (d.isDynamic) dynamic.add(resolve(d.code.specifier));
      else queue.push(d.code.specifier);
    }
  }
  const heavy = [...staticGraph].filter((s) =>
    /pglite|npm:\/?postgres@|pgvector|\/src\/store\/|\/src\/embed\/|\/memory\/open\.ts/.test(s)
  );
  assert.deepEqual(heavy, []);
  assert.ok([...dynamic].some((s) => s.endsWith("/src/memory/open.ts")), [...dynamic].join());
  assert.ok([...staticGraph].some((s) => s.includes("@modelcontextprotocol/sdk")));
});
