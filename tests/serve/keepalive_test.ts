import assert from "node:assert/strict";
import {
  BACKOFF_MS,
  type CredentialsPort,
  Keepalive,
  NoCredentialsError,
  TICK_MS,
  type Timers,
} from "../../src/serve/keepalive.ts";

interface Creds {
  accessToken: string;
  refreshToken: string;
  expiresAt: number;
}

/** Manual timers: nothing runs until the test fires it. */
class ManualTimers implements Timers {
  pending = new Map<number, { fn: () => void; ms: number }>();
  delays: number[] = [];
  #next = 1;
  setTimeout(fn: () => void, ms: number): number {
    const id = this.#next++;
    this.pending.set(id, { fn, ms });
    this.delays.push(ms);
    return id;
  }
  clearTimeout(id: unknown): void {
    this.pending.delete(id as number);
  }
  only(): { fn: () => void; ms: number } {
    assert.equal(this.pending.size, 1, "exactly one timer pending");
    const [id, t] = [...this.pending][0];
    this.pending.delete(id);
    return t;
  }
}

function setup(initial: Creds | null, marginMs = 600_000) {
  const clock = {
    t: Date.parse("2026-03-01T12:00:00Z"),
    now() {
      return this.t;
    },
  };
  const timers = new ManualTimers();
  let file = initial;
  const calls = { read: 0, ensureFresh: 0 };
  const outcomes: Array<"ok" | Error> = [];
  const port: CredentialsPort<Creds> = {
    read() {
      calls.read++;
      return Promise.resolve(file);
    },
    ensureFresh({ marginMs: m, now }) {
      calls.ensureFresh++;
      assert.ok(file);
      if (file.expiresAt - now > m) return Promise.resolve({ credentials: file, refreshed: false });
      const outcome = outcomes.shift() ?? "ok";
      if (outcome instanceof Error) return Promise.reject(outcome);
      file = {
        accessToken: `at${calls.ensureFresh}`,
        refreshToken: `rt${calls.ensureFresh}`,
        expiresAt: now + 3600_000,
      };
      return Promise.resolve({ credentials: file, refreshed: true });
    },
  };
  const logs: string[] = [];
  const ka = new Keepalive<Creds>({
    source: port,
    marginMs,
    clock,
    timers,
    log: (m) => logs.push(m),
  });
  const fire = async () => {
    const t = timers.only();
    clock.t += t.ms;
    t.fn();
    await ka.tick(); // joins the tick the timer started
  };
  return {
    clock,
    timers,
    ka,
    calls,
    outcomes,
    logs,
    fire,
    setFile: (c: Creds | null) => (file = c),
    getFile: () => file,
  };
}

Deno.test("keepalive: a tick with nothing to refresh is not a refresh", async () => {
  const s = setup({
    accessToken: "a",
    refreshToken: "r",
    expiresAt: Date.parse("2026-03-01T14:00:00Z"),
  });
  await s.ka.start();
  assert.equal(s.calls.ensureFresh, 0);
  assert.equal(s.ka.snapshot().lastRefresh, null);
  assert.equal(s.ka.snapshot().tokenAlive, true);
  assert.deepEqual(s.timers.delays, [TICK_MS]);
  await s.fire();
  await s.fire();
  assert.equal(s.ka.snapshot().lastRefresh, null);
  assert.deepEqual(s.timers.delays, [TICK_MS, TICK_MS, TICK_MS]);
  await s.ka.stop();
  assert.equal(s.timers.pending.size, 0);
});

Deno.test("keepalive: refreshes within the margin, records the attempt", async () => {
  const s = setup({
    accessToken: "a",
    refreshToken: "r",
    expiresAt: Date.parse("2026-03-01T12:09:00Z"),
  });
  await s.ka.start();
  assert.equal(s.calls.ensureFresh, 1);
  const snap = s.ka.snapshot();
  assert.deepEqual(snap.lastRefresh, { at: s.clock.t, ok: true, error: null });
  assert.equal(s.ka.credentials?.accessToken, "at1");
  assert.deepEqual(s.timers.delays, [TICK_MS]);
  await s.ka.stop();
});

Deno.test("keepalive: backoff 30s, 1m, 5m, 5m... and never gives up", async () => {
  const s = setup({
    accessToken: "a",
    refreshToken: "r",
    expiresAt: Date.parse("2026-03-01T12:05:00Z"),
  });
  for (let i = 0; i < 6; i++) s.outcomes.push(new Error(`upstream down ${i}`));
  await s.ka.start();
  for (let i = 0; i < 5; i++) await s.fire();
  assert.deepEqual(s.timers.delays, [30_000, 60_000, 300_000, 300_000, 300_000, 300_000]);
  assert.deepEqual(BACKOFF_MS, [30_000, 60_000, 300_000]);
  let snap = s.ka.snapshot();
  assert.equal(snap.consecutiveFailures, 6);
  assert.equal(snap.lastRefresh?.ok, false);
  assert.equal(snap.lastRefresh?.error, "upstream down 5");
  assert.equal(snap.tokenAlive, false, "the token died while refresh kept failing");
  // The next attempt succeeds: back to the one-minute tick.
  await s.fire();
  snap = s.ka.snapshot();
  assert.equal(snap.consecutiveFailures, 0);
  assert.equal(snap.lastRefresh?.ok, true);
  assert.equal(snap.lastRefresh?.error, null);
  assert.equal(snap.tokenAlive, true);
  assert.equal(s.timers.delays.at(-1), TICK_MS);
  assert.ok(s.logs.some((l) => /retrying in 30s/.test(l)));
  await s.ka.stop();
});

Deno.test("keepalive: adopting another process's rotation is not a refresh", async () => {
  const s = setup({
    accessToken: "a",
    refreshToken: "r",
    expiresAt: Date.parse("2026-03-01T12:05:00Z"),
  });
  s.outcomes.push(new Error("fail once"));
  await s.ka.start();
  assert.equal(s.ka.snapshot().lastRefresh?.ok, false);
  // Another process wrote a fresh token meanwhile.
  s.setFile({ accessToken: "other", refreshToken: "r2", expiresAt: s.clock.t + 3600_000 });
  await s.fire();
  const snap = s.ka.snapshot();
  assert.equal(snap.lastRefresh?.ok, false, "last_refresh_* keeps the last real attempt");
  assert.equal(snap.consecutiveFailures, 0);
  assert.equal(s.ka.credentials?.accessToken, "other");
  assert.equal(s.timers.delays.at(-1), TICK_MS);
  await s.ka.stop();
});

Deno.test("keepalive: lazy refresh before a request, single-flight, respects backoff", async () => {
  const s = setup({
    accessToken: "a",
    refreshToken: "r",
    expiresAt: Date.parse("2026-03-01T13:00:00Z"),
  });
  await s.ka.start();
  assert.equal(await s.ka.accessToken(), "a");
  s.clock.t = Date.parse("2026-03-01T12:59:30Z"); // 30 s left: inside the liveness window
  const [t1, t2] = await Promise.all([s.ka.accessToken(), s.ka.accessToken()]);
  assert.equal(t1, "at1");
  assert.equal(t2, "at1");
  assert.equal(s.calls.ensureFresh, 1);
  // While a failed refresh is backing off, requests do not hammer the token endpoint.
  s.clock.t = Date.parse("2026-03-01T13:59:30Z");
  s.outcomes.push(new Error("down"));
  await s.ka.tick();
  assert.equal(s.calls.ensureFresh, 2);
  assert.equal(await s.ka.accessToken(), "at1");
  assert.equal(s.calls.ensureFresh, 2);
  await s.ka.stop();
});

Deno.test("keepalive: no credentials file: no refresh, NoCredentialsError for requests", async () => {
  const s = setup(null);
  await s.ka.start();
  assert.equal(s.ka.snapshot().tokenAlive, false);
  assert.equal(s.ka.snapshot().expiresAt, null);
  assert.equal(s.ka.snapshot().lastRefresh, null);
  await assert.rejects(() => s.ka.accessToken(), NoCredentialsError);
  // After `msgcli login` wrote the file, the next request finds it.
  s.setFile({ accessToken: "new", refreshToken: "r", expiresAt: s.clock.t + 3600_000 });
  assert.equal(await s.ka.accessToken(), "new");
  await s.ka.stop();
});

Deno.test("keepalive: a stopped keepalive schedules nothing", async () => {
  const s = setup({
    accessToken: "a",
    refreshToken: "r",
    expiresAt: Date.parse("2026-03-01T14:00:00Z"),
  });
  await s.ka.start();
  await s.ka.stop();
  assert.equal(s.timers.pending.size, 0);
  await s.ka.tick();
  assert.equal(s.timers.pending.size, 0);
  assert.equal(s.ka.snapshot().nextTickAt, null);
});

Deno.test("keepalive: a margin longer than the token lifetime does not rotate on every tick", async () => {
  const s = setup(
    { accessToken: "a", refreshToken: "r", expiresAt: Date.parse("2026-03-01T12:30:00Z") },
    2 * 3600_000, // 2 h margin, 1 h tokens
  );
  await s.ka.start();
  assert.equal(s.calls.ensureFresh, 1);
  for (let i = 0; i < 10; i++) await s.fire(); // ten minutes later
  assert.equal(s.calls.ensureFresh, 1, "no refresh while more than half the lifetime is left");
  assert.ok(s.logs.some((l) => /refresh margin is not shorter than the token lifetime/.test(l)));
  for (let i = 0; i < 25; i++) await s.fire(); // 35 min after the refresh: under half left
  assert.equal(s.calls.ensureFresh, 2);
  await s.ka.stop();
});
