/**
 * memcli setup when the daemon cannot start (unreachable database, failing embedder) and
 * uninstall of a daemon that ignores SIGTERM: clear messages, exit 1, nothing left behind.
 */
import assert from "node:assert/strict";
import { exists } from "../../src/common/fs.ts";
import { freePort, tempDir } from "../helpers.ts";
import { killDaemon, memcliProcess, portIsFree } from "./_util.ts";

/** A loopback port with nothing listening (bound once, then released). */
function closedPort(): number {
  return freePort();
}

Deno.test("setup: unreachable database → reason from the daemon's log, exit 1, no daemon", async () => {
  const tmp = await tempDir("mneme-memcli-");
  const dataDir = `${tmp.path}/data`;
  const port = freePort();
  try {
    const r = await memcliProcess([
      "setup",
      "--port",
      String(port),
      "--database-url",
      `postgres://mneme:s3cret-pw@127.0.0.1:${closedPort()}/mneme`,
      "--embedding-provider",
      "builtin",
    ], { env: { DATA_DIR: dataDir } });
    assert.equal(r.code, 1, r.out);
    assert.match(
      r.err,
      /^memcli setup: starting the admin daemon .*\nmemcli setup: the admin daemon exited during startup \(exit code 1\): cannot connect to the database/,
    );
    assert.match(r.err, new RegExp(`Full log: ${dataDir}/logs/admin\\.log\\n$`));
    assert.ok(!r.err.includes("s3cret-pw"), "the password is not shown");
    assert.ok(!(await exists(`${dataDir}/run/admin.pid`)));
    assert.ok(portIsFree(port));
  } finally {
    await killDaemon(dataDir);
    await tmp.cleanup();
  }
});

Deno.test("setup: failing embedder → reason from the daemon's log, exit 1, no daemon", async () => {
  const tmp = await tempDir("mneme-memcli-");
  const dataDir = `${tmp.path}/data`;
  const port = freePort();
  try {
    const r = await memcliProcess(
      ["setup", "--port", String(port), "--embedding-provider", "ollama"],
      { env: { DATA_DIR: dataDir, OLLAMA_URL: `http://127.0.0.1:${closedPort()}` } },
    );
    assert.equal(r.code, 1, r.out);
    assert.match(r.err, /the admin daemon exited during startup \(exit code 1\): .*Ollama/);
    assert.ok(!(await exists(`${dataDir}/run/admin.pid`)));
    assert.ok(portIsFree(port));
    const s = await memcliProcess(["status"], { env: { DATA_DIR: dataDir } });
    assert.equal(s.code, 1);
  } finally {
    await killDaemon(dataDir);
    await tmp.cleanup();
  }
});

Deno.test("uninstall: a daemon ignoring SIGTERM is killed after --timeout", async () => {
  const tmp = await tempDir("mneme-memcli-");
  const dataDir = tmp.path;
  // Stands in for a hung daemon: its command line names admin.ts, and it ignores SIGTERM.
  const child = new Deno.Command("sh", {
    args: ["-c", 'trap "" TERM; while :; do sleep 0.05; done', "hung-admin.ts"],
    stdin: "null",
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    await Deno.mkdir(`${dataDir}/run`, { recursive: true });
    await Deno.writeTextFile(`${dataDir}/run/admin.pid`, `${child.pid}\n`);
    // While its process lives but nothing answers, status says so and exits 1.
    const s = await memcliProcess(["status"], {
      env: { DATA_DIR: dataDir, MEMORY_API_URL: `http://127.0.0.1:${closedPort()}` },
    });
    assert.equal(s.code, 1);
    assert.match(s.out, /^Mneme admin: not responding \(the service process is alive/);
    assert.match(
      s.out,
      new RegExp(`Daemon: {4}pid ${child.pid} \\(memcli's background service\\)\\n`),
    );
    const t0 = Date.now();
    const r = await memcliProcess(["uninstall", "--timeout", "1"], { env: { DATA_DIR: dataDir } });
    assert.equal(r.code, 0, r.err);
    assert.match(
      r.out,
      new RegExp(
        `^The admin daemon \\(pid ${child.pid}\\) ignored SIGTERM for 1 s and was killed\\.\\n`,
      ),
    );
    assert.ok(Date.now() - t0 >= 1000);
    const status = await child.status;
    assert.equal(status.signal, "SIGKILL");
    assert.ok(!(await exists(`${dataDir}/run/admin.pid`)));
  } finally {
    try {
      child.kill("SIGKILL");
    } catch { /* gone */ }
    await child.status;
    await tmp.cleanup();
  }
});
