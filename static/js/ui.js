/// <reference lib="dom" />
// @ts-check
// DOM helpers, formatting and the shared dialogs. No innerHTML with data: text only.

/**
 * Create an element. `attrs` keys: `class`, `text`, `on<event>` handlers, `dataset`,
 * boolean attributes (true/false), everything else via setAttribute.
 * @param {string} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined | false | (Node | string | null | undefined | false)[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs ?? {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "class") el.className = v;
    else if (k === "text") el.textContent = String(v);
    else if (k === "dataset") Object.assign(el.dataset, v);
    else if (k.startsWith("on") && typeof v === "function") el.addEventListener(k.slice(2), v);
    else if (v === true) el.setAttribute(k, "");
    else el.setAttribute(k, String(v));
  }
  append(el, children);
  return el;
}

/**
 * @param {Node} el
 * @param {any[]} children
 */
function append(el, children) {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    if (Array.isArray(c)) append(el, c);
    else el.appendChild(typeof c === "string" ? document.createTextNode(c) : c);
  }
}

/**
 * Replace the children of `el`.
 * @param {Element} el
 * @param {...any} children
 */
export function replace(el, ...children) {
  el.replaceChildren();
  append(el, children);
}

let uid = 0;
/** @param {string} prefix */
export function newId(prefix) {
  return `${prefix}-${++uid}`;
}

/** Announce a message in the polite live region of the page. @param {string} text */
export function announce(text) {
  const region = document.getElementById("status");
  if (!region) return;
  region.textContent = "";
  // A fresh text node so that repeated identical messages are announced again.
  setTimeout(() => (region.textContent = text), 30);
}

/**
 * A labelled form field: label, control, hint and an error slot wired with
 * aria-describedby. Returns the wrapper; `control` and `error` are reachable through it.
 * @param {string} label
 * @param {HTMLElement} control
 * @param {{ hint?: string, name?: string }} [opts]
 */
export function field(label, control, opts = {}) {
  const id = control.id || newId("f");
  control.id = id;
  const errorId = `${id}-error`;
  const hintId = `${id}-hint`;
  const describedBy = [opts.hint ? hintId : null, errorId].filter(Boolean).join(" ");
  control.setAttribute("aria-describedby", describedBy);
  const wrap = h(
    "div",
    { class: "field", dataset: { field: opts.name ?? control.getAttribute("name") ?? "" } },
    h("label", { for: id, text: label }),
    control,
    opts.hint ? h("p", { class: "hint", id: hintId, text: opts.hint }) : null,
    h("p", { class: "field-error", id: errorId, role: "alert", hidden: true }),
  );
  return wrap;
}

/**
 * Show an API error next to the field it names (inside `form`), else in `fallback`.
 * @param {HTMLElement} form
 * @param {HTMLElement} fallback
 * @param {unknown} err
 */
export function showError(form, fallback, err) {
  clearErrors(form);
  const message = errorMessage(err);
  // The API names the input (`tags[2]`); the form's control is the part before the index.
  // An import item's field (`[3].type`) has no control here.
  const named = /** @type {{ field?: unknown } | null} */ (err)?.field;
  const fieldName = typeof named === "string" ? named.split(/[[.]/)[0] : "";
  const wrap = fieldName
    ? form.querySelector(`.field[data-field="${CSS.escape(fieldName)}"]`)
    : null;
  if (wrap) {
    const slot = /** @type {HTMLElement} */ (wrap.querySelector(".field-error"));
    slot.textContent = message;
    slot.hidden = false;
    const control = wrap.querySelector("input, select, textarea");
    if (control) {
      control.setAttribute("aria-invalid", "true");
      /** @type {HTMLElement} */ (control).focus();
    }
  } else {
    setError(fallback, message);
  }
}

/**
 * @param {HTMLElement} form
 */
export function clearErrors(form) {
  for (const slot of form.querySelectorAll(".field-error")) {
    slot.textContent = "";
    /** @type {HTMLElement} */ (slot).hidden = true;
  }
  for (const c of form.querySelectorAll("[aria-invalid]")) c.removeAttribute("aria-invalid");
  for (const e of form.querySelectorAll(".action-error")) {
    e.textContent = "";
    /** @type {HTMLElement} */ (e).hidden = true;
  }
}

/**
 * An error box for an action (role=alert so screen readers hear it).
 * @returns {HTMLElement}
 */
export function actionError() {
  return h("p", { class: "action-error", role: "alert", hidden: true });
}

/**
 * @param {HTMLElement} el
 * @param {string} message
 */
export function setError(el, message) {
  el.textContent = message;
  el.hidden = !message;
}

/** @param {unknown} err */
export function errorMessage(err) {
  if (err && typeof err === "object" && "status" in err) {
    const e = /** @type {{status: number, message: string}} */ (err);
    return e.status ? `${e.message} (HTTP ${e.status})` : e.message;
  }
  return err instanceof Error ? err.message : String(err);
}

/**
 * A button that shows a busy state while `fn` runs (and cannot be clicked twice).
 * @param {HTMLButtonElement} button
 * @param {() => Promise<void>} fn
 */
export async function busy(button, fn) {
  if (button.getAttribute("aria-busy") === "true") return;
  button.setAttribute("aria-busy", "true");
  button.disabled = true;
  try {
    await fn();
  } finally {
    button.removeAttribute("aria-busy");
    button.disabled = false;
  }
}

// ---- formatting ----

const dateFmt = new Intl.DateTimeFormat(undefined, { dateStyle: "medium", timeStyle: "short" });
const rel = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });

/** @param {string} iso */
export function relative(iso) {
  const diff = (Date.parse(iso) - Date.now()) / 1000;
  const abs = Math.abs(diff);
  const sizes = {
    second: 1,
    minute: 60,
    hour: 3600,
    day: 86400,
    week: 604800,
    month: 2629800,
    year: 31557600,
  };
  /** @type {[number, keyof typeof sizes][]} */
  const units = [
    [60, "second"],
    [3600, "minute"],
    [86400, "hour"],
    [604800, "day"],
    [2629800, "week"],
    [31557600, "month"],
    [Infinity, "year"],
  ];
  for (const [limit, unit] of units) {
    if (abs < limit) return rel.format(Math.round(diff / sizes[unit]), unit);
  }
  return iso;
}

/**
 * A <time> with the local date and time; the full ISO value as its tooltip.
 * @param {string} iso
 * @param {{ relative?: boolean }} [opts]
 */
export function time(iso, opts = {}) {
  const d = new Date(iso);
  const text = opts.relative ? relative(iso) : dateFmt.format(d);
  return h("time", { datetime: iso, title: opts.relative ? dateFmt.format(d) : iso, text });
}

/**
 * When a memory expires ("never", or relative with the date as tooltip).
 * @param {string | null} iso
 * @param {{ label?: boolean }} [opts]  show the word "expires" (else only to screen readers)
 */
export function expiry(iso, opts = {}) {
  if (!iso) return h("span", { class: "muted", text: "never" });
  const soon = Date.parse(iso) - Date.now() < 86400_000;
  return h(
    "span",
    { class: soon ? "expiry soon" : "expiry" },
    h("span", { class: opts.label ? null : "visually-hidden", text: "expires " }),
    time(iso, { relative: true }),
  );
}

/** @param {number} w */
export function weight(w) {
  return (Math.round(w * 100) / 100).toFixed(2);
}

/** @param {string} id */
export function shortId(id) {
  return id.slice(0, 8);
}

/** A link to a memory's detail page. @param {string} id @param {string} [text] */
export function memoryLink(id, text) {
  return h("a", { href: `#/memory/${id}`, class: "mono", title: id, text: text ?? shortId(id) });
}

/** @param {{scope: string, project: string | null}} m */
export function scopeLabel(m) {
  return m.scope === "global" ? h("span", { class: "badge scope-global", text: "global" }) : h(
    "span",
    { class: "badge scope-project", title: `project ${m.project}` },
    h("span", { class: "visually-hidden", text: "project " }),
    m.project ?? "",
  );
}

/** @param {string} t */
export function typeBadge(t) {
  return h("span", { class: `badge type type-${t}`, text: t });
}

/** @param {string[]} tags */
export function tagList(tags) {
  if (!tags.length) return h("span", { class: "muted", text: "—" });
  return h("ul", { class: "tags", "aria-label": "tags" }, tags.map((t) => h("li", { text: t })));
}

// ---- dialogs ----

/**
 * A modal confirmation. Resolves true when confirmed. Esc or Cancel resolves false.
 * @param {{ title: string, body: string | Node, confirm: string, danger?: boolean }} o
 * @returns {Promise<boolean>}
 */
export function confirmDialog(o) {
  return new Promise((resolve) => {
    const titleId = newId("dlg");
    const ok = h("button", {
      type: "submit",
      value: "ok",
      class: o.danger ? "danger" : "primary",
      text: o.confirm,
    });
    const cancel = h("button", { type: "submit", value: "cancel", text: "Cancel" });
    const dialog = /** @type {HTMLDialogElement} */ (h(
      "dialog",
      { class: "dialog", "aria-labelledby": titleId },
      h(
        "form",
        { method: "dialog" },
        h("h2", { id: titleId, text: o.title }),
        typeof o.body === "string" ? h("p", { text: o.body }) : o.body,
        h("div", { class: "actions" }, cancel, ok),
      ),
    ));
    dialog.addEventListener("close", () => {
      resolve(dialog.returnValue === "ok");
      dialog.remove();
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    cancel.focus();
  });
}

/**
 * Keep a success message for the next screen render (shown at the top, announced).
 * @param {string} text
 */
export function flash(text) {
  try {
    sessionStorage.setItem("mneme.flash", text);
  } catch {
    announce(text);
  }
}

/** @returns {string | null} */
export function takeFlash() {
  try {
    const text = sessionStorage.getItem("mneme.flash");
    sessionStorage.removeItem("mneme.flash");
    return text;
  } catch {
    return null;
  }
}

/** Re-render the current screen. */
export function rerender() {
  dispatchEvent(new HashChangeEvent("hashchange"));
}
