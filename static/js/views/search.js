/// <reference lib="dom" />
// @ts-check
// Search: POST /api/memories/search with the project hierarchy; results show their score.
import { api } from "../api.js";
import { MAX_PROJECT, MAX_QUERY, MAX_SEARCH_LIMIT, SCOPES } from "../constants.js";
import {
  actionError,
  busy,
  clearErrors,
  expiry,
  field,
  h,
  memoryLink,
  replace,
  scopeLabel,
  showError,
  tagList,
  time,
  typeBadge,
  weight,
} from "../ui.js";

/**
 * @param {HTMLElement} root
 * @param {URLSearchParams} params
 */
export async function search(root, params) {
  const query = /** @type {HTMLInputElement} */ (h("input", {
    name: "query",
    type: "search",
    autocomplete: "off",
    "aria-required": "true",
    maxlength: String(MAX_QUERY),
  }));
  const project = /** @type {HTMLInputElement} */ (h("input", {
    name: "project",
    type: "text",
    list: "search-projects",
    autocomplete: "off",
    maxlength: String(MAX_PROJECT),
  }));
  const scope = /** @type {HTMLSelectElement} */ (h(
    "select",
    { name: "scope" },
    h("option", { value: "", text: "Global + project (hierarchy)" }),
    h("option", { value: "global", text: "global only" }),
    h("option", { value: "project", text: "project only" }),
    h("option", { value: "all", text: "all projects" }),
  ));
  const limit = /** @type {HTMLInputElement} */ (h("input", {
    name: "limit",
    type: "number",
    min: "1",
    max: String(MAX_SEARCH_LIMIT),
    step: "1",
    inputmode: "numeric",
  }));
  query.value = params.get("q") ?? "";
  project.value = params.get("project") ?? "";
  scope.value = /** @type {string[]} */ ([...SCOPES, "all"]).includes(params.get("scope") ?? "")
    ? /** @type {string} */ (params.get("scope"))
    : "";
  limit.value = params.get("limit") ?? "10";

  const submit = /** @type {HTMLButtonElement} */ (h("button", {
    type: "submit",
    class: "primary",
    text: "Search",
  }));
  const error = actionError();
  const form = /** @type {HTMLFormElement} */ (h(
    "form",
    { class: "card search-form", role: "search", novalidate: true },
    field("Query", query, { name: "query" }),
    h(
      "div",
      { class: "row" },
      field("Project", project, {
        name: "project",
        hint:
          'With a project: global memories plus that project\'s. Empty: global memories only; scope "all projects" searches every memory.',
      }),
      field("Scope", scope, { name: "scope" }),
      field("Results", limit, { name: "limit", hint: `1 to ${MAX_SEARCH_LIMIT}.` }),
    ),
    h("div", { class: "actions" }, submit),
    error,
    h("datalist", { id: "search-projects" }),
  ));
  const results = h("section", {
    class: "search-results",
    "aria-live": "polite",
    "aria-label": "Search results",
  });
  root.append(
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1", text: "Search" })),
    form,
    results,
  );

  api.stats().then((s) => {
    replace(
      /** @type {HTMLElement} */ (form.querySelector("#search-projects")),
      Object.keys(s.by_project).sort().map((p) => h("option", { value: p })),
    );
  }).catch(() => {/* suggestions only */});

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    const q = new URLSearchParams();
    if (query.value.trim()) q.set("q", query.value.trim());
    if (project.value.trim()) q.set("project", project.value.trim());
    if (scope.value) q.set("scope", scope.value);
    if (limit.value && limit.value !== "10") q.set("limit", limit.value);
    // Keep the URL linkable without re-rendering the screen.
    history.replaceState(null, "", `#/search${q.size ? `?${q}` : ""}`);
    busy(submit, run);
  });

  async function run() {
    clearErrors(form);
    /** @type {Record<string, unknown>} */
    const body = { query: query.value };
    // Scope "all" searches every memory: a project typed earlier does not apply to it.
    if (project.value.trim() && scope.value !== "all") body.project = project.value.trim();
    if (scope.value) body.scope = scope.value;
    if (limit.value.trim()) body.limit = Number(limit.value);
    try {
      const hits = await api.search(body);
      replace(
        results,
        h("p", {
          class: "summary",
          text: `${hits.length} ${hits.length === 1 ? "result" : "results"}`,
        }),
        hits.length
          ? h(
            "ol",
            { class: "hits" },
            hits.map((/** @type {any} */ r) =>
              h(
                "li",
                { class: "hit card" },
                h(
                  "div",
                  {
                    class: "score",
                    title:
                      "relevance (words and meaning, 0..1) × scope weight × weight × temporal decay",
                  },
                  h("span", { class: "score-value", text: r.score.toFixed(3) }),
                  h("span", { class: "score-label", text: "score" }),
                  typeof r.confidence === "number"
                    ? h("span", {
                      class: "score-label confidence",
                      title: "how likely the memory is about the query (0..1); " +
                        "0.7 or more is what the prompt hook injects",
                      text: `confidence ${r.confidence.toFixed(2)}`,
                    })
                    : null,
                ),
                h(
                  "div",
                  { class: "hit-body" },
                  h("p", { class: "content", text: r.memory.content }),
                  h(
                    "p",
                    { class: "meta" },
                    memoryLink(r.memory.id),
                    typeBadge(r.memory.type),
                    scopeLabel(r.memory),
                    tagList(r.memory.tags),
                    h("span", { class: "muted", text: `weight ${weight(r.memory.weight)}` }),
                    h(
                      "span",
                      { class: "muted" },
                      "updated ",
                      time(r.memory.updated_at, { relative: true }),
                    ),
                    r.memory.expires_at ? expiry(r.memory.expires_at, { label: true }) : null,
                  ),
                ),
              )
            ),
          )
          : h("p", { class: "muted", text: "Nothing found." }),
      );
    } catch (err) {
      replace(results);
      showError(form, error, err);
    }
  }

  if (query.value.trim()) await run();
}
