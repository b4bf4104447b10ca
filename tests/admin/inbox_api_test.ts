/**
 * `/api/inbox` and `POST /api/capture` as the daemon mounts them: every bad input refused with
 * the field named and nothing written; a transcript outside Claude Code's transcripts folder
 * (or a link out of it) refused; a hand-over captured into the inbox, never into memories;
 * accept, edit and reject over HTTP.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { createAdminApp } from "../../src/admin/app.ts";
import { CaptureQueue } from "../../src/capture/route.ts";
import { InboxCaptureSink } from "../../src/capture/sink.ts";
import { Inbox } from "../../src/memory/inbox.ts";
import { pgliteService, tempDir } from "../helpers.ts";
import { line } from "../capture/lines.ts";

const LOCAL = { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 } };

Deno.test("inbox API: capture into the inbox, list, edit, accept, reject; bad input refused", async () => {
  const s = await pgliteService();
  const dir = await tempDir("inbox-api-");
  try {
    const transcripts = join(dir.path, "projects");
    await Deno.mkdir(join(transcripts, "-work-web"), { recursive: true });
    const path = join(transcripts, "-work-web", "s1.jsonl");
    await Deno.writeTextFile(
      path,
      line("e1", "s1", "user", "please rename the helper in utils.ts") +
        line(
          "e2",
          "s1",
          "user",
          "From now on always use pnpm, not npm, in this repo (see package.json).",
        ) +
        line("e3", "s1", "user", "We chose Postgres over Mongo because we need joins."),
    );
    const outside = join(dir.path, "elsewhere.jsonl");
    await Deno.writeTextFile(outside, line("x1", "s9", "user", "Never deploy on Fridays."));
    await Deno.symlink(outside, join(transcripts, "-work-web", "link.jsonl"));
    const inbox = new Inbox(s.service, s.service.proposals());
    const queue = new CaptureQueue(new InboxCaptureSink(inbox));
    const app = createAdminApp({
      service: s.service,
      capture: queue,
      transcriptsDir: transcripts,
      inbox,
      ui: false,
    });
    const call = async (method: string, p: string, body?: unknown) => {
      const raw = body === undefined
        ? undefined
        : typeof body === "string"
        ? body
        : JSON.stringify(body);
      const r = await app.request(`http://localhost${p}`, {
        method,
        headers: raw === undefined ? {} : { "content-type": "application/json" },
        body: raw,
      }, LOCAL);
      const text = await r.text();
      return { status: r.status, json: text ? JSON.parse(text) : undefined };
    };
    const hand = {
      session_id: "s1",
      transcript_path: path,
      cwd: "/work/web",
      hook_event_name: "Stop",
    };
    // Refused: outside the folder, a way out with "..", a link out, a bad project.
    for (
      const [body, field] of [
        [{ ...hand, transcript_path: outside }, "transcript_path"],
        [{ ...hand, transcript_path: `${transcripts}/../elsewhere.jsonl` }, "transcript_path"],
        [
          { ...hand, transcript_path: join(transcripts, "-work-web", "link.jsonl") },
          "transcript_path",
        ],
        [
          { ...hand, transcript_path: join(transcripts, "-work-web", "none.jsonl") },
          "transcript_path",
        ],
        [{ ...hand, project: 7 }, "project"],
        [{ ...hand, project: " " }, "project"],
      ] as const
    ) {
      const r = await call("POST", "/api/capture", body);
      assert.equal(r.status, 400, JSON.stringify(r.json));
      assert.equal(r.json.field, field);
      assert.match(r.json.error, new RegExp(`^${field}: `));
    }
    await queue.idle();
    assert.equal((await call("GET", "/api/inbox")).json.length, 0, "nothing read for bad input");

    // Captured: the project memcli resolved is used; proposals in the inbox, not in memories.
    assert.equal((await call("POST", "/api/capture", { ...hand, project: "web" })).status, 202);
    await queue.idle();
    const list = (await call("GET", "/api/inbox")).json;
    assert.equal(list.length, 2);
    for (const item of list) {
      assert.equal(item.project, "web");
      assert.equal(item.source.session_id, "s1");
      assert.equal(typeof item.captured_at, "string");
      assert.equal(item.replaces, null);
    }
    assert.deepEqual((await call("GET", "/api/memories")).json, []);

    // List filters are validated like the memories' list.
    for (
      const [q, field] of [
        ["?limit=0", "limit"],
        ["?id_prefix=zz", "id_prefix"],
        ["?colour=red", "colour"],
        ["?type=nonsense", "type"],
      ]
    ) {
      const r = await call("GET", `/api/inbox${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.field, field, q);
    }
    const pnpm = list.find((i: { content: string }) => i.content.includes("pnpm"));
    const mongo = list.find((i: { content: string }) => i.content.includes("Mongo"));
    assert.deepEqual(
      (await call("GET", `/api/inbox?id_prefix=${pnpm.id.slice(0, 8)}`)).json.map((
        i: { id: string },
      ) => i.id),
      [pnpm.id],
    );

    // Edit, accept and reject refuse bad input with nothing changed.
    for (
      const [method, p, body, status, field] of [
        ["PUT", `/api/inbox/${pnpm.id}`, { content: "" }, 400, "content"],
        ["PUT", `/api/inbox/${pnpm.id}`, { text: "x" }, 400, "text"],
        ["PUT", `/api/inbox/${pnpm.id}`, "{", 400, "body"],
        ["PUT", "/api/inbox/not-a-uuid", { content: "x" }, 400, "id"],
        ["POST", `/api/inbox/${pnpm.id}/accept`, { supersede: 1 }, 400, "supersede"],
        ["POST", `/api/inbox/${pnpm.id}/accept`, { pin: "yes" }, 400, "pin"],
        ["POST", `/api/inbox/${pnpm.id}/accept`, [], 400, "body"],
        ["POST", `/api/inbox/${pnpm.id}/reject`, { why: "no" }, 400, "body"],
        [
          "POST",
          "/api/inbox/00000000-0000-4000-8000-000000000000/accept",
          undefined,
          404,
          "id",
        ],
      ] as const
    ) {
      const r = await call(method, p, body);
      assert.equal(r.status, status, `${method} ${p} ${JSON.stringify(r.json)}`);
      assert.equal(r.json.field, field, `${method} ${p}`);
    }
    assert.equal((await call("GET", `/api/inbox/${pnpm.id}`)).json.content, pnpm.content);
    assert.equal((await call("DELETE", `/api/inbox/${pnpm.id}`)).status, 405);

    const edited = await call("PUT", `/api/inbox/${pnpm.id}`, { content: "Use pnpm, not npm." });
    assert.equal(edited.status, 200);
    assert.equal(edited.json.content, "Use pnpm, not npm.");
    const acc = await call("POST", `/api/inbox/${pnpm.id}/accept`);
    assert.equal(acc.status, 201, JSON.stringify(acc.json));
    assert.equal(acc.json.memory.content, "Use pnpm, not npm.");
    const rej = await call("POST", `/api/inbox/${mongo.id}/reject`);
    assert.deepEqual(rej.json, { rejected: mongo.id });
    // What capture accepted automatically (nothing here: auto-accept is off).
    const auto = await call("GET", "/api/inbox/accepted");
    assert.equal(auto.status, 200, JSON.stringify(auto.json));
    assert.equal(auto.json.count, 0);
    assert.deepEqual(auto.json.memories, []);
    assert.ok(Date.parse(auto.json.since) < Date.now());
    for (const [q, field] of [["days=0", "days"], ["limit=x", "limit"], ["tag=a", "tag"]]) {
      const r = await call("GET", `/api/inbox/accepted?${q}`);
      assert.equal(r.status, 400, q);
      assert.equal(r.json.field, field, q);
    }
    assert.equal((await call("PUT", "/api/inbox/accepted", { content: "x" })).status, 405);
    assert.deepEqual((await call("GET", "/api/inbox")).json, []);
    const mems = (await call("GET", "/api/memories")).json;
    assert.deepEqual(mems.map((m: { content: string }) => m.content), ["Use pnpm, not npm."]);
  } finally {
    await dir.cleanup();
    await s.close();
  }
});
