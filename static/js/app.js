/// <reference lib="dom" />
// @ts-check
// The shell: hash routing (#/overview, #/browse?…, #/search, #/create, #/memory/<id>,
// #/transfer, #/inbox), the API-key prompt and app-wide keyboard handling.
import { forgetKey, hasKey, setKeyPrompt } from "./api.js";
import { announce, errorMessage, h, newId, replace, takeFlash } from "./ui.js";
import { overview } from "./views/overview.js";
import { browse } from "./views/browse.js";
import { search } from "./views/search.js";
import { create } from "./views/create.js";
import { memory } from "./views/memory.js";
import { transfer } from "./views/transfer.js";
import { inbox } from "./views/inbox.js";

/** @type {Record<string, {title: string, nav?: string, render: (root: HTMLElement, params: URLSearchParams, arg: string) => unknown}>} */
const ROUTES = {
  overview: { title: "Overview", nav: "overview", render: overview },
  browse: { title: "Browse", nav: "browse", render: browse },
  search: { title: "Search", nav: "search", render: search },
  create: { title: "New memory", nav: "create", render: create },
  memory: { title: "Memory", nav: "browse", render: memory },
  transfer: { title: "Export and import", nav: "transfer", render: transfer },
  inbox: { title: "Inbox", nav: "inbox", render: inbox },
};

const main = /** @type {HTMLElement} */ (document.getElementById("main"));
let renderSeq = 0;
let firstRender = true;

function parseHash() {
  const raw = location.hash.replace(/^#\/?/, "");
  const [path, query = ""] = raw.split("?", 2);
  const [name, ...rest] = path.split("/");
  return {
    name: name || "overview",
    arg: decodeURIComponent(rest.join("/")),
    params: new URLSearchParams(query),
  };
}

async function render() {
  const seq = ++renderSeq;
  const { name, arg, params } = parseHash();
  const route = ROUTES[name];
  for (const a of document.querySelectorAll("nav.primary a")) {
    if (a.getAttribute("data-nav") === (route?.nav ?? "")) a.setAttribute("aria-current", "page");
    else a.removeAttribute("aria-current");
  }
  const view = h("div", { class: "view" });
  const flashText = takeFlash();
  if (flashText) {
    view.append(h("p", { class: "notice ok flash", role: "status", text: flashText }));
    announce(flashText);
  }
  replace(main, view);
  main.setAttribute("aria-busy", "true");
  if (!route) {
    document.title = "Not found · Mneme";
    view.append(
      h("h1", { tabindex: "-1", text: "Not found" }),
      h(
        "p",
        null,
        `There is no screen "${name}". `,
        h("a", { href: "#/overview", text: "Go to the overview" }),
      ),
    );
  } else {
    document.title = `${route.title} · Mneme`;
    try {
      await route.render(view, params, arg);
    } catch (err) {
      if (seq === renderSeq) {
        view.append(h("p", { class: "action-error", role: "alert", text: errorMessage(err) }));
      }
    }
  }
  if (seq !== renderSeq) return;
  main.removeAttribute("aria-busy");
  // Move focus to the new screen's heading on navigation (not on the first load).
  if (!firstRender) {
    /** @type {HTMLElement | null} */ (view.querySelector("h1"))?.focus({ preventScroll: false });
  }
  firstRender = false;
  updateKeyButton();
}

// ---- API key ----

const keyButton = /** @type {HTMLButtonElement} */ (document.getElementById("forget-key"));
function updateKeyButton() {
  keyButton.hidden = !hasKey();
}
keyButton.addEventListener("click", () => {
  forgetKey();
  updateKeyButton();
  announce("API key forgotten for this tab.");
});

/** @param {string} reason */
function promptForKey(reason) {
  return new Promise((resolve) => {
    const inputId = newId("key");
    const input = /** @type {HTMLInputElement} */ (h("input", {
      id: inputId,
      name: "key",
      type: "password",
      autocomplete: "current-password",
      required: true,
      spellcheck: "false",
    }));
    const titleId = newId("dlg");
    const dialog = /** @type {HTMLDialogElement} */ (h(
      "dialog",
      { class: "dialog", "aria-labelledby": titleId, id: "key-dialog" },
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: titleId, text: "API key required" }),
        h("p", {
          text:
            "This admin service is protected by ADMIN_API_KEY. Enter the key; it is kept in this browser tab only (session storage).",
        }),
        reason ? h("p", { class: "action-error", role: "alert", text: reason }) : null,
        h("div", { class: "field" }, h("label", { for: inputId, text: "API key" }), input),
        h(
          "div",
          { class: "actions" },
          h("button", { type: "submit", value: "cancel", formnovalidate: true, text: "Cancel" }),
          h("button", { type: "submit", value: "ok", class: "primary", text: "Continue" }),
        ),
      ),
    ));
    dialog.addEventListener("close", () => {
      const key = dialog.returnValue === "ok" ? input.value.trim() : "";
      dialog.remove();
      resolve(key || null);
      setTimeout(updateKeyButton, 0);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    input.focus();
  });
}
setKeyPrompt(promptForKey);

// ---- keyboard ----

// Ctrl+Enter (or Cmd+Enter) in a text area submits its form.
document.addEventListener("keydown", (ev) => {
  const t = /** @type {HTMLElement} */ (ev.target);
  if (
    ev.key === "Enter" && (ev.ctrlKey || ev.metaKey) && t instanceof HTMLTextAreaElement && t.form
  ) {
    ev.preventDefault();
    t.form.requestSubmit();
  }
});

addEventListener("hashchange", render);
if (!location.hash) history.replaceState(null, "", "#/overview");
render();
