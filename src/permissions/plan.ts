/**
 * A permission set as plain data ({@link PermissionPlan}) and what is done with one: building it
 * (a host or path added once), turning it into `deno run` flags, describing it, checking that a
 * process holds it, and narrowing a running process to it. The plans of the programs are in
 * src/permissions.ts (the memory service's) and messages.ts (the messages client's).
 * @module
 */
import { isAbsolute, resolve } from "node:path";
import { defaultPort } from "../common/net.ts";

/** A set of Deno permissions, as `deno run` flags take them. */
export interface PermissionPlan {
  /** `host` or `host:port` entries for `--allow-net`. */
  net: string[];
  /** Paths for `--allow-read`. */
  read: string[];
  /** Paths for `--allow-write`. */
  write: string[];
  /** Variable names for `--allow-env`. */
  env: string[];
  /** Program names for `--allow-run` (none when absent). */
  run?: string[];
  /** Paths for `--deny-read`: refused even inside a granted read path. */
  denyRead?: string[];
  /** System information kinds for `--allow-sys` (none when absent). */
  sys?: string[];
}

/** `host:port` of a URL with the scheme's default port filled in (brackets kept for IPv6). */
export function urlHostPort(raw: string): string {
  const u = new URL(raw);
  const port = u.port !== "" ? u.port : String(defaultPort(u.protocol) ?? "");
  const host = u.hostname === "" ? "localhost" : u.hostname;
  return port ? `${host}:${port}` : host;
}

/** Adds `entry` to `list` once. */
export function add(list: string[], entry: string): void {
  if (!list.includes(entry)) list.push(entry);
}

/** Adds a `host[:port]` unless a host already in `net` grants it (a host covers its ports). */
export function addNet(net: string[], entry: string): void {
  if (!net.some((have) => covers("net", have, entry))) net.push(entry);
}

/** `path` made absolute against `cwd`. */
export function absolute(path: string, cwd: string): string {
  return isAbsolute(path) ? path : resolve(cwd, path);
}

/**
 * One line saying which permissions `plan` grants, for a startup line or `--debug`:
 * `net=a,b read=… write=… env=N variables run=…` (`none` for an empty kind). With
 * `full`, the variable names too.
 */
export function describePlan(plan: PermissionPlan, full = false): string {
  const list = (xs: readonly string[] | undefined) => (xs?.length ? xs.join(",") : "none");
  const parts = [`net=${list(plan.net)}`, `read=${list(plan.read)}`];
  if (plan.denyRead?.length) parts.push(`deny-read=${list(plan.denyRead)}`);
  parts.push(`write=${list(plan.write)}`);
  parts.push(full ? `env=${list(plan.env)}` : `env=${plan.env.length} variables`);
  parts.push(`run=${list(plan.run)}`);
  if (plan.sys?.length) parts.push(`sys=${list(plan.sys)}`);
  return parts.join(" ");
}

/**
 * What this process holds, for its startup line: {@link describePlan} of `plan` when it is
 * locked to it, else the unscoped permissions it holds (`-A` in development).
 */
export function heldPermissions(plan: PermissionPlan, full = false): string {
  const broad: string[] = [];
  for (const name of ["net", "read", "write", "env", "run", "ffi", "sys", "import"] as const) {
    try {
      if (Deno.permissions.querySync({ name } as Deno.PermissionDescriptor).state === "granted") {
        broad.push(name);
      }
    } catch { /* a permission this Deno does not know */ }
  }
  return broad.length ? `unscoped ${broad.join(",")} (not locked)` : describePlan(plan, full);
}

/** The `deno run` flags granting exactly `plan`. */
export function permissionFlags(plan: PermissionPlan): string[] {
  const flags: string[] = [];
  if (plan.net.length) flags.push(`--allow-net=${plan.net.join(",")}`);
  if (plan.read.length) flags.push(`--allow-read=${plan.read.join(",")}`);
  if (plan.denyRead?.length) flags.push(`--deny-read=${plan.denyRead.join(",")}`);
  if (plan.write.length) flags.push(`--allow-write=${plan.write.join(",")}`);
  if (plan.env.length) flags.push(`--allow-env=${plan.env.join(",")}`);
  if (plan.run?.length) flags.push(`--allow-run=${plan.run.join(",")}`);
  if (plan.sys?.length) flags.push(`--allow-sys=${plan.sys.join(",")}`);
  return flags;
}

/** The entries of `plan` this process does not hold, as `kind:value` strings. */
export function missingPermissions(plan: PermissionPlan): string[] {
  const missing: string[] = [];
  const check = (d: Deno.PermissionDescriptor, label: string) => {
    if (Deno.permissions.querySync(d).state !== "granted") missing.push(label);
  };
  for (const host of plan.net) check({ name: "net", host }, `net:${host}`);
  for (const path of plan.read) check({ name: "read", path }, `read:${path}`);
  for (const path of plan.write) check({ name: "write", path }, `write:${path}`);
  for (const variable of plan.env) check({ name: "env", variable }, `env:${variable}`);
  for (const command of plan.run ?? []) check({ name: "run", command }, `run:${command}`);
  for (const kind of plan.sys ?? []) {
    check({ name: "sys", kind } as Deno.PermissionDescriptor, `sys:${kind}`);
  }
  return missing;
}

/**
 * The startup check of an entrypoint: null when the process holds every permission of
 * `plan`, else a message naming what is missing and how to grant it.
 */
export function permissionProblem(name: string, plan: PermissionPlan): string | null {
  const missing = missingPermissions(plan);
  if (missing.length === 0) return null;
  const kinds: Record<string, string[]> = {};
  for (const m of missing) {
    const i = m.indexOf(":");
    (kinds[m.slice(0, i)] ??= []).push(m.slice(i + 1));
  }
  const flags = Object.entries(kinds).map(([k, v]) => `--allow-${k}=${v.join(",")}`).join(" ");
  return `${name}: this configuration needs permissions the process was not given ` +
    `(${missing.join(", ")}). Start it through its task or installed command, which ` +
    `grant what the configuration needs when they start, or add ${flags} to the deno run ` +
    "command.";
}

/**
 * Whether the grant `have` of a permission kind covers `want`: a host covers all its
 * ports, a path covers everything below it; names (env, run) match exactly.
 */
export function covers(
  kind: "net" | "read" | "write" | "env" | "run",
  have: string,
  want: string,
): boolean {
  if (have === want) return true;
  if (kind === "net") {
    const host = want.startsWith("[") ? want.slice(0, want.indexOf("]") + 1) : want.split(":")[0];
    return have === host;
  }
  if (kind === "env" || kind === "run") return false;
  const h = resolve(have);
  const w = resolve(want);
  return w === h || w.startsWith(h.endsWith("/") ? h : `${h}/`);
}

const netCovers = (have: string, want: string) => covers("net", have, want);
const pathCovers = (have: string, want: string) => covers("read", have, want);

/**
 * Revoke what `held` grants beyond `keep`, for a process that goes on with fewer
 * permissions than it started with (`msgcli serve` started by `msgcli`): every program it
 * may run, and the hosts and paths of `held` that `keep` does not need. An entry that also
 * grants something `keep` needs stays (Deno cannot revoke part of a grant).
 */
export function narrowPermissions(held: PermissionPlan, keep: PermissionPlan): void {
  const revoke = (d: Deno.PermissionDescriptor) => {
    try {
      Deno.permissions.revokeSync(d);
    } catch { /* not a permission this Deno knows */ }
  };
  if (!keep.run?.length) revoke({ name: "run" });
  for (const host of held.net) {
    if (!keep.net.some((k) => netCovers(host, k) || netCovers(k, host))) {
      revoke({ name: "net", host });
    }
  }
  for (
    const [kind, paths, needed] of [
      ["read", held.read, keep.read],
      ["write", held.write, keep.write],
    ] as const
  ) {
    for (const path of paths) {
      if (!needed.some((k) => pathCovers(path, k) || pathCovers(k, path))) {
        revoke({ name: kind, path });
      }
    }
  }
}
