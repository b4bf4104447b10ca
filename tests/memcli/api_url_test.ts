/** Where memcli looks for the Admin API when MEMORY_API_URL is not set. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { apiUrlOf, configOf } from "../../src/memcli/context.ts";
import { clientUrl } from "../../src/common/net.ts";
import { tempDir } from "../helpers.ts";
import { captureIo } from "./_util.ts";

Deno.test("clientUrl: a wildcard bind is reached on loopback, IPv6 in brackets", () => {
  assert.equal(clientUrl("0.0.0.0", 4200), "http://127.0.0.1:4200");
  assert.equal(clientUrl("", 1), "http://127.0.0.1:1");
  assert.equal(clientUrl("::", 8787), "http://[::1]:8787");
  assert.equal(clientUrl("[::]", 8787), "http://[::1]:8787");
  assert.equal(clientUrl("::1", 5), "http://[::1]:5");
  assert.equal(clientUrl("127.0.0.2", 6), "http://127.0.0.2:6");
  assert.equal(clientUrl("localhost", 7), "http://localhost:7");
});

Deno.test("apiUrlOf: MEMORY_API_URL, else the daemon's state, else ADMIN_HOST:ADMIN_PORT", async () => {
  const dir = await tempDir();
  const at = async (env: Record<string, string>) => {
    const io = captureIo({ env: { DATA_DIR: join(dir.path, "data"), ...env } });
    return await apiUrlOf(io, configOf(io));
  };
  assert.deepEqual(await at({}), { url: "http://127.0.0.1:4200", source: "default" });
  assert.deepEqual(await at({ ADMIN_PORT: "4300" }), {
    url: "http://127.0.0.1:4300",
    source: "default",
  });
  assert.deepEqual(await at({ ADMIN_PORT: "4301", ADMIN_HOST: "0.0.0.0" }), {
    url: "http://127.0.0.1:4301",
    source: "default",
  });
  assert.deepEqual(await at({ ADMIN_PORT: "4302", ADMIN_HOST: "::1" }), {
    url: "http://[::1]:4302",
    source: "default",
  });
  // Any free port: nothing to guess.
  assert.deepEqual(await at({ ADMIN_PORT: "0" }), {
    url: "http://127.0.0.1:4200",
    source: "default",
  });
  assert.deepEqual(await at({ ADMIN_PORT: "4300", MEMORY_API_URL: "http://127.0.0.1:9/" }), {
    url: "http://127.0.0.1:9",
    source: "env",
  });
  await dir.cleanup();
});
