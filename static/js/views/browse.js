/// <reference lib="dom" />
// @ts-check
// Browse: the memory table with filters, per-row delete and bulk delete by filter.
import { api } from "../api.js";
import {
  actionError,
  announce,
  busy,
  clearErrors,
  confirmDialog,
  errorMessage,
  expiry,
  field,
  flash,
  h,
  memoryLink,
  replace,
  rerender,
  scopeLabel,
  setError,
  showError,
  tagList,
  time,
  typeBadge,
  weight,
} from "../ui.js";
import {
  BULK_DELETE_MAX,
  DEFAULT_LIST_LIMIT,
  MAX_LIST_LIMIT,
  MAX_PROJECT,
  MEMORY_TYPES,
  SCOPES,
} from "../constants.js";

/** @param {Record<string, string>} f */
export function describeFilter(f) {
  const parts = ["scope", "project", "type"].filter((k) => f[k]).map((k) => `${k} = ${f[k]}`);
  return parts.length ? parts.join(", ") : "no filter (all memories)";
}

/**
 * @param {any} m
 * @param {(m: any, row: HTMLElement) => void} onDelete
 */
export function memoryRow(m, onDelete) {
  const superseded = !!m.superseded_by;
  const row = h(
    "tr",
    { class: superseded ? "superseded" : null, dataset: { id: m.id } },
    h(
      "td",
      { class: "content-cell", "data-label": "Memory" },
      h("p", { class: "content", text: m.content }),
      h(
        "p",
        { class: "meta" },
        memoryLink(m.id),
        superseded
          ? h(
            "span",
            { class: "badge superseded-badge" },
            // Superseded by itself: imported as superseded, its successor not in this store.
            m.superseded_by === m.id
              ? "superseded"
              : ["superseded by ", memoryLink(m.superseded_by)],
          )
          : null,
        m.supersedes
          ? h("span", { class: "badge replaces" }, "replaces ", memoryLink(m.supersedes))
          : null,
      ),
    ),
    h("td", { "data-label": "Type" }, typeBadge(m.type)),
    h("td", { "data-label": "Scope" }, scopeLabel(m)),
    h("td", { "data-label": "Tags" }, tagList(m.tags)),
    h("td", { "data-label": "Weight", class: "num" }, weight(m.weight)),
    h(
      "td",
      { "data-label": "Created / updated", class: "dates" },
      h("span", null, time(m.created_at)),
      m.updated_at !== m.created_at
        ? h("span", { class: "muted" }, "updated ", time(m.updated_at, { relative: true }))
        : null,
    ),
    h("td", { "data-label": "Expires" }, expiry(m.expires_at)),
    h(
      "td",
      { class: "row-actions", "data-label": "Actions" },
      h("a", {
        href: `#/memory/${m.id}`,
        class: "button small",
        "aria-label": `Edit memory ${m.id.slice(0, 8)}`,
        text: "Edit",
      }),
      h("button", {
        type: "button",
        class: "small danger-outline",
        "aria-label": `Delete memory ${m.id.slice(0, 8)}`,
        text: "Delete",
        onclick: () => onDelete(m, row),
      }),
    ),
  );
  return row;
}

/** @param {any[]} memories @param {(m: any, row: HTMLElement) => void} onDelete */
export function memoryTable(memories, onDelete, caption = "Memories") {
  return h(
    "table",
    { class: "memories" },
    h("caption", { class: "visually-hidden", text: caption }),
    h(
      "thead",
      null,
      h(
        "tr",
        null,
        ["Memory", "Type", "Scope", "Tags", "Weight", "Created / updated", "Expires", "Actions"]
          .map((c) => h("th", { scope: "col", text: c })),
      ),
    ),
    h("tbody", null, memories.map((m) => memoryRow(m, onDelete))),
  );
}

/**
 * Ask, then delete one memory; removes its row. Errors appear in `error`.
 * @param {any} m
 * @param {HTMLElement | null} row
 * @param {HTMLElement} error
 * @returns {Promise<boolean>}
 */
export async function deleteOne(m, row, error) {
  const preview = m.content.length > 160 ? `${m.content.slice(0, 160)}…` : m.content;
  const ok = await confirmDialog({
    title: "Delete this memory?",
    body: h(
      "div",
      null,
      h("blockquote", { text: preview }),
      h("p", { text: "This cannot be undone." }),
    ),
    confirm: "Delete",
    danger: true,
  });
  if (!ok) return false;
  try {
    await api.remove(m.id);
    row?.remove();
    setError(error, "");
    announce(`Deleted memory ${m.id.slice(0, 8)}.`);
    return true;
  } catch (err) {
    setError(error, `Could not delete ${m.id.slice(0, 8)}: ${errorMessage(err)}`);
    return false;
  }
}

/**
 * @param {HTMLElement} root
 * @param {URLSearchParams} params
 */
export async function browse(root, params) {
  const filter = {
    scope: params.get("scope") ?? "",
    project: params.get("project") ?? "",
    type: params.get("type") ?? "",
  };
  const defaultLimit = String(DEFAULT_LIST_LIMIT);
  const limits = [defaultLimit, "200", String(MAX_LIST_LIMIT)];
  const limit = params.get("limit") ?? defaultLimit;

  const scope = h(
    "select",
    { name: "scope" },
    h("option", { value: "", text: "Any scope" }),
    SCOPES.map((s) => h("option", { value: s, text: s })),
  );
  const project = h("input", {
    name: "project",
    type: "text",
    list: "project-names",
    autocomplete: "off",
    placeholder: "any project",
    maxlength: String(MAX_PROJECT),
  });
  const type = h(
    "select",
    { name: "type" },
    h("option", { value: "", text: "Any type" }),
    MEMORY_TYPES.map((t) => h("option", { value: t, text: t })),
  );
  const lim = h(
    "select",
    { name: "limit" },
    limits.map((n) => h("option", { value: n, text: n })),
  );
  /** @type {any} */ (scope).value = filter.scope;
  /** @type {any} */ (project).value = filter.project;
  /** @type {any} */ (type).value = filter.type;
  /** @type {any} */ (lim).value = limits.includes(limit) ? limit : defaultLimit;

  const formError = actionError();
  const form = h(
    "form",
    { class: "filters card", "aria-label": "Filters" },
    field("Scope", scope, { name: "scope" }),
    field("Project", project, { name: "project" }),
    field("Type", type, { name: "type" }),
    field("Show", lim, { name: "limit" }),
    h(
      "div",
      { class: "filter-actions" },
      h("button", { type: "submit", class: "primary", text: "Apply" }),
      h("a", { href: "#/browse", class: "button", text: "Reset" }),
    ),
    formError,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    const data = new FormData(/** @type {HTMLFormElement} */ (form));
    for (const k of ["scope", "project", "type"]) {
      const v = String(data.get(k) ?? "").trim();
      if (v) q.set(k, v);
    }
    if (data.get("limit") !== defaultLimit) q.set("limit", String(data.get("limit")));
    const target = `#/browse${q.size ? `?${q}` : ""}`;
    if (location.hash === target) rerender();
    else location.hash = target;
  });

  const bulkButton = /** @type {HTMLButtonElement} */ (h("button", {
    type: "button",
    class: "danger-outline",
    text: "Delete all matching…",
  }));
  const bulkError = actionError();
  const tableError = actionError();
  const summary = h("p", { class: "summary", id: "browse-summary", "aria-live": "polite" });
  const results = h("div", { class: "results" });
  const datalist = h("datalist", { id: "project-names" });

  root.append(
    h(
      "div",
      { class: "page-head" },
      h("h1", { tabindex: "-1", text: "Browse" }),
      h("a", { href: "#/create", class: "button primary", text: "New memory" }),
    ),
    form,
    datalist,
    h("div", { class: "toolbar" }, summary, h("div", { class: "bulk" }, bulkButton)),
    bulkError,
    tableError,
    results,
  );

  api.stats().then((s) =>
    replace(datalist, Object.keys(s.by_project).sort().map((p) => h("option", { value: p })))
  ).catch(() => {
    /* the project list is a convenience: the table shows its own error */
  });

  const query = { ...filter, limit: /** @type {any} */ (lim).value };
  /** @param {any} m @param {HTMLElement} row */
  const onDelete = async (m, row) => {
    if (await deleteOne(m, row, tableError)) {
      const left = results.querySelectorAll("tbody tr").length;
      summary.textContent = `${left} ${left === 1 ? "memory" : "memories"} shown · ${
        describeFilter(filter)
      }`;
    }
  };
  try {
    const memories = await api.list(query);
    summary.textContent = `${memories.length}${memories.length >= Number(query.limit) ? "+" : ""} ${
      memories.length === 1 ? "memory" : "memories"
    } shown · ${describeFilter(filter)}`;
    if (memories.length === 0) {
      replace(
        results,
        h(
          "div",
          { class: "empty card" },
          h("p", { text: "No memories match." }),
          h("a", { href: "#/create", text: "Create one" }),
        ),
      );
    } else {
      replace(
        results,
        memoryTable(memories, onDelete, `Memories, newest first: ${describeFilter(filter)}`),
      );
    }
  } catch (err) {
    showError(form, tableError, err);
  }

  bulkButton.addEventListener("click", () =>
    busy(bulkButton, async () => {
      clearErrors(form);
      setError(bulkError, "");
      let count;
      try {
        count = (await api.list({ ...filter, limit: String(BULK_DELETE_MAX) })).length;
      } catch (err) {
        setError(bulkError, `Could not count the matching memories: ${errorMessage(err)}`);
        return;
      }
      if (count === 0) {
        announce("Nothing matches this filter; nothing to delete.");
        setError(bulkError, "Nothing matches this filter; nothing to delete.");
        return;
      }
      const many = count >= BULK_DELETE_MAX;
      const ok = await confirmDialog({
        title: `Delete ${many ? `at least ${BULK_DELETE_MAX}` : count} ${
          count === 1 ? "memory" : "memories"
        }?`,
        body: h(
          "div",
          null,
          h("p", null, "Filter: ", h("strong", { text: describeFilter(filter) })),
          many
            ? h("p", {
              text:
                `One bulk delete removes at most ${BULK_DELETE_MAX} memories (oldest first); run it again for the rest.`,
            })
            : null,
          h("p", { text: "This cannot be undone. Export first if you may need them again." }),
        ),
        confirm: `Delete ${many ? BULK_DELETE_MAX : count}`,
        danger: true,
      });
      if (!ok) return;
      try {
        const { deleted } = await api.removeMany(filter);
        const text = `Deleted ${deleted} ${deleted === 1 ? "memory" : "memories"} (${
          describeFilter(filter)
        }).`;
        flash(text);
        rerender();
      } catch (err) {
        setError(bulkError, `Bulk delete failed: ${errorMessage(err)}`);
      }
    }));
}
