/**
 * The inbox's review flow, run on each backend (inbox_test.ts, tests/pgserver): capture's proposals are
 * stored apart from the memories (no search, list or stats shows them), near duplicates of
 * stored memories and pending proposals are dropped, the cursor survives a restart, and
 * accept / reject / edit act as the review flow says.
 */
import assert from "node:assert/strict";
import { join } from "node:path";
import { runCapture } from "../../src/capture/pipeline.ts";
import { InboxCaptureSink } from "../../src/capture/sink.ts";
import { Inbox } from "../../src/memory/inbox.ts";
import { MemoryError } from "../../src/domain/errors.ts";
import type { SqlMemoryService } from "../../src/memory/service.ts";
import { tempDir } from "../helpers.ts";
import {
  BETWEEN_RULE_AND_DECISION,
  DECISION_STATEMENT,
  line,
  PNPM_STATEMENT,
  RULE_STATEMENT,
} from "../capture/lines.ts";

async function refused(p: Promise<unknown>, status: number, field?: string): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof MemoryError, String(err));
    assert.equal(err.status, status, err.message);
    if (field) assert.equal(err.field, field, err.message);
    return true;
  });
}

/** The whole review flow on one service. */
export async function inboxScenario(service: SqlMemoryService): Promise<void> {
  const dir = await tempDir("inbox-");
  try {
    const inbox = new Inbox(service, service.proposals());
    const project = () => Promise.resolve("web");
    const stored = await service.create({
      content: "Maria owns the billing service in services/billing",
      project: "web",
    });
    const path = join(dir.path, "s1.jsonl");
    await Deno.writeTextFile(
      path,
      line("e1", "s1", "user", "can you fix the failing login test?") +
        line("e2", "s1", "assistant", "Fixed it: the mock returned the wrong status.") +
        line("e3", "s1", "user", PNPM_STATEMENT) +
        line("e4", "s1", "user", DECISION_STATEMENT) +
        line(
          "e5",
          "s1",
          "user",
          "The billing service lives in services/billing and Maria owns it.",
        ),
    );
    const req = { sessionId: "s1", transcriptPath: path, cwd: dir.path, event: "Stop" };
    const r1 = await runCapture(req, new InboxCaptureSink(inbox), { project });
    const items = await inbox.list();
    assert.deepEqual(
      items.map((i) => i.content).sort(),
      [PNPM_STATEMENT, DECISION_STATEMENT].sort(),
      JSON.stringify(r1),
    );
    assert.equal(r1.proposed, 2);
    assert.equal(r1.duplicates, 1, "a near duplicate of a stored memory is dropped");
    for (const i of items) {
      assert.equal(i.source.session_id, "s1");
      assert.equal(i.project, "web");
      assert.ok(i.source.event_uuid === "e3" || i.source.event_uuid === "e4");
      assert.ok(Date.parse(i.captured_at) > 0);
    }
    // Proposals are not memories: no list, search or stats shows them.
    assert.deepEqual((await service.list({})).map((m) => m.id), [
      stored.memory.id,
    ]);
    assert.equal((await service.search({ query: "pnpm npm", project: "web" })).length, 0);
    assert.equal((await service.stats()).total, 1);

    // Read again (and through a new inbox, as after a restart): the cursor holds.
    const again = await runCapture(
      req,
      new InboxCaptureSink(new Inbox(service, service.proposals())),
      {
        project,
      },
    );
    assert.equal(again.turns, 0);
    assert.equal(again.proposed, 0);
    // A second identical session: its statements are near duplicates of pending proposals.
    const path2 = join(dir.path, "s2.jsonl");
    await Deno.writeTextFile(path2, (await Deno.readTextFile(path)).replaceAll('"s1"', '"s2"'));
    const second = await runCapture(
      { ...req, sessionId: "s2", transcriptPath: path2 },
      new InboxCaptureSink(inbox),
      { project },
    );
    assert.equal(second.proposed, 0, JSON.stringify(second));
    assert.equal((await inbox.list()).length, 2);

    // Short ids: the list's id_prefix filter.
    const pnpm = items.find((i) => i.content.includes("pnpm"))!;
    const mongo = items.find((i) => i.content.includes("Mongo"))!;
    assert.deepEqual(
      (await inbox.list({ id_prefix: pnpm.id.slice(0, 8) })).map((i) => i.id),
      [pnpm.id],
    );

    // Edit: validated as an update, nothing changed when refused.
    await refused(inbox.edit(pnpm.id, { content: "" }), 400, "content");
    await refused(inbox.edit(pnpm.id, { content: "x", type: "rule" }), 400, "type");
    await refused(
      inbox.edit(pnpm.id, { content: "use pnpm; token ghp_abcdefghijklmnopqrstuvwxyz0123456789" }),
      400,
      "content",
    );
    await refused(inbox.edit("nope", { content: "x" }), 400, "id");
    assert.equal((await inbox.get(pnpm.id)).content, pnpm.content);
    const edited = await inbox.edit(pnpm.id, { content: "Use pnpm, not npm, in this repo." });
    assert.equal(edited.content, "Use pnpm, not npm, in this repo.");

    // Accept: the memory is created through the create path; the proposal is gone.
    await refused(inbox.accept(pnpm.id, { supersede: "yes" }), 400, "supersede");
    await refused(inbox.accept(pnpm.id, { other: 1 }), 400, "other");
    const acc = await inbox.accept(pnpm.id);
    assert.equal(acc.memory.content, "Use pnpm, not npm, in this repo.");
    assert.equal(acc.memory.project, "web");
    assert.deepEqual(acc.memory.tags, ["captured"]);
    assert.equal(acc.memory.type, pnpm.type);
    await refused(inbox.get(pnpm.id), 404);
    await refused(inbox.accept(pnpm.id), 404);
    const hits = await service.search({ query: "pnpm npm", project: "web" });
    assert.deepEqual(hits.map((h) => h.memory.id), [acc.memory.id]);

    // Reject: removed, never a memory.
    assert.deepEqual(await inbox.reject(mongo.id), { rejected: mongo.id });
    await refused(inbox.reject(mongo.id), 404);
    assert.equal((await inbox.list()).length, 0);
    assert.equal((await service.stats()).total, 2);

    // A replacement: accepting supersedes the stored memory in the insert's transaction.
    const rep = await inbox.propose({
      content: "Tom owns the billing service now",
      type: "fact",
      project: "web",
      sessionId: "s3",
      confidence: 0.8,
      replaces: stored.memory.id,
    });
    const [shown] = await inbox.list();
    assert.equal(shown.replaces?.id, stored.memory.id, "the replaced memory is shown beside it");
    assert.equal(shown.replaces?.content, stored.memory.content);
    const acc2 = await inbox.accept(rep.id);
    assert.equal(acc2.superseded, stored.memory.id);
    assert.equal((await service.get(stored.memory.id)).superseded_by, acc2.memory.id);

    // A replacement whose target was superseded since: refused, nothing written, then
    // accepted without superseding.
    const rep2 = await inbox.propose({
      content: "Ann owns the billing service now",
      type: "fact",
      project: "web",
      sessionId: "s3",
      confidence: 0.8,
      replaces: stored.memory.id,
    });
    const before = (await service.stats()).total;
    await refused(inbox.accept(rep2.id), 409, "supersede");
    assert.equal((await service.stats()).total, before);
    assert.equal((await inbox.list()).length, 1);
    const acc3 = await inbox.accept(rep2.id, { supersede: false });
    assert.equal(acc3.superseded, undefined);

    // A proposal with a secret is refused by the inbox itself (defence in depth).
    await refused(
      inbox.propose({
        content: "the deploy token is ghp_abcdefghijklmnopqrstuvwxyz0123456789 for CI",
        type: "fact",
        project: "web",
        sessionId: "s4",
        confidence: 0.7,
      }),
      400,
      "content",
    );
    assert.equal(await inbox.count(), 0);
  } finally {
    await dir.cleanup();
  }
}

/**
 * Rejection is remembered: a rejected proposal leaves a tombstone, and the same statement said
 * again (in another session, in other words close enough) is dropped and counted as
 * `rejectedBefore`; another project is not affected, and a bulk delete of the project's
 * memories removes its tombstones.
 */
export async function rejectionScenario(service: SqlMemoryService): Promise<void> {
  const dir = await tempDir("inbox-reject-");
  try {
    const inbox = new Inbox(service, service.proposals());
    const say = async (session: string, project: string, ...texts: string[]) => {
      const path = join(dir.path, `${session}.jsonl`);
      await Deno.writeTextFile(
        path,
        texts.map((t, i) => line(`${session}-e${i}`, session, "user", t)).join(""),
      );
      return await runCapture(
        { sessionId: session, transcriptPath: path, cwd: dir.path, event: "Stop" },
        new InboxCaptureSink(inbox),
        { project: () => Promise.resolve(project) },
      );
    };
    const r1 = await say("r1", "web", PNPM_STATEMENT);
    assert.equal(r1.proposed, 1, JSON.stringify(r1));
    const [item] = await inbox.list();
    await inbox.reject(item.id);
    assert.equal(await inbox.count(), 0);

    // Said again, in another session, nearly the same words: not proposed, counted.
    const r2 = await say(
      "r2",
      "web",
      "From now on, always use pnpm and not npm in this repo (see package.json)!",
    );
    assert.equal(r2.proposed, 0, JSON.stringify(r2));
    assert.equal(r2.rejectedBefore, 1, JSON.stringify(r2));
    assert.equal(r2.duplicates, 0);
    assert.equal(await inbox.count(), 0);
    assert.equal((await service.list({})).length, 0, "nothing stored either");
    // Something else in the same session is still proposed.
    const r3 = await say("r3", "web", "We chose Postgres over Mongo because we need joins.");
    assert.equal(r3.proposed, 1);

    // The tombstone holds in its project (and below global ones), not in another project.
    const other = await say("r4", "api", PNPM_STATEMENT);
    assert.equal(other.proposed, 1, JSON.stringify(other));
    assert.equal(other.rejectedBefore, 0);

    // A project's data deleted: its tombstones go with it.
    await service.create({ content: "The web app is deployed on Fridays", project: "web" });
    await service.deleteMany({ project: "web" });
    assert.deepEqual(await inbox.rejections("web"), []);
    const r5 = await say("r5", "web", PNPM_STATEMENT);
    // Not a tombstone any more; the pending proposal of project api is not of web's hierarchy.
    assert.equal(r5.rejectedBefore, 0, JSON.stringify(r5));
    assert.equal(r5.proposed, 1, JSON.stringify(r5));
  } finally {
    await dir.cleanup();
  }
}

/**
 * Auto-accept: with a floor, a sure proposal is stored at once as a memory (tags `captured`,
 * `auto-accepted`) and recalled; a less sure one and one whose secret was replaced by a marker
 * wait in the inbox; the inbox counts what was accepted automatically.
 */
export async function autoAcceptScenario(service: SqlMemoryService): Promise<void> {
  const dir = await tempDir("inbox-auto-");
  try {
    const inbox = new Inbox(service, service.proposals());
    const path = join(dir.path, "a1.jsonl");
    await Deno.writeTextFile(
      path,
      line("a1", "a1", "user", PNPM_STATEMENT) +
        line("a2", "a1", "user", DECISION_STATEMENT) +
        line(
          "a3",
          "a1",
          "user",
          // A sure rule (0.94 in 0.19, above the floor): it waits all the same, for its secret.
          "From now on always deploy the docs site from CI with the preview token " +
            "ghp_abcdefghijklmnopqrstuvwxyz0123456789.",
        ),
    );
    const r = await runCapture(
      { sessionId: "a1", transcriptPath: path, cwd: dir.path, event: "Stop" },
      new InboxCaptureSink(inbox),
      { project: () => Promise.resolve("web"), autoAccept: BETWEEN_RULE_AND_DECISION },
    );
    assert.equal(r.proposed, 3, JSON.stringify(r));
    assert.equal(r.autoAccepted, 1, JSON.stringify(r));
    const stored = await service.list({});
    assert.equal(stored.length, 1);
    assert.equal(stored[0].content, PNPM_STATEMENT);
    assert.deepEqual(stored[0].tags, ["captured", "auto-accepted"]);
    assert.equal(stored[0].project, "web");
    const hits = await service.search({ query: "should I use pnpm or npm?", project: "web" });
    assert.equal(hits[0]?.memory.id, stored[0].id, "the accepted rule is recalled");
    // The less sure one and the one with a secret removed wait for a human.
    const waiting = (await inbox.list()).map((i) => i.content).sort();
    assert.equal(waiting.length, 2);
    assert.ok(waiting.some((t) => t.includes("[secret removed")), waiting.join(" | "));
    assert.ok(waiting.some((t) => t.startsWith("We chose Postgres")), waiting.join(" | "));
    // The inbox counts them.
    const a = await inbox.autoAccepted();
    assert.equal(a.count, 1);
    assert.deepEqual(a.memories.map((m) => m.id), [stored[0].id]);
    await refused(inbox.autoAccepted({ days: "0" }), 400, "days");
    await refused(inbox.autoAccepted({ other: "1" }), 400, "other");
    // Auto-accept off (the default): everything waits.
    const path2 = join(dir.path, "a2.jsonl");
    await Deno.writeTextFile(
      path2,
      line("b1", "a2", "user", RULE_STATEMENT),
    );
    const off = await runCapture(
      { sessionId: "a2", transcriptPath: path2, cwd: dir.path, event: "Stop" },
      new InboxCaptureSink(inbox),
      { project: () => Promise.resolve("web") },
    );
    assert.equal(off.proposed, 1, JSON.stringify(off));
    assert.equal(off.autoAccepted, 0);
    assert.equal((await service.list({})).length, 1);
  } finally {
    await dir.cleanup();
  }
}
