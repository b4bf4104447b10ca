/// <reference lib="dom" />
// @ts-check
// Overview: totals by scope, project and type as bar charts, and the service's health.
import { api } from "../api.js";
import { actionError, errorMessage, h, setError } from "../ui.js";

/**
 * A horizontal bar chart as a list: each row is a label, a bar and the count.
 * @param {string} title
 * @param {Record<string, number>} counts
 * @param {(key: string) => string} href
 * @param {string} empty
 */
function barChart(title, counts, href, empty) {
  const entries = Object.entries(counts).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const max = Math.max(1, ...entries.map(([, n]) => n));
  const headingId = `chart-${title.toLowerCase().replace(/\W+/g, "-")}`;
  return h(
    "section",
    { class: "card chart", "aria-labelledby": headingId },
    h("h2", { id: headingId, text: title }),
    entries.length === 0 ? h("p", { class: "muted", text: empty }) : h(
      "ul",
      { class: "bars" },
      entries.map(([key, n]) => {
        const bar = h("span", { class: "bar", "aria-hidden": "true" });
        // CSSOM (not a style attribute), which the CSP allows.
        bar.style.width = `${Math.max(2, (n / max) * 100)}%`;
        return h(
          "li",
          null,
          h("a", { href: href(key), class: "bar-label", title: `Browse ${key}`, text: key }),
          h("span", { class: "bar-track" }, bar),
          h("span", { class: "bar-count", text: String(n) }),
        );
      }),
    ),
  );
}

/** @param {boolean} ok */
function okBadge(ok) {
  return h("span", { class: ok ? "badge ok" : "badge bad", text: ok ? "ok" : "down" });
}

/** @param {any} health */
function healthCard(health) {
  const e = health.embedder;
  const s = health.stored_embedder;
  const statusClass = health.status === "ok"
    ? "ok"
    : health.status === "maintenance"
    ? "warn"
    : "bad";
  return h(
    "section",
    { class: "card health", "aria-labelledby": "health-title" },
    h(
      "h2",
      { id: "health-title" },
      "Service ",
      h("span", { class: `badge ${statusClass}`, id: "health-status", text: health.status }),
    ),
    health.maintenance
      ? h(
        "div",
        { class: "notice warn", role: "note" },
        h("strong", { text: "Maintenance: " }),
        "writes and searches are paused. ",
        health.maintenance.reason,
      )
      : null,
    h(
      "dl",
      { class: "facts" },
      h("dt", { text: "Version" }),
      h("dd", { text: health.version }),
      h("dt", { text: "Database" }),
      h(
        "dd",
        null,
        `${health.database.kind} `,
        okBadge(health.database.ok),
        health.database.error
          ? h("span", { class: "error-text", text: ` ${health.database.error}` })
          : null,
      ),
      h("dt", { text: "Embedder" }),
      h(
        "dd",
        null,
        h("span", { class: "mono", text: `${e.provider}/${e.model}` }),
        ` · ${e.dimension} dimensions `,
        okBadge(e.ok),
        e.error ? h("span", { class: "error-text", text: ` ${e.error}` }) : null,
      ),
      h("dt", { text: "Stored vectors" }),
      h(
        "dd",
        null,
        s
          ? [
            h("span", { class: "mono", text: `${s.provider}/${s.model}` }),
            ` · ${s.dimension} dimensions`,
          ]
          : h("span", { class: "muted", text: "none recorded yet" }),
      ),
    ),
  );
}

/**
 * @param {HTMLElement} root
 */
export async function overview(root) {
  const error = actionError();
  // A loading state until the figures come (never a blank page).
  const loading = h("p", {
    class: "muted loading",
    id: "overview-loading",
    role: "status",
    text: "Loading the figures…",
  });
  root.append(
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1", text: "Overview" })),
    error,
    loading,
  );
  const [stats, health] = await Promise.allSettled([api.stats(), api.health()]);
  loading.remove();
  const grid = h("div", { class: "grid overview" });
  if (stats.status === "fulfilled") {
    const s = stats.value;
    grid.append(
      h(
        "section",
        { class: "card totals", "aria-label": "Totals" },
        h("p", { class: "big", id: "total-count", text: String(s.total) }),
        h("p", { class: "muted", text: s.total === 1 ? "current memory" : "current memories" }),
        h(
          "p",
          null,
          h("a", { href: "#/browse", text: "Browse all" }),
          " · ",
          h("a", { href: "#/create", text: "Add one" }),
        ),
      ),
    );
  }
  if (health.status === "fulfilled") grid.append(healthCard(health.value));
  if (stats.status === "fulfilled") {
    const s = stats.value;
    grid.append(
      barChart(
        "By scope",
        s.by_scope,
        (k) => `#/browse?scope=${encodeURIComponent(k)}`,
        "No memories yet.",
      ),
      barChart(
        "By type",
        s.by_type,
        (k) => `#/browse?type=${encodeURIComponent(k)}`,
        "No memories yet.",
      ),
      barChart(
        "By project",
        s.by_project,
        (k) => `#/browse?project=${encodeURIComponent(k)}`,
        "No project memories yet.",
      ),
    );
  }
  root.append(grid);
  const failures = [stats, health].filter((r) => r.status === "rejected");
  if (failures.length) {
    setError(
      error,
      failures.map((f) => errorMessage(/** @type {PromiseRejectedResult} */ (f).reason)).join("; "),
    );
  }
}
