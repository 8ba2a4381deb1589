// @ts-check
/**
 * The "Add item" and "Add list" forms of a board session, and `showForm`, which shows a form
 * dialog for as long as the session lasts.
 */
import { announce, toast } from "./announce.js";
import { randomHex } from "./identity.js";

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** Asks for an item (title, emoji, list) and inserts it last. @param {import("./board.js").BoardSession} session */
export function openAddItem(session) {
  if (session.denied()) return;
  const dialog = /** @type {HTMLDialogElement} */ ($("add-item-dialog"));
  const form = /** @type {HTMLFormElement} */ ($("add-item-form"));
  const select = /** @type {HTMLSelectElement} */ ($("add-item-list"));
  if (session.model.view.lists.length === 0) {
    toast("Add a list first.");
    return;
  }
  select.replaceChildren(...session.model.view.lists.map((l) => new Option(l.title, l.id)));
  form.reset();
  showForm(dialog, form, session.scope.signal, (data) => {
    const list = session.model.list(String(data.get("list")));
    if (!list) return;
    const title = String(data.get("title") || "").trim();
    if (!title) return;
    /** @type {Record<string, any>} */
    const fields = { title };
    const emoji = String(data.get("emoji") || "").trim();
    if (emoji) fields.emoji = emoji;
    const item = "i-" + randomHex(6);
    /** @type {any} */
    const op = { kind: "insert", list: list.id, fields, item };
    const last = list.items[list.items.length - 1];
    if (last) op.after = last;
    session.propose(op);
    session.undo.record({ type: "insert", item });
    announce(`Added ${title}.`);
  });
}

/** Asks for a list (title, layout) and creates it last. @param {import("./board.js").BoardSession} session */
export function openAddList(session) {
  if (session.denied()) return;
  const dialog = /** @type {HTMLDialogElement} */ ($("add-list-dialog"));
  const form = /** @type {HTMLFormElement} */ ($("add-list-form"));
  form.reset();
  showForm(dialog, form, session.scope.signal, (data) => {
    const title = String(data.get("title") || "").trim();
    if (!title) return;
    /** @type {any} */
    const op = { kind: "createList", list: "l-" + randomHex(6), title, layout: data.get("layout") === "grid" ? "grid" : "list" };
    const last = session.model.view.lists[session.model.view.lists.length - 1];
    if (last) op.after = last.id;
    session.propose(op);
    announce(`Added the list ${title}.`);
  });
}

/**
 * Shows a form dialog; `onSubmit` gets the form data when it is submitted (not cancelled). Its
 * listeners last until the dialog closes; the end of `session` (leaving the board) closes it.
 * @param {HTMLDialogElement} dialog @param {HTMLFormElement} form @param {AbortSignal} session
 * @param {(data: FormData) => void} onSubmit
 */
export function showForm(dialog, form, session, onSubmit) {
  if (session.aborted) return;
  const shown = new AbortController();
  const signal = shown.signal;
  const close = () => {
    shown.abort();
    if (dialog.open) dialog.close();
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    close();
    onSubmit(new FormData(form));
  }, { signal });
  for (const b of form.querySelectorAll(".dialog-cancel")) b.addEventListener("click", close, { signal });
  dialog.addEventListener("close", () => shown.abort(), { signal });
  session.addEventListener("abort", close, { signal });
  dialog.showModal();
}
