/**
 * Capture end to end with the admin daemon under exactly the permissions the launcher
 * computes (src/programs.ts): `memcli capture --hook` hands a session over, the daemon reads
 * the transcript in Claude Code's transcripts folder (and refuses one elsewhere), the
 * proposals wait in the inbox (not in recall or the bootstrap), `memcli inbox` lists, edits,
 * accepts and rejects them by short id, and an accepted one is recalled. With the daemon
 * stopped the hook exits 0 with one line, and the transcript is read once it is back, from
 * where it stopped.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { denoRunArgs, findProgram } from "../../src/programs.ts";
import type { InboxItem } from "../../src/memory/inbox.ts";
import { freePort, ROOT, tempDir } from "../helpers.ts";
import {
  BETWEEN_RULE_AND_DECISION,
  DECISION_STATEMENT,
  line,
  PNPM_STATEMENT,
} from "../capture/lines.ts";
import { baseEnv, memcli, memcliProcess } from "./_util.ts";

const decoder = new TextDecoder();

/** The daemon as its task starts it: the launcher's permission flags for `env`. */
async function startDaemon(env: Record<string, string>) {
  const full = baseEnv(env);
  const launch = findProgram("start")!.launch({ env: (n) => full[n], args: [], cwd: ROOT });
  const child = new Deno.Command(Deno.execPath(), {
    args: denoRunArgs({ ...launch, args: [] }),
    env: { ...full, ...launch.env },
    clearEnv: true,
    cwd: ROOT,
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  let err = "";
  const pump = (async () => {
    for await (const c of child.stderr) err += decoder.decode(c);
  })();
  const url = `http://127.0.0.1:${env.ADMIN_PORT}`;
  for (const end = Date.now() + 60_000; Date.now() < end;) {
    try {
      const r = await fetch(`${url}/healthz`);
      await r.body?.cancel();
      if (r.status === 200) break;
    } catch { /* not yet */ }
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    stderr: () => err,
    async stop() {
      child.kill("SIGTERM");
      await child.status;
      await pump;
    },
  };
}

async function until<T>(what: string, f: () => Promise<T | undefined>): Promise<T> {
  for (const end = Date.now() + 20_000; Date.now() < end;) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`timed out waiting for ${what}`);
}

Deno.test("capture end to end: hook, daemon with its own permissions, inbox, accept, recall", async () => {
  const dir = await tempDir("mneme-inbox-e2e-");
  const claude = join(dir.path, "claude");
  const repo = join(dir.path, "app");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  await Deno.mkdir(join(repo, "src"));
  const folder = join(claude, "projects", "-app");
  await Deno.mkdir(folder, { recursive: true });
  const env = {
    DATA_DIR: join(dir.path, "data"),
    ADMIN_PORT: String(freePort()),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
    CLAUDE_CONFIG_DIR: claude,
  };
  const cli = { ...env, MEMORY_API_URL: `http://127.0.0.1:${env.ADMIN_PORT}` };
  const here = { env: cli, cwd: join(repo, "src") };
  const transcript = join(folder, "s1.jsonl");
  const hook = (path: string, session = "s1") =>
    memcliProcess(["capture", "--hook"], {
      ...here,
      stdin: JSON.stringify({
        session_id: session,
        transcript_path: path,
        cwd: join(repo, "src"),
        hook_event_name: "Stop",
      }),
    });
  const inboxJson = async () => {
    const r = await memcliProcess(["inbox", "--json"], here);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out) as InboxItem[];
  };
  let daemon = await startDaemon(env);
  try {
    await Deno.writeTextFile(
      transcript,
      line("e1", "s1", "user", "can you rename the helper in utils.ts?") +
        line("e2", "s1", "assistant", "Renamed it to formatDate.") +
        line("e3", "s1", "user", PNPM_STATEMENT),
    );
    const h = await hook(transcript);
    assert.equal(h.code, 0, h.err);
    assert.equal(h.err, "");
    const first = await until("the proposal", async () => {
      const l = await inboxJson();
      return l.length ? l : undefined;
    });
    assert.deepEqual(first.map((i) => i.content), [PNPM_STATEMENT]);
    assert.equal(first[0].project, "app", "the project as the bootstrap resolves it");
    assert.equal(first[0].source.session_id, "s1");

    // Not recalled, not in the bootstrap, while proposed.
    const rc = await memcliProcess(["recall", "should I use pnpm or npm here?"], here);
    assert.ok(!rc.out.includes("pnpm"), rc.out);

    // A transcript outside Claude Code's folder: refused (the hook says so, exits 0).
    const outside = join(dir.path, "s2.jsonl");
    await Deno.writeTextFile(outside, line("x1", "s2", "user", "Never deploy on Fridays."));
    const o = await hook(outside, "s2");
    assert.equal(o.code, 0);
    assert.match(
      o.err,
      /^memcli capture: the memory service refused the hand-over \(transcript_path: /,
    );

    // The human list, then edit, accept by the short id.
    const short = first[0].id.slice(0, 8);
    const ls = await memcliProcess(["inbox"], here);
    assert.ok(ls.out.startsWith(`${short}  project app  rule  `), ls.out);
    assert.ok(ls.out.includes("session s1"), ls.out);
    const bad = await memcliProcess(["inbox", "accept", "zz"], here);
    assert.equal(bad.code, 1);
    assert.match(bad.err, /ID: 'zz' is not a memory id/);
    const none = await memcliProcess(["inbox", "accept", "abcdef12"], here);
    assert.equal(none.code, 1);
    assert.match(none.err, /no proposal id starts with 'abcdef12'/);
    const ed = await memcliProcess(
      ["inbox", "edit", short, "Use pnpm, not npm, in this repo."],
      here,
    );
    assert.equal(ed.code, 0, ed.err);
    const acc = await memcliProcess(["inbox", "accept", short], here);
    assert.equal(acc.code, 0, acc.err);
    assert.match(
      acc.out,
      new RegExp(`^Accepted ${short} as memory \\S+ \\(project app, rule\\)\\.\\n$`),
    );
    assert.deepEqual(await inboxJson(), []);
    const rc2 = await memcliProcess(["recall", "should I use pnpm or npm here?"], here);
    assert.ok(rc2.out.includes("Use pnpm, not npm, in this repo."), rc2.out + rc2.err);

    // The daemon stops mid-session: the hook exits 0 with one line.
    await daemon.stop();
    await Deno.writeTextFile(
      transcript,
      line("e4", "s1", "user", DECISION_STATEMENT),
      { append: true },
    );
    const down = await hook(transcript);
    assert.equal(down.code, 0);
    assert.match(
      down.err,
      /^memcli capture: the memory service is not reachable .*; this session is captured later\n$/,
    );
    // Back: the next hand-over reads from the stored cursor, the new statement only.
    daemon = await startDaemon(env);
    const back = await hook(transcript);
    assert.equal(back.code, 0, back.err);
    const later = await until("the statement said while the daemon was down", async () => {
      const l = await inboxJson();
      return l.length ? l : undefined;
    });
    assert.deepEqual(later.map((i) => i.content), [DECISION_STATEMENT]);
    const rj = await memcliProcess(["inbox", "reject", later[0].id.slice(0, 8)], here);
    assert.equal(rj.code, 0, rj.err);
    assert.deepEqual(await inboxJson(), []);
    // Handed over once more: nothing new, nothing proposed again.
    await hook(transcript);
    await new Promise((r) => setTimeout(r, 500));
    assert.deepEqual(await inboxJson(), []);
  } finally {
    await daemon.stop().catch(() => {});
    await dir.cleanup();
  }
});

Deno.test("capture end to end with CAPTURE_AUTO_ACCEPT: a sure rule stored and recalled, a rejected statement not proposed again", async () => {
  const dir = await tempDir("mneme-inbox-auto-");
  const claude = join(dir.path, "claude");
  const repo = join(dir.path, "app");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  const folder = join(claude, "projects", "-app");
  await Deno.mkdir(folder, { recursive: true });
  const env = {
    DATA_DIR: join(dir.path, "data"),
    ADMIN_PORT: String(freePort()),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
    CLAUDE_CONFIG_DIR: claude,
    // Between the two statements' confidences: the rule above, the decision below.
    CAPTURE_AUTO_ACCEPT: String(BETWEEN_RULE_AND_DECISION),
  };
  const cli = { ...env, MEMORY_API_URL: `http://127.0.0.1:${env.ADMIN_PORT}` };
  const here = { env: cli, cwd: repo };
  const hook = (session: string, ...texts: string[]) => {
    const path = join(folder, `${session}.jsonl`);
    Deno.writeTextFileSync(
      path,
      texts.map((t, i) => line(`${session}-${i}`, session, "user", t)).join(""),
    );
    return memcliProcess(["capture", "--hook"], {
      ...here,
      stdin: JSON.stringify({
        session_id: session,
        transcript_path: path,
        cwd: repo,
        hook_event_name: "Stop",
      }),
    });
  };
  const inboxJson = async () => {
    const r = await memcliProcess(["inbox", "--json"], here);
    assert.equal(r.code, 0, r.err);
    return JSON.parse(r.out) as InboxItem[];
  };
  const daemon = await startDaemon(env);
  try {
    const h = await hook(
      "a1",
      PNPM_STATEMENT,
      DECISION_STATEMENT,
    );
    assert.equal(h.code, 0, h.err);
    // The pipeline proposes, then accepts what is above the floor, one candidate after the
    // other: once the decision (the second) is proposed, the rule (the first) is settled.
    const waiting = await until("the proposal", async () => {
      const l = await inboxJson();
      return l.some((i) => i.content === DECISION_STATEMENT) ? l : undefined;
    });
    // The decision (below the floor) waits; the rule (above it) was stored at once.
    assert.deepEqual(waiting.map((i) => i.content), [DECISION_STATEMENT]);
    const rc = await memcliProcess(["recall", "should I use pnpm or npm here?"], here);
    assert.ok(rc.out.includes(PNPM_STATEMENT), rc.out);
    const ls = await memcliProcess(["inbox"], here);
    assert.equal(ls.code, 0, ls.err);
    assert.match(
      ls.err,
      /Accepted automatically since \d{4}-\d\d-\d\d: 1 \(memcli inbox --accepted\)/,
    );
    const acc = await memcliProcess(["inbox", "--accepted"], here);
    assert.equal(acc.code, 0, acc.err);
    assert.match(
      acc.out,
      /^[0-9a-f]{8} {2}project app {2}rule {2}.*\n {2}From now on always use pnpm/,
    );
    // Rejected, then said again in another session: not proposed again.
    const rj = await memcliProcess(["inbox", "reject", waiting[0].id.slice(0, 8)], here);
    assert.equal(rj.code, 0, rj.err);
    await hook("a2", DECISION_STATEMENT);
    await new Promise((r) => setTimeout(r, 1000));
    assert.deepEqual(await inboxJson(), []);
    assert.match(
      daemon.stderr(),
      /capture: session a2 \(Stop\): 1 turns, 0 proposed .*1 rejected before/,
    );
  } finally {
    await daemon.stop().catch(() => {});
    await dir.cleanup();
  }
});

Deno.test("memcli inbox: usage errors before any request", async () => {
  const env = { MEMORY_API_URL: "http://127.0.0.1:9", DATA_DIR: "/nonexistent" };
  for (
    const [args, msg] of [
      [["inbox", "frobnicate"], /unknown inbox command 'frobnicate'/],
      [["inbox", "--project", "a", "--global"], /--project and --global cannot be combined/],
      [["inbox", "accept"], /ID is required/],
      [["inbox", "reject", "xyz"], /ID: 'xyz' is not a memory id/],
      [["inbox", "edit", "abcdef12"], /CONTENT is required/],
      [["inbox", "--limit", "0"], /--limit/],
      [["inbox", "--accepted", "--days", "0"], /--days/],
      [["inbox", "--days", "3"], /--days goes with --accepted/],
      [["inbox", "--accepted", "--global"], /--accepted lists every project/],
    ] as const
  ) {
    const r = await memcli([...args], { env });
    assert.notEqual(r.code, 0, args.join(" "));
    assert.match(r.err, msg, args.join(" "));
  }
});

Deno.test("inbox accept --pin: a captured rule shown at every session start, grouped by its own type", async () => {
  const dir = await tempDir("mneme-inbox-pin-");
  const claude = join(dir.path, "claude");
  const repo = join(dir.path, "app");
  await Deno.mkdir(join(repo, ".git"), { recursive: true });
  const folder = join(claude, "projects", "-app");
  await Deno.mkdir(folder, { recursive: true });
  const env = {
    DATA_DIR: join(dir.path, "data"),
    ADMIN_PORT: String(freePort()),
    ADMIN_HOST: "127.0.0.1",
    EMBEDDING_PROVIDER: "builtin",
    CLAUDE_CONFIG_DIR: claude,
  };
  const here = { env: { ...env, MEMORY_API_URL: `http://127.0.0.1:${env.ADMIN_PORT}` }, cwd: repo };
  const daemon = await startDaemon(env);
  try {
    const transcript = join(folder, "s1.jsonl");
    await Deno.writeTextFile(
      transcript,
      line("e1", "s1", "user", "can you rename the helper in utils.ts?") +
        line("e2", "s1", "assistant", "Renamed it to formatDate.") +
        line("e3", "s1", "user", PNPM_STATEMENT),
    );
    const h = await memcliProcess(["capture", "--hook"], {
      ...here,
      stdin: JSON.stringify({
        session_id: "s1",
        transcript_path: transcript,
        cwd: repo,
        hook_event_name: "Stop",
      }),
    });
    assert.equal(h.code, 0, h.err);
    const items = await until("the proposal", async () => {
      const r = await memcliProcess(["inbox", "--json"], here);
      const l = JSON.parse(r.out) as InboxItem[];
      return l.length ? l : undefined;
    });
    assert.equal(items[0].type, "rule");
    const short = items[0].id.slice(0, 8);
    // Not in the bootstrap while proposed.
    assert.ok(!(await memcliProcess(["bootstrap"], here)).out.includes(PNPM_STATEMENT));
    // A pin that is not a boolean: 400 naming the field, nothing accepted.
    const bad = await fetch(`${daemon.url}/api/inbox/${items[0].id}/accept`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ pin: "yes" }),
    });
    assert.equal(bad.status, 400);
    assert.match(await bad.text(), /pin: must be a boolean/);

    const acc = await memcliProcess(["inbox", "accept", short, "--pin"], here);
    assert.equal(acc.code, 0, acc.err);
    assert.match(
      acc.out,
      new RegExp(
        `^Accepted ${short} as memory (\\S+) \\(project app, bootstrap\\)\\.\\n` +
          "The agent sees it at every session start \\(the bootstrap of project app\\)\\.\\n$",
      ),
    );
    const id = /as memory (\S+) /.exec(acc.out)![1];
    const got = JSON.parse((await memcliProcess(["get", id, "--json"], here)).out);
    assert.equal(got.type, "bootstrap");
    assert.ok(got.tags.includes("rule"), JSON.stringify(got.tags));
    assert.ok(got.tags.includes("captured"), JSON.stringify(got.tags));
    const boot = await memcliProcess(["bootstrap"], here);
    assert.ok(boot.out.includes(`## Rules\n\n- ${PNPM_STATEMENT}\n`), boot.out);
  } finally {
    await daemon.stop().catch(() => {});
    await dir.cleanup();
  }
});
