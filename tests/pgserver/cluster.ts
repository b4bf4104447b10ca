/**
 * A real PostgreSQL server with pgvector for the tests.
 *
 * - `TEST_DATABASE_URL` set: the tests use that server (a superuser URL: each test creates
 *   and drops its own database on it).
 * - Otherwise: PostgreSQL from Debian and pgvector built from the vendored, unmodified
 *   source (`tests/vendor/pgvector-0.8.6.tar.gz`). When they are missing and this runs as
 *   root with apt-get, `postgresql postgresql-server-dev-all build-essential` are installed
 *   and pgvector is built and installed (about 15 s). Then a throw-away cluster is created
 *   in a temporary directory (as the unprivileged user `nobody` when running as root) and
 *   started on a free loopback port.
 * - When neither is possible, {@link realServer} returns the reason and the tests are
 *   ignored with that reason printed.
 *
 * The cluster is stopped and its directory removed when the test process ends, whatever
 * the way: a detached guard shell polls this process's pid and cleans up when it is gone.
 */
import { exists } from "../../src/common/fs.ts";
import { freePort, ROOT } from "../helpers.ts";

/** A server the tests may create databases on. */
export interface RealServer {
  /** `local` (a cluster this process started) or `external` (TEST_DATABASE_URL). */
  kind: "local" | "external";
  /** Superuser URL of the server (database `postgres`). */
  adminUrl: string;
  host: string;
  port: number;
  /** The cluster's temporary directory (local clusters only). */
  dir?: string;
  /** pgvector version installed (`0.8.6`). */
  vector: string;
  /** Stop the server (fast shutdown); local clusters only. */
  stop(): Promise<void>;
  /** Start it again on the same port; local clusters only. */
  start(): Promise<void>;
  /** Stop and remove the cluster. */
  close(): Promise<void>;
}

const VENDORED = `${ROOT}tests/vendor/pgvector-0.8.6.tar.gz`;
const PASSWORD = "mneme-test-pw";
const dec = new TextDecoder();

async function sh(
  cmd: string,
  args: string[],
  opts: { env?: Record<string, string>; cwd?: string } = {},
): Promise<{ code: number; out: string }> {
  try {
    const r = await new Deno.Command(cmd, {
      args,
      env: opts.env,
      cwd: opts.cwd,
      stdout: "piped",
      stderr: "piped",
    }).output();
    return { code: r.code, out: dec.decode(r.stdout) + dec.decode(r.stderr) };
  } catch (err) {
    return { code: 127, out: String(err) };
  }
}

/** The newest PostgreSQL under /usr/lib/postgresql that has initdb. */
async function pgBinDir(): Promise<string | null> {
  const versions: number[] = [];
  try {
    for await (const e of Deno.readDir("/usr/lib/postgresql")) {
      if (/^\d+$/.test(e.name) && await exists(`/usr/lib/postgresql/${e.name}/bin/initdb`)) {
        versions.push(Number(e.name));
      }
    }
  } catch { /* none */ }
  if (!versions.length) return null;
  return `/usr/lib/postgresql/${Math.max(...versions)}/bin`;
}

const isRoot = () => Deno.uid?.() === 0;

/** Install the Debian packages (root and apt-get only). */
async function aptInstall(): Promise<string | null> {
  if (!isRoot()) return "not root, so PostgreSQL cannot be installed with apt-get";
  if (!await exists("/usr/bin/apt-get")) return "no apt-get to install PostgreSQL with";
  console.error("pgserver: installing postgresql postgresql-server-dev-all build-essential");
  const env = { DEBIAN_FRONTEND: "noninteractive", PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
  await sh("apt-get", ["update", "-qq"], { env });
  const r = await sh("apt-get", [
    "install",
    "-y",
    "-qq",
    "--no-install-recommends",
    "postgresql",
    "postgresql-server-dev-all",
    "build-essential",
  ], { env });
  return r.code === 0 ? null : `apt-get install failed: ${r.out.slice(-500)}`;
}

/** Build and install pgvector from the vendored tarball against `bin`'s PostgreSQL. */
async function buildVector(bin: string): Promise<string | null> {
  const pgConfig = `${bin}/pg_config`;
  if (!await exists(pgConfig)) {
    const why = await aptInstall();
    if (why) return why;
  }
  if (!await exists(pgConfig)) return `${pgConfig} missing (postgresql-server-dev-all)`;
  const share = (await sh(pgConfig, ["--sharedir"])).out.trim();
  if (await exists(`${share}/extension/vector.control`)) return null;
  // pg_config may come without the server's headers (libpq-dev): building needs them.
  const headers = (await sh(pgConfig, ["--includedir-server"])).out.trim();
  if (!await exists(`${headers}/postgres.h`)) {
    const why = await aptInstall();
    if (why) return why;
    if (!await exists(`${headers}/postgres.h`)) {
      return `${headers}/postgres.h missing (postgresql-server-dev-all)`;
    }
  }
  if (!isRoot()) return `pgvector is not installed in ${share} and this is not root`;
  const dir = await Deno.makeTempDir({ prefix: "mneme-pgvector-" });
  try {
    console.error("pgserver: building pgvector 0.8.6 from tests/vendor");
    const x = await sh("tar", ["-xzf", VENDORED, "-C", dir]);
    if (x.code) return `cannot unpack ${VENDORED}: ${x.out}`;
    const src = `${dir}/pgvector-0.8.6`;
    const env = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", PG_CONFIG: pgConfig };
    // OPTFLAGS="": no -march=native, so the build runs on any CPU of the same family.
    const make = await sh("make", [`-j2`, `PG_CONFIG=${pgConfig}`, "OPTFLAGS="], { cwd: src, env });
    if (make.code) return `building pgvector failed: ${make.out.slice(-800)}`;
    const inst = await sh("make", ["install", `PG_CONFIG=${pgConfig}`, "OPTFLAGS="], {
      cwd: src,
      env,
    });
    if (inst.code) return `installing pgvector failed: ${inst.out.slice(-800)}`;
    return null;
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

/** Parse a superuser URL into host and port (IPv6 brackets removed). */
function hostPort(url: string): { host: string; port: number } {
  const u = new URL(url);
  return { host: u.hostname.replace(/^\[|\]$/g, ""), port: Number(u.port || 5432) };
}

async function externalServer(url: string): Promise<RealServer> {
  const { host, port } = hostPort(url);
  const { default: postgres } = await import("postgres");
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  let vector = "";
  try {
    const rows =
      await sql`select default_version from pg_available_extensions where name = 'vector'`;
    vector = String(rows[0]?.default_version ?? "");
  } catch (err) {
    // The server was asked for by name: failing loudly beats skipping.
    throw new Error(
      `TEST_DATABASE_URL: cannot use the server at ${host}:${port}: ${
        err instanceof Error ? err.message : err
      }`,
    );
  } finally {
    await sql.end({ timeout: 1 });
  }
  const no = () => Promise.reject(new Error("TEST_DATABASE_URL: cannot stop an external server"));
  return {
    kind: "external",
    adminUrl: url,
    host,
    port,
    vector,
    stop: no,
    start: no,
    close: () => Promise.resolve(),
  };
}

/**
 * PostgreSQL and pgvector present (installing them when needed): the bin directory, or why
 * not. Test files run in parallel processes: an exclusive lock on a file in the temporary
 * directory makes one install and build while the others wait.
 */
async function ensureInstalled(): Promise<{ bin: string } | string> {
  const lockPath = `${Deno.env.get("TMPDIR") || "/tmp"}/mneme-pgserver-install.lock`;
  let lock: Deno.FsFile | undefined;
  try {
    lock = await Deno.open(lockPath, { write: true, create: true });
    await lock.lock(true);
  } catch { /* no lock: install anyway */ }
  try {
    let bin = await pgBinDir();
    if (!bin) {
      const why = await aptInstall();
      if (why) return why;
      bin = await pgBinDir();
      if (!bin) return "PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)";
    }
    const why = await buildVector(bin);
    return why ?? { bin };
  } finally {
    lock?.close();
  }
}

async function localCluster(): Promise<RealServer | string> {
  const installed = await ensureInstalled();
  if (typeof installed === "string") return installed;
  const { bin } = installed;
  const vector = (await sh(`${bin}/pg_config`, ["--sharedir"])).out.trim();
  const control = await Deno.readTextFile(`${vector}/extension/vector.control`);
  const version = control.match(/default_version\s*=\s*'([^']+)'/)?.[1] ?? "";

  const dir = await Deno.makeTempDir({ prefix: "mneme-pgcluster-" });
  const data = `${dir}/data`;
  const user = isRoot() ? "nobody" : null;
  const as = (cmd: string, args: string[]) =>
    user ? sh("runuser", ["-u", user, "--", cmd, ...args]) : sh(cmd, args);
  await Deno.writeTextFile(`${dir}/pw`, PASSWORD);
  if (user) {
    const uid = Number((await sh("id", ["-u", user])).out.trim());
    const gid = Number((await sh("id", ["-g", user])).out.trim());
    await Deno.chown(dir, uid, gid);
    await Deno.chown(`${dir}/pw`, uid, gid);
  }
  const init = await as(`${bin}/initdb`, [
    "-D",
    data,
    "-U",
    "postgres",
    `--pwfile=${dir}/pw`,
    "--auth-local=trust",
    "--auth-host=scram-sha-256",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  if (init.code) {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    return `initdb failed: ${init.out.slice(-800)}`;
  }
  // The guard: when this process goes away, stop the cluster and remove it. It is detached
  // (a background subshell of a shell that exits at once, so init adopts it) and polls this
  // process's pid: at the end of `deno test` Deno kills the children it spawned, which took
  // a guard that was a direct child (waiting on a pipe) with it and left the server running.
  const ctl = `${bin}/pg_ctl`;
  const runAs = user ? `runuser -u ${user} -- ` : "";
  await sh("sh", [
    "-c",
    `( trap '' INT TERM HUP; while kill -0 ${Deno.pid} 2>/dev/null && [ -d '${dir}' ]; do sleep 1; done; ` +
    `[ -d '${dir}' ] && { ${runAs}${ctl} -D '${data}' stop -m immediate -w; rm -rf '${dir}'; } ) ` +
    "</dev/null >/dev/null 2>&1 &",
  ]);
  const port = freePort();
  const host = "127.0.0.1";
  const start = async () => {
    const r = await as(ctl, [
      "-D",
      data,
      "-l",
      `${dir}/log`,
      "-w",
      "-t",
      "30",
      "-o",
      `-p ${port} -k ${dir} -c listen_addresses='127.0.0.1,::1' -c fsync=off -c max_connections=200 -c shared_buffers=256MB`,
      "start",
    ]);
    if (r.code) {
      let log = "";
      try {
        log = await Deno.readTextFile(`${dir}/log`);
      } catch { /* none */ }
      throw new Error(`pg_ctl start failed: ${r.out} ${log.slice(-800)}`);
    }
  };
  const stop = async () => {
    const r = await as(ctl, ["-D", data, "stop", "-m", "fast", "-w"]);
    if (r.code) throw new Error(`pg_ctl stop failed: ${r.out}`);
  };
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await as(ctl, ["-D", data, "stop", "-m", "fast", "-w"]);
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  };
  try {
    await start();
  } catch (err) {
    await close();
    return String(err);
  }
  return {
    kind: "local",
    adminUrl: `postgres://postgres:${PASSWORD}@${host}:${port}/postgres`,
    host,
    port,
    dir,
    vector: version,
    stop,
    start,
    close,
  };
}

let shared: Promise<RealServer | string> | undefined;

/**
 * The real server of this test process (started once, on first use), or the reason there
 * is none. Stopped when the process ends.
 */
export function realServer(): Promise<RealServer | string> {
  shared ??= (async () => {
    const ext = Deno.env.get("TEST_DATABASE_URL");
    if (ext) return await externalServer(ext);
    return await localCluster();
  })();
  return shared;
}

/** Another throw-away cluster (for tests that stop the server). */
export function ownCluster(): Promise<RealServer | string> {
  if (Deno.env.get("TEST_DATABASE_URL")) {
    return Promise.resolve("TEST_DATABASE_URL is set: the server cannot be stopped by the tests");
  }
  return localCluster();
}

/** A URL for `db` on the server, as `user`/`password` (default: the superuser's). */
export function urlFor(
  server: RealServer,
  db: string,
  user?: { name: string; password: string },
): string {
  const u = new URL(server.adminUrl);
  u.pathname = `/${db}`;
  if (user) {
    u.username = encodeURIComponent(user.name);
    u.password = encodeURIComponent(user.password);
  }
  return u.href;
}

/** Run SQL as the superuser on database `db` (default `postgres`). */
export async function adminSql(
  server: RealServer,
  text: string,
  db = "postgres",
): Promise<Record<string, unknown>[]> {
  const { default: postgres } = await import("postgres");
  const sql = postgres(urlFor(server, db), { max: 1, onnotice: () => {} });
  try {
    return [...await sql.unsafe(text)] as Record<string, unknown>[];
  } finally {
    await sql.end({ timeout: 2 });
  }
}

/** A fresh, empty database on the server; `drop()` removes it. */
export async function freshDatabase(
  server: RealServer,
): Promise<{ name: string; url: string; drop(): Promise<void> }> {
  const name = `mneme_t_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`;
  await adminSql(server, `create database ${name}`);
  return {
    name,
    url: urlFor(server, name),
    drop: () => adminSql(server, `drop database if exists ${name} with (force)`).then(() => {}),
  };
}

/** The real server of this test file, or why there is none (resolved at import). */
export const SERVER: RealServer | string = await realServer();
if (typeof SERVER === "string") {
  console.warn(`pgserver: real-PostgreSQL tests SKIPPED: ${SERVER}`);
}

/**
 * Register a test that needs the real server: ignored (reported as such, with the reason
 * printed once per file) when there is none.
 */
export function serverTest(
  name: string,
  fn: (server: RealServer, t: Deno.TestContext) => Promise<void>,
): void {
  const server = SERVER;
  Deno.test({
    name: typeof server === "string" ? `${name} (SKIPPED: ${server})` : name,
    ignore: typeof server === "string",
    sanitizeOps: false,
    sanitizeResources: false,
    fn: (t) => fn(server as RealServer, t),
  });
}
