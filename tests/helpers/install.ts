/**
 * The installed commands (`deno task install` into a temporary root), for tests and
 * benchmarks that run them as a user does, and the environment Deno needs for that.
 */
import { join } from "node:path";
import { exists } from "../../src/common/fs.ts";
import { freePort, ROOT, tempDir } from "../helpers.ts";
import { claudeCodeBin } from "./claude_code.ts";

/**
 * Deno's cache (also when HOME points elsewhere) and what Deno and npm need to reach the
 * registry through a TLS-inspecting proxy.
 */
export function toolEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (
    const k of [
      "XDG_CACHE_HOME",
      "DENO_CERT",
      "DENO_TLS_CA_STORE",
      "NODE_EXTRA_CA_CERTS",
      "SSL_CERT_FILE",
      "SSL_CERT_DIR",
      "HTTPS_PROXY",
      "https_proxy",
      "NO_PROXY",
      "no_proxy",
      "NPM_CONFIG_REGISTRY",
    ]
  ) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  env.DENO_DIR = Deno.env.get("DENO_DIR") ||
    join(Deno.env.get("XDG_CACHE_HOME") || join(Deno.env.get("HOME") ?? "/tmp", ".cache"), "deno");
  return env;
}

/**
 * Run `deno task install --root <root>` with the configuration `config` in the environment
 * (the commands get what it needs); returns the `bin` folder and a PATH with it first (and
 * Deno's folder).
 */
export async function installCommands(
  root: string,
  config: Record<string, string>,
): Promise<{ bin: string; PATH: string }> {
  await seedCache(root);
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "-A", `${ROOT}tasks/install.ts`, "--root", root],
    cwd: ROOT,
    env: { ...toolEnv(), ...config, PATH: Deno.env.get("PATH") ?? "" },
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    throw new Error(`deno task install failed: ${new TextDecoder().decode(out.stderr)}`);
  }
  const bin = join(root, "bin");
  const denoDir = Deno.execPath().replace(/\/[^/]+$/, "");
  return { bin, PATH: `${bin}:${denoDir}:${Deno.env.get("PATH") ?? ""}` };
}

/**
 * Seed the install's own cache (`<root>/deno_dir`) with hard links to the tests' npm packages,
 * so that each install of a test does not fetch them again (install still runs `deno cache`,
 * which fetches whatever is missing). The walk of a newcomer (tests/install_walk_test.ts)
 * does not seed.
 */
async function seedCache(root: string): Promise<void> {
  const npm = join(toolEnv().DENO_DIR, "npm");
  if (!(await exists(npm))) return;
  await Deno.mkdir(join(root, "deno_dir"), { recursive: true, mode: 0o700 });
  await new Deno.Command("cp", { args: ["-al", npm, join(root, "deno_dir", "npm")] }).output();
}

/** A folder of links to the few programs a user's minimal PATH has (never deno). */
export async function minimalPath(dir: string, claude?: string): Promise<string> {
  await Deno.mkdir(dir, { recursive: true });
  for (const name of ["sh", "ps", "kill", "node", "git", "env"]) {
    for (const d of (Deno.env.get("PATH") ?? "").split(":")) {
      if (d && await exists(join(d, name))) {
        await Deno.symlink(join(d, name), join(dir, name));
        break;
      }
    }
  }
  if (claude) await Deno.symlink(claude, join(dir, "claude"));
  return dir;
}

/** Run `cmd` with exactly `env` (nothing else leaks in), stdin empty; its code and output. */
export async function runClean(
  cmd: string,
  args: string[],
  env: Record<string, string>,
  cwd?: string,
): Promise<{ code: number; out: string; err: string }> {
  const r = await new Deno.Command(cmd, {
    args,
    env,
    cwd,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const dec = new TextDecoder();
  return { code: r.code, out: dec.decode(r.stdout), err: dec.decode(r.stderr) };
}

/** Whether a Mneme service answers /healthz with 200 at `url` (one try, 2 s at most). */
export async function answers(url: string): Promise<boolean> {
  try {
    const res = await fetch(`${url}/healthz`, { signal: AbortSignal.timeout(2000) });
    await res.body?.cancel();
    return res.status === 200;
  } catch {
    return false;
  }
}

/**
 * A newcomer's machine for the connect tests: the real Claude Code CLI, a temporary folder
 * with a fresh HOME and a repository path, the commands installed into it, a PATH with
 * neither the install folder nor deno, a free admin port and the environment to run them.
 */
export async function newcomer(prefix: string, repoName: string) {
  const claude = await claudeCodeBin();
  const dir = await tempDir(prefix);
  const home = join(dir.path, "home");
  const repo = join(dir.path, repoName);
  await Deno.mkdir(home);
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const { bin } = await installCommands(join(dir.path, "root"), {});
  const PATH = await minimalPath(join(dir.path, "path"), claude);
  const env: Record<string, string> = {
    ...toolEnv(),
    HOME: home,
    PATH,
    ADMIN_PORT: String(port),
    EMBEDDING_PROVIDER: "builtin",
  };
  return { claude, dir, home, repo, port, url, bin, PATH, env };
}
