// @ts-check
/**
 * Keyboard reordering (the dnd-kit / react-beautiful-dnd model): Tab reaches an item, Space or
 * Enter lifts it, the arrow keys move it (within a list or grid and across collections), Space
 * or Enter drops, Escape cancels. Every step is announced with 1-based positions. Without a lift
 * the arrow keys move focus between items; "m" opens "Move to…"; Delete removes in edit mode.
 *
 * Places are counted in the whole list (a long list renders only a window): the held item is the
 * view's `hold`, always rendered and focused, and the list scrolls to follow it.
 */
import { measureSlots, columns } from "./geometry.js";
import { reducedMotion } from "./motion.js";
/** @typedef {import("./scope.js").Scope} Scope */

/**
 * @typedef {object} KeyboardActions
 * @property {(item: string, list: string, after: string | null, before: string | null) => void} move
 * @property {(item: string) => void} remove
 * @property {(item: string) => void} openMoveTo
 * @property {(text: string) => void} announce
 * @property {(msg: any) => void} presence
 * @property {(item: string) => string} describe "position i of n in List", where the item shows
 * @property {() => boolean} editing
 */

export class KeyboardController {
  /**
   * @param {HTMLElement} root
   * @param {import("./view.js").BoardView} view
   * @param {import("./reorder-client/model.js").BoardModel} model
   * @param {KeyboardActions} actions
   * @param {Scope} scope the board session: its listeners end with it
   */
  constructor(root, view, model, actions, scope) {
    this.root = root;
    this.view = view;
    this.model = model;
    this.actions = actions;
    /** Set by the board while a pointer drag is in progress. */
    this.busy = () => false;
    /** Set by the board: true while the page may not change it (a viewer); focus still moves. */
    this.locked = () => false;
    /** @type {{ item: string, el: HTMLElement, origin: { list: string, index: number }, target: { list: string, index: number } } | null} */
    this.held = null;
    const signal = scope.signal;
    root.addEventListener("keydown", (e) => this.onKey(e), { signal });
    root.addEventListener("focusin", (e) => {
      const el = /** @type {HTMLElement} */ (e.target);
      if (el.dataset && el.dataset.item) this.view.focusItem(el);
    }, { signal });
    root.addEventListener("pointerdown", () => {
      if (this.held) this.cancel();
    }, { signal });
  }

  /** @returns {boolean} */
  get active() {
    return this.held !== null;
  }

  /** @private @param {KeyboardEvent} e */
  onKey(e) {
    const el = /** @type {HTMLElement} */ (e.target);
    if (!el.dataset || !el.dataset.item || this.busy()) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const key = e.key;
    if (this.held) {
      if (key === " " || key === "Enter") this.drop();
      else if (key === "Escape") this.cancel();
      else if (key.startsWith("Arrow")) this.step(key);
      else if (key === "Home" || key === "End") this.edge(key === "Home");
      else if (key === "Tab") {
        /* Stay on the held item. */
      } else return;
      e.preventDefault();
      e.stopPropagation();
      return;
    }
    if (this.locked() && (key === " " || key === "Enter" || key === "m" || key === "M" || key === "Delete" || key === "Backspace")) {
      this.actions.announce("View only: this board cannot be changed from this link.");
    } else if (key === " " || key === "Enter") {
      this.lift(el);
    } else if (key.startsWith("Arrow")) {
      this.focusStep(el, key);
    } else if (key === "m" || key === "M") {
      this.actions.openMoveTo(/** @type {string} */ (el.dataset.item));
    } else if ((key === "Delete" || key === "Backspace") && this.actions.editing()) {
      const next = /** @type {HTMLElement | null} */ (el.nextElementSibling || el.previousElementSibling);
      this.actions.remove(/** @type {string} */ (el.dataset.item));
      if (next && next.isConnected) this.view.focusItem(next);
    } else return;
    e.preventDefault();
    e.stopPropagation();
  }

  /** @private @param {HTMLElement} el */
  lift(el) {
    const item = /** @type {string} */ (el.dataset.item);
    const at = this.view.positionOf(item);
    if (!at) return;
    const origin = { list: at.list, index: at.index };
    this.held = { item, el, origin, target: { ...origin } };
    this.view.hold = { item, ...origin };
    el.classList.add("kbd-lifted");
    el.setAttribute("aria-grabbed", "true");
    this.actions.announce(`Lifted ${this.model.label(item)}. ${this.actions.describe(item)}. Use the arrow keys to move, Space to drop, Escape to cancel.`);
    this.actions.presence({ phase: "start", item, list: at.list, index: at.index });
  }

  /** @private @param {string} key */
  step(key) {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    const listId = h.target.list;
    const ul = /** @type {HTMLElement} */ (this.view.listEl(listId));
    const grid = ul.classList.contains("layout-grid");
    const n = this.othersIn(listId, h.item) + 1;
    const i = h.target.index;
    const cols = grid ? columns(measureSlots(ul)) : 1;
    /** @type {number | "prev" | "next"} */
    let to;
    if (grid) {
      if (key === "ArrowLeft") to = i > 0 ? i - 1 : "prev";
      else if (key === "ArrowRight") to = i < n - 1 ? i + 1 : "next";
      else if (key === "ArrowUp") to = i - cols >= 0 ? i - cols : "prev";
      else to = i + cols <= n - 1 ? i + cols : i < n - 1 && Math.floor(i / cols) < Math.floor((n - 1) / cols) ? n - 1 : "next";
    } else {
      if (key === "ArrowUp") to = i > 0 ? i - 1 : "prev";
      else if (key === "ArrowDown") to = i < n - 1 ? i + 1 : "next";
      else if (key === "ArrowLeft") to = "prev";
      else to = "next";
    }
    if (typeof to === "number") {
      this.place(listId, to);
    } else {
      const lists = this.eligibleLists(h.item);
      const other = lists[lists.indexOf(listId) + (to === "prev" ? -1 : 1)];
      if (!other) {
        this.actions.announce(`${this.model.label(h.item)} cannot move further. ${this.actions.describe(h.item)}.`);
        return;
      }
      const otherGrid = this.model.list(other)?.layout === "grid";
      const size = this.othersIn(other, h.item);
      let index;
      if (!grid && !otherGrid && (key === "ArrowLeft" || key === "ArrowRight")) index = Math.min(i, size);
      else index = to === "prev" ? size : 0;
      this.place(other, index);
    }
    this.moved();
  }

  /** Home / End: to the first or last place of the current collection. @private @param {boolean} start */
  edge(start) {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    this.place(h.target.list, start ? 0 : this.othersIn(h.target.list, h.item));
    this.moved();
  }

  /** Says where the held item is now, and tells the others. @private */
  moved() {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    this.actions.announce(`${this.model.label(h.item)} moved. ${this.actions.describe(h.item)}.`);
    this.actions.presence({ phase: "move", item: h.item, list: h.target.list, index: h.target.index });
  }

  /** @private @param {string} list @param {string} item @returns {number} how many other items `list` has */
  othersIn(list, item) {
    const items = this.model.list(list)?.items ?? [];
    return items.length - (items.includes(item) ? 1 : 0);
  }

  /** Collections an item may be moved into by keyboard (foods never go into the people list). @private @param {string} item @returns {string[]} */
  eligibleLists(item) {
    const food = this.model.item(item)?.fields.role === "food";
    return this.view.listEls()
      .filter((ul) => !(food && ul.closest("[data-role='person']")))
      .map((ul) => /** @type {string} */ (ul.dataset.list));
  }

  /**
   * Shows the held item at `index` (among the other items) of `list`: the others slide out of its
   * way, it slides to its slot staying lifted, keeps the focus, and the list scrolls to it.
   * @private @param {string} list @param {number} index
   */
  place(list, index) {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    const before = h.el.getBoundingClientRect();
    h.target = { list, index };
    this.view.hold = { item: h.item, list, index };
    this.view.render({ duration: 150 });
    const el = this.view.itemEl(h.item);
    if (!el || !this.held) return;
    h.el = el;
    if (!reducedMotion()) {
      const after = el.getBoundingClientRect();
      const dx = before.left - after.left;
      const dy = before.top - after.top;
      el.animate([{ transform: `translate(${dx}px, ${dy}px) scale(1.05)` }, { transform: "scale(1.05)" }], {
        duration: 150,
        easing: "cubic-bezier(0.2, 0, 0, 1)",
      });
    }
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }

  /** @private */
  drop() {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    this.held = null;
    this.view.hold = null;
    h.el.classList.remove("kbd-lifted");
    h.el.removeAttribute("aria-grabbed");
    const { list, index } = h.target;
    if (list !== h.origin.list || index !== h.origin.index) {
      // The neighbours in the whole list, not only among the rendered rows.
      const others = (this.model.list(list)?.items ?? []).filter((id) => id !== h.item);
      this.actions.move(h.item, list, others[index - 1] ?? null, others[index] ?? null);
    } else {
      this.view.render({ animate: false });
    }
    this.actions.presence({ phase: "end", item: h.item, list, index });
    this.actions.announce(`Dropped ${this.model.label(h.item)}. ${this.actions.describe(h.item)}.`);
    const el = this.view.revealItem(h.item);
    if (el) this.view.focusItem(el);
  }

  /** Puts the held item back where it was. */
  cancel() {
    const h = this.held;
    if (!h) return;
    this.held = null;
    this.view.hold = null;
    h.el.classList.remove("kbd-lifted");
    h.el.removeAttribute("aria-grabbed");
    this.view.render();
    const el = this.view.revealItem(h.item);
    if (el) this.view.focusItem(el);
    this.actions.presence({ phase: "cancel", item: h.item });
    this.actions.announce(`Cancelled. ${this.model.label(h.item)} is back at ${this.actions.describe(h.item)}.`);
  }

  /** After a re-render (a remote change, a scroll) under a lift: the held item keeps the focus, or the lift ends when it is gone. */
  afterRender() {
    const h = this.held;
    if (!h) return;
    const el = this.view.itemEl(h.item);
    const at = this.view.positionOf(h.item);
    if (!el || !at || !this.model.item(h.item)) {
      this.held = null;
      this.view.hold = null;
      h.el.classList.remove("kbd-lifted");
      h.el.removeAttribute("aria-grabbed");
      this.actions.announce(`${this.model.label(h.item)} is no longer available.`);
      this.view.render();
      return;
    }
    h.el = el;
    // Fewer items than the held place (a remote delete): the place is the last one.
    h.target = { list: at.list, index: at.index };
    if (document.activeElement !== el) el.focus({ preventScroll: true });
  }

  /** Arrow keys without a lift: move focus between items. @private @param {HTMLElement} el @param {string} key */
  focusStep(el, key) {
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const at = this.view.positionOf(/** @type {string} */ (el.dataset.item));
    if (!at) return;
    const grid = ul.classList.contains("layout-grid");
    const i = at.index;
    const cols = grid ? columns(measureSlots(ul)) : 1;
    let j = i;
    if (key === "ArrowLeft") j = grid ? i - 1 : -2;
    else if (key === "ArrowRight") j = grid ? i + 1 : -3;
    else if (key === "ArrowUp") j = i - cols;
    else if (key === "ArrowDown") j = i + cols;
    if (j >= 0 && j < at.size) {
      const next = this.view.reveal(at.list, j);
      if (next) this.view.focusItem(next);
      return;
    }
    if (j === -2 || j === -3) {
      const lists = this.model.view.lists;
      const other = lists[lists.findIndex((l) => l.id === at.list) + (j === -2 ? -1 : 1)];
      const next = other && other.items.length ? this.view.reveal(other.id, Math.min(i, other.items.length - 1)) : null;
      if (next) this.view.focusItem(next);
    }
  }
}
