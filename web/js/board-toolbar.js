// @ts-check
/**
 * The board's toolbar (undo, redo, Move to…, edit, share, add item, add list), the item buttons
 * (×, ⋯, chips' ×) and the window's shortcuts (Ctrl/Cmd+Z, Shift+Ctrl/Cmd+Z, Ctrl+Y, Escape), for
 * one board session: every listener ends with it.
 */
import { toast } from "./announce.js";
import { openAddItem, openAddList } from "./board-forms.js";

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** Binds the toolbar to `session`. @param {import("./board.js").BoardSession} session */
export function bindToolbar(session) {
  const signal = session.scope.signal;
  /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn */
  const on = (target, type, fn) => target.addEventListener(type, fn, { signal });
  on($("undo-button"), "click", () => session.denied() || session.undo.undo());
  on($("redo-button"), "click", () => session.denied() || session.undo.redo());
  on($("edit-button"), "click", () => {
    session.setEditing(true);
    $("done-button").focus();
  });
  on($("done-button"), "click", () => session.setEditing(false));
  on($("move-button"), "click", () => {
    const id = session.lastFocused && session.model.item(session.lastFocused) ? session.lastFocused : session.model.view.lists[0]?.items[0];
    if (id) session.openMoveTo(id);
  });
  on($("share-button"), "click", () => {
    // Hidden on a board opened with a token (board.js, `applyAccess`): its link is not handed on.
    if (session.access.token() !== null || session.access.refused) return;
    const url = `${location.origin}${location.pathname}#/b/${encodeURIComponent(session.room)}`;
    navigator.clipboard?.writeText(url).then(() => toast("Link copied."), () => toast(url));
  });
  on($("add-item-button"), "click", () => openAddItem(session));
  on($("add-list-button"), "click", () => openAddList(session));
  on(session.root, "focusin", (e) => {
    const id = /** @type {HTMLElement} */ (e.target).closest?.("[data-item]")?.getAttribute("data-item");
    if (id) session.lastFocused = id;
  });
  on(session.root, "click", (e) => {
    const el = /** @type {HTMLElement} */ (e.target);
    const remove = el.closest("[data-remove-item]");
    if (remove) {
      const id = /** @type {string} */ (remove.getAttribute("data-remove-item"));
      const next = /** @type {HTMLElement | null} */ (remove.closest("[data-item]")?.nextElementSibling ?? null);
      session.remove(id);
      if (next instanceof HTMLElement && next.isConnected) next.querySelector(".item-remove")?.focus?.();
      return;
    }
    const unassign = el.closest("[data-unassign]");
    if (unassign) return session.unassign(/** @type {string} */ (unassign.getAttribute("data-unassign")));
    const move = el.closest("[data-move-item]");
    if (move) return session.openMoveTo(/** @type {string} */ (move.getAttribute("data-move-item")));
  });
  on(window, "keydown", (/** @type {KeyboardEvent} */ e) => {
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest?.("input, textarea, select, dialog")) return;
    const mod = e.ctrlKey || e.metaKey;
    const key = e.key.toLowerCase();
    if (mod && key === "z") {
      e.preventDefault();
      if (session.drag.active || session.keyboard.active || session.denied()) return;
      if (e.shiftKey) session.undo.redo();
      else session.undo.undo();
    } else if (mod && key === "y") {
      e.preventDefault();
      if (!session.denied()) session.undo.redo();
    } else if (e.key === "Escape" && session.editing && !session.drag.active && !session.keyboard.active) {
      session.setEditing(false);
    }
  });
}
