// @ts-check
/**
 * Keyboard reordering (the dnd-kit / react-beautiful-dnd model): Tab reaches an item, Space or
 * Enter lifts it, the arrow keys move it (within a list or grid and across collections), Space
 * or Enter drops, Escape cancels. Every step is announced with 1-based positions. Without a lift
 * the arrow keys move focus between items; "m" opens "Move to…"; Delete removes in edit mode.
 */
import { measureSlots, columns } from "./geometry.js";
import { measure, play, reducedMotion } from "./motion.js";
/** @typedef {import("./scope.js").Scope} Scope */

/**
 * @typedef {object} KeyboardActions
 * @property {(item: string, list: string, after: string | null, before: string | null) => void} move
 * @property {(item: string) => void} remove
 * @property {(item: string) => void} openMoveTo
 * @property {(text: string) => void} announce
 * @property {(msg: any) => void} presence
 * @property {(item: string, list: string) => string} describe
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
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const item = /** @type {string} */ (el.dataset.item);
    const list = /** @type {string} */ (ul.dataset.list);
    const index = Array.prototype.indexOf.call(ul.children, el);
    this.held = { item, el, origin: { list, index }, target: { list, index } };
    el.classList.add("kbd-lifted");
    el.setAttribute("aria-grabbed", "true");
    this.actions.announce(`Lifted ${this.model.label(item)}. ${this.actions.describe(item, list)}. Use the arrow keys to move, Space to drop, Escape to cancel.`);
    this.actions.presence({ phase: "start", item, list, index });
  }

  /** @private @param {string} key */
  step(key) {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    const el = h.el;
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const grid = ul.classList.contains("layout-grid");
    const n = ul.children.length;
    const i = Array.prototype.indexOf.call(ul.children, el);
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
      this.place(ul, to);
    } else {
      const lists = this.eligibleLists(h.item);
      const at = lists.indexOf(ul);
      const other = lists[to === "prev" ? at - 1 : at + 1];
      if (!other) {
        this.actions.announce(`${this.model.label(h.item)} cannot move further. ${this.actions.describe(h.item, /** @type {string} */ (ul.dataset.list))}.`);
        return;
      }
      const otherGrid = other.classList.contains("layout-grid");
      let index;
      if (!grid && !otherGrid && (key === "ArrowLeft" || key === "ArrowRight")) index = Math.min(i, other.children.length);
      else index = to === "prev" ? other.children.length : 0;
      this.place(other, index);
    }
    const now = /** @type {HTMLElement} */ (el.parentElement);
    const list = /** @type {string} */ (now.dataset.list);
    const index = Array.prototype.indexOf.call(now.children, el);
    this.actions.announce(`${this.model.label(h.item)} moved. ${this.actions.describe(h.item, list)}.`);
    this.actions.presence({ phase: "move", item: h.item, list, index });
  }

  /** Home / End: to the first or last place of the current collection. @private @param {boolean} start */
  edge(start) {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    const ul = /** @type {HTMLElement} */ (h.el.parentElement);
    this.place(ul, start ? 0 : ul.children.length - 1);
    const index = Array.prototype.indexOf.call(ul.children, h.el);
    const list = /** @type {string} */ (ul.dataset.list);
    this.actions.announce(`${this.model.label(h.item)} moved. ${this.actions.describe(h.item, list)}.`);
    this.actions.presence({ phase: "move", item: h.item, list, index });
  }

  /** Collections an item may be moved into by keyboard (foods never go into the people list). @private @param {string} item */
  eligibleLists(item) {
    const food = this.model.item(item)?.fields.role === "food";
    return this.view.listEls().filter((ul) => !(food && ul.closest("[data-role='person']")));
  }

  /** @private @param {HTMLElement} ul @param {number} index index among the list's other children */
  place(ul, index) {
    const el = /** @type {NonNullable<typeof this.held>} */ (this.held).el;
    const from = /** @type {HTMLElement} */ (el.parentElement);
    const others = Array.from(ul.children).filter((c) => c !== el);
    const first = measure(/** @type {HTMLElement[]} */ ([...Array.from(from.children), ...(from === ul ? [] : others)]).filter((x) => x !== el));
    const before = el.getBoundingClientRect();
    ul.insertBefore(el, others[index] ?? null);
    if (!reducedMotion()) {
      // The held item slides to its new slot, staying lifted (scaled) all the way.
      const after = el.getBoundingClientRect();
      const dx = before.left - after.left;
      const dy = before.top - after.top;
      el.animate([{ transform: `translate(${dx}px, ${dy}px) scale(1.05)` }, { transform: "scale(1.05)" }], {
        duration: 150,
        easing: "cubic-bezier(0.2, 0, 0, 1)",
      });
    }
    /** @type {NonNullable<typeof this.held>} */ (this.held).target = { list: /** @type {string} */ (ul.dataset.list), index };
    play(first, 150);
    el.focus({ preventScroll: true });
    el.scrollIntoView({ block: "nearest" });
  }

  /** @private */
  drop() {
    const h = /** @type {NonNullable<typeof this.held>} */ (this.held);
    this.held = null;
    const el = h.el;
    el.classList.remove("kbd-lifted");
    el.removeAttribute("aria-grabbed");
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const list = /** @type {string} */ (ul.dataset.list);
    const index = Array.prototype.indexOf.call(ul.children, el);
    const prev = /** @type {HTMLElement | null} */ (el.previousElementSibling);
    const next = /** @type {HTMLElement | null} */ (el.nextElementSibling);
    if (list !== h.origin.list || index !== h.origin.index) {
      this.actions.move(h.item, list, prev?.dataset.item ?? null, next?.dataset.item ?? null);
    }
    this.actions.presence({ phase: "end", item: h.item, list, index });
    this.actions.announce(`Dropped ${this.model.label(h.item)}. ${this.actions.describe(h.item, list)}.`);
    this.view.focusItem(el);
  }

  /** Puts the held item back where it was. */
  cancel() {
    const h = this.held;
    if (!h) return;
    this.held = null;
    h.el.classList.remove("kbd-lifted");
    h.el.removeAttribute("aria-grabbed");
    this.view.render();
    if (h.el.isConnected) this.view.focusItem(h.el);
    this.actions.presence({ phase: "cancel", item: h.item });
    this.actions.announce(`Cancelled. ${this.model.label(h.item)} is back at ${this.actions.describe(h.item, h.origin.list)}.`);
  }

  /** Re-places the held item after a re-render (a remote change while holding). */
  afterRender() {
    const h = this.held;
    if (!h) return;
    const ul = this.view.listEl(h.target.list);
    if (!h.el.isConnected || !ul || !this.model.item(h.item)) {
      this.held = null;
      h.el.classList.remove("kbd-lifted");
      this.actions.announce(`${this.model.label(h.item)} is no longer available.`);
      return;
    }
    const others = Array.from(ul.children).filter((c) => c !== h.el);
    if (others[h.target.index] !== h.el.nextElementSibling || h.el.parentElement !== ul) {
      ul.insertBefore(h.el, others[h.target.index] ?? null);
    }
    if (document.activeElement !== h.el) h.el.focus({ preventScroll: true });
  }

  /** Arrow keys without a lift: move focus between items. @private @param {HTMLElement} el @param {string} key */
  focusStep(el, key) {
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const grid = ul.classList.contains("layout-grid");
    const items = /** @type {HTMLElement[]} */ (Array.from(ul.children));
    const i = items.indexOf(el);
    const cols = grid ? columns(measureSlots(ul)) : 1;
    let j = i;
    if (key === "ArrowLeft") j = grid ? i - 1 : -2;
    else if (key === "ArrowRight") j = grid ? i + 1 : -3;
    else if (key === "ArrowUp") j = i - cols;
    else if (key === "ArrowDown") j = i + cols;
    if (j >= 0 && j < items.length) {
      this.view.focusItem(items[j]);
      return;
    }
    if (j === -2 || j === -3) {
      const lists = this.view.listEls();
      const other = lists[lists.indexOf(ul) + (j === -2 ? -1 : 1)];
      const target = other?.children[Math.min(i, other.children.length - 1)];
      if (target instanceof HTMLElement) this.view.focusItem(target);
    }
  }
}
