/**
 * `deno task test`: the whole test suite in one command.
 *
 * 1. Makes sure the system tools the tests drive are present: Debian's `tinyproxy` (HTTP
 *    proxy), `dante-server` (SOCKS5 proxy) and `chromium` (browser tests). When one is
 *    missing and this runs as root on a system with apt-get, it installs them; otherwise it
 *    says what to install (the tests that need a missing tool fail and name it).
 * 2. Runs the unit and integration tests (`deno task test:unit`: browser tests excluded), then the browser tests (`deno task test:e2e`), each under a watchdog.
 * 3. Prints the totals on a line of their own: `N passed, N failed`.
 *
 * Flags: `--no-e2e` skips the browser tests; `--no-install` never runs apt-get.
 * Extra arguments after `--` go to both `deno test` runs (e.g. `-- --filter contract`).
 */
import { exists } from "../src/common/fs.ts";

const args = [...Deno.args];
const sep = args.indexOf("--");
const extra = sep >= 0 ? args.splice(sep).slice(1) : [];
const noE2e = args.includes("--no-e2e");
const noInstall = args.includes("--no-install");
for (const a of args) {
  if (a !== "--no-e2e" && a !== "--no-install") {
    console.error(`test: unknown flag ${a} (known: --no-e2e, --no-install, -- <deno test args>)`);
    Deno.exit(1);
  }
}

const TOOLS: { bin: string; pkg: string }[] = [
  { bin: "/usr/bin/tinyproxy", pkg: "tinyproxy" },
  { bin: "/usr/sbin/danted", pkg: "dante-server" },
  { bin: "/usr/bin/chromium", pkg: "chromium" },
];

async function run(cmd: string, cmdArgs: string[], env: Record<string, string> = {}) {
  const { code } = await new Deno.Command(cmd, {
    args: cmdArgs,
    env,
    stdout: "inherit",
    stderr: "inherit",
  }).output();
  return code;
}

const missing: string[] = [];
for (const t of TOOLS) if (!await exists(t.bin)) missing.push(t.pkg);
if (missing.length) {
  const root = Deno.uid?.() === 0;
  if (!noInstall && root && await exists("/usr/bin/apt-get")) {
    console.error(`test: installing ${missing.join(", ")} with apt-get`);
    const env = { DEBIAN_FRONTEND: "noninteractive" };
    await run("apt-get", ["update", "-qq"], env);
    const code = await run("apt-get", [
      "install",
      "-y",
      "-qq",
      "--no-install-recommends",
      ...missing,
    ], env);
    if (code !== 0) console.error(`test: apt-get install failed (exit ${code})`);
  } else {
    console.error(
      `test: missing ${missing.join(", ")}; install them (apt-get install ${
        missing.join(" ")
      }) or the tests that need them fail`,
    );
  }
}

interface Totals {
  passed: number;
  failed: number;
  code: number;
}

/** Run deno test, echoing its output, and read its summary line. */
async function denoTest(testArgs: string[], limitMs: number): Promise<Totals> {
  const child = new Deno.Command(Deno.execPath(), {
    args: ["test", "--lock=tests/deno.lock", ...testArgs, ...extra],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  const timer = setTimeout(() => {
    console.error(
      `test: deno test ${testArgs.join(" ")} ran over ${limitMs / 60000} min; stopping it`,
    );
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
  }, limitMs);
  let tail = "";
  const dec = new TextDecoder();
  for await (const chunk of child.stdout) {
    await Deno.stdout.write(chunk);
    tail = (tail + dec.decode(chunk, { stream: true })).slice(-4000);
  }
  const { code } = await child.status;
  clearTimeout(timer);
  // deno's summary: "ok | 97 passed (3 steps) | 0 failed (41s)" or "FAILED | …".
  // deno-lint-ignore no-control-regex
  const plain = tail.replace(/\x1b\[[0-9;]*m/g, "");
  const m = [...plain.matchAll(/^(?:ok|FAILED) \| (\d+) passed[^|]*\| (\d+) failed/gm)].pop();
  if (!m) return { passed: 0, failed: 1, code: code || 1 };
  return { passed: Number(m[1]), failed: Number(m[2]), code };
}

const results: Totals[] = [];
results.push(await denoTest(["-A", "--parallel", "--ignore=tests/e2e/", "tests/"], 30 * 60_000));
if (!noE2e) results.push(await denoTest(["-A", "tests/e2e/"], 15 * 60_000));

const passed = results.reduce((s, r) => s + r.passed, 0);
const failed = results.reduce((s, r) => s + r.failed, 0);
const bad = results.some((r) => r.code !== 0) || failed > 0;
console.log(`\n${passed} passed, ${failed} failed`);
Deno.exit(bad ? 1 : 0);
