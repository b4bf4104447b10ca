/** The long-running programs start with a small V8 young generation (src/programs.ts). */
import assert from "node:assert/strict";
import { findProgram, LEAN_V8_FLAGS, SERVE_V8_FLAGS } from "../src/programs.ts";
import { ROOT } from "./helpers.ts";

const launchEnv = (name: string, vars: Record<string, string>) =>
  findProgram(name)!.launch({ env: (n) => vars[n], args: [], cwd: ROOT }).env;

Deno.test("the daemon and the MCP server get the lean V8 flags after the user's own", () => {
  for (const name of ["mneme-admin", "mneme-mcp"]) {
    assert.deepEqual(launchEnv(name, {}), { DENO_V8_FLAGS: LEAN_V8_FLAGS });
    assert.deepEqual(launchEnv(name, { HOME: "/home/you", DENO_V8_FLAGS: "--stack-size=2000" }), {
      DENO_V8_FLAGS: `--stack-size=2000,${LEAN_V8_FLAGS}`,
    });
  }
  // memcli is short-lived: V8's defaults.
  assert.deepEqual(launchEnv("memcli", {}), {});
});

Deno.test("the msgcli serve daemon gets small semi-spaces too, beside the key it is handed", () => {
  const serve = (args: string[], vars: Record<string, string>) =>
    findProgram("msgcli-serve")!.launch({ env: (n) => vars[n], args, cwd: ROOT }).env;
  assert.deepEqual(serve([], { HOME: "/home/you" }), { DENO_V8_FLAGS: SERVE_V8_FLAGS });
  assert.deepEqual(
    serve(["--auth-key", "k".repeat(32)], {
      HOME: "/home/you",
      DENO_V8_FLAGS: "--stack-size=2000",
    }),
    {
      DENO_V8_FLAGS: `--stack-size=2000,${SERVE_V8_FLAGS}`,
      MSGCLI_SERVE_KEY: "k".repeat(32),
    },
  );
});

Deno.test("the lean V8 flags are accepted by this Deno", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "console.log('ok')"],
    env: { DENO_V8_FLAGS: LEAN_V8_FLAGS },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(
    new TextDecoder().decode(out.stdout).trim(),
    "ok",
    new TextDecoder().decode(out.stderr),
  );
});
