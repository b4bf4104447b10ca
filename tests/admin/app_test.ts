/**
 * The Admin API through `app.request()` (no port): every endpoint's status codes and
 * bodies, `{error, field?}` on every error, auth, the Host check, security headers, the export
 * attachment and the static UI.
 */
import assert from "node:assert/strict";
import { createAdminApp, createStartingApp, CSP } from "../../src/admin/app.ts";
import { type Memory, MEMORY_TYPES, type MemoryService } from "../../src/memory/types.ts";
import { MAX_CONTENT } from "../../src/memory/validate.ts";
import { VERSION } from "../../src/version.ts";
import { pgliteService } from "../helpers.ts";

type App = ReturnType<typeof createAdminApp>;

/** What `Deno.serve` passes for a caller on this machine (`/healthz` shows it everything). */
const LOCAL = { remoteAddr: { transport: "tcp", hostname: "127.0.0.1", port: 40000 } };

interface Answer {
  status: number;
  headers: Headers;
  text: string;
  // deno-lint-ignore no-explicit-any
  json: any;
}

async function call(
  app: App,
  method: string,
  path: string,
  opts: { body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const body = opts.raw ?? (opts.body === undefined ? undefined : JSON.stringify(opts.body));
  const res = await app.request(`http://localhost${path}`, {
    method,
    headers: {
      ...(body !== undefined ? { "content-type": "application/json" } : {}),
      ...opts.headers,
    },
    body,
  }, LOCAL);
  const text = await res.text();
  let json: unknown = undefined;
  try {
    json = JSON.parse(text);
  } catch { /* not JSON */ }
  return { status: res.status, headers: res.headers, text, json };
}

/**
 * An error answer: the status, a JSON `{error, field?}` body and the CSP header. A `field`
 * is the one the message starts with (`weight: ...`), or `id` for an unknown memory.
 */
function isError(a: Answer, status: number, includes = ""): void {
  assert.equal(a.status, status, a.text);
  const keys = Object.keys(a.json ?? {});
  assert.ok(
    keys.length === 1 && keys[0] === "error" ||
      keys.length === 2 && keys[0] === "error" && keys[1] === "field",
    a.text,
  );
  assert.equal(typeof a.json.error, "string");
  if (keys.length === 2) {
    assert.equal(typeof a.json.field, "string", a.text);
    if (status === 404) assert.equal(a.json.field, "id", a.text);
    else assert.ok(a.json.error.startsWith(`${a.json.field}: `), a.text);
  }
  assert.ok(a.json.error.includes(includes), `"${a.json.error}" should include "${includes}"`);
  assert.match(a.headers.get("content-type") ?? "", /application\/json/);
}

Deno.test({
  name: "Admin API over app.request()",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const { service, db, close } = await pgliteService({ embeddingDim: 32 });
    const logs: string[] = [];
    const app = createAdminApp({ service, log: (l) => logs.push(l) });
    const count = async () =>
      Number((await db.query<{ n: number }>("select count(*)::int as n from memories"))[0].n);
    const reset = () => db.exec("delete from memories");
    try {
      await t.step("GET /healthz", async () => {
        const a = await call(app, "GET", "/healthz");
        assert.equal(a.status, 200);
        assert.equal(a.json.status, "ok");
        assert.equal(a.json.version, VERSION);
        assert.equal(a.json.database.kind, "pglite");
        assert.equal(a.json.database.ok, true);
        assert.equal(typeof a.json.database.size_bytes, "number");
        assert.deepEqual(a.json.embedder, {
          provider: "builtin",
          model: "hash-v2",
          dimension: 32,
          ok: true,
        });
        assert.deepEqual(a.json.stored_embedder, {
          provider: "builtin",
          model: "hash-v2",
          dimension: 32,
        });
        assert.equal(a.headers.get("content-security-policy"), CSP);
        assert.equal(a.headers.get("x-content-type-options"), "nosniff");
        assert.equal(a.headers.get("x-frame-options"), "DENY");
        isError(await call(app, "POST", "/healthz"), 405);
        assert.equal((await call(app, "POST", "/healthz")).headers.get("allow"), "GET");
      });

      await t.step(
        "POST /api/memories: 201 with the create response; 400s write nothing",
        async () => {
          await reset();
          const a = await call(app, "POST", "/api/memories", {
            body: { content: "Deploys run on Fridays", project: "web", tags: ["ops"] },
          });
          assert.equal(a.status, 201);
          assert.deepEqual(Object.keys(a.json), ["memory"]);
          assert.equal(a.json.memory.scope, "project");
          assert.equal(a.json.memory.project, "web");
          assert.equal(a.json.memory.type, "fact");
          const dup = await call(app, "POST", "/api/memories", {
            body: { content: "Deploys run on Fridays!", project: "web" },
          });
          assert.equal(dup.status, 201);
          assert.equal(dup.json.contradictions.length, 1);
          assert.equal(dup.json.contradictions[0].memory.id, a.json.memory.id);
          assert.ok(dup.json.contradictions[0].similarity > 0.75);
          const bad: [string | undefined, unknown, string][] = [
            ["{not json", undefined, "body: is not valid JSON"],
            ["", undefined, "body: is required"],
            [undefined, [], "body:"],
            [undefined, { content: "x", weight: 5 }, "weight: must be between 0.1 and 1.0"],
            [undefined, { content: "x", scope: "team" }, "scope:"],
            [undefined, { content: "x", type: "note" }, "type:"],
            [undefined, { content: "x", scope: "project" }, "project:"],
            [undefined, { content: "" }, "content:"],
            [undefined, { content: "x", supersedes: "abc" }, "supersedes: must be a UUID"],
            [undefined, { content: "x", supersedes: crypto.randomUUID() }, "supersedes:"],
            [undefined, { content: "x", ttl: "1y" }, "ttl:"],
            [undefined, { content: "x", extra: true }, "extra: unknown field"],
            [undefined, { content: ["x"] }, "content:"],
          ];
          for (const [raw, body, msg] of bad) {
            isError(await call(app, "POST", "/api/memories", { raw, body }), 400, msg);
          }
          assert.equal(await count(), 2, "nothing written by the bad requests");
        },
      );

      await t.step("GET /api/memories with query filters; GET /api/stats", async () => {
        await reset();
        for (
          const [content, project, type] of [["a", "web", "fact"], ["b", "web", "rule"], [
            "c",
            "",
            "fact",
          ]]
        ) {
          await call(app, "POST", "/api/memories", {
            body: { content: `memory ${content}`, project, type },
          });
        }
        const all = await call(app, "GET", "/api/memories");
        assert.equal(all.status, 200);
        assert.equal(all.json.length, 3);
        const web = await call(app, "GET", "/api/memories?scope=project&project=web&type=rule");
        assert.deepEqual(web.json.map((m: Memory) => m.content), ["memory b"]);
        assert.equal((await call(app, "GET", "/api/memories?limit=1")).json.length, 1);
        isError(await call(app, "GET", "/api/memories?limit=abc"), 400, "limit:");
        isError(await call(app, "GET", "/api/memories?limit=1001"), 400, "limit:");
        isError(await call(app, "GET", "/api/memories?limit=1&limit=2"), 400, "limit:");
        isError(await call(app, "GET", "/api/memories?scope=team"), 400, "scope:");
        isError(await call(app, "GET", "/api/memories?sort=asc"), 400, "sort:");
        const stats = await call(app, "GET", "/api/stats");
        assert.equal(stats.status, 200);
        assert.deepEqual(stats.json, {
          total: 3,
          live: 3,
          superseded: 0,
          by_scope: { project: 2, global: 1 },
          by_project: { web: 2 },
          by_type: { fact: 2, rule: 1 },
        });
      });

      await t.step("GET, PUT, DELETE /api/memories/:id", async () => {
        await reset();
        const m = (await call(app, "POST", "/api/memories", { body: { content: "first" } })).json
          .memory as Memory;
        const got = await call(app, "GET", `/api/memories/${m.id}`);
        assert.equal(got.status, 200);
        assert.deepEqual(got.json, m);
        const missing = crypto.randomUUID();
        isError(await call(app, "GET", `/api/memories/${missing}`), 404, missing);
        isError(await call(app, "GET", "/api/memories/not-a-uuid"), 400, "id: must be a UUID");
        const put = await call(app, "PUT", `/api/memories/${m.id}`, {
          body: { content: "second" },
        });
        assert.equal(put.status, 200);
        assert.equal(put.json.content, "second");
        assert.ok(put.json.updated_at >= m.updated_at);
        isError(
          await call(app, "PUT", `/api/memories/${m.id}`, { body: { content: "x", tags: [] } }),
          400,
          "tags: unknown field",
        );
        isError(await call(app, "PUT", `/api/memories/${m.id}`, { raw: "{" }), 400, "body:");
        isError(
          await call(app, "PUT", `/api/memories/${missing}`, { body: { content: "x" } }),
          404,
        );
        assert.equal((await call(app, "GET", `/api/memories/${m.id}`)).json.content, "second");
        const del = await call(app, "DELETE", `/api/memories/${m.id}`);
        assert.equal(del.status, 200);
        assert.deepEqual(del.json, { ok: true });
        isError(await call(app, "DELETE", `/api/memories/${m.id}`), 404);
        isError(await call(app, "DELETE", "/api/memories/xyz"), 400, "id:");
      });

      await t.step("DELETE /api/memories with filters", async () => {
        await reset();
        for (const project of ["web", "web", "api", ""]) {
          await call(app, "POST", "/api/memories", { body: { content: `in ${project}`, project } });
        }
        isError(await call(app, "DELETE", "/api/memories?type=note"), 400, "type:");
        isError(await call(app, "DELETE", "/api/memories?limit=3"), 400, "limit:");
        assert.equal(await count(), 4);
        const web = await call(app, "DELETE", "/api/memories?project=web");
        assert.equal(web.status, 200);
        assert.deepEqual(web.json, { deleted: 2 });
        assert.deepEqual((await call(app, "DELETE", "/api/memories")).json, { deleted: 2 });
        assert.equal(await count(), 0);
      });

      await t.step("a malformed bulk delete is a 400 and deletes nothing", async () => {
        await reset();
        for (const project of ["web", "api"]) {
          await call(app, "POST", "/api/memories", { body: { content: `in ${project}`, project } });
        }
        for (const q of ["?=x", "?&&&", "?=", "?&", "?project=web&", "?&project=web", "?%20=x"]) {
          isError(await call(app, "DELETE", `/api/memories${q}`), 400, "query:");
        }
        isError(await call(app, "DELETE", "/api/memories?bogus"), 400, "bogus:");
        isError(
          await call(app, "DELETE", "/api/memories?project=web&project=api"),
          400,
          "project:",
        );
        isError(await call(app, "DELETE", "/api/memories?project=%zz"), 400, "query:");
        // Filters in a JSON body are refused, not ignored (ignoring them deletes everything).
        isError(
          await call(app, "DELETE", "/api/memories", { body: { project: "nope" } }),
          400,
          "body:",
        );
        isError(await call(app, "DELETE", "/api/memories", { raw: "x" }), 400, "body:");
        isError(
          await call(app, "DELETE", "/api/memories?project=web", { body: {} }),
          400,
          "body:",
        );
        // The same raw parsing on list: nothing malformed is silently dropped.
        isError(await call(app, "GET", "/api/memories?=x"), 400, "query:");
        assert.equal(await count(), 2);
        // One memory: a body or a query on DELETE /api/memories/:id is refused too.
        const [one] = (await call(app, "GET", "/api/memories")).json;
        isError(await call(app, "DELETE", `/api/memories/${one.id}`, { body: {} }), 400, "body:");
        isError(await call(app, "DELETE", `/api/memories/${one.id}?project=x`), 400, "query:");
        assert.equal(await count(), 2);
        // Encoded names and '+' still work.
        const ok = await call(app, "DELETE", "/api/memories?%70roject=web");
        assert.deepEqual(ok.json, { deleted: 1 });
        assert.equal(await count(), 1);
      });

      await t.step("POST /api/memories/search", async () => {
        await reset();
        await call(app, "POST", "/api/memories", { body: { content: "Use pnpm, never npm" } });
        await call(app, "POST", "/api/memories", { body: { content: "Bananas are yellow" } });
        const a = await call(app, "POST", "/api/memories/search", {
          body: { query: "which package manager: pnpm or npm?", limit: 1 },
        });
        assert.equal(a.status, 200);
        assert.equal(a.json.length, 1);
        assert.deepEqual(Object.keys(a.json[0]).sort(), ["confidence", "memory", "score"]);
        assert.equal(a.json[0].memory.content, "Use pnpm, never npm");
        assert.equal(typeof a.json[0].score, "number");
        assert.ok(a.json[0].confidence >= 0 && a.json[0].confidence <= 1);
        isError(await call(app, "POST", "/api/memories/search", { body: {} }), 400, "query:");
        isError(await call(app, "POST", "/api/memories/search", { raw: "[" }), 400, "body:");
        isError(
          await call(app, "POST", "/api/memories/search", { body: { query: "x", limit: 500 } }),
          400,
          "limit:",
        );
      });

      await t.step("POST /api/memories/export and /import", async () => {
        await reset();
        await call(app, "POST", "/api/memories", {
          body: { content: "exported one", tags: ["t"] },
        });
        await call(app, "POST", "/api/memories", {
          body: { content: "exported two", project: "p" },
        });
        const ex = await call(app, "POST", "/api/memories/export");
        assert.equal(ex.status, 200);
        assert.equal(
          ex.headers.get("content-disposition"),
          'attachment; filename="memories.json"',
        );
        assert.equal(ex.json.length, 2);
        assert.ok(!ex.text.includes("embedding"));
        const imp = await call(app, "POST", "/api/memories/import", { body: ex.json });
        assert.equal(imp.status, 200);
        // Already stored: skipped, nothing duplicated; the same items under another project are new.
        assert.deepEqual(imp.json, { imported: 0, skipped: 2 });
        assert.equal(await count(), 2);
        const moved = (ex.json as { project?: string }[]).map((r) => ({
          ...r,
          scope: "project",
          project: "q",
        }));
        const imp2 = await call(app, "POST", "/api/memories/import", { body: moved });
        assert.deepEqual(imp2.json, { imported: 2, skipped: 0 });
        assert.equal(await count(), 4);
        isError(
          await call(app, "POST", "/api/memories/import", {
            body: [{ content: "ok" }, { content: "bad", type: "nope" }],
          }),
          400,
          "[1].type:",
        );
        isError(await call(app, "POST", "/api/memories/import", { body: { a: 1 } }), 400, "body:");
        isError(await call(app, "POST", "/api/memories/import", { raw: "nope" }), 400, "body:");
        assert.equal(await count(), 4, "a refused import writes nothing");
        // Import bodies may exceed the 1 MiB limit of other routes.
        const big = Array.from(
          { length: 80 },
          (_, i) => ({ content: `${i} ${"x".repeat(15_000)}` }),
        );
        const large = await call(app, "POST", "/api/memories/import", { body: big });
        assert.equal(large.status, 200, large.text);
        assert.deepEqual(large.json, { imported: 80, skipped: 0 });
      });

      await t.step("POST /api/maintenance/reembed", async () => {
        const a = await call(app, "POST", "/api/maintenance/reembed", {
          body: { batch_size: 1000 },
        });
        assert.equal(a.status, 200, a.text);
        assert.equal(a.json.finished, true);
        assert.equal(a.json.done, a.json.total);
        assert.deepEqual(a.json.embedder, { provider: "builtin", model: "hash-v2", dimension: 32 });
        assert.equal((await call(app, "POST", "/api/maintenance/reembed")).status, 200);
        isError(
          await call(app, "POST", "/api/maintenance/reembed", { body: { batch_size: "10" } }),
          400,
          "batch_size:",
        );
        isError(
          await call(app, "POST", "/api/maintenance/reembed", { body: { batch_size: 0 } }),
          400,
          "batch_size:",
        );
        isError(
          await call(app, "POST", "/api/maintenance/reembed", { body: { size: 1 } }),
          400,
          "size:",
        );
        isError(await call(app, "POST", "/api/maintenance/reembed", { raw: "{" }), 400, "body:");
      });

      await t.step("404 for unknown routes and 405 with Allow", async () => {
        const nothing = await call(app, "GET", "/api/nothing");
        isError(nothing, 404);
        assert.equal(nothing.headers.get("content-security-policy"), CSP, "on errors too");
        const bad = await call(app, "GET", "/api/memories/bad-id");
        assert.equal(bad.headers.get("content-security-policy"), CSP, "on 400 too");
        isError(await call(app, "POST", "/api/memories/a/b"), 404);
        isError(await call(app, "GET", "/nothing.js"), 404);
        isError(await call(app, "GET", "/.env"), 404);
        isError(await call(app, "GET", "/%2e%2e/deno.json"), 404);
        const cases: [string, string, string][] = [
          ["PATCH", "/api/memories", "GET, POST, DELETE"],
          ["GET", "/api/memories/search", "POST"],
          ["GET", "/api/memories/export", "POST"],
          ["PUT", "/api/memories/import", "POST"],
          ["POST", "/api/stats", "GET"],
          ["GET", "/api/maintenance/reembed", "POST"],
          ["POST", `/api/memories/${crypto.randomUUID()}`, "GET, PUT, DELETE"],
        ];
        for (const [method, path, allow] of cases) {
          const a = await call(app, method, path);
          isError(a, 405, method);
          assert.equal(a.headers.get("allow"), allow, `${method} ${path}`);
        }
      });

      await t.step("400s and 404s carry the field as data: {error, field}", async () => {
        const id = crypto.randomUUID();
        const cases: [string, string, unknown, string, string][] = [
          ["POST", "/api/memories", { content: "x", type: "note" }, "type", "type: must be one of"],
          ["POST", "/api/memories", { content: "x", tags: ["a", ""] }, "tags[1]", "tags[1]: "],
          ["POST", "/api/memories", { content: "x", color: 1 }, "color", "color: unknown field"],
          ["GET", "/api/memories?limit=0", undefined, "limit", "limit: must be between 1"],
          ["GET", "/api/memories?limit=ten", undefined, "limit", "limit: must be an integer"],
          ["GET", "/api/memories?colour=red", undefined, "colour", "colour: unknown field"],
          ["GET", "/api/memories?type=a&type=b", undefined, "type", "type: must be given once"],
          ["POST", "/api/memories/search", { query: "q", limit: 500 }, "limit", "limit: "],
          ["POST", "/api/memories/export?page=2", undefined, "page", "page: unknown parameter"],
          ["POST", "/api/memories/import", [{ content: "a", type: "x" }], "[0].type", "[0].type: "],
          ["POST", "/api/memories", undefined, "body", "body: is required"],
          ["GET", "/api/memories/nope", undefined, "id", "id: must be a UUID"],
          ["GET", `/api/memories/${id}`, undefined, "id", `memory ${id} not found`],
        ];
        for (const [method, path, body, field, start] of cases) {
          const a = await call(app, method, path, { body });
          assert.deepEqual(Object.keys(a.json), ["error", "field"], `${method} ${path}`);
          assert.equal(a.json.field, field, `${method} ${path}`);
          assert.ok(a.json.error.startsWith(start), `${method} ${path}: ${a.json.error}`);
          isError(a, field === "id" && !path.endsWith("nope") ? 404 : 400);
        }
        // Errors that concern no one input have no field.
        for (
          const a of [await call(app, "GET", "/api/nothing"), await call(app, "PUT", "/api/stats")]
        ) {
          assert.deepEqual(Object.keys(a.json), ["error"], a.text);
        }
      });

      await t.step("413 for oversized bodies, nothing written", async () => {
        const before = await count();
        const huge = JSON.stringify({ content: "y".repeat(1024 * 1024 + 10) });
        isError(await call(app, "POST", "/api/memories", { raw: huge }), 413);
        isError(await call(app, "POST", "/api/memories/search", { raw: huge }), 413);
        isError(
          await call(app, "PUT", `/api/memories/${crypto.randomUUID()}`, { raw: huge }),
          413,
        );
        assert.equal(await count(), before);
      });

      await t.step("500 without internals when the service throws a plain Error", async () => {
        const broken = new Proxy(service as MemoryService, {
          get(target, prop, receiver) {
            if (prop === "stats" || prop === "create") {
              return () =>
                Promise.reject(new Error("connection to 10.0.0.7 failed: password=hunter2"));
            }
            const v = Reflect.get(target, prop, receiver);
            return typeof v === "function" ? v.bind(target) : v;
          },
        });
        const seen: string[] = [];
        const bad = createAdminApp({ service: broken, log: (l) => seen.push(l), ui: false });
        for (
          const [method, path, body] of [["GET", "/api/stats"], ["POST", "/api/memories", {
            content: "x",
          }]] as const
        ) {
          const a = await call(bad, method, path, { body });
          isError(a, 500, "internal server error");
          assert.ok(!a.text.includes("hunter2") && !a.text.includes("10.0.0.7"), a.text);
          assert.ok(!a.text.includes(" at "), "no stack");
        }
        assert.ok(
          seen.some((l) => l.includes("GET /api/stats") && l.includes("hunter2")),
          "logged",
        );
        assert.equal((await call(bad, "GET", "/api/memories")).status, 200, "other routes work");
        isError(await call(bad, "GET", "/"), 404);
      });

      await t.step("ADMIN_API_KEY: Bearer or x-api-key on /api; 401 otherwise", async () => {
        const key = "k3y-with-some-length";
        const locked = createAdminApp({ service, apiKey: key, log: () => {} });
        const missing = await call(locked, "GET", "/api/stats");
        isError(missing, 401, "missing API key");
        assert.match(missing.headers.get("www-authenticate") ?? "", /^Bearer/);
        const wrong: Record<string, string>[] = [
          { authorization: "Bearer nope" },
          { "x-api-key": "nope" },
          { authorization: `Basic ${btoa(`user:${key}`)}` },
          { authorization: `Bearer ${key}x` },
        ];
        for (const headers of wrong) {
          const a = await call(locked, "GET", "/api/stats", { headers });
          assert.equal(a.status, 401, JSON.stringify(headers));
          assert.ok(!a.text.includes(key));
        }
        isError(
          await call(locked, "POST", "/api/memories", {
            body: { content: "sneaky" },
            headers: { authorization: "Bearer wrong" },
          }),
          401,
          "invalid API key",
        );
        const before = await count();
        const right: Record<string, string>[] = [
          { authorization: `Bearer ${key}` },
          { "x-api-key": key },
          { authorization: `bearer ${key}` },
        ];
        for (const headers of right) {
          assert.equal((await call(locked, "GET", "/api/stats", { headers })).status, 200);
        }
        const created = await call(locked, "POST", "/api/memories", {
          body: { content: "with key" },
          headers: { "x-api-key": key },
        });
        assert.equal(created.status, 201);
        assert.equal(await count(), before + 1);
        isError(await call(locked, "GET", "/api/nothing"), 401);
        assert.equal((await call(locked, "GET", "/healthz")).status, 200, "health needs no key");
        assert.equal((await call(locked, "GET", "/")).status, 200, "the UI page needs no key");
      });

      await t.step("loopback binds refuse foreign Host headers (DNS rebinding)", async () => {
        const local = createAdminApp({ service, loopbackOnly: true, log: () => {} });
        for (
          const host of ["evil.example", "evil.example:4200", "127.0.0.1.nip.io", "10.0.0.1:4200"]
        ) {
          const a = await call(local, "GET", "/api/stats", { headers: { host } });
          isError(a, 403, "not allowed");
          assert.ok(a.headers.get("content-security-policy"), "refusals carry the CSP too");
          isError(await call(local, "GET", "/", { headers: { host } }), 403);
        }
        for (
          const host of [
            "localhost:4200",
            "127.0.0.1:4200",
            "[::1]:4200",
            "localhost",
            "ui.localhost:4200",
          ]
        ) {
          const a = await call(local, "GET", "/api/stats", { headers: { host } });
          assert.equal(a.status, 200, host);
        }
        // Cross-site requests: a page elsewhere can POST a text/plain body without a
        // preflight; the browser marks it with Origin, and it must not write anything.
        const before = await count();
        for (const origin of ["https://evil.example", "null", "http://127.0.0.1:9999"]) {
          const a = await call(local, "POST", "/api/memories", {
            raw: JSON.stringify({ content: "planted by a web page" }),
            headers: { host: "127.0.0.1:4200", origin, "content-type": "text/plain" },
          });
          isError(a, 403, "cross-origin");
        }
        assert.equal(await count(), before, "nothing written by cross-site requests");
        const sameOrigin: Record<string, string>[] = [
          { host: "127.0.0.1:4200", origin: "http://127.0.0.1:4200" },
          { host: "localhost:4200", origin: "http://LOCALHOST:4200" },
          { host: "localhost:4200" },
        ];
        for (const headers of sameOrigin) {
          const a = await call(local, "POST", "/api/memories", {
            body: { content: `same origin ${headers.host}` },
            headers,
          });
          assert.equal(a.status, 201, JSON.stringify(headers));
        }
        await reset();
        const open = createAdminApp({ service, loopbackOnly: false, log: () => {} });
        assert.equal(
          (await call(open, "GET", "/api/stats", { headers: { host: "mneme.example" } })).status,
          200,
          "a non-loopback bind (with a key) accepts any Host",
        );
      });

      await t.step("static UI at / with a strict CSP", async () => {
        const a = await call(app, "GET", "/");
        assert.equal(a.status, 200);
        assert.match(a.headers.get("content-type") ?? "", /^text\/html/);
        assert.match(a.text, /<html/i);
        assert.match(a.text, /Mneme/);
        const csp = a.headers.get("content-security-policy") ?? "";
        assert.equal(csp, CSP);
        for (
          const d of [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "frame-ancestors 'none'",
          ]
        ) {
          assert.ok(csp.includes(d), d);
        }
        assert.ok(!/unsafe-inline|unsafe-eval/.test(csp));
        assert.equal((await call(app, "GET", "/index.html")).text, a.text);
        isError(await call(app, "GET", "/api/nothing"), 404);
        const noUi = createAdminApp({ service, ui: false, log: () => {} });
        isError(await call(noUi, "GET", "/"), 404);
      });

      assert.deepEqual(logs, [], "no internal errors were logged by the main app");
    } finally {
      await close();
    }
  },
});

Deno.test("static UI: every file of static/ is served, nothing else; bad encoding is a 404", async () => {
  const { Hono } = await import("hono");
  const { staticHandler, UI_FILES } = await import("../../src/admin/static.ts");
  const root = new URL("../../static/", import.meta.url);
  const onDisk: string[] = [];
  const walk = async (dir: URL, prefix: string) => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir), `${prefix}${e.name}/`);
      else onDisk.push(`${prefix}${e.name}`);
    }
  };
  await walk(root, "");
  assert.deepEqual(
    [...UI_FILES.keys()].sort(),
    [...onDisk, "js/constants.js"].sort(),
    "static.ts imports every UI file and adds the generated constants",
  );
  const app = new Hono();
  app.get("*", staticHandler());
  for (const rel of onDisk) {
    const res = await app.request(`http://localhost/${rel}`);
    assert.equal(res.status, 200, rel);
    assert.equal(await res.text(), await Deno.readTextFile(new URL(rel, root)), rel);
  }
  // js/constants.js is the service's own values, as a module a browser loads as it is.
  const res = await app.request("http://localhost/js/constants.js");
  assert.equal(res.status, 200);
  assert.equal(res.headers.get("content-type"), "text/javascript; charset=utf-8");
  const served = await import(`data:text/javascript,${encodeURIComponent(await res.text())}`);
  const shared = await import("../../src/admin/ui_constants.ts");
  assert.deepEqual({ ...served }, { ...shared });
  assert.deepEqual(served.MEMORY_TYPES, MEMORY_TYPES);
  assert.equal(served.MAX_CONTENT, MAX_CONTENT);
  const index = await app.request("http://localhost/");
  assert.match(index.headers.get("content-type") ?? "", /^text\/html/);
  await index.body?.cancel();
  for (const path of ["/late.txt", "/%E0%A4%A", "/.env", "/js/"]) {
    const res = await app.request(`http://localhost${path}`);
    assert.equal(res.status, 404, path);
    await res.body?.cancel();
  }
});

Deno.test("while starting: a browser gets a page that reloads itself, a client gets JSON", async () => {
  const app = createStartingApp({ loopbackOnly: false });
  const page = await app.request("http://localhost/", { headers: { accept: "text/html,*/*" } });
  assert.equal(page.status, 503);
  assert.match(page.headers.get("content-type") ?? "", /^text\/html/);
  assert.equal(page.headers.get("retry-after"), "1");
  const html = await page.text();
  assert.match(html, /<meta http-equiv="refresh" content="2">/);
  assert.match(html, /Mneme is starting/);
  const api = await app.request("http://localhost/api/memories", { headers: { accept: "*/*" } });
  assert.equal(api.status, 503);
  assert.deepEqual(await api.json(), { error: "starting" });
  const health = await app.request("http://localhost/healthz");
  assert.deepEqual(await health.json(), { error: "starting" });
});
