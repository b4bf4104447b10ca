/** The long-running programs start with a small V8 young generation (src/programs.ts). */
import assert from "node:assert/strict";
import {
  ADMIN_MALLOC_TUNABLES,
  ADMIN_V8_FLAGS,
  DATABASE_CREATOR_ENV,
  findProgram,
  LEAN_V8_FLAGS,
  SERVE_V8_FLAGS,
} from "../src/programs.ts";
import { ROOT, startAdminProcess, tempDir } from "./helpers.ts";

const launchEnv = (name: string, vars: Record<string, string>) =>
  findProgram(name)!.launch({ env: (n) => vars[n], args: [], cwd: ROOT }).env;

Deno.test("the MCP server gets the lean V8 flags after the user's own", () => {
  assert.deepEqual(launchEnv("mneme-mcp", {}), { DENO_V8_FLAGS: LEAN_V8_FLAGS });
  assert.deepEqual(
    launchEnv("mneme-mcp", { HOME: "/home/you", DENO_V8_FLAGS: "--stack-size=2000" }),
    { DENO_V8_FLAGS: `--stack-size=2000,${LEAN_V8_FLAGS}` },
  );
  // memcli is short-lived: V8's defaults.
  assert.deepEqual(launchEnv("memcli", {}), {});
});

Deno.test("the admin daemon: the lean V8 flags, optimize-for-size, and blocks of 32 KiB mapped on their own", () => {
  assert.equal(ADMIN_V8_FLAGS, `${LEAN_V8_FLAGS},--optimize-for-size`);
  assert.equal(ADMIN_MALLOC_TUNABLES, "glibc.malloc.mmap_threshold=32768");
  assert.deepEqual(launchEnv("mneme-admin", {}), {
    DENO_V8_FLAGS: ADMIN_V8_FLAGS,
    GLIBC_TUNABLES: ADMIN_MALLOC_TUNABLES,
  });
  // The user's V8 flags come first (ours win); their allocator settings last (theirs win).
  assert.deepEqual(
    launchEnv("mneme-admin", {
      DENO_V8_FLAGS: "--stack-size=2000",
      GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=65536",
    }),
    {
      DENO_V8_FLAGS: `--stack-size=2000,${ADMIN_V8_FLAGS}`,
      GLIBC_TUNABLES: `${ADMIN_MALLOC_TUNABLES}:glibc.malloc.mmap_threshold=65536`,
    },
  );
});

Deno.test("the admin daemon's allocator setting reaches glibc: a freed 64 KiB block leaves the heap", async () => {
  if (Deno.build.os !== "linux") return;
  // A process holding 200 blocks of 64 KiB: with the setting each is a mapping of its own
  // (and none is in the brk heap); without it they are carved from the heap.
  const code = String.raw`const keep = [];
    for (let i = 0; i < 200; i++) keep.push(new Uint8Array(65536).fill(1));
    let inHeap = false, kb = 0;
    for (const l of Deno.readTextFileSync("/proc/self/smaps").split("\n")) {
      if (/^[0-9a-f]+-/.test(l)) inHeap = l.endsWith("[heap]");
      else if (inHeap && l.startsWith("Rss:")) kb += parseInt(l.slice(4));
    }
    console.log(kb, keep.length);`;
  const heapKb = async (env: Record<string, string>) => {
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["eval", code],
      env,
      stdout: "piped",
      stderr: "piped",
    }).output();
    assert.equal(out.code, 0, new TextDecoder().decode(out.stderr));
    return Number(new TextDecoder().decode(out.stdout).split(" ")[0]);
  };
  const [plain, tuned] = await Promise.all([
    heapKb({ GLIBC_TUNABLES: "glibc.malloc.mmap_threshold=1048576" }),
    heapKb({ GLIBC_TUNABLES: ADMIN_MALLOC_TUNABLES }),
  ]);
  assert.ok(plain - tuned > 8 * 1024, `heap: ${plain} KiB plain, ${tuned} KiB with the setting`);
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

Deno.test("the lean and the admin V8 flags are accepted by this Deno", async () => {
  for (const flags of [LEAN_V8_FLAGS, ADMIN_V8_FLAGS]) await accepted(flags);
});

async function accepted(flags: string) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["eval", "console.log('ok')"],
    env: { DENO_V8_FLAGS: flags },
    stdout: "piped",
    stderr: "piped",
  }).output();
  assert.equal(
    new TextDecoder().decode(out.stdout).trim(),
    "ok",
    new TextDecoder().decode(out.stderr),
  );
}

Deno.test({
  name: "the database creator runs without the admin daemon's additions (its initdb peaked higher)",
  ignore: Deno.build.os !== "linux",
  fn: async () => {
    assert.deepEqual(DATABASE_CREATOR_ENV, { DENO_V8_FLAGS: LEAN_V8_FLAGS, GLIBC_TUNABLES: "" });
    // The daemon as the launcher starts it; its child, seen in /proc while it creates the
    // database, has the creator's environment. Only this daemon's creator counts: other tests
    // (and other runs on the machine) start creators of their own, found by their data dir.
    const dir = await tempDir("mneme-lean-");
    const dataDir = `${dir.path}/data`;
    let seen: Record<string, string> | null = null;
    let looking = true;
    const watch = (async () => {
      while (looking && !seen) {
        for await (const e of Deno.readDir("/proc")) {
          if (!/^\d+$/.test(e.name)) continue;
          try {
            const cmd = await Deno.readTextFile(`/proc/${e.name}/cmdline`);
            if (!cmd.includes("src/bin/initdb.ts") || !cmd.includes(dataDir)) continue;
            const raw = await Deno.readTextFile(`/proc/${e.name}/environ`);
            seen = Object.fromEntries(
              raw.split("\0").filter((kv) => kv.includes("=")).map((kv) => {
                const at = kv.indexOf("=");
                return [kv.slice(0, at), kv.slice(at + 1)];
              }),
            );
            break;
          } catch { /* gone meanwhile */ }
        }
        await new Promise((r) => setTimeout(r, 20));
      }
    })();
    const admin = await startAdminProcess({ env: launchEnv("mneme-admin", {}), dataDir });
    try {
      looking = false;
      await watch;
      assert.ok(seen, "the database creator was seen");
      const env = seen as Record<string, string>;
      assert.equal(env.DENO_V8_FLAGS, LEAN_V8_FLAGS);
      assert.equal(env.GLIBC_TUNABLES, "");
    } finally {
      await admin.stop();
      await dir.cleanup();
    }
  },
});
