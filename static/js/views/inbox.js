/// <reference lib="dom" />
// @ts-check
// Inbox: the memories capture proposed from Claude Code sessions, waiting for review. Each
// shows where it goes, its type, the extractor's confidence, the session and time it came
// from, and the stored memory it would replace; accept stores it (superseding that one),
// accept and pin stores it pinned to every session start (type bootstrap, its own type kept
// as a tag), edit changes its text first, reject removes it. None is recalled until accepted.
import { api } from "../api.js";
import { MAX_CONTENT } from "../constants.js";
import {
  actionError,
  announce,
  busy,
  errorMessage,
  h,
  memoryLink,
  replace,
  scopeLabel,
  setError,
  shortId,
  time,
  typeBadge,
} from "../ui.js";

/**
 * One proposal as a card with its actions.
 * @param {any} p
 * @param {() => void} onGone
 */
function proposalCard(p, onGone) {
  const error = actionError();
  const text = h("p", { class: "content", text: p.content });
  const card = h(
    "article",
    { class: "card proposal", dataset: { id: p.id }, "aria-label": `Proposal ${shortId(p.id)}` },
    text,
    h(
      "p",
      { class: "meta" },
      h("span", { class: "mono", title: p.id, text: shortId(p.id) }),
      " ",
      typeBadge(p.type),
      " ",
      scopeLabel(p),
      " ",
      h(
        "span",
        { class: "badge", title: "the extractor's confidence" },
        `confidence ${p.confidence.toFixed(2)}`,
      ),
    ),
    h(
      "p",
      { class: "meta provenance" },
      h(
        "span",
        null,
        "Said in session ",
        h("span", { class: "mono", text: p.source.session_id }),
        p.source.said_at ? [" ", time(p.source.said_at, { relative: true })] : null,
        "; captured ",
        time(p.captured_at, { relative: true }),
      ),
    ),
    p.replaces
      ? h(
        "div",
        { class: "replaces-box" },
        h("p", { class: "meta" }, "Would replace ", memoryLink(p.replaces.id), ":"),
        h("blockquote", { text: p.replaces.content }),
      )
      : null,
    p.secrets_removed.length
      ? h("p", {
        class: "notice",
        text: `A secret was removed from this text (${p.secrets_removed.join(", ")}).`,
      })
      : null,
    error,
  );
  const accept = /** @type {HTMLButtonElement} */ (h("button", {
    type: "button",
    class: "small primary",
    text: p.replaces ? "Accept and replace" : "Accept",
    "aria-label": `Accept proposal ${shortId(p.id)}`,
  }));
  const acceptPinned = /** @type {HTMLButtonElement} */ (h("button", {
    type: "button",
    class: "small",
    text: p.replaces ? "Accept, replace and pin" : "Accept and pin",
    title: "Store it pinned: shown at the start of every session, not only when relevant",
    "aria-label": `Accept and pin proposal ${shortId(p.id)}`,
  }));
  const edit = /** @type {HTMLButtonElement} */ (h("button", {
    type: "button",
    class: "small",
    text: "Edit",
    "aria-label": `Edit proposal ${shortId(p.id)}`,
  }));
  const reject = /** @type {HTMLButtonElement} */ (h("button", {
    type: "button",
    class: "small danger-outline",
    text: "Reject",
    "aria-label": `Reject proposal ${shortId(p.id)}`,
  }));
  const actions = h("div", { class: "actions" }, accept, acceptPinned, edit, reject);
  card.append(actions);

  const buttons = [accept, acceptPinned, edit, reject];
  /**
   * One action on a proposal at a time: while one runs, the card's other buttons wait (and are
   * back if it fails), so an accept cannot race a reject or an edit.
   * @param {HTMLButtonElement} button
   * @param {() => Promise<void>} fn
   */
  const alone = (button, fn) =>
    busy(button, async () => {
      const others = buttons.filter((b) => b !== button);
      for (const b of others) b.disabled = true;
      try {
        await fn();
      } finally {
        for (const b of others) b.disabled = false;
      }
    });
  /**
   * @param {HTMLButtonElement} button
   * @param {boolean} pin
   */
  const onAccept = (button, pin) =>
    alone(button, async () => {
      try {
        const r = await api.acceptProposal(p.id, { pin });
        replace(
          card,
          h(
            "p",
            { class: "notice ok", role: "status" },
            pin ? "Accepted and pinned as memory " : "Accepted as memory ",
            memoryLink(r.memory.id),
            r.superseded ? [" (superseding ", memoryLink(r.superseded), ")"] : null,
            pin ? ": shown at the start of every session." : ".",
          ),
        );
        announce(`Accepted${pin ? " and pinned" : ""} proposal ${shortId(p.id)}.`);
        onGone();
      } catch (err) {
        setError(error, `Could not accept: ${errorMessage(err)}`);
      }
    });
  accept.addEventListener("click", () => onAccept(accept, false));
  acceptPinned.addEventListener("click", () => onAccept(acceptPinned, true));
  reject.addEventListener("click", () =>
    alone(reject, async () => {
      try {
        await api.rejectProposal(p.id);
        card.remove();
        announce(`Rejected proposal ${shortId(p.id)}.`);
        onGone();
      } catch (err) {
        setError(error, `Could not reject: ${errorMessage(err)}`);
      }
    }));
  edit.addEventListener("click", () => {
    const area = /** @type {HTMLTextAreaElement} */ (h("textarea", {
      name: "content",
      rows: "3",
      maxlength: String(MAX_CONTENT),
      "aria-label": `Text of proposal ${shortId(p.id)}`,
    }));
    area.value = p.content;
    const save = h("button", { type: "submit", class: "small primary", text: "Save" });
    const cancel = /** @type {HTMLButtonElement} */ (h("button", {
      type: "button",
      class: "small",
      text: "Cancel",
    }));
    const form = h(
      "form",
      { class: "edit-proposal" },
      area,
      h("div", { class: "actions" }, save, cancel),
    );
    const restore = () => {
      form.replaceWith(text);
      actions.hidden = false;
    };
    cancel.addEventListener("click", restore);
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      busy(/** @type {HTMLButtonElement} */ (save), async () => {
        // Cancel waits too: it would bring the actions back while the edit is on its way.
        cancel.disabled = true;
        try {
          const updated = await api.editProposal(p.id, area.value);
          p.content = updated.content;
          text.textContent = updated.content;
          setError(error, "");
          restore();
          announce(`Proposal ${shortId(p.id)} edited.`);
        } catch (err) {
          setError(error, `Could not save: ${errorMessage(err)}`);
        } finally {
          cancel.disabled = false;
        }
      });
    });
    text.replaceWith(form);
    actions.hidden = true;
    area.focus();
  });
  return card;
}

/** @param {HTMLElement} root */
export async function inbox(root) {
  const summary = h("p", { class: "summary", id: "inbox-summary", "aria-live": "polite" });
  const list = h("div", { class: "proposals" });
  const error = actionError();
  root.append(
    h("div", { class: "page-head" }, h("h1", { tabindex: "-1", text: "Inbox" })),
    h("p", {
      class: "muted",
      text:
        "Memories captured from your Claude Code sessions wait here. None is recalled until you accept it.",
    }),
    error,
    summary,
    list,
  );
  /** @type {any[]} */
  let items;
  try {
    items = await api.inbox({ limit: "200" });
  } catch (err) {
    setError(error, errorMessage(err));
    return;
  }
  let left = items.length;
  const count = () => {
    summary.textContent = left === 0
      ? "Nothing to review."
      : `${left} proposed ${left === 1 ? "memory" : "memories"} to review.`;
  };
  count();
  replace(
    list,
    items.map((p) =>
      proposalCard(p, () => {
        left--;
        count();
      })
    ),
  );
}
