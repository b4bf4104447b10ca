/**
 * `msgcli usage [--json]`: the subscription's rate-limit windows, as bars with percent and
 * local reset time, or as JSON.
 * @module
 */

import type { UsageWindows } from "../../msg/ratelimit.ts";
import type { ParsedCommand } from "../args.ts";
import { messagesClient, withRuntime } from "../context.ts";
import type { CliIO } from "../io.ts";

function pad2(n: number): string {
  return String(n).padStart(2, "0");
}

/** A local time like `2026-11-21 14:05 (UTC+01:00)`. */
export function formatLocalTime(iso: string): string {
  const d = new Date(iso);
  const off = -d.getTimezoneOffset();
  const sign = off >= 0 ? "+" : "-";
  const abs = Math.abs(off);
  return `${d.getFullYear()}-${pad2(d.getMonth() + 1)}-${pad2(d.getDate())} ${pad2(d.getHours())}:${
    pad2(d.getMinutes())
  } (UTC${sign}${pad2(Math.floor(abs / 60))}:${pad2(abs % 60)})`;
}

function relative(ms: number): string {
  if (ms <= 0) return "now";
  const m = Math.round(ms / 60_000);
  const d = Math.floor(m / 1440);
  const h = Math.floor((m % 1440) / 60);
  const min = m % 60;
  if (d > 0) return `in ${d}d ${h}h`;
  if (h > 0) return `in ${h}h ${min}m`;
  return `in ${min}m`;
}

function windowLabel(name: string): string {
  const m = /^(\d+)([hd])(?:_(.+))?$/.exec(name);
  if (!m) return name;
  const base = `${m[1]}-${m[2] === "h" ? "hour" : "day"}`;
  return m[3] ? `${base} ${m[3].replaceAll("_", " ")}` : base;
}

/** Renders windows as bars with percent and local reset time. */
export function renderUsage(u: UsageWindows, now = Date.now()): string {
  const names = Object.keys(u.windows).sort((a, b) => {
    const rank = (n: string) => (n === "5h" ? 0 : n === "7d" ? 1 : 2);
    return rank(a) - rank(b) || a.localeCompare(b);
  });
  if (names.length === 0) return "No subscription usage windows reported.\n";
  const labels = names.map(windowLabel);
  const width = Math.max(...labels.map((l) => l.length));
  const lines = ["Subscription usage:"];
  names.forEach((name, i) => {
    const w = u.windows[name];
    const util = w.utilization === null ? null : Math.min(1, Math.max(0, w.utilization));
    const cells = 20;
    const filled = util === null ? 0 : Math.round(util * cells);
    const bar = "█".repeat(filled) + "░".repeat(cells - filled);
    const pct = util === null ? "  n/a" : `${(util * 100).toFixed(0).padStart(4)}%`;
    const reset = w.reset
      ? `resets ${formatLocalTime(w.reset)}, ${relative(Date.parse(w.reset) - now)}`
      : "reset unknown";
    lines.push(`  ${labels[i].padEnd(width)}  [${bar}] ${pct}  ${reset}`);
  });
  if (u.status) lines.push(`Status: ${u.status}`);
  return lines.join("\n") + "\n";
}

/** Runs `msgcli usage`; returns the exit code. */
export function usage(p: ParsedCommand, io: CliIO): Promise<number> {
  return withRuntime(p, io, async (rt) => {
    const u = await messagesClient(rt).usage();
    await io.stdout(p.json ? JSON.stringify(u, null, 2) + "\n" : renderUsage(u));
    return 0;
  });
}
