/**
 * One service per DATA_DIR: the foreground service (`deno task start`: the admin entry point
 * with the task's permissions) and memcli's background service never collide. memcli finds
 * the foreground one and says so (start, setup), stops it (stop), and start/restart/stop
 * drive its own, as real processes.
 */
import assert from "node:assert/strict";
import { freePort, tempDir } from "../helpers.ts";
import { permissionFlagsFor } from "../../src/programs.ts";
import { ROOT } from "../helpers.ts";
import { memcliProcess } from "./_util.ts";
import { answers, toolEnv } from "../helpers/install.ts";

Deno.test("memcli start/stop/restart and the foreground service never collide on one DATA_DIR", async () => {
  const tmp = await tempDir("mneme-service-");
  const dataDir = `${tmp.path}/data`;
  const port = freePort();
  const url = `http://127.0.0.1:${port}`;
  const env = { DATA_DIR: dataDir, EMBEDDING_PROVIDER: "builtin", ADMIN_PORT: String(port) };
  const fgEnv = { ...toolEnv(), ...env, HOME: tmp.path };
  // `deno task start`: the admin program with exactly the permissions the launcher gives it.
  const fg = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      ...permissionFlagsFor("mneme-admin", {
        env: (n) => (fgEnv as Record<string, string>)[n],
        args: [],
        cwd: ROOT,
      }),
      `${ROOT}src/bin/admin.ts`,
    ],
    env: fgEnv,
    clearEnv: true,
    cwd: ROOT,
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const fgOut = new Response(fg.stdout).text();
  const fgErr = new Response(fg.stderr).text();
  let fgDone = false;
  try {
    for (let i = 0; i < 600 && !(await answers(url)); i++) {
      await new Promise((r) => setTimeout(r, 100));
    }
    if (!(await answers(url))) {
      fg.kill("SIGTERM");
      await fg.status;
      fgDone = true;
      assert.fail(`the foreground service does not answer: ${await fgErr}`);
    }

    const start = await memcliProcess(["start"], { env });
    assert.equal(start.code, 0, start.err);
    assert.equal(
      start.out,
      `The memory service for ${dataDir} is already running (pid ${fg.pid}, ${url}), started outside memcli; nothing changed.\n`,
    );
    const setup = await memcliProcess(["setup", "--port", String(freePort())], { env });
    assert.equal(setup.code, 1);
    assert.match(
      setup.err,
      new RegExp(
        `^memcli setup: the memory service for ${dataDir} already runs \\(pid ${fg.pid}, ${url}\\), started outside memcli .*; stop it first: 'memcli stop' \\(or kill ${fg.pid}\\)\\n$`,
      ),
    );

    const stop = await memcliProcess(["stop"], { env });
    assert.equal(stop.code, 0, stop.err);
    assert.equal(
      stop.out,
      `Stopped the memory service started outside memcli (pid ${fg.pid}).\n`,
    );
    assert.equal((await fg.status).code, 0);
    fgDone = true;
    assert.equal(await answers(url), false);

    const none = await memcliProcess(["stop"], { env });
    assert.equal(none.out, `No memory service is running for ${dataDir}.\n`);

    const started = await memcliProcess(["start"], { env });
    assert.equal(started.code, 0, started.err);
    assert.match(
      started.out,
      new RegExp(`^Started the memory service \\(pid (\\d+)\\) at ${url}; web UI: ${url}/\\n$`),
    );
    const pid1 = Number(/pid (\d+)/.exec(started.out)![1]);
    const again = await memcliProcess(["start"], { env });
    assert.match(
      again.out,
      new RegExp(`already running \\(pid ${pid1}\\) at ${url}; nothing changed`),
    );

    const restarted = await memcliProcess(["restart"], { env });
    assert.equal(restarted.code, 0, restarted.err);
    assert.match(
      restarted.out,
      new RegExp(
        `^Stopped the memory service \\(pid ${pid1}\\)\\.\\nStarted the memory service \\(pid \\d+\\) at ${url}\\n$`,
      ),
    );
    assert.ok(await answers(url));

    const stopped = await memcliProcess(["stop"], { env });
    assert.match(stopped.out, /^Stopped the memory service \(pid \d+\)\.\n$/);
    assert.equal(await answers(url), false);
  } finally {
    if (!fgDone) {
      try {
        fg.kill("SIGTERM");
      } catch { /* gone */ }
      await fg.status;
    }
    await fgOut;
    await fgErr;
    await memcliProcess(["stop"], { env }).catch(() => {});
    await tmp.cleanup();
  }
});
