/**
 * Issue 31, no orphans: a program the launcher starts exits when the launcher dies, however it
 * dies. SIGKILL of the launcher alone (an OOM killer, a supervisor that kills the main pid), or
 * of `deno task` alone: the admin daemon exits within 5 s, releases the data directory, and a
 * restart on the same directory succeeds. The same for `msgcli serve`.
 */
import assert from "node:assert/strict";
import { startFakeAnthropic } from "../fakes/anthropic.ts";
import { writeCredentials } from "../serve/helpers.ts";
import { freePort, ROOT, tempDir } from "../helpers.ts";

const DENO = Deno.execPath();
const LAUNCH = `${ROOT}src/bin/launch.ts`;

function baseEnv(extra: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { NO_COLOR: "1", ...extra };
  // Deno's cache stays where it is whatever HOME the program gets.
  env.DENO_DIR = Deno.env.get("DENO_DIR") ?? `${Deno.env.get("HOME")}/.cache/deno`;
  env.PATH = `${DENO.replace(/\/[^/]+$/, "")}:${Deno.env.get("PATH") ?? ""}`;
  return env;
}

/** The pids of `pid`'s children (ps). */
async function childrenOf(pid: number): Promise<number[]> {
  if (pid <= 0) return [];
  const out = await new Deno.Command("ps", {
    args: ["-o", "pid=", "--ppid", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout).split(/\s+/).filter(Boolean).map(Number)
    .filter((n) => Number.isInteger(n) && n > 0);
}

/** Whether `pid` is a live (not zombie) process. */
async function alive(pid: number): Promise<boolean> {
  if (pid <= 0) return false;
  const out = await new Deno.Command("ps", {
    args: ["-o", "stat=", "-p", String(pid)],
    stdout: "piped",
    stderr: "null",
  }).output();
  const stat = new TextDecoder().decode(out.stdout).trim();
  return out.success && stat !== "" && !stat.startsWith("Z");
}

/** Milliseconds until `pid` is gone, or null after `ms`. */
async function goneWithin(pid: number, ms: number): Promise<number | null> {
  const t0 = Date.now();
  while (Date.now() - t0 < ms) {
    if (!(await alive(pid))) return Date.now() - t0;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/** Stops what a failed run left behind: SIGKILL to each pid still alive (never pid <= 1). */
async function reap(pids: number[]): Promise<void> {
  for (const pid of pids) {
    if (!Number.isInteger(pid) || pid <= 1 || !(await alive(pid))) continue;
    try {
      Deno.kill(pid, "SIGKILL");
    } catch { /* gone */ }
  }
}

async function waitHealthy(url: string, child: Deno.ChildProcess): Promise<void> {
  let exited = false;
  child.status.then(() => (exited = true));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    assert.ok(!exited, "the program exited during startup");
    try {
      const res = await fetch(`${url}/healthz`);
      await res.body?.cancel();
      if (res.status === 200) return;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not become healthy`);
}

/** Descend from `top` to the process running `entry` (the launcher's child), by ps. */
async function findDescendant(top: number, entry: RegExp): Promise<number> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    const queue = [top];
    while (queue.length) {
      const pid = queue.shift()!;
      for (const c of await childrenOf(pid)) {
        const out = await new Deno.Command("ps", {
          args: ["-o", "args=", "-p", String(c)],
          stdout: "piped",
          stderr: "null",
        }).output();
        if (entry.test(new TextDecoder().decode(out.stdout))) return c;
        queue.push(c);
      }
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no descendant of ${top} runs ${entry}`);
}

function adminEnv(home: string, dataDir: string, port: number): Record<string, string> {
  return baseEnv({
    HOME: home,
    DATA_DIR: dataDir,
    ADMIN_PORT: String(port),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
    EMBEDDING_DIM: "64",
  });
}

function startLauncher(env: Record<string, string>, program: string, args: string[] = []) {
  return new Deno.Command(DENO, {
    args: ["run", "--no-prompt", "--allow-env", `--allow-run=${DENO}`, LAUNCH, program, ...args],
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
}

async function adminServes(env: Record<string, string>, port: number): Promise<void> {
  const again = startLauncher(env, "mneme-admin");
  try {
    await waitHealthy(`http://127.0.0.1:${port}`, again);
    const res = await fetch(`http://127.0.0.1:${port}/api/memories`, {
      method: "POST",
      body: JSON.stringify({ content: "after the restart", project: "p" }),
    });
    assert.equal(res.status, 201, await res.text());
  } finally {
    again.kill("SIGTERM");
    assert.equal((await again.status).code, 0, "SIGTERM stops the restarted daemon cleanly");
  }
}

/** Runs `fn` with a fresh HOME and DATA_DIR and a free port; reaps what it leaves in `left`. */
async function withAdminDirs(
  fn: (env: Record<string, string>, port: number, left: number[]) => Promise<void>,
): Promise<void> {
  const home = await tempDir("mneme-orphan-home-");
  const data = await tempDir("mneme-orphan-data-");
  const left: number[] = [];
  try {
    const port = freePort();
    await fn(adminEnv(home.path, data.path, port), port, left);
  } finally {
    await reap(left);
    await data.cleanup();
    await home.cleanup();
  }
}

Deno.test("SIGKILL of the launcher alone: the admin daemon exits within 5 s; a restart succeeds", async () => {
  await withAdminDirs(async (env, port, left) => {
    const launcher = startLauncher(env, "mneme-admin");
    await waitHealthy(`http://127.0.0.1:${port}`, launcher);
    const daemon = await findDescendant(launcher.pid, /src\/bin\/admin\.ts/);
    left.push(daemon);
    launcher.kill("SIGKILL");
    await launcher.status;
    const ms = await goneWithin(daemon, 5_000);
    assert.notEqual(ms, null, "the daemon outlived its launcher by more than 5 s");
    await adminServes(env, port);
  });
});

Deno.test("SIGKILL of `deno task start` alone: the launcher and the daemon exit within 5 s", async () => {
  await withAdminDirs(async (env, port, left) => {
    const task = new Deno.Command(DENO, {
      args: ["task", "--config", `${ROOT}deno.json`, "start"],
      cwd: ROOT,
      env,
      clearEnv: true,
      stdin: "null",
      stdout: "null",
      stderr: "null",
    }).spawn();
    await waitHealthy(`http://127.0.0.1:${port}`, task);
    const launcher = await findDescendant(task.pid, /src\/bin\/launch\.ts/);
    const daemon = await findDescendant(launcher, /src\/bin\/admin\.ts/);
    left.push(launcher, daemon);
    task.kill("SIGKILL");
    await task.status;
    assert.notEqual(await goneWithin(daemon, 5_000), null, "the daemon outlived deno task");
    assert.notEqual(await goneWithin(launcher, 1_000), null, "the launcher outlived deno task");
    await adminServes(env, port);
  });
});

Deno.test("SIGKILL of the launcher of msgcli serve: the proxy exits within 5 s; its port is free again", async () => {
  const fake = startFakeAnthropic();
  const home = await tempDir("mneme-orphan-home-");
  const t = fake.issueTokens(3600);
  const credsPath = await writeCredentials({ ...t, expiresAt: Date.now() + 3600_000 });
  const left: number[] = [];
  try {
    const port = freePort();
    const env = baseEnv({ HOME: home.path, ...fake.env, MSGCLI_CREDENTIALS_PATH: credsPath });
    const args = ["serve", "--listen", `127.0.0.1:${port}`];
    const launcher = startLauncher(env, "msgcli", args);
    await waitHealthy(`http://127.0.0.1:${port}`, launcher);
    const daemon = await findDescendant(launcher.pid, /src\/bin\/serve\.ts/);
    left.push(daemon);
    launcher.kill("SIGKILL");
    await launcher.status;
    assert.notEqual(await goneWithin(daemon, 5_000), null, "the proxy outlived its launcher");
    const again = startLauncher(env, "msgcli", args);
    try {
      await waitHealthy(`http://127.0.0.1:${port}`, again);
    } finally {
      again.kill("SIGTERM");
      await again.status;
    }
  } finally {
    await reap(left);
    await Deno.remove(credsPath.replace(/\/credentials\.json$/, ""), { recursive: true });
    await home.cleanup();
    await fake.close();
  }
});
