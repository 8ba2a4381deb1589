// @ts-check
/**
 * The pointer drag controller (mouse, pen, touch) for reordering and assigning, and the start of
 * a sideways swipe that deletes (swipe.js).
 *
 * - Mouse and pen lift after 4 px of movement; touch lifts after a 300 ms long press during which
 *   the finger may drift up to 8 px. A quick touch swipe is left to the browser (it scrolls,
 *   `touch-action: pan-y` on items), so it never lifts.
 * - The lifted snapshot follows the pointer; the source element stays in the list as a dimmed
 *   placeholder that moves to the prospective slot (drag-snapshot.js).
 * - Release commits one intent (a move, or an assign when dropped on a person); Escape or
 *   pointercancel puts everything back exactly.
 */
import { fractionIn } from "./geometry.js";
import { followPointer, dragPresence } from "./drag-target.js";
import { liftSnapshot, dropSnapshot } from "./drag-snapshot.js";
import { autoScroll } from "./auto-scroll.js";
import { startSwipe, followSwipe, endSwipe, isDeletingSwipe, pushSample } from "./swipe.js";
/** @typedef {import("./scope.js").Scope} Scope */

const MOUSE_SLOP = 4;
const TOUCH_DRIFT = 8;
const LONG_PRESS_MS = 300;
const AUTOSCROLL_ARM = 24;

/**
 * @typedef {object} DragActions
 * @property {(item: string, list: string, after: string | null, before: string | null) => void} move
 * @property {(item: string, target: string) => void} assign
 * @property {(item: string) => void} remove
 * @property {(text: string) => void} announce
 * @property {(msg: any) => void} presence sends a `drag` message (paced by the caller: this
 *   controller reports every change, the latest state last)
 * @property {(item: string) => string} describe "position i of n in List", where the item shows
 */

/** @typedef {import("./swipe.js").Sample} Sample */

export class DragController {
  /**
   * @param {HTMLElement} root the board element
   * @param {import("./view.js").BoardView} view
   * @param {import("./reorder-client/model.js").BoardModel} model
   * @param {DragActions} actions
   * @param {Scope} scope the board session: its listeners, timers and frames end with it
   */
  constructor(root, view, model, actions, scope) {
    this.root = root;
    this.view = view;
    this.model = model;
    this.actions = actions;
    this.scope = scope;
    /** @type {any} */
    this.pending = null;
    /** @type {any} */
    this.drag = null;
    /** @type {any} */
    this.swipe = null;
    this.frame = 0;
    /** Set by the keyboard controller while it holds an item. */
    this.busy = () => false;
    /** Set by the board: true while the page may not change it (a viewer): nothing lifts or swipes. */
    this.locked = () => false;

    const signal = scope.signal;
    root.addEventListener("pointerdown", (e) => this.onDown(e), { signal });
    window.addEventListener("pointermove", (e) => this.onMove(e), { passive: true, signal });
    window.addEventListener("pointerup", (e) => this.onUp(e), { signal });
    window.addEventListener("pointercancel", (e) => this.onCancel(e), { signal });
    window.addEventListener("keydown", (e) => {
      if (e.key === "Escape" && (this.drag || this.swipe)) {
        e.preventDefault();
        e.stopImmediatePropagation();
        if (this.drag) this.cancel("Escape");
        else this.endSwipe(false);
      }
    }, { capture: true, signal });
    // After a touch lift the page must not scroll: cancel touchmove (Chrome would otherwise
    // take the gesture over and send pointercancel).
    document.addEventListener("touchmove", (e) => {
      if (this.drag || this.swipe) e.preventDefault();
    }, { passive: false, signal });
    root.addEventListener("contextmenu", (e) => {
      if (this.pending || this.drag) e.preventDefault();
    }, { signal });
    window.addEventListener("blur", () => {
      if (this.drag) this.cancel("blur");
    }, { signal });
  }

  /** @returns {boolean} whether a pointer drag is in progress. */
  get active() {
    return Boolean(this.drag);
  }

  // Pointer input ----------------------------------------------------------------------------

  /** @param {PointerEvent} e */
  onDown(e) {
    if (this.drag || this.swipe || this.pending || this.busy() || this.locked()) return;
    if (e.pointerType === "mouse" && e.button !== 0) return;
    const target = /** @type {HTMLElement} */ (e.target);
    if (target.closest("button, input, select, a, textarea")) return;
    const itemEl = /** @type {HTMLElement | null} */ (target.closest("[data-item]"));
    if (!itemEl || !this.root.contains(itemEl)) return;
    const ul = /** @type {HTMLElement} */ (itemEl.parentElement);
    this.pending = {
      pointerId: e.pointerId,
      type: e.pointerType,
      item: itemEl.dataset.item,
      el: itemEl,
      grid: ul.classList.contains("layout-grid"),
      x0: e.clientX,
      y0: e.clientY,
      x: e.clientX,
      y: e.clientY,
      /** @type {Sample[]} */
      samples: [{ t: e.timeStamp, x: e.clientX, y: e.clientY }],
      timer: 0,
    };
    if (e.pointerType === "touch") {
      const p = this.pending;
      p.timer = this.scope.timeout(() => {
        if (this.pending === p) {
          this.pending = null;
          this.lift(p, p.x, p.y);
        }
      }, LONG_PRESS_MS);
    }
  }

  /** @param {PointerEvent} e */
  onMove(e) {
    const p = this.pending;
    if (p && e.pointerId === p.pointerId) {
      p.x = e.clientX;
      p.y = e.clientY;
      pushSample(p.samples, e);
      const dx = e.clientX - p.x0;
      const dy = e.clientY - p.y0;
      const dist = Math.hypot(dx, dy);
      if (p.type === "touch") {
        if (dist > TOUCH_DRIFT) {
          this.scope.clearTimeout(p.timer);
          this.pending = null;
          if (!p.grid && Math.abs(dx) > Math.abs(dy)) this.swipe = startSwipe(p);
        }
      } else if (dist >= MOUSE_SLOP) {
        // Mouse and pen: no swipe (a quick sideways drag into the next column must stay a drag);
        // they delete with × in edit mode or the Delete key.
        this.pending = null;
        this.lift(p, e.clientX, e.clientY);
      }
      return;
    }
    const s = this.swipe;
    if (s && e.pointerId === s.pointerId) {
      followSwipe(s, e);
      return;
    }
    const d = this.drag;
    if (d && e.pointerId === d.pointerId) {
      d.x = e.clientX;
      d.y = e.clientY;
      if (!d.armed && Math.hypot(d.x - d.liftX, d.y - d.liftY) > AUTOSCROLL_ARM) d.armed = true;
      this.schedule();
    }
  }

  /** @param {PointerEvent} e */
  onUp(e) {
    const p = this.pending;
    if (p && e.pointerId === p.pointerId) {
      this.scope.clearTimeout(p.timer);
      this.pending = null;
      return;
    }
    if (this.swipe && e.pointerId === this.swipe.pointerId) {
      pushSample(this.swipe.samples, e);
      this.endSwipe(isDeletingSwipe(this.swipe));
      return;
    }
    if (this.drag && e.pointerId === this.drag.pointerId) {
      this.drag.x = e.clientX;
      this.drag.y = e.clientY;
      this.update();
      this.drop();
    }
  }

  /** @param {PointerEvent} e */
  onCancel(e) {
    const p = this.pending;
    if (p && e.pointerId === p.pointerId) {
      this.scope.clearTimeout(p.timer);
      this.pending = null;
      return;
    }
    if (this.swipe && e.pointerId === this.swipe.pointerId) this.endSwipe(false);
    if (this.drag && e.pointerId === this.drag.pointerId) this.cancel("pointercancel");
  }

  // Lift, follow, drop -------------------------------------------------------------------------

  /** @private @param {any} p @param {number} x @param {number} y */
  lift(p, x, y) {
    const el = /** @type {HTMLElement} */ (p.el);
    const at = this.view.positionOf(p.item);
    if (!el.isConnected || !this.model.item(p.item) || !at) return;
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const role = el.dataset.role;
    const { snapshot, offX, offY } = liftSnapshot(el, x, y);
    el.classList.add("placeholder");
    document.body.classList.add("dragging");
    const origin = { list: at.list, index: at.index };
    this.view.hold = { item: p.item, ...origin };
    this.drag = {
      pointerId: p.pointerId,
      type: p.type,
      item: p.item,
      el,
      role,
      snapshot,
      offX,
      offY,
      x,
      y,
      liftX: x,
      liftY: y,
      armed: false,
      origin,
      target: { list: origin.list, index: origin.index },
      /** @type {string | null} */
      assignTo: null,
      /** @type {HTMLElement | null} */
      highlighted: null,
      /** @type {Map<HTMLElement, any>} */
      slots: new Map(),
    };
    this.positionSnapshot();
    if (p.type === "touch") navigator.vibrate?.(10);
    this.actions.announce(`Lifted ${this.model.label(p.item)}. ${this.actions.describe(p.item)}.`);
    this.actions.presence({ phase: "start", item: p.item, list: origin.list, index: origin.index, ...fractionIn(ul, x, y) });
    this.schedule();
  }

  /** @private */
  schedule() {
    if (this.frame) return;
    this.frame = this.scope.frame(() => {
      this.frame = 0;
      if (!this.drag) return;
      this.update();
      const d = this.drag;
      if (d && d.armed && autoScroll(this.view.listAt(d.x, d.y), d.y)) this.schedule();
    });
  }

  /** @private */
  positionSnapshot() {
    const d = this.drag;
    d.snapshot.style.transform = `translate3d(${d.x - d.offX}px, ${d.y - d.offY}px, 0) scale(1.05)`;
  }

  /** Follows the pointer: moves the snapshot and the placeholder, reports the state. @private */
  update() {
    const d = this.drag;
    if (!d) return;
    this.positionSnapshot();
    const ul = followPointer(d, this.view);
    this.actions.presence(dragPresence(d, ul));
  }

  /** @private */
  drop() {
    const d = this.drag;
    if (!d) return;
    const item = d.item;
    const label = this.model.label(item);
    if (d.assignTo) {
      const target = d.assignTo;
      this.finish(true, d.highlighted);
      this.actions.assign(item, target);
      this.actions.announce(`Dropped ${label} on ${this.model.label(target)}.`);
      this.actions.presence({ phase: "end", item });
      return;
    }
    const { list, index } = d.target;
    const moved = list !== d.origin.list || index !== d.origin.index;
    // The neighbours in the whole list, not only among the rendered rows.
    const others = (this.model.list(list)?.items ?? []).filter((id) => id !== item);
    this.finish(false);
    if (moved) this.actions.move(item, list, others[index - 1] ?? null, others[index] ?? null);
    else this.view.render({ animate: false });
    this.actions.presence({ phase: "end", item, list, index });
    this.actions.announce(`Dropped ${label}. ${this.actions.describe(item)}.`);
  }

  /**
   * Puts everything back exactly where it was.
   * @param {string} why
   */
  cancel(why) {
    const d = this.drag;
    if (!d) return;
    this.finish(true);
    this.actions.presence({ phase: "cancel", item: d.item });
    this.actions.announce(`Cancelled. ${this.model.label(d.item)} is back at ${this.actions.describe(d.item)}.`);
    void why;
  }

  /**
   * Ends the drag. With `restore`, the DOM goes back to the model's order (with animation).
   * @private @param {boolean} restore
   * @param {HTMLElement | null} [into] an assign target the preview shrinks into
   */
  finish(restore, into = null) {
    const d = this.drag;
    this.drag = null;
    this.view.hold = null;
    d.highlighted?.classList.remove("drop-target");
    document.body.classList.remove("dragging");
    if (restore) this.view.render();
    d.el.classList.remove("placeholder");
    dropSnapshot(d.snapshot, d.el, into);
  }

  /** Ends the swipe in progress: deleting the item, or snapping back. @private @param {boolean} remove */
  endSwipe(remove) {
    const s = this.swipe;
    this.swipe = null;
    if (s) endSwipe(s, remove, () => this.actions.remove(s.item));
  }

  /**
   * After the board re-rendered under a live drag (the view placed the held item): slots are
   * measured again, and the drag ends when its item or its list is gone.
   */
  afterRender() {
    const d = this.drag;
    if (!d) return;
    d.slots.clear();
    const el = this.view.itemEl(d.item);
    if (!this.model.item(d.item) || !el) {
      this.cancel("the item is gone");
      return;
    }
    d.el = el;
  }
}
