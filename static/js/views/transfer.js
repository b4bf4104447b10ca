/// <reference lib="dom" />
// @ts-check
// Export (downloads memories.json) and import (a file of memories).
import { api } from "../api.js";
import { EXPORT_MAX } from "../constants.js";
import { actionError, announce, busy, errorMessage, field, h, setError } from "../ui.js";

/** @param {HTMLElement} root */
export function transfer(root) {
  const exportButton = /** @type {HTMLButtonElement} */ (h("button", {
    type: "button",
    class: "primary",
    text: "Download memories.json",
  }));
  const exportError = actionError();
  const exportState = h("p", { class: "muted", "aria-live": "polite" });
  exportButton.addEventListener("click", () =>
    busy(exportButton, async () => {
      setError(exportError, "");
      try {
        const blob = await api.exportBlob();
        const url = URL.createObjectURL(blob);
        const a = h("a", { href: url, download: "memories.json", hidden: true });
        document.body.appendChild(a);
        a.click();
        a.remove();
        setTimeout(() => URL.revokeObjectURL(url), 10_000);
        exportState.textContent = `Downloaded memories.json (${
          (blob.size / 1024).toFixed(1)
        } KiB).`;
      } catch (err) {
        setError(exportError, `Export failed: ${errorMessage(err)}`);
      }
    }));

  const file = /** @type {HTMLInputElement} */ (h("input", {
    name: "file",
    type: "file",
    accept: ".json,application/json",
  }));
  const importButton = /** @type {HTMLButtonElement} */ (h("button", {
    type: "submit",
    class: "primary",
    text: "Import",
  }));
  const importError = actionError();
  const importState = h("p", { class: "import-state", id: "import-state", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "stack", novalidate: true },
    field("File", file, {
      name: "file",
      hint:
        "A JSON array of memories, such as an export. Each gets a new id and is embedded again; nothing is stored if any item is invalid.",
    }),
    h("div", { class: "actions" }, importButton),
    importError,
    importState,
  );
  form.addEventListener("submit", (ev) => {
    ev.preventDefault();
    busy(importButton, async () => {
      setError(importError, "");
      importState.textContent = "";
      const f = file.files?.[0];
      if (!f) {
        setError(importError, "file: choose a JSON file to import");
        file.focus();
        return;
      }
      let text;
      try {
        text = await f.text();
      } catch (err) {
        setError(importError, `Could not read ${f.name}: ${errorMessage(err)}`);
        return;
      }
      try {
        const { imported, skipped } = await api.importText(text);
        const already = skipped
          ? `; skipped ${skipped} already stored (same content, scope, project and type)`
          : "";
        importState.textContent = `Imported ${imported} ${
          imported === 1 ? "memory" : "memories"
        } from ${f.name}${already}.`;
        announce(importState.textContent);
        /** @type {HTMLFormElement} */ (form).reset();
      } catch (err) {
        setError(importError, `Import of ${f.name} failed: ${errorMessage(err)}`);
      }
    });
  });

  root.append(
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1", text: "Export and import" })),
    h(
      "div",
      { class: "grid two" },
      h(
        "section",
        { class: "card stack", "aria-labelledby": "export-title" },
        h("h2", { id: "export-title", text: "Export" }),
        h("p", {
          text: `All current memories (up to ${EXPORT_MAX}) as JSON, without embeddings.`,
        }),
        h("div", { class: "actions" }, exportButton),
        exportError,
        exportState,
      ),
      h(
        "section",
        { class: "card stack", "aria-labelledby": "import-title" },
        h("h2", { id: "import-title", text: "Import" }),
        form,
      ),
    ),
  );
}
