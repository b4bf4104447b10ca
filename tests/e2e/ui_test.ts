/**
 * End-to-end tests of the admin web UI: headless Debian chromium (playwright-core) against
 * real admin daemons on temporary DATA_DIRs. Screenshots of each screen go to a temporary
 * directory (printed); with UPDATE_SCREENSHOTS=1 the overview and browse ones are copied
 * to docs/screenshots/. Any console error or page error fails the test, except the
 * "Failed to load resource" lines for HTTP errors a step provokes on purpose.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { type Browser, type BrowserContext, chromium, type Page } from "../deps.ts";
import { ROOT, startAdminProcess } from "../helpers.ts";
import { PNPM_STATEMENT, RULE_STATEMENT } from "../capture/lines.ts";
import { replayExpansions } from "../fakes/expansions.ts";
import { startFakeOllama } from "../fakes/ollama.ts";
import { LINT, PHRASES } from "../memory/expansion.ts";

const CHROMIUM = Deno.env.get("CHROMIUM_PATH") ?? "/usr/bin/chromium";
const ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-quic",
  "--no-first-run",
  "--disable-component-update",
  "--disable-sync",
];
/** The browser globals used inside page.evaluate (this file is type-checked without DOM). */
interface BrowserGlobals {
  document: {
    getElementById(id: string): { hasAttribute(name: string): boolean } | null;
    activeElement: { textContent: string | null; getAttribute(name: string): string | null } | null;
    documentElement: { scrollWidth: number; clientWidth: number };
  };
  sessionStorage: { getItem(key: string): string | null };
  getComputedStyle(el: unknown): { outlineStyle: string };
}
const UPDATE = Deno.env.get("UPDATE_SCREENSHOTS") === "1";
const TIMEOUT = 15_000;
const KEY = "e2e-secret-key-0123";

async function requireChromium(): Promise<void> {
  try {
    const info = await Deno.stat(CHROMIUM);
    if (!info.isFile) throw new Error("not a file");
  } catch {
    throw new Error(
      `the e2e tests need a real browser, but ${CHROMIUM} was not found: install it with ` +
        "`apt-get update && apt-get install -y chromium` (or set CHROMIUM_PATH)",
    );
  }
}

/** Console and page errors of one page; HTTP errors can be allowed while a step runs. */
class ErrorWatch {
  errors: string[] = [];
  allowed = new Set<number>();

  attach(page: Page, label: string): void {
    page.on("console", (msg) => {
      if (msg.type() !== "error") return;
      const text = msg.text();
      const m = /Failed to load resource: the server responded with a status of (\d{3})/.exec(text);
      if (m && this.allowed.has(Number(m[1]))) return;
      this.errors.push(`[${label}] console: ${text} (${msg.location().url})`);
    });
    page.on("pageerror", (err) => this.errors.push(`[${label}] page error: ${err.message}`));
  }

  async allowing<T>(statuses: number[], fn: () => Promise<T>): Promise<T> {
    for (const s of statuses) this.allowed.add(s);
    try {
      return await fn();
    } finally {
      for (const s of statuses) this.allowed.delete(s);
    }
  }

  /** Fail on the errors collected since the last check (each step reports its own). */
  check(): void {
    const errors = this.errors;
    this.errors = [];
    assert.deepEqual(errors, [], `browser errors:\n${errors.join("\n")}`);
  }
}

interface Mem {
  id: string;
  content: string;
  scope: string;
  project: string | null;
  type: string;
  tags: string[];
  weight: number;
  supersedes: string | null;
  superseded_by: string | null;
  expires_at: string | null;
}

async function apiCall<T>(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  key?: string,
): Promise<{ status: number; body: T }> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (key) headers.authorization = `Bearer ${key}`;
  const res = await fetch(`${base}${path}`, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  return { status: res.status, body: await res.json() as T };
}

const SEED = [
  { content: "Use tabs for indentation in Go files.", type: "rule", tags: ["style", "go"] },
  {
    content: "The staging database is reset every Monday at 06:00 UTC.",
    project: "alpha",
    type: "fact",
    tags: ["ops"],
  },
  {
    content: "We chose PGlite for the embedded database so that no server is needed.",
    project: "alpha",
    type: "decision",
    tags: ["db"],
    weight: 0.8,
  },
  {
    content: "Run the integration tests with `deno task test` before pushing.",
    project: "alpha",
    type: "rule",
    tags: ["testing"],
  },
  {
    content: "Review comments should explain the why, not only the what.",
    type: "feedback",
    weight: 0.6,
  },
  { content: "The beta service talks to the billing API through a queue.", project: "beta" },
  {
    content: "Sprint goal: finish the import wizard.",
    project: "beta",
    type: "context",
    ttl: "2w",
  },
  { content: "Always greet the user by name.", type: "bootstrap", tags: ["tone"] },
  { content: "Gamma notes one: the cache warms at startup.", project: "gamma", type: "context" },
  { content: "Gamma notes two: logs rotate daily.", project: "gamma", type: "fact" },
  { content: "Gamma notes three: the cron runs hourly.", project: "gamma", type: "fact" },
];

Deno.test({
  name: "admin web UI in a real browser",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    await requireChromium();
    const shots = await Deno.makeTempDir({ prefix: "mneme-e2e-shots-" });
    console.error(`e2e: screenshots in ${shots}`);
    // The second daemon (API key + maintenance) gets ready in the background: a first run
    // stores a memory with 512-dimension vectors, then the daemon restarts with the default
    // dimension and ADMIN_API_KEY, so that it runs in maintenance behind a key.
    const securedDir = await Deno.makeTempDir({ prefix: "mneme-e2e-secured-" });
    const securedReady = (async () => {
      const prep = await startAdminProcess({ dataDir: securedDir, env: { EMBEDDING_DIM: "512" } });
      try {
        const r = await apiCall(prep.url, "POST", "/api/memories", { content: "Secured memory." });
        assert.equal(r.status, 201);
      } finally {
        await prep.stop();
      }
      return await startAdminProcess({ dataDir: securedDir, env: { ADMIN_API_KEY: KEY } });
    })();
    securedReady.catch(() => {}); // awaited (and its error reported) in the last step
    let admin: Awaited<ReturnType<typeof startAdminProcess>> | undefined;
    let browser: Browser | undefined;
    try {
      // Capture reads Claude Code's transcripts in this folder (the inbox step hands one over).
      const transcripts = await Deno.makeTempDir({ prefix: "mneme-e2e-transcripts-" });
      admin = await startAdminProcess({ env: { CAPTURE_TRANSCRIPTS_DIR: transcripts } });
      const base = admin.url;
      const seeded: Mem[] = [];
      for (const s of SEED) {
        const r = await apiCall<{ memory: Mem }>(base, "POST", "/api/memories", s);
        assert.equal(r.status, 201, JSON.stringify(r.body));
        seeded.push(r.body.memory);
      }
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
      const watch = new ErrorWatch();
      const context: BrowserContext = await browser.newContext({
        viewport: { width: 1280, height: 800 },
        acceptDownloads: true,
        colorScheme: "light",
        reducedMotion: "reduce",
      });
      context.setDefaultTimeout(TIMEOUT);
      const page = await context.newPage();
      watch.attach(page, "main");
      const shot = async (name: string, opts: { fullPage?: boolean } = {}) => {
        await page.screenshot({ path: `${shots}/${name}.png`, fullPage: opts.fullPage ?? false });
      };
      const go = async (hash: string) => {
        await page.goto(`${base}/${hash}`);
        await page.locator("main h1").first().waitFor();
        await page.waitForFunction(() =>
          !(globalThis as unknown as BrowserGlobals).document.getElementById("main")?.hasAttribute(
            "aria-busy",
          )
        );
      };

      await t.step("CSP header and no inline code", async () => {
        const res = await fetch(`${base}/`);
        const html = await res.text();
        assert.match(res.headers.get("content-security-policy") ?? "", /script-src 'self'/);
        assert.doesNotMatch(html, /<script(?![^>]*\bsrc=)[^>]*>/, "inline <script>");
        assert.doesNotMatch(html, /\sstyle=/, "inline style attribute");
        assert.doesNotMatch(html, /\son[a-z]+=/, "inline event handler");
      });

      await t.step("overview: totals, bar charts, embedder and database", async () => {
        await go("#/overview");
        await page.locator("#total-count").filter({ hasText: String(SEED.length) }).waitFor();
        assert.equal(await page.locator("#health-status").textContent(), "ok");
        const health = page.locator("section.health");
        assert.match(await health.innerText(), /builtin/);
        assert.match(await health.innerText(), /pglite/);
        const projects = page.locator("section.chart", { hasText: "By project" });
        assert.match(await projects.innerText(), /alpha\s+3/);
        assert.match(await projects.innerText(), /gamma\s+3/);
        const types = page.locator("section.chart", { hasText: "By type" });
        assert.match(await types.innerText(), /fact\s+4/);
        assert.equal(await page.locator("nav a[aria-current=page]").textContent(), "Overview");
        await shot("overview");
        // Keyboard: the first Tab reaches the skip link.
        await page.keyboard.press("Tab");
        assert.equal(
          await page.evaluate(() =>
            (globalThis as unknown as BrowserGlobals).document.activeElement?.textContent
          ),
          "Skip to content",
        );
        // Focus is visible.
        assert.notEqual(
          await page.evaluate(() => {
            const g = globalThis as unknown as BrowserGlobals;
            return g.getComputedStyle(g.document.activeElement!).outlineStyle;
          }),
          "none",
        );
        watch.check();
      });

      let created: Mem | undefined;
      let replacement: Mem | undefined;
      const old = seeded[0];
      await t.step("create with every field, then supersede a contradiction", async () => {
        // A second near-duplicate: two contradictions, of which only one can be superseded. (The
        // new text shares "tabs" with the old one: similar above 0.75 at every builtin dimension.)
        const other = (await apiCall<{ memory: Mem }>(base, "POST", "/api/memories", {
          content: "Always use spaces for indentation in Go files.",
        })).body.memory;
        await go("#/create");
        await page.getByLabel("Content").fill("Use spaces, not tabs, for indentation in Go files.");
        await page.getByLabel("Scope").selectOption("global");
        await page.getByLabel("Type", { exact: true }).selectOption("rule");
        await page.getByLabel("Tags").fill("style, go , formatting");
        await page.getByLabel("Weight").fill("0.9");
        await page.getByLabel("Time to live").fill("30d");
        // Ctrl+Enter in the content saves (keyboard use).
        await page.getByLabel("Content").press("Control+Enter");
        const result = page.locator("#create-result");
        await result.locator(".notice.ok").waitFor();
        const contra = result.locator(`li.contra[data-id="${old.id}"]`);
        await contra.waitFor();
        assert.match(await contra.innerText(), /similarity \d+\.\d%/);
        assert.equal(
          await contra.getByRole("link", { name: old.id.slice(0, 8) }).getAttribute("href"),
          `#/memory/${old.id}`,
        );
        const savedId = (await result.locator(".notice.ok a").first().textContent())!;
        created = (await apiCall<Mem>(base, "GET", `/api/memories/${savedId}`)).body;
        assert.equal(created.content, "Use spaces, not tabs, for indentation in Go files.");
        assert.deepEqual(created.tags, ["style", "go", "formatting"]);
        assert.equal(created.weight, 0.9);
        assert.equal(created.type, "rule");
        assert.ok(created.expires_at, "ttl gives an expiry");
        assert.equal(created.supersedes, null);
        await shot("create-contradiction", { fullPage: true });

        await contra.getByRole("button", { name: /Supersede memory/ }).click();
        await result.locator(".notice.ok", { hasText: "replaces" }).waitFor();
        const newId = (await result.locator(".notice.ok a").first().textContent())!;
        assert.notEqual(newId, savedId);
        replacement = (await apiCall<Mem>(base, "GET", `/api/memories/${newId}`)).body;
        assert.equal(replacement.supersedes, old.id);
        assert.equal(replacement.content, created.content);
        assert.deepEqual(replacement.tags, created.tags);
        assert.equal(replacement.weight, 0.9);
        assert.ok(replacement.expires_at);
        const oldNow = (await apiCall<Mem>(base, "GET", `/api/memories/${old.id}`)).body;
        assert.equal(oldNow.superseded_by, newId);
        assert.equal(oldNow.weight, 0.1);
        // The first copy is gone: one new memory, not two.
        assert.equal((await apiCall(base, "GET", `/api/memories/${savedId}`)).status, 404);
        // The duplicate first copy is not offered as a contradiction.
        assert.equal(await result.locator(`li.contra[data-id="${savedId}"]`).count(), 0);
        // The other contradiction is still listed; a memory replaces only one, so its
        // supersede button is disabled and the screen says why; "Delete it" removes it.
        const second = result.locator(`li.contra[data-id="${other.id}"]`);
        assert.equal(
          await second.getByRole("button", { name: /Supersede memory/ }).isDisabled(),
          true,
        );
        assert.match(await result.innerText(), /can replace only one other/);
        await second.getByRole("button", { name: /Delete memory/ }).click();
        await page.getByRole("dialog").getByRole("button", { name: "Delete" }).click();
        await second.waitFor({ state: "detached" });
        assert.equal((await apiCall(base, "GET", `/api/memories/${other.id}`)).status, 404);
        watch.check();
      });

      await t.step("browse: newest first, filters, superseded marked", async () => {
        await go("#/browse");
        const rows = page.locator("table.memories tbody tr");
        await rows.first().waitFor();
        assert.equal(await rows.count(), SEED.length + 1);
        // Newest first: the replacement leads.
        assert.equal(await rows.first().getAttribute("data-id"), replacement!.id);
        const oldRow = page.locator(`tr[data-id="${old.id}"]`);
        assert.match((await oldRow.getAttribute("class")) ?? "", /superseded/);
        assert.match(await oldRow.innerText(), /superseded by/);
        await shot("browse-all");

        await page.getByLabel("Scope").selectOption("project");
        await page.getByLabel("Project").fill("alpha");
        await page.getByRole("button", { name: "Apply" }).click();
        await page.waitForURL(/#\/browse\?scope=project&project=alpha/);
        await page.locator("#browse-summary", { hasText: "3 memories shown" }).waitFor();
        for (const text of await rows.allInnerTexts()) assert.match(text, /alpha/);

        await page.getByLabel("Type").selectOption("decision");
        await page.getByRole("button", { name: "Apply" }).click();
        await page.locator("#browse-summary", { hasText: "1 memory shown" }).waitFor();
        assert.match(await rows.first().innerText(), /PGlite/);
        // The documentation screenshot: global memories, one of them superseded.
        await go("#/browse?scope=global");
        await page.locator(`tr[data-id="${old.id}"].superseded`).waitFor();
        await shot("browse");
        await page.emulateMedia({ colorScheme: "dark" });
        await shot("browse-dark");
        await page.emulateMedia({ colorScheme: "light" });
        await go("#/browse?scope=project&project=alpha&type=decision");
        // Linkable: loading the URL again restores the filters.
        await page.reload();
        await page.locator("#browse-summary", { hasText: "1 memory shown" }).waitFor();
        assert.equal(await page.getByLabel("Type").inputValue(), "decision");
        watch.check();
      });

      await t.step("search with the project hierarchy shows scores", async () => {
        await go("#/search");
        await page.getByLabel("Query").fill("database");
        await page.getByLabel("Project").fill("alpha");
        await page.getByRole("button", { name: "Search" }).click();
        const hits = page.locator("ol.hits li.hit");
        await hits.first().waitFor();
        const texts = await hits.allInnerTexts();
        assert.ok(texts.some((x) => /staging database/.test(x)), texts.join("\n---\n"));
        for (const x of texts) {
          assert.match(x, /\d\.\d{3}\s*score/i);
          assert.doesNotMatch(x, /beta|gamma/i, "hierarchy: only global + alpha");
        }
        assert.match(page.url(), /#\/search\?q=database&project=alpha/);
        await shot("search");
        watch.check();
      });

      await t.step(
        "search: empty project is global only; 'all projects' searches every one",
        async () => {
          await go("#/search");
          await page.getByLabel("Query").fill("billing queue");
          await page.getByRole("button", { name: "Search" }).click();
          await page.locator("p.summary").waitFor();
          // Global memories only: the billing memory of project beta is not among the hits (a
          // global one may come near in meaning, with a low confidence).
          for (const x of await page.locator("ol.hits li.hit").allInnerTexts()) {
            assert.doesNotMatch(x, /billing API|Gamma notes/, "no project memories");
          }
          await page.getByLabel("Scope").selectOption("all");
          await page.getByRole("button", { name: "Search" }).click();
          const hit = page.locator("ol.hits li.hit", { hasText: "billing API" });
          await hit.waitFor();
          assert.match(page.url(), /#\/search\?q=billing\+queue&scope=all/);
          watch.check();
        },
      );

      await t.step("edit content", async () => {
        const target = seeded[4];
        await go(`#/memory/${target.id}`);
        const box = page.getByLabel("Content", { exact: true });
        assert.equal(await box.inputValue(), target.content);
        await box.fill("Review comments explain the why; the diff shows the what.");
        await page.getByRole("button", { name: "Save content" }).click();
        await page.locator("#save-state", { hasText: "Saved." }).waitFor();
        const now = (await apiCall<Mem>(base, "GET", `/api/memories/${target.id}`)).body;
        assert.equal(now.content, "Review comments explain the why; the diff shows the what.");
        await shot("memory");
        watch.check();
      });

      await t.step("delete one with confirmation", async () => {
        const target = seeded[7];
        await go("#/browse");
        const row = page.locator(`tr[data-id="${target.id}"]`);
        await row.getByRole("button", { name: /Delete memory/ }).click();
        const dialog = page.getByRole("dialog");
        await dialog.waitFor();
        assert.match(await dialog.innerText(), /Always greet the user/);
        await shot("delete-confirm");
        // Cancel keeps it.
        await page.keyboard.press("Escape");
        await dialog.waitFor({ state: "detached" });
        assert.equal((await apiCall(base, "GET", `/api/memories/${target.id}`)).status, 200);
        await row.getByRole("button", { name: /Delete memory/ }).click();
        await dialog.getByRole("button", { name: "Delete" }).click();
        await row.waitFor({ state: "detached" });
        assert.equal((await apiCall(base, "GET", `/api/memories/${target.id}`)).status, 404);
        watch.check();
      });

      await t.step("bulk delete by filter shows the count first", async () => {
        await go("#/browse?project=gamma");
        await page.locator("#browse-summary", { hasText: "3 memories shown" }).waitFor();
        await page.getByRole("button", { name: "Delete all matching…" }).click();
        const dialog = page.getByRole("dialog");
        await dialog.getByRole("heading", { name: "Delete 3 memories?" }).waitFor();
        assert.match(await dialog.innerText(), /project = gamma/);
        await dialog.getByRole("button", { name: "Delete 3" }).click();
        await page.locator(".flash", { hasText: "Deleted 3 memories" }).waitFor();
        const left = await apiCall<Mem[]>(base, "GET", "/api/memories?project=gamma");
        assert.deepEqual(left.body, []);
        assert.ok(
          (await apiCall<Mem[]>(base, "GET", "/api/memories?project=alpha")).body.length === 3,
        );
        watch.check();
      });

      await t.step("export downloads memories.json", async () => {
        await go("#/transfer");
        const [download] = await Promise.all([
          page.waitForEvent("download"),
          page.getByRole("button", { name: "Download memories.json" }).click(),
        ]);
        assert.equal(download.suggestedFilename(), "memories.json");
        const path = await download.path();
        const records = JSON.parse(await Deno.readTextFile(path)) as { content: string }[];
        const expected = (await apiCall<unknown[]>(base, "POST", "/api/memories/export")).body;
        assert.deepEqual(records, expected);
        assert.ok(
          records.some((r) => r.content === "Use spaces, not tabs, for indentation in Go files."),
        );
        await page.getByText(/Downloaded memories\.json/).waitFor();
        await shot("transfer");
        watch.check();
      });

      await t.step("import a file; a bad file shows the item and field", async () => {
        await go("#/transfer");
        const before = (await apiCall<{ total: number }>(base, "GET", "/api/stats")).body.total;
        await page.getByLabel("File").setInputFiles({
          name: "more.json",
          mimeType: "application/json",
          buffer: Buffer.from(JSON.stringify([
            { content: "Imported one: deploys happen on Tuesdays.", project: "delta" },
            { content: "Imported two: keep PRs small.", type: "rule", tags: ["review"] },
          ])),
        });
        await page.getByRole("button", { name: "Import" }).click();
        await page.locator("#import-state", { hasText: "Imported 2 memories from more.json" })
          .waitFor();
        const after = (await apiCall<{ total: number }>(base, "GET", "/api/stats")).body.total;
        assert.equal(after, before + 2);

        await page.getByLabel("File").setInputFiles({
          name: "bad.json",
          mimeType: "application/json",
          buffer: Buffer.from(JSON.stringify([
            { content: "fine" },
            { content: "broken", type: "opinion" },
          ])),
        });
        await watch.allowing([400], async () => {
          await page.getByRole("button", { name: "Import" }).click();
          const err = page.locator(".action-error", { hasText: "bad.json failed" });
          await err.waitFor();
          assert.match(await err.innerText(), /\[1\]\.type/);
        });
        assert.equal(
          (await apiCall<{ total: number }>(base, "GET", "/api/stats")).body.total,
          after,
          "nothing partial is written",
        );
        watch.check();
      });

      await t.step("API errors appear next to the field", async () => {
        await go("#/create");
        await page.getByLabel("Content").fill("Something that lives for a while.");
        await page.getByLabel("Time to live").fill("soon");
        await watch.allowing([400], async () => {
          await page.getByRole("button", { name: "Save memory" }).click();
          const ttlField = page.locator('.field[data-field="ttl"]');
          const err = ttlField.locator(".field-error");
          await err.waitFor();
          assert.match(await err.innerText(), /^ttl: /);
          assert.equal(await page.getByLabel("Time to live").getAttribute("aria-invalid"), "true");
          assert.equal(
            await page.evaluate(() =>
              (globalThis as unknown as BrowserGlobals).document.activeElement?.getAttribute("name")
            ),
            "ttl",
          );
          await shot("create-error");

          await page.getByLabel("Time to live").fill("");
          await page.getByLabel("Project").fill("alpha");
          assert.equal(
            await page.getByLabel("Scope").inputValue(),
            "project",
            "project implies scope",
          );
          await page.getByLabel("Scope").selectOption("global");
          await page.getByRole("button", { name: "Save memory" }).click();
          await page.locator(
            '.field[data-field="scope"] .field-error, ' +
              '.field[data-field="project"] .field-error',
          ).filter({ hasText: /global/ }).first()
            .waitFor();
          assert.equal(await ttlField.locator(".field-error").isHidden(), true);
        });
        // A missing memory shows the API's 404 message.
        await watch.allowing([404], async () => {
          await go("#/memory/00000000-0000-4000-8000-000000000000");
          await page.locator(".action-error", { hasText: "404" }).waitFor();
        });
        watch.check();
      });

      await t.step("create says when the agent sees it; Pin makes a bootstrap memory", async () => {
        await go("#/create");
        const seen = page.locator("#create-visibility");
        assert.match(await seen.innerText(), /when relevant to a prompt \(recall\)/);
        await page.getByLabel("Type", { exact: true }).selectOption("rule");
        await page.getByLabel("Pin to session start").check();
        assert.match(await seen.innerText(), /at every session start/);
        await page.getByLabel("Content").fill("Always run the linter before pushing.");
        await page.getByLabel("Content").press("Control+Enter");
        const result = page.locator("#create-result");
        await result.locator(".notice.ok").waitFor();
        const id = (await result.locator(".notice.ok a").first().textContent())!;
        const m = (await apiCall<Mem>(base, "GET", `/api/memories/${id}`)).body;
        assert.equal(m.type, "bootstrap");
        assert.deepEqual(m.tags, ["rule"]);
        assert.match(await seen.innerText(), /when relevant to a prompt/, "the form is reset");
      });

      await t.step(
        "inbox: captured proposals reviewed, edited, accepted, pinned, rejected",
        async () => {
          const path = `${transcripts}/s-ui.jsonl`;
          const said = (uuid: string, text: string) =>
            JSON.stringify({
              type: "user",
              uuid,
              sessionId: "s-ui",
              timestamp: new Date().toISOString(),
              message: { role: "user", content: text },
            }) + "\n";
          await Deno.writeTextFile(
            path,
            said("u1", "can you bump the version?") +
              said("u2", PNPM_STATEMENT) +
              said("u3", "We chose Postgres over Mongo because we need joins.") +
              said("u4", RULE_STATEMENT),
          );
          const handed = await apiCall(base, "POST", "/api/capture", {
            session_id: "s-ui",
            transcript_path: path,
            cwd: "/work/ui-app",
            hook_event_name: "Stop",
            project: "ui-app",
          });
          assert.equal(handed.status, 202, JSON.stringify(handed.body));
          let proposals: { id: string; content: string; type: string; tags: string[] }[] = [];
          for (let i = 0; i < 100 && proposals.length < 3; i++) {
            await new Promise((r) => setTimeout(r, 100));
            proposals = (await apiCall<typeof proposals>(base, "GET", "/api/inbox")).body;
          }
          assert.equal(proposals.length, 3, JSON.stringify(proposals));
          const pnpm = proposals.find((p) => p.content.includes("pnpm"))!;
          const mongo = proposals.find((p) => p.content.includes("Mongo"))!;
          const lint = proposals.find((p) => p.content.includes("lint"))!;
          await go("#/inbox");
          assert.equal(await page.locator("nav a[aria-current=page]").textContent(), "Inbox");
          await page.locator("#inbox-summary", { hasText: "3 proposed memories to review." })
            .waitFor();
          const card = page.locator(`article[data-id="${pnpm.id}"]`);
          assert.match(await card.innerText(), /Said in session\s+s-ui/);
          assert.match(await card.innerText(), /ui-app/);
          await shot("inbox");
          // Edit: an empty text is refused next to the proposal, nothing changed.
          await card.getByRole("button", { name: /Edit proposal/ }).click();
          const box = card.getByRole("textbox");
          await box.fill("   ");
          await watch.allowing([400], async () => {
            await card.getByRole("button", { name: "Save" }).click();
            await card.locator(".action-error", { hasText: "content" }).waitFor();
          });
          await box.fill("Use pnpm, not npm, in this repo.");
          // While the edit is on its way, Cancel waits (it would bring the actions back).
          let releaseEdit = () => {};
          const heldEdit = new Promise<void>((r) => releaseEdit = r);
          await page.route(`**/api/inbox/${encodeURIComponent(pnpm.id)}`, async (route) => {
            await heldEdit;
            await route.continue();
          }, { times: 1 });
          await card.getByRole("button", { name: "Save" }).click();
          await card.getByRole("button", { name: "Cancel", disabled: true }).waitFor();
          releaseEdit();
          await card.locator("p.content", { hasText: "Use pnpm, not npm, in this repo." })
            .waitFor();
          // Accept: a memory is created; reject: the other is gone. While the accept is on its
          // way, the card's other buttons wait (held here until they are seen disabled).
          let release = () => {};
          const held = new Promise<void>((r) => release = r);
          const acceptUrl = `**/api/inbox/${encodeURIComponent(pnpm.id)}/accept`;
          await page.route(acceptUrl, async (route) => {
            await held;
            await route.continue();
          }, { times: 1 });
          await card.getByRole("button", { name: /Accept proposal/ }).click();
          for (const name of [/Accept and pin proposal/, /Edit proposal/, /Reject proposal/]) {
            await card.getByRole("button", { name, disabled: true }).waitFor();
          }
          release();
          await card.locator(".notice.ok", { hasText: "Accepted as memory" }).waitFor();
          // The link's title is the memory's full id (its text the short one).
          const accepted = (await card.locator(".notice.ok a").first().getAttribute("title"))!;
          const plain = (await apiCall<Mem>(base, "GET", `/api/memories/${accepted}`)).body;
          assert.equal(plain.type, pnpm.type, "Accept keeps the proposal's type: not pinned");
          // Accept and pin: stored pinned to every session start (type bootstrap), its own type
          // kept as a tag, as `memcli inbox accept --pin` and the API's `pin` store it.
          const lintCard = page.locator(`article[data-id="${lint.id}"]`);
          await lintCard.getByRole("button", { name: /Accept and pin proposal/ }).click();
          await lintCard.locator(".notice.ok", { hasText: "Accepted and pinned as memory" })
            .waitFor();
          const pinnedId = (await lintCard.locator(".notice.ok a").first().getAttribute("title"))!;
          const pinned = (await apiCall<Mem>(base, "GET", `/api/memories/${pinnedId}`)).body;
          assert.equal(pinned.content, lint.content);
          assert.notEqual(lint.type, "bootstrap");
          assert.equal(pinned.type, "bootstrap");
          assert.equal(pinned.tags[0], lint.type, JSON.stringify(pinned.tags));
          assert.ok(!plain.tags.includes(pnpm.type), "an unpinned accept adds no type tag");
          const mongoCard = page.locator(`article[data-id="${mongo.id}"]`);
          await mongoCard.getByRole("button", { name: /Reject proposal/ }).click();
          await mongoCard.waitFor({ state: "detached" });
          await page.locator("#inbox-summary", { hasText: "Nothing to review." }).waitFor();
          assert.deepEqual((await apiCall(base, "GET", "/api/inbox")).body, []);
          const hits = (await apiCall<{ memory: Mem }[]>(base, "POST", "/api/memories/search", {
            query: "pnpm npm",
            project: "ui-app",
          })).body;
          // The edited text was stored (the pinned lint rule matches "npm" too).
          assert.equal(hits[0]?.memory.content, "Use pnpm, not npm, in this repo.");
          assert.ok(!hits.some((h) => h.memory.content.includes(PNPM_STATEMENT)));
          watch.check();
        },
      );

      await t.step("360 px: no horizontal scroll on the main screens", async () => {
        await page.setViewportSize({ width: 360, height: 740 });
        for (
          const hash of [
            "#/overview",
            "#/browse",
            "#/search?q=database",
            "#/create",
            "#/transfer",
            "#/inbox",
          ]
        ) {
          await go(hash);
          await page.waitForTimeout(50);
          const { scroll, client } = await page.evaluate(() => ({
            scroll: (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth,
            client: (globalThis as unknown as BrowserGlobals).document.documentElement.clientWidth,
          }));
          assert.ok(scroll <= client, `${hash}: scrollWidth ${scroll} > ${client} at 360 px`);
          await shot(`mobile-${hash.slice(2).replace(/\W.*$/, "")}`);
        }
        await page.setViewportSize({ width: 1280, height: 800 });
        watch.check();
      });

      await context.close();

      await t.step("with ADMIN_API_KEY: asks once, keeps it in session storage", async () => {
        const secured = await securedReady;
        try {
          const ctx = await browser!.newContext({ viewport: { width: 1280, height: 800 } });
          ctx.setDefaultTimeout(TIMEOUT);
          const p = await ctx.newPage();
          const w = new ErrorWatch();
          w.attach(p, "secured");
          await w.allowing([401], async () => {
            await p.goto(`${secured.url}/#/overview`);
            const dialog = p.locator("#key-dialog");
            await dialog.waitFor();
            await p.screenshot({ path: `${shots}/api-key.png` });
            await dialog.getByLabel("API key").fill("wrong-key");
            await dialog.getByRole("button", { name: "Continue" }).click();
            // A wrong key: asked again, with the API's message.
            await p.locator("#key-dialog", { hasText: "invalid API key" }).waitFor();
            await p.locator("#key-dialog").getByLabel("API key").fill(KEY);
            await p.locator("#key-dialog").getByRole("button", { name: "Continue" }).click();
            await p.locator("#total-count", { hasText: "1" }).waitFor();
          });
          // Maintenance: the overview says so and names the command; writes answer 409.
          assert.equal(await p.locator("#health-status").textContent(), "maintenance");
          assert.match(await p.locator("section.health .notice").innerText(), /memcli reembed/);
          await p.screenshot({ path: `${shots}/maintenance.png` });
          assert.equal(
            await p.evaluate(() =>
              (globalThis as unknown as BrowserGlobals).sessionStorage.getItem("mneme.apiKey")
            ),
            KEY,
          );
          // Other screens and a reload use the stored key without asking.
          await p.goto(`${secured.url}/#/browse`);
          await p.locator("table.memories tbody tr").first().waitFor();
          assert.equal(await p.locator("#key-dialog").count(), 0);
          await w.allowing([409], async () => {
            await p.goto(`${secured.url}/#/search?q=secured`);
            await p.locator(".action-error", { hasText: "409" }).waitFor();
            assert.match(
              await p.locator(".action-error").innerText(),
              /maintenance: .*memcli reembed/,
            );
          });
          // Forget the key: the next request asks again; cancelling shows the error.
          await p.getByRole("button", { name: "Forget API key" }).click();
          await w.allowing([401], async () => {
            await p.goto(`${secured.url}/#/browse?scope=global`);
            await p.locator("#key-dialog").getByRole("button", { name: "Cancel" }).click();
            await p.locator(".action-error", { hasText: "no API key entered" }).first().waitFor();
          });
          w.check();
          await ctx.close();
        } finally {
          await secured.stop();
        }
      });

      if (UPDATE) {
        const dir = `${ROOT}docs/screenshots`;
        await Deno.mkdir(dir, { recursive: true });
        for (const name of ["overview", "browse"]) {
          await Deno.copyFile(`${shots}/${name}.png`, `${dir}/${name}.png`);
        }
        console.error(`e2e: updated ${dir}/overview.png and browse.png`);
      }
    } finally {
      await browser?.close().catch(() => {});
      await admin?.stop();
      await securedReady.then((s) => s.stop(), () => {});
      await Deno.remove(securedDir, { recursive: true }).catch(() => {});
    }
  },
});

/** The DOM headless Chromium dumps after `budgetMs` of virtual time (0: at load). */
async function dumpDom(url: string, budgetMs: number): Promise<string> {
  const out = await new Deno.Command(CHROMIUM, {
    args: [
      "--headless",
      ...ARGS,
      ...(budgetMs ? [`--virtual-time-budget=${budgetMs}`] : []),
      "--dump-dom",
      url,
    ],
    stdout: "piped",
    stderr: "null",
  }).output();
  return new TextDecoder().decode(out.stdout);
}

Deno.test({
  name: "the overview: a loading state before data, its figures within 1 s of a cold load",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await requireChromium();
    const admin = await startAdminProcess();
    let browser: Browser | undefined;
    try {
      await apiCall(admin.url, "POST", "/api/memories", { content: "One memory to count." });
      // At load, before any data: a loading state, never a blank page.
      const atLoad = await dumpDom(`${admin.url}/`, 0);
      assert.match(atLoad, /id="(page|overview)-loading"[^>]*role="status"/);
      // Within 1 s of virtual time: the figures.
      const soon = await dumpDom(`${admin.url}/`, 1000);
      assert.match(soon, /<p class="big" id="total-count">1<\/p>/);
      assert.doesNotMatch(soon, /id="overview-loading"/);
      // And in real time, a cold browser: content within 1 s of the load event.
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
      const page = await browser.newPage();
      await page.goto(`${admin.url}/`, { waitUntil: "load" });
      await page.waitForSelector("#total-count", { timeout: 1000 });
    } finally {
      await browser?.close().catch(() => {});
      await admin.stop();
    }
  },
});

Deno.test({
  name: "memory detail: the search phrases of an expanded memory, and their removal",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    await requireChromium();
    const replay = replayExpansions(PHRASES);
    const ol = startFakeOllama({ "llama3.2": 0 }, { chat: (b) => replay.answer(b) });
    const admin = await startAdminProcess({
      env: {
        MEMORY_EXPANSION: "on",
        CAPTURE_MODEL_PROVIDER: "ollama",
        CAPTURE_MODEL_URL: ol.url,
      },
    });
    let browser: Browser | undefined;
    try {
      const made = await apiCall<{ memory: Mem }>(admin.url, "POST", "/api/memories", {
        content: LINT.content,
        project: "rails",
      });
      const id = made.body.memory.id;
      const plain = await apiCall<{ memory: Mem }>(admin.url, "POST", "/api/memories", {
        content: "A memory the model has no phrases for.",
      });
      for (let i = 0; i < 200; i++) {
        const x = await apiCall<{ state: string }>(
          admin.url,
          "GET",
          `/api/memories/${id}/expansion`,
        );
        if (x.body.state === "expanded") break;
        await new Promise((r) => setTimeout(r, 100));
      }
      browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS, timeout: 30_000 });
      const page = await browser.newPage();
      page.setDefaultTimeout(TIMEOUT);
      const watch = new ErrorWatch();
      watch.attach(page, "detail");
      const open = async (memoryId: string) => {
        await page.goto(`${admin.url}/#/memory/${memoryId}`);
        await page.locator("main h1", { hasText: `Memory ${memoryId.slice(0, 8)}` }).waitFor();
      };
      await open(id);
      const section = page.locator("#phrases");
      await section.getByRole("heading", { name: "Search phrases" }).waitFor();
      const items = await section.locator("li").allTextContents();
      assert.deepEqual(items, PHRASES.get(LINT.content));
      assert.match(await section.textContent() ?? "", /Written by ollama\/llama3\.2/);
      // A memory without phrases shows no such section.
      await open(plain.body.memory.id);
      await page.getByRole("button", { name: "Save content" }).waitFor();
      assert.equal(await page.locator("#phrases").isVisible(), false);
      // Removed (memcli expansion clear): the section says so, with no phrase.
      const cleared = await apiCall(admin.url, "POST", "/api/expansions/clear", { id });
      assert.deepEqual(cleared.body, { cleared: 1 });
      await open(id);
      await section.getByText("Removed: this memory is searched by its content only").waitFor();
      assert.equal(await section.locator("li").count(), 0);
      watch.check();
    } finally {
      await browser?.close().catch(() => {});
      await admin.stop();
      await ol.close();
    }
  },
});
