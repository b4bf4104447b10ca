/**
 * msgcli's probe of its own daemon (`/healthz`, what `msgcli serve start|status` and `msgcli
 * run` wait for) never goes through a proxy of the environment: with `HTTP_PROXY` or
 * `ALL_PROXY` (the variable msgcli sends its API calls through) pointing at a real proxy that
 * refuses everything, a process probing a real daemon on 127.0.0.1 gets its answer and the
 * proxy sees no connection; a plain `fetch` in the same environment goes through the proxy.
 */
import assert from "node:assert/strict";
import { refusingProxy } from "../fakes/proxy.ts";
import { ROOT } from "../helpers.ts";
import { startRig } from "./helpers.ts";

/** Runs `code` in a Deno process with `vars` (and no other proxy variable); its stdout. */
async function runWith(vars: Record<string, string>, code: string): Promise<string> {
  const env: Record<string, string> = { ...vars, DENO_NO_UPDATE_CHECK: "1" };
  for (const k of ["HOME", "PATH", "DENO_DIR", "XDG_CACHE_HOME"]) {
    const v = Deno.env.get(k);
    if (v) env[k] = v;
  }
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "--config", `${ROOT}deno.json`, "--lock", `${ROOT}tests/deno.lock`, code],
    env,
    clearEnv: true,
    stdout: "piped",
    stderr: "piped",
  }).output();
  const err = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 0, err);
  return new TextDecoder().decode(out.stdout).trim();
}

Deno.test("msgcli's probe of its daemon on loopback passes by a proxy in the environment", async () => {
  const rig = await startRig({ ttlSec: 3600 });
  const proxy = refusingProxy();
  try {
    const variants: Record<string, string>[] = [{ HTTP_PROXY: proxy.url }, {
      ALL_PROXY: proxy.url,
    }];
    for (const vars of variants) {
      const label = JSON.stringify(vars);
      // The proxy is live: a plain fetch with the same variable goes through it.
      proxy.reset();
      const plain = await runWith(
        vars,
        `try { console.log((await fetch("${rig.url}/healthz")).status); } ` +
          `catch { console.log("failed"); }`,
      );
      assert.ok(plain === "502" || plain === "failed", `${label}: a plain fetch got ${plain}`);
      assert.ok(proxy.count() > 0, `${label}: the proxy saw no plain fetch`);

      proxy.reset();
      const probed = JSON.parse(
        await runWith(
          vars,
          `import { probeHealth } from "${ROOT}src/serve/control.ts";\n` +
            `console.log(JSON.stringify(await probeHealth("${rig.url}")));`,
        ),
      );
      assert.equal(probed.code, 200, `${label}: ${JSON.stringify(probed)}`);
      assert.equal(probed.body.status, "ok", label);
      assert.equal(proxy.count(), 0, `${label}: the probe went through the proxy`);
    }
  } finally {
    proxy.close();
    await rig.close();
  }
});
