/** Helpers of the memcli tests: in-process runs with a captured Io, real subprocess runs. */
import { main } from "../../src/memcli/main.ts";
import type { Io } from "../../src/memcli/io.ts";
import { projectMarkers } from "../../src/permissions.ts";
import { MCP_LOCK, permissionFlagsFor } from "../../src/programs.ts";
import { ROOT } from "../helpers.ts";

/** Result of one memcli run. */
export interface Run {
  code: number;
  out: string;
  err: string;
}

/** Options of a run. */
export interface RunOptions {
  /** The whole environment the command sees (nothing else leaks in). */
  env?: Record<string, string>;
  /** Working directory. */
  cwd?: string;
  /** Text on stdin. */
  stdin?: string;
  /** Whether stdin counts as a terminal (in-process only). */
  stdinTerminal?: boolean;
  /**
   * Subprocess runs: grant the project walk from `cwd` (`.mneme` and `.git` above it), as the
   * launcher does (default true); false gives what a command installed elsewhere holds.
   */
  walk?: boolean;
}

/** An Io over strings. */
export function captureIo(opts: RunOptions = {}): Io & { stdout(): string; stderr(): string } {
  let out = "";
  let err = "";
  let input = opts.stdin ?? "";
  return {
    env: (n) => opts.env?.[n],
    out: (t) => void (out += t),
    err: (t) => void (err += t),
    readLine() {
      if (input === "") return Promise.resolve(null);
      const nl = input.indexOf("\n");
      const line = nl < 0 ? input : input.slice(0, nl);
      input = nl < 0 ? "" : input.slice(nl + 1);
      return Promise.resolve(line);
    },
    readAll() {
      const all = input;
      input = "";
      return Promise.resolve(all);
    },
    stdinIsTerminal: () => opts.stdinTerminal ?? false,
    stderrIsTerminal: () => false,
    cwd: () => opts.cwd ?? Deno.cwd(),
    stdout: () => out,
    stderr: () => err,
  };
}

/** Run memcli in-process. */
export async function memcli(args: string[], opts: RunOptions = {}): Promise<Run> {
  const io = captureIo(opts);
  const code = await main(args, io);
  return { code, out: io.stdout(), err: io.stderr() };
}

/**
 * The permission flags the `memcli` task and the installed memcli start it with for `env`
 * in `cwd` (src/programs.ts).
 */
export function memcliPermissions(
  env: Record<string, string>,
  cwd: string,
  walk = true,
  args: string[] = [],
): string[] {
  // memcli's lockfile (the MCP SDK's client is in its graph: src/common/mcp_client.ts), then
  // its permissions.
  const flags = [
    `--lock=${ROOT}${MCP_LOCK}`,
    ...permissionFlagsFor("memcli", { env: (n) => env[n], args, cwd }),
  ];
  if (walk) return flags;
  // Without the walk: drop exactly the `.mneme` / `.git` grants above the working directory.
  const walkPaths = new Set(projectMarkers(cwd));
  return flags.map((f) =>
    f.startsWith("--allow-read=")
      ? "--allow-read=" + f.slice(13).split(",").filter((p) => !walkPaths.has(p)).join(",")
      : f
  );
}

const decoder = new TextDecoder();

/** Base environment of subprocess runs: PATH, HOME and DENO_DIR only, plus `env`. */
export function baseEnv(env: Record<string, string> = {}): Record<string, string> {
  const keep: Record<string, string> = {};
  for (const k of ["PATH", "HOME", "DENO_DIR", "TMPDIR"]) {
    const v = Deno.env.get(k);
    if (v !== undefined) keep[k] = v;
  }
  return { ...keep, ...env };
}

/** `deno run <permissions> src/bin/memcli.ts <args>` for a run with `opts`. */
function memcliArgv(args: string[], opts: RunOptions): string[] {
  const perms = memcliPermissions(baseEnv(opts.env), opts.cwd ?? ROOT, opts.walk ?? true, args);
  return ["run", ...perms, `${ROOT}src/bin/memcli.ts`, ...args];
}

/** Run `src/bin/memcli.ts` as a real process with the task's permissions. */
export async function memcliProcess(args: string[], opts: RunOptions = {}): Promise<Run> {
  const child = new Deno.Command(Deno.execPath(), {
    args: memcliArgv(args, opts),
    env: baseEnv(opts.env),
    clearEnv: true,
    cwd: opts.cwd ?? ROOT,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(new TextEncoder().encode(opts.stdin ?? "")).catch(() => {});
  await w.close().catch(() => {});
  const res = await child.output();
  return { code: res.code, out: decoder.decode(res.stdout), err: decoder.decode(res.stderr) };
}

/**
 * Run memcli in a pseudo-terminal (python3's pty module): when the purge prompt appears,
 * type `answer` and Enter. Output is stdout and stderr together, as a terminal shows them.
 */
export async function memcliInPty(
  args: string[],
  answer: string,
  opts: RunOptions = {},
): Promise<{ code: number; output: string }> {
  const script = `
import json, os, pty, select, subprocess, sys, time
answer = json.loads(sys.argv[1]); cmd = sys.argv[2:]
master, slave = pty.openpty()
p = subprocess.Popen(cmd, stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
os.close(slave)
out = b""; sent = False; deadline = time.time() + 60
while True:
    r, _, _ = select.select([master], [], [], 0.1)
    if r:
        try:
            data = os.read(master, 4096)
        except OSError:
            data = b""
        if not data:
            break
        out += data
    if not sent and b"Type the full path to confirm: " in out:
        os.write(master, answer.encode() + b"\\n"); sent = True
    if time.time() > deadline:
        p.kill(); break
p.wait()
sys.stdout.write(out.decode(errors="replace"))
sys.exit(p.returncode)
`;
  const res = await new Deno.Command("python3", {
    args: [
      "-c",
      script,
      JSON.stringify(answer),
      Deno.execPath(),
      ...memcliArgv(args, opts),
    ],
    env: baseEnv(opts.env),
    clearEnv: true,
    cwd: opts.cwd ?? ROOT,
    stdout: "piped",
    stderr: "piped",
  }).output();
  return { code: res.code, output: decoder.decode(res.stdout) + decoder.decode(res.stderr) };
}

/** Kill whatever daemon run/admin.pid names (test cleanup; ignores errors). */
export async function killDaemon(dataDir: string): Promise<void> {
  try {
    const pid = Number((await Deno.readTextFile(`${dataDir}/run/admin.pid`)).trim());
    if (pid > 1) Deno.kill(pid, "SIGKILL");
    for (let i = 0; i < 50; i++) {
      const out = await new Deno.Command("ps", { args: ["-p", String(pid)] }).output();
      if (!out.success) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  } catch { /* none */ }
}

/** True when nothing listens on 127.0.0.1:port. */
export function portIsFree(port: number): boolean {
  try {
    Deno.listen({ hostname: "127.0.0.1", port }).close();
    return true;
  } catch {
    return false;
  }
}
