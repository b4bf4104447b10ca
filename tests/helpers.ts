/**
 * Shared test helpers: temporary directories, free ports, in-process services on PGlite
 * (in memory) and on the Postgres adapter over the wire (PGlite behind pglite-socket), and
 * the real admin daemon as a subprocess. Everything started here stops by itself.
 */
import { PGlite } from "@electric-sql/pglite";
import { vector } from "@electric-sql/pglite-pgvector";
import { PGLiteSocketServer } from "./deps.ts";
import { loadMemoryConfig, type MemoryConfig } from "../src/config.ts";
import { createServiceOnDb, type OpenOptions } from "../src/memory/open.ts";
import type { SqlMemoryService } from "../src/memory/service.ts";
import type { Db } from "../src/store/db.ts";
import { openPglite } from "../src/store/pglite/mod.ts";
import { openPostgres } from "../src/store/postgres.ts";
import { permissionFlags } from "../src/permissions.ts";
import { findProgram, MCP_LOCK } from "../src/programs.ts";

/** Repository root. */
export const ROOT = new URL("../", import.meta.url).pathname;

/** A temporary directory removed by `cleanup()`. */
export async function tempDir(
  prefix = "mneme-test-",
): Promise<{ path: string; cleanup(): Promise<void> }> {
  const path = await Deno.makeTempDir({ prefix });
  return { path, cleanup: () => Deno.remove(path, { recursive: true }).catch(() => {}) };
}

/** A free TCP port on `hostname` (127.0.0.1 by default), not handed out before here. */
export function freePort(hostname = "127.0.0.1"): number {
  // Never the same port twice in one test process: parallel steps each pick one before
  // either binds it, and the kernel may hand a just-closed port out again.
  for (;;) {
    const l = Deno.listen({ hostname, port: 0 });
    const port = (l.addr as Deno.NetAddr).port;
    l.close();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
}
const handedOut = new Set<number>();

/** A config for tests: builtin embedder, given overrides. */
export function testConfig(over: Partial<MemoryConfig> = {}): MemoryConfig {
  const base = loadMemoryConfig((name) =>
    ({ EMBEDDING_PROVIDER: "builtin", DATA_DIR: "/nonexistent" } as Record<string, string>)[name]
  );
  return { ...base, ...over };
}

/** A service on in-memory PGlite. */
export async function pgliteService(
  over: Partial<MemoryConfig> = {},
  opts: OpenOptions = {},
): Promise<{ service: SqlMemoryService; db: Db; close(): Promise<void> }> {
  const db = await openPglite();
  const service = await createServiceOnDb(db, testConfig(over), opts);
  return { service, db, close: () => service.close() };
}

/** PGlite served over the Postgres wire protocol on a loopback port. */
export async function pgliteServer(): Promise<{ url: string; close(): Promise<void> }> {
  const pg = await PGlite.create({ extensions: { vector } });
  const server = new PGLiteSocketServer({ db: pg, port: 0, host: "127.0.0.1" });
  await server.start();
  const port = Number(server.getServerConn().split(":").pop());
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    async close() {
      await server.stop();
      await pg.close();
    },
  };
}

/** A service on the Postgres adapter (postgres.js, one connection) over the wire to PGlite. */
export async function postgresService(
  over: Partial<MemoryConfig> = {},
  opts: OpenOptions = {},
): Promise<{ service: SqlMemoryService; db: Db; url: string; close(): Promise<void> }> {
  const server = await pgliteServer();
  const db = await openPostgres(server.url, { max: 1 });
  const service = await createServiceOnDb(
    db,
    testConfig({ databaseUrl: server.url, ...over }),
    opts,
  );
  return {
    service,
    db,
    url: server.url,
    async close() {
      await service.close();
      await server.close();
    },
  };
}

/** A running admin daemon subprocess. */
export interface AdminProcess {
  url: string;
  port: number;
  dataDir: string;
  child: Deno.ChildProcess;
  /** Everything the daemon wrote to stderr so far. */
  stderr(): string;
  /** SIGTERM and wait (removes the data dir unless `keepData`). */
  stop(): Promise<void>;
}

const decoder = new TextDecoder();

/**
 * Start `src/bin/admin.ts` as a subprocess on a free port with a temporary DATA_DIR
 * (or the given one) and wait until /healthz answers 200.
 */
export async function startAdminProcess(
  opts: { env?: Record<string, string>; dataDir?: string; keepData?: boolean; port?: number } = {},
): Promise<AdminProcess> {
  const ownDir = opts.dataDir === undefined;
  const dataDir = opts.dataDir ?? (await tempDir("mneme-admin-")).path;
  const port = opts.port ?? freePort();
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}src/bin/admin.ts`],
    env: {
      DATA_DIR: dataDir,
      ADMIN_PORT: String(port),
      ADMIN_HOST: "127.0.0.1",
      EMBEDDING_PROVIDER: "builtin",
      ...opts.env,
    },
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  let err = "";
  const pump = async (s: ReadableStream<Uint8Array>, sink: (t: string) => void) => {
    for await (const chunk of s) sink(decoder.decode(chunk));
  };
  const done = Promise.all([
    pump(child.stdout, () => {}),
    pump(child.stderr, (t) => (err += t)),
  ]).catch(() => {});
  const url = `http://127.0.0.1:${port}`;
  const stop = async () => {
    try {
      child.kill("SIGTERM");
    } catch { /* already gone */ }
    await child.status;
    await done;
    if (ownDir && !opts.keepData) await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  };
  const deadline = Date.now() + 60_000;
  let exited = false;
  child.status.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) {
      await done;
      throw new Error(`admin daemon exited during startup: ${err}`);
    }
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) {
        return { url, port, dataDir, child, stderr: () => err, stop };
      }
    } catch { /* not listening yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  await stop();
  throw new Error(`admin daemon did not become healthy: ${err}`);
}

/**
 * Run `tasks/<file>` with `args` as a process, the way its `deno task` does (all permissions,
 * the tests' lock file, from the repository's root): its exit code and its output.
 */
export async function runTask(
  file: string,
  args: string[],
): Promise<{ code: number; out: string; err: string }> {
  const res = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `--lock=${ROOT}tests/deno.lock`, `${ROOT}tasks/${file}`, ...args],
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: res.code, out: decoder.decode(res.stdout), err: decoder.decode(res.stderr) };
}

/**
 * Resolve once the admin daemon at `url` reports its embedded database closed for idleness
 * (`/healthz`'s `database.unloaded`, `DATABASE_IDLE_UNLOAD_S`); reject after `timeoutMs`.
 */
export async function untilUnloaded(url: string, timeoutMs: number): Promise<void> {
  for (const end = Date.now() + timeoutMs; Date.now() < end;) {
    const health = await (await fetch(`${url}/healthz`)).json();
    if (health.database?.unloaded) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`the daemon at ${url} did not close its idle database in ${timeoutMs} ms`);
}

/**
 * The command that starts mneme-mcp with exactly the permissions its task computes for `env`
 * (src/programs.ts), for clients that spawn it themselves. No `--config`: the clients would
 * read it as their own flag; Deno finds deno.json from the entry file's directory.
 */
export function mcpServerCommand(env: Record<string, string>): string[] {
  const launch = findProgram("mneme-mcp")!.launch({ env: (n) => env[n], args: [], cwd: ROOT });
  return [
    Deno.execPath(),
    "run",
    ...launch.denoFlags,
    `--lock=${ROOT}${MCP_LOCK}`,
    ...permissionFlags(launch.plan),
    `${ROOT}src/bin/mcp.ts`,
  ];
}

/**
 * An older service in front of a real daemon: a search naming a field outside `allowed` is
 * refused as the Admin API refuses an unknown field (400, `field` naming it); any other
 * request is passed on. Counts the refusals.
 */
export function olderService(target: string, allowed: readonly string[]) {
  const refused: string[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const u = new URL(req.url);
    const body = req.body ? await req.text() : undefined;
    if (u.pathname === "/api/memories/search" && body) {
      const unknown = Object.keys(JSON.parse(body)).find((k) => !allowed.includes(k));
      if (unknown !== undefined) {
        refused.push(unknown);
        return Response.json({
          error: `${unknown}: unknown field; allowed fields are ${allowed.join(", ")}`,
          field: unknown,
        }, { status: 400 });
      }
    }
    return await fetch(`${target}${u.pathname}${u.search}`, {
      method: req.method,
      headers: req.headers,
      body,
    });
  });
  return { url: `http://127.0.0.1:${server.addr.port}`, refused, close: () => server.shutdown() };
}
