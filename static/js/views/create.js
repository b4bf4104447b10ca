/// <reference lib="dom" />
// @ts-check
// Create: every field of POST /api/memories, then the contradictions the service found,
// each with "Supersede it with this" (see docs/ui.md for exactly what that does).
import { api } from "../api.js";
import { MAX_CONTENT, MAX_PROJECT, MAX_WEIGHT, MEMORY_TYPES, MIN_WEIGHT } from "../constants.js";
import {
  actionError,
  announce,
  busy,
  clearErrors,
  errorMessage,
  field,
  h,
  memoryLink,
  replace,
  scopeLabel,
  setError,
  showError,
  typeBadge,
} from "../ui.js";
import { deleteOne } from "./browse.js";

/** @param {string} text */
export function parseTags(text) {
  return text.split(",").map((t) => t.trim()).filter((t) => t !== "");
}

/**
 * @param {HTMLElement} root
 * @param {URLSearchParams} params
 */
export function create(root, params) {
  const content = /** @type {HTMLTextAreaElement} */ (h("textarea", {
    name: "content",
    rows: "6",
    "aria-required": "true",
    maxlength: String(MAX_CONTENT),
  }));
  const scope = /** @type {HTMLSelectElement} */ (h(
    "select",
    { name: "scope" },
    h("option", { value: "global", text: "global — applies everywhere" }),
    h("option", { value: "project", text: "project — one project only" }),
  ));
  const project = /** @type {HTMLInputElement} */ (h("input", {
    name: "project",
    type: "text",
    list: "create-projects",
    autocomplete: "off",
    maxlength: String(MAX_PROJECT),
  }));
  const type = /** @type {HTMLSelectElement} */ (h(
    "select",
    { name: "type" },
    MEMORY_TYPES.map((t) => h("option", { value: t, text: t })),
  ));
  const tags = /** @type {HTMLInputElement} */ (h("input", {
    name: "tags",
    type: "text",
    autocomplete: "off",
    placeholder: "e.g. style, testing",
  }));
  const weightIn = /** @type {HTMLInputElement} */ (h("input", {
    name: "weight",
    type: "number",
    min: String(MIN_WEIGHT),
    max: String(MAX_WEIGHT),
    step: "0.1",
    inputmode: "decimal",
  }));
  const ttl = /** @type {HTMLInputElement} */ (h("input", {
    name: "ttl",
    type: "text",
    autocomplete: "off",
    placeholder: "never",
    spellcheck: "false",
  }));
  const supersedes = /** @type {HTMLInputElement} */ (h("input", {
    name: "supersedes",
    type: "text",
    autocomplete: "off",
    spellcheck: "false",
    class: "mono",
    placeholder: "memory id (UUID)",
  }));
  const pin = /** @type {HTMLInputElement} */ (h("input", { name: "pin", type: "checkbox" }));
  // When the agent will see the memory: said where it is chosen.
  const seen = h("p", { class: "hint", id: "create-visibility", "aria-live": "polite" });
  const syncSeen = () => {
    seen.textContent = pin.checked || type.value === "bootstrap"
      ? "The agent sees it at every session start (the bootstrap)."
      : "The agent sees it when relevant to a prompt (recall). Pin it to show it at every session start.";
  };
  pin.addEventListener("change", syncSeen);
  type.addEventListener("change", syncSeen);
  weightIn.value = MAX_WEIGHT.toFixed(1);
  scope.value = params.get("scope") === "project" || params.get("project") ? "project" : "global";
  project.value = params.get("project") ?? "";
  type.value = /** @type {readonly string[]} */ (MEMORY_TYPES).includes(params.get("type") ?? "")
    ? /** @type {string} */ (params.get("type"))
    : "fact";
  supersedes.value = params.get("supersedes") ?? "";
  const syncProject = () => {
    const needed = scope.value === "project";
    project.setAttribute("aria-required", String(needed));
    project.closest(".field")?.classList.toggle("inactive", !needed);
  };
  scope.addEventListener("change", syncProject);
  // Typing a project means project scope (as the API assumes when only a project is given).
  project.addEventListener("input", () => {
    if (project.value.trim() !== "" && scope.value === "global") {
      scope.value = "project";
      syncProject();
    }
  });

  const submit = /** @type {HTMLButtonElement} */ (h("button", {
    type: "submit",
    class: "primary",
    text: "Save memory",
  }));
  const formError = actionError();
  const form = /** @type {HTMLFormElement} */ (h(
    "form",
    { class: "card create-form", novalidate: true, "aria-labelledby": "create-title" },
    h("h2", { id: "create-title", class: "visually-hidden", text: "New memory" }),
    field("Content", content, {
      name: "content",
      hint: `Required. Up to ${MAX_CONTENT} characters. Ctrl+Enter saves.`,
    }),
    h(
      "div",
      { class: "row" },
      field("Scope", scope, { name: "scope" }),
      field("Project", project, { name: "project", hint: "Required for project scope." }),
      field("Type", type, { name: "type" }),
    ),
    h(
      "div",
      { class: "row" },
      field("Tags", tags, { name: "tags", hint: "Comma-separated." }),
      field("Weight", weightIn, {
        name: "weight",
        hint: `${MIN_WEIGHT.toFixed(1)} to ${MAX_WEIGHT.toFixed(1)}; default ${
          MAX_WEIGHT.toFixed(1)
        }.`,
      }),
      field("Time to live", ttl, {
        name: "ttl",
        hint: "e.g. 30m, 24h, 7d, 2w, 1d12h. Empty: never expires.",
      }),
    ),
    field("Pin to session start", pin, {
      name: "pin",
      hint:
        "Stored as type bootstrap with its type kept as a tag, so the bootstrap lists it under Rules, Facts ...",
    }),
    seen,
    field("Supersedes", supersedes, {
      name: "supersedes",
      hint: "Optional id of the memory this one replaces.",
    }),
    h("div", { class: "actions" }, submit),
    formError,
    h("datalist", { id: "create-projects" }),
  ));
  syncProject();
  syncSeen();

  const result = h("section", {
    class: "result",
    id: "create-result",
    "aria-live": "polite",
    hidden: true,
  });

  root.append(
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1", text: "New memory" })),
    form,
    result,
  );

  api.stats().then((s) => {
    replace(
      /** @type {HTMLElement} */ (form.querySelector("#create-projects")),
      Object.keys(s.by_project).sort().map((p) => h("option", { value: p })),
    );
  }).catch(() => {/* suggestions only */});

  /** The body the memory was saved with (reused by "Supersede it with this"). */
  /** @type {Record<string, unknown>} */
  let lastBody = {};

  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    busy(submit, async () => {
      clearErrors(form);
      /** @type {Record<string, unknown>} */
      const body = { content: content.value, scope: scope.value, type: type.value };
      if (project.value.trim() !== "" || scope.value === "project") {
        body.project = project.value.trim();
      }
      const tagList = parseTags(tags.value);
      if (pin.checked && type.value !== "bootstrap") {
        // Pinned: a bootstrap memory whose own type is a tag (the bootstrap groups by it).
        if (!tagList.includes(type.value)) tagList.unshift(type.value);
        body.type = "bootstrap";
      }
      if (tagList.length) body.tags = tagList;
      if (weightIn.value.trim() !== "") body.weight = Number(weightIn.value);
      else if (weightIn.validity.badInput) body.weight = weightIn.value; // the API names the field
      if (ttl.value.trim() !== "") body.ttl = ttl.value.trim();
      if (supersedes.value.trim() !== "") body.supersedes = supersedes.value.trim();
      try {
        const res = await api.create(body);
        lastBody = body;
        showResult(res, null);
        content.value = "";
        tags.value = "";
        ttl.value = "";
        supersedes.value = "";
        pin.checked = false;
        syncSeen();
        announce(
          `Saved memory ${res.memory.id.slice(0, 8)}${
            res.contradictions ? `; ${res.contradictions.length} possible contradiction(s)` : ""
          }.`,
        );
      } catch (err) {
        showError(form, formError, err);
      }
    });
  });

  /**
   * @param {{memory: any, contradictions?: {memory: any, similarity: number}[]}} res
   * @param {any} replaced  the memory the saved one superseded through the action, if any
   */
  function showResult(res, replaced) {
    const saved = res.memory;
    const list = res.contradictions ?? [];
    const resultError = actionError();
    const note = saved.supersedes
      ? h(
        "p",
        { class: "hint", text: "A memory can replace only one other. This one already replaces " },
        memoryLink(saved.supersedes),
        "; delete the others if they are obsolete.",
      )
      : null;
    replace(
      result,
      h(
        "div",
        { class: "notice ok", role: "status" },
        h("strong", { text: "Saved. " }),
        "New memory ",
        memoryLink(saved.id, saved.id),
        replaced ? [" replaces ", memoryLink(replaced.id), " (now marked superseded)."] : ".",
        h("blockquote", { class: "saved-content", text: saved.content }),
      ),
      resultError,
      list.length
        ? h(
          "section",
          { class: "card contradictions", "aria-labelledby": "contra-title" },
          h("h2", { id: "contra-title", text: `Possible contradictions (${list.length})` }),
          h("p", {
            class: "muted",
            text:
              "These existing memories say something very similar. If the new memory replaces one, supersede it: the old one stays listed, marked superseded, and drops out of search.",
          }),
          note,
          h(
            "ul",
            { class: "contra-list" },
            list.map((c) => {
              const btn = /** @type {HTMLButtonElement} */ (h("button", {
                type: "button",
                class: "primary small",
                text: "Supersede it with this",
                "aria-label": `Supersede memory ${c.memory.id.slice(0, 8)} with the new memory`,
                disabled: !!saved.supersedes,
              }));
              const li = h(
                "li",
                { class: "contra", dataset: { id: c.memory.id } },
                h("blockquote", { text: c.memory.content }),
                h(
                  "p",
                  { class: "meta" },
                  memoryLink(c.memory.id),
                  typeBadge(c.memory.type),
                  scopeLabel(c.memory),
                  h("span", {
                    class: "similarity",
                    text: `similarity ${(c.similarity * 100).toFixed(1)}%`,
                  }),
                ),
                h(
                  "div",
                  { class: "actions" },
                  btn,
                  h("a", { href: `#/memory/${c.memory.id}`, class: "button small", text: "Open" }),
                  h("button", {
                    type: "button",
                    class: "small danger-outline",
                    text: "Delete it",
                    "aria-label": `Delete memory ${c.memory.id.slice(0, 8)}`,
                    onclick: () => deleteOne(c.memory, li, resultError),
                  }),
                ),
              );
              btn.addEventListener("click", () =>
                busy(btn, () => supersedeWith(saved, c.memory, resultError)));
              return li;
            }),
          ),
        )
        : h("p", { class: "muted", text: "No contradictions found." }),
    );
    result.hidden = false;
    result.scrollIntoView({ block: "nearest" });
  }

  /**
   * The new memory is already stored, and `supersedes` can only be set when a memory is
   * created. So: store the same memory again with `supersedes` = the old one's id, then
   * delete the first copy. The result is what the user means: one new memory, which
   * replaces the old one.
   * @param {any} saved
   * @param {any} old
   * @param {HTMLElement} error
   */
  async function supersedeWith(saved, old, error) {
    setError(error, "");
    let res;
    try {
      res = await api.create({ ...lastBody, supersedes: old.id });
    } catch (err) {
      setError(error, `Could not supersede ${old.id.slice(0, 8)}: ${errorMessage(err)}`);
      return;
    }
    lastBody = { ...lastBody, supersedes: old.id };
    try {
      await api.remove(saved.id);
    } catch (err) {
      if (/** @type {any} */ (err).status !== 404) {
        showResult(res, old);
        setError(
          error,
          `The replacement ${res.memory.id.slice(0, 8)} was saved, but the first copy ${
            saved.id.slice(0, 8)
          } could not be deleted: ${errorMessage(err)}. Delete it by hand.`,
        );
        return;
      }
    }
    const rest = (res.contradictions ?? []).filter((/** @type {any} */ c) =>
      c.memory.id !== saved.id
    );
    showResult({ memory: res.memory, contradictions: rest }, old);
    announce(`Memory ${old.id.slice(0, 8)} is now superseded by ${res.memory.id.slice(0, 8)}.`);
    /** @type {HTMLElement | null} */ (result.querySelector(".notice a"))?.focus();
  }
}
