/// <reference lib="dom" />
// @ts-check
// One memory: every field, edit its content, delete it.
import { api } from "../api.js";
import { MAX_CONTENT } from "../constants.js";
import {
  actionError,
  announce,
  busy,
  clearErrors,
  errorMessage,
  expiry,
  field,
  flash,
  h,
  memoryLink,
  replace,
  scopeLabel,
  setError,
  showError,
  tagList,
  time,
  typeBadge,
  weight,
} from "../ui.js";
import { deleteOne } from "./browse.js";

/**
 * @param {HTMLElement} root
 * @param {URLSearchParams} _params
 * @param {string} id
 */
export async function memory(root, _params, id) {
  const error = actionError();
  const heading = h("h1", { tabindex: "-1", text: "Memory" });
  root.append(
    h(
      "div",
      { class: "page-head" },
      heading,
      h("a", { href: "#/browse", class: "button", text: "Back to browse" }),
    ),
    error,
  );
  /** @type {import("../api.js").Memory} */
  let m;
  try {
    m = await api.get(id);
  } catch (err) {
    setError(error, errorMessage(err));
    return;
  }
  heading.textContent = `Memory ${m.id.slice(0, 8)}`;

  const facts = h("dl", { class: "facts card" });
  const renderFacts = () =>
    replace(
      facts,
      h("dt", { text: "Id" }),
      h("dd", { class: "mono", text: m.id }),
      h("dt", { text: "Type" }),
      h("dd", null, typeBadge(m.type)),
      h("dt", { text: "Scope" }),
      h("dd", null, scopeLabel(m)),
      h("dt", { text: "Tags" }),
      h("dd", null, tagList(m.tags)),
      h("dt", { text: "Weight" }),
      h("dd", { text: weight(m.weight) }),
      h("dt", { text: "Created" }),
      h("dd", null, time(m.created_at)),
      h("dt", { text: "Updated" }),
      h("dd", null, time(m.updated_at)),
      h("dt", { text: "Expires" }),
      h(
        "dd",
        null,
        expiry(m.expires_at),
        m.expires_at ? h("span", { class: "muted" }, " (", time(m.expires_at), ")") : null,
      ),
      h("dt", { text: "Replaces" }),
      h(
        "dd",
        null,
        m.supersedes
          ? memoryLink(m.supersedes, m.supersedes)
          : h("span", { class: "muted", text: "—" }),
      ),
      h("dt", { text: "Superseded by" }),
      h(
        "dd",
        null,
        m.superseded_by
          ? [
            // Superseded by itself: imported as superseded, its successor not in this store.
            m.superseded_by === m.id
              ? h("span", { class: "muted", text: "a memory not in this store (imported)" })
              : memoryLink(m.superseded_by, m.superseded_by),
            h("span", { class: "badge superseded-badge", text: "superseded" }),
          ]
          : h("span", { class: "muted", text: "— (current)" }),
      ),
    );
  renderFacts();

  const content = /** @type {HTMLTextAreaElement} */ (h("textarea", {
    name: "content",
    rows: "8",
    required: true,
    maxlength: String(MAX_CONTENT),
  }));
  content.value = m.content;
  const saveError = actionError();
  const save = /** @type {HTMLButtonElement} */ (h("button", {
    type: "submit",
    class: "primary",
    text: "Save content",
  }));
  const form = h(
    "form",
    { class: "card stack", "aria-labelledby": "edit-title" },
    h("h2", { id: "edit-title", text: "Edit content" }),
    field("Content", content, {
      name: "content",
      hint:
        "Saving re-embeds the memory. Other fields cannot be changed; create a new memory that supersedes this one instead. Ctrl+Enter saves.",
    }),
    h(
      "div",
      { class: "actions" },
      save,
      h("span", { class: "saved muted", id: "save-state", "aria-live": "polite" }),
    ),
    saveError,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    busy(save, async () => {
      clearErrors(form);
      try {
        m = await api.update(m.id, content.value);
        renderFacts();
        // A new content clears the phrases (the worker writes new ones).
        await renderPhrases();
        announce("Saved.");
        /** @type {HTMLElement} */ (form.querySelector("#save-state")).textContent = "Saved.";
      } catch (err) {
        showError(form, saveError, err);
      }
    });
  });

  // The search phrases a model wrote for it (MEMORY_EXPANSION), when it has some or they were
  // removed; nothing for a memory never expanded.
  const phrases = h("section", {
    class: "card stack",
    id: "phrases",
    "aria-labelledby": "phrases-title",
    hidden: true,
  });
  const renderPhrases = async () => {
    /** @type {import("../api.js").ExpansionInfo | null} */
    let x = null;
    try {
      x = await api.expansion(m.id);
    } catch {
      x = null; // a daemon without the route: nothing to show
    }
    if (!x || (x.state !== "expanded" && x.state !== "cleared")) {
      phrases.hidden = true;
      return;
    }
    const cmd = h("code", {
      text: x.state === "expanded"
        ? `memcli expansion clear ${m.id.slice(0, 8)}`
        : `memcli expansion redo ${m.id.slice(0, 8)}`,
    });
    replace(
      phrases,
      h("h2", { id: "phrases-title", text: "Search phrases" }),
      x.state === "expanded"
        ? h(
          "p",
          { class: "muted" },
          `Written by ${x.model ?? "a model"} so that search finds this memory by meaning; ` +
            "never shown to agents or exported. ",
          cmd,
          " removes them.",
        )
        : h(
          "p",
          { class: "muted" },
          "Removed: this memory is searched by its content only and is not expanded again. ",
          cmd,
          " lets the worker expand it again.",
        ),
      x.phrases.length
        ? h("ul", { class: "phrases" }, ...x.phrases.map((p) => h("li", { text: p })))
        : null,
    );
    phrases.hidden = false;
  };

  const delError = actionError();
  const del = h("button", {
    type: "button",
    class: "danger",
    text: "Delete memory…",
    onclick: async () => {
      if (await deleteOne(m, null, delError)) {
        flash(`Deleted memory ${m.id.slice(0, 8)}.`);
        location.hash = "#/browse";
      }
    },
  });
  const supersede = h("a", {
    href: `#/create?supersedes=${m.id}&scope=${m.scope}${
      m.project ? `&project=${encodeURIComponent(m.project)}` : ""
    }&type=${m.type}`,
    class: "button",
    text: "Replace with a new memory",
  });

  root.append(
    h("div", { class: "two-col" }, form, facts),
    phrases,
    h(
      "section",
      { class: "card danger-zone", "aria-labelledby": "danger-title" },
      h("h2", { id: "danger-title", text: "Replace or delete" }),
      h("div", { class: "actions" }, supersede, del),
      delError,
    ),
  );
  await renderPhrases();
}
