/**
 * memcli setup / status / uninstall as real processes on a temporary DATA_DIR: first and
 * second setup, a port in use, a crashed daemon (stale pid file), restart into maintenance
 * and `reembed`, uninstall keeping data, and `--purge` through stdin and a pseudo-terminal.
 */
import assert from "node:assert/strict";
import { exists } from "../../src/common/fs.ts";
import { freePort, tempDir } from "../helpers.ts";
import { killDaemon, memcliInPty, memcliProcess, portIsFree } from "./_util.ts";
import { DEFAULT_EMBEDDING_DIM } from "../../src/config.ts";

async function processAlive(pid: number): Promise<boolean> {
  const out = await new Deno.Command("ps", { args: ["-o", "stat=", "-p", String(pid)] }).output();
  const st = new TextDecoder().decode(out.stdout).trim();
  return out.success && st !== "" && !st.startsWith("Z");
}

async function readPid(dataDir: string): Promise<number> {
  return Number((await Deno.readTextFile(`${dataDir}/run/admin.pid`)).trim());
}

Deno.test("memcli setup, status, uninstall and purge as real processes", async (t) => {
  const tmp = await tempDir("mneme-memcli-");
  const dataDir = `${tmp.path}/data`;
  const port = freePort();
  const env = { DATA_DIR: dataDir, EMBEDDING_PROVIDER: "builtin" };
  const url = `http://127.0.0.1:${port}`;
  try {
    let pid = 0;
    await t.step(
      "setup starts the daemon and prints URL, data dir, embedder, MCP config",
      async () => {
        const r = await memcliProcess(["setup", "--port", String(port)], { env });
        assert.equal(r.code, 0, r.err + r.out);
        assert.match(r.err, new RegExp(`starting the admin daemon on ${url}`));
        assert.match(r.out, /^Mneme admin daemon is running\.\n/);
        assert.match(r.out, new RegExp(`URL: {7}${url} `));
        assert.match(r.out, new RegExp(`Data dir: {2}${dataDir}\\n`));
        assert.match(r.out, new RegExp(`Database: {2}pglite \\(${dataDir}/db\\)`));
        assert.match(
          r.out,
          new RegExp(`Embedder: {2}builtin/\\S+ \\(${DEFAULT_EMBEDDING_DIM} dimensions\\)`),
        );
        const snippet = JSON.parse(
          r.out.slice(r.out.indexOf("\n{\n") + 1, r.out.lastIndexOf("\n}\n") + 2),
        );
        const mcp = snippet.mcpServers.mneme;
        assert.equal(mcp.command, Deno.execPath());
        assert.equal(mcp.env.MEMORY_API_URL, url);
        assert.ok(mcp.args.at(-1).endsWith("/src/bin/mcp.ts"));
        for (const d of ["db", "models", "run", "logs"]) {
          assert.ok(await exists(`${dataDir}/${d}`), d);
        }
        pid = await readPid(dataDir);
        assert.match(r.out, new RegExp(`PID: {7}${pid}\\n`));
        assert.ok(await processAlive(pid));
        const log = await Deno.readTextFile(`${dataDir}/logs/admin.log`);
        assert.match(log, new RegExp(`mneme admin listening on ${url}`));
        const health = await (await fetch(`${url}/healthz`)).json();
        assert.equal(health.status, "ok");
      },
    );

    await t.step(
      "status: running, pid, uptime, URL from the setup state, counts, size",
      async () => {
        const add = await memcliProcess(
          ["add", "kept across restarts", "--global", "--tags", "t1"],
          { env },
        );
        assert.equal(add.code, 0, add.err);
        await memcliProcess(["add", "second memory", "--project", "p"], { env });
        await memcliProcess(["add", "third memory", "--global", "--type", "rule"], { env });
        const r = await memcliProcess(["status"], { env });
        assert.equal(r.code, 0, r.out + r.err);
        assert.match(r.out, /^Mneme admin: running\n/);
        assert.match(r.out, new RegExp(`Daemon: {4}pid ${pid}, uptime \\d+s`));
        assert.match(r.out, new RegExp(`URL: {7}${url}\\n`));
        assert.match(r.out, /Memories: {2}3 \(global 2, project 1\)/);
        assert.match(r.out, new RegExp(`Data dir: {2}${dataDir} \\(\\d+\\.\\d [KMG]iB\\)`));
        const j = JSON.parse((await memcliProcess(["status", "--json"], { env })).out);
        assert.equal(j.daemon, "running");
        assert.equal(j.pid, pid);
        assert.equal(j.url, url);
        assert.equal(j.url_source, "setup");
        assert.equal(j.stats.total, 3);
        // One size, as du counts it (the database included).
        const du = await new Deno.Command("du", { args: ["-sk", dataDir], stdout: "piped" })
          .output();
        const kib = Number(new TextDecoder().decode(du.stdout).split(/\s/)[0]);
        assert.ok(Math.abs(j.data_dir_bytes - kib * 1024) <= 64 * 1024, `${j.data_dir_bytes}`);
        assert.ok(j.data_dir_bytes > 1024 * 1024, "the database is counted");
        assert.ok(j.uptime_seconds >= 0);
      },
    );

    await t.step("status: a wrong MEMORY_API_URL is told from a hung service", async () => {
      const wrong = `http://127.0.0.1:${freePort()}`;
      const r = await memcliProcess(["status"], { env: { ...env, MEMORY_API_URL: wrong } });
      assert.equal(r.code, 1);
      assert.match(
        r.out,
        new RegExp(
          `^Mneme admin: not reached at ${wrong} \\(MEMORY_API_URL\\), but running at ${url}\n`,
        ),
      );
      assert.match(
        r.out,
        new RegExp(
          `Problem: {3}MEMORY_API_URL=${wrong} does not answer, but the service of this DATA_DIR answers at ${url}: set MEMORY_API_URL=${url}, or unset it`,
        ),
      );
      assert.doesNotMatch(r.out, /hung/);
    });

    await t.step("a second setup says so and changes nothing", async () => {
      const before = await Deno.readTextFile(`${dataDir}/run/admin.json`);
      const r = await memcliProcess(["setup", "--port", String(freePort())], { env });
      assert.equal(r.code, 0, r.err);
      assert.match(
        r.out,
        new RegExp(`already running \\(pid ${pid}\\) at ${url}; nothing changed`),
      );
      assert.equal(await Deno.readTextFile(`${dataDir}/run/admin.json`), before);
      assert.equal(await readPid(dataDir), pid);
    });

    await t.step("port in use: clear message, exit 1, nothing left behind", async () => {
      const other = `${tmp.path}/other`;
      const r = await memcliProcess(["setup", "--port", String(port)], {
        env: { ...env, DATA_DIR: other },
      });
      assert.equal(r.code, 1);
      assert.match(
        r.err,
        new RegExp(
          `^memcli setup: port ${port} on 127\\.0\\.0\\.1 is already in use \\(a Mneme admin API answers there`,
        ),
      );
      assert.ok(!(await exists(`${other}/run/admin.pid`)));
      // Any other program on the port.
      const l = Deno.listen({ hostname: "127.0.0.1", port: 0 });
      try {
        const busy = (l.addr as Deno.NetAddr).port;
        const r2 = await memcliProcess(["setup", "--port", String(busy)], {
          env: { ...env, DATA_DIR: other },
        });
        assert.equal(r2.code, 1);
        assert.equal(
          r2.err,
          `memcli setup: port ${busy} on 127.0.0.1 is already in use; stop the other process or choose another port with --port\n`,
        );
        assert.ok(!(await exists(`${other}/run/admin.pid`)));
      } finally {
        l.close();
      }
    });

    await t.step("crashed daemon: stale pid file reported; bootstrap still exits 0", async () => {
      // Never pid 0 (the whole process group: a failed setup step leaves pid unset).
      assert.ok(pid > 1, `the daemon's pid from setup: ${pid}`);
      Deno.kill(pid, "SIGKILL");
      for (let i = 0; i < 100 && (await processAlive(pid)); i++) {
        await new Promise((r) => setTimeout(r, 50));
      }
      const r = await memcliProcess(["status"], { env });
      assert.equal(r.code, 1);
      assert.match(r.out, /^Mneme admin: not running\n/);
      assert.match(r.out, new RegExp(`not running \\(stale pid file, pid ${pid}\\)`));
      assert.match(
        r.out,
        /Problem: {3}stale pid file: daemon pid \d+ is gone.*run 'memcli start'/s,
      );
      const j = JSON.parse((await memcliProcess(["status", "--json"], { env })).out);
      assert.equal(j.daemon, "stale");
      assert.equal(j.running, false);
      const b = await memcliProcess(["bootstrap"], { env });
      assert.equal(b.code, 0);
      assert.match(b.err, /no memory service at/);
    });

    await t.step(
      "setup after a crash: clears the stale pid file; maintenance; reembed",
      async () => {
        // A different builtin dimension: the stored vectors need re-embedding.
        const menv = { ...env, EMBEDDING_DIM: "512" };
        const r = await memcliProcess(["setup", "--port", String(port)], { env: menv });
        assert.equal(r.code, 0, r.err + r.out);
        assert.match(r.err, new RegExp(`removing a stale pid file \\(daemon pid ${pid} is gone`));
        assert.match(r.out, /Embedder: {2}builtin\/\S+ \(512 dimensions\)/);
        assert.match(
          r.out,
          /Maintenance: .*\nSearches and writes answer 409 until you run 'memcli reembed'/,
        );
        const newPid = await readPid(dataDir);
        assert.notEqual(newPid, pid);
        pid = newPid;

        const s = await memcliProcess(["status"], { env: menv });
        assert.equal(s.code, 2, s.out);
        assert.match(s.out, /^Mneme admin: running \(maintenance\)\n/);
        assert.match(s.out, /Maintenance: .*run 'memcli reembed'/);
        const blocked = await memcliProcess(["search", "kept"], { env: menv });
        assert.equal(blocked.code, 1);
        assert.match(blocked.err, /memcli reembed/);

        const re = await memcliProcess(["reembed", "--batch-size", "1"], { env: menv });
        assert.equal(re.code, 0, re.err);
        assert.match(re.err, /^Maintenance: /);
        for (const n of [1, 2, 3]) {
          assert.match(re.err, new RegExp(`Re-embedding with builtin/\\S+: ${n}/3\\n`));
        }
        assert.match(re.out, /^Re-embedded 3 memories with builtin\/\S+ \(512 dimensions\)\.\n$/);
        const ok = await memcliProcess(["status"], { env: menv });
        assert.equal(ok.code, 0, ok.out);
        const found = await memcliProcess(["search", "kept across restarts", "--json"], {
          env: menv,
        });
        assert.equal(JSON.parse(found.out)[0].memory.content, "kept across restarts");
        // Running it again re-embeds everything again and finishes.
        const again = await memcliProcess(["reembed"], { env: menv });
        assert.equal(again.code, 0, again.err);
        assert.match(again.err, /already match the configured embedder/);
      },
    );

    await t.step("uninstall stops the daemon and keeps the data", async () => {
      const r = await memcliProcess(["uninstall"], { env });
      assert.equal(r.code, 0, r.err);
      assert.equal(
        r.out,
        `Stopped the admin daemon (pid ${pid}).\nAll data is kept in ${dataDir}; start again with 'memcli setup'.\n`,
      );
      assert.ok(!(await processAlive(pid)));
      assert.ok(!(await exists(`${dataDir}/run/admin.pid`)));
      assert.ok(await exists(`${dataDir}/db`));
      assert.ok(portIsFree(port));
      assert.match(await Deno.readTextFile(`${dataDir}/logs/admin.log`), /shutting down/);
      const again = await memcliProcess(["uninstall"], { env });
      assert.equal(again.code, 0);
      assert.match(again.out, /^No admin daemon started by memcli is running for /);
      assert.equal((await memcliProcess(["status"], { env })).code, 1);
    });

    await t.step(
      "--purge without a terminal deletes nothing, even given the exact path",
      async () => {
        const r = await memcliProcess(["uninstall", "--purge"], { env, stdin: `${dataDir}\n` });
        assert.equal(r.code, 1);
        assert.match(r.err, /--purge needs an interactive terminal to confirm; nothing deleted/);
        assert.ok(await exists(`${dataDir}/db`));
      },
    );

    await t.step("--purge in a terminal: wrong path and empty answer delete nothing", async () => {
      const wrong = await memcliInPty(["uninstall", "--purge"], `${dataDir}-typo`, { env });
      assert.equal(wrong.code, 1, wrong.output);
      assert.match(
        wrong.output,
        new RegExp(`This deletes ALL memories .*\\r?\\n {2}${dataDir}\\r?\\n`, "s"),
      );
      assert.match(wrong.output, /the answer did not match; nothing deleted/);
      assert.ok(await exists(`${dataDir}/db`));
      const empty = await memcliInPty(["uninstall", "--purge"], "", { env });
      assert.equal(empty.code, 1, empty.output);
      assert.match(empty.output, /no answer; nothing deleted/);
      assert.ok(await exists(`${dataDir}/db`));
      const partial = await memcliInPty(["uninstall", "--purge"], "data", { env });
      assert.equal(partial.code, 1, partial.output);
      assert.ok(await exists(`${dataDir}/db`));
    });

    await t.step("--purge in a terminal: the exact path deletes DATA_DIR", async () => {
      const r = await memcliInPty(["uninstall", "--purge"], dataDir, { env });
      assert.equal(r.code, 0, r.output);
      assert.match(r.output, new RegExp(`Deleted ${dataDir}\\.`));
      assert.ok(!(await exists(dataDir)));
      assert.ok(await exists(tmp.path), "only DATA_DIR itself is deleted");
    });
  } finally {
    await killDaemon(dataDir);
    await tmp.cleanup();
  }
});
