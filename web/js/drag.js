// @ts-check
/**
 * The pointer drag controller (mouse, pen, touch) for reordering and assigning, plus the
 * sideways swipe that deletes.
 *
 * - Mouse and pen lift after 4 px of movement; touch lifts after a 300 ms long press during which
 *   the finger may drift up to 8 px. A quick touch swipe is left to the browser (it scrolls,
 *   `touch-action: pan-y` on items), so it never lifts.
 * - The lifted item is a snapshot (scale 1.05, shadow, opacity 0.98) following the pointer; the
 *   source element stays in the list as a dimmed placeholder that moves to the prospective slot,
 *   the others sliding out of its way (FLIP).
 * - Release commits one intent (a move, or an assign when dropped on a person); Escape or
 *   pointercancel puts everything back exactly.
 * - A fast sideways touch swipe on a list row (horizontal speed over 500 px/s that beats the
 *   vertical) deletes it; slower ones snap back, vertical ones scroll. (Touch only: with a mouse a
 *   quick sideways drag is a drag.)
 */
import { measureSlots, toContent, slotAt, insertionIndex } from "./geometry.js";
import { measure, play, reducedMotion } from "./motion.js";
/** @typedef {import("./scope.js").Scope} Scope */

const MOUSE_SLOP = 4;
const TOUCH_DRIFT = 8;
const LONG_PRESS_MS = 300;
const SWIPE_SPEED = 500;
const EDGE = 48;
const AUTOSCROLL_ARM = 24;

/**
 * @typedef {object} DragActions
 * @property {(item: string, list: string, after: string | null, before: string | null) => void} move
 * @property {(item: string, target: string) => void} assign
 * @property {(item: string) => void} remove
 * @property {(text: string) => void} announce
 * @property {(msg: any) => void} presence sends a `drag` message (paced by the caller: this
 *   controller reports every change, the latest state last)
 * @property {(item: string, list: string) => string} describe "position i of n in List"
 */

/**
 * @typedef {{ t: number, x: number, y: number }} Sample
 */

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
      list: ul.dataset.list,
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
          if (!p.grid && Math.abs(dx) > Math.abs(dy)) this.startSwipe(p);
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
      pushSample(s.samples, e);
      s.dx = e.clientX - s.x0;
      s.el.style.transform = `translateX(${s.dx}px)`;
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
      const v = velocity(this.swipe.samples);
      this.endSwipe(Math.abs(v.x) > SWIPE_SPEED && Math.abs(v.x) > Math.abs(v.y) && Math.sign(v.x) === Math.sign(this.swipe.dx));
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
    if (!el.isConnected || !this.model.item(p.item)) return;
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const rect = el.getBoundingClientRect();
    const role = el.dataset.role;
    const snapshot = /** @type {HTMLElement} */ (el.cloneNode(true));
    snapshot.removeAttribute("data-item");
    snapshot.removeAttribute("tabindex");
    snapshot.removeAttribute("aria-label");
    snapshot.classList.add("drag-snapshot");
    snapshot.classList.remove("held", "placeholder");
    snapshot.setAttribute("aria-hidden", "true");
    let w = rect.width;
    let h = rect.height;
    let offX = x - rect.left;
    let offY = y - rect.top;
    if (role === "food") {
      // The preview of a food is its picture only (seed 004).
      snapshot.classList.add("image-only");
      const visual = el.querySelector(".item-visual");
      snapshot.replaceChildren(visual ? visual.cloneNode(true) : "");
      w = h = 64;
      offX = offY = 32;
    }
    snapshot.style.width = `${w}px`;
    snapshot.style.height = `${h}px`;
    document.body.append(snapshot);
    el.classList.add("placeholder");
    document.body.classList.add("dragging");
    const origin = { list: p.list, index: Array.prototype.indexOf.call(ul.children, el) };
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
    this.actions.announce(`Lifted ${this.model.label(p.item)}. ${this.actions.describe(p.item, origin.list)}.`);
    this.actions.presence({ phase: "start", item: p.item, list: origin.list, index: origin.index, ...this.relative(ul) });
    this.schedule();
  }

  /** @private */
  schedule() {
    if (this.frame) return;
    this.frame = this.scope.frame(() => {
      this.frame = 0;
      if (!this.drag) return;
      this.update();
      if (this.autoScroll()) this.schedule();
    });
  }

  /** @private */
  positionSnapshot() {
    const d = this.drag;
    d.snapshot.style.transform = `translate3d(${d.x - d.offX}px, ${d.y - d.offY}px, 0) scale(1.05)`;
  }

  /** @private @returns {HTMLElement | null} the items container under the pointer. */
  listAt(x, y) {
    for (const ul of this.view.listEls()) {
      const r = ul.getBoundingClientRect();
      if (x >= r.left && x < r.right && y >= r.top && y < r.bottom) return ul;
    }
    return null;
  }

  /** @private @param {HTMLElement} ul */
  slotsOf(ul) {
    let s = this.drag.slots.get(ul);
    if (!s) {
      s = measureSlots(ul);
      this.drag.slots.set(ul, s);
    }
    return s;
  }

  /** Follows the pointer: moves the snapshot, finds the target, moves the placeholder. @private */
  update() {
    const d = this.drag;
    if (!d) return;
    this.positionSnapshot();
    const ul = this.listAt(d.x, d.y);
    let assignTo = null;
    if (ul && d.role === "food") {
      const under = /** @type {HTMLElement | null} */ (document.elementFromPoint(d.x, d.y)?.closest("[data-item]") ?? null);
      if (under && under.dataset.role === "person") assignTo = under;
    }
    this.setAssignTarget(assignTo);
    const blocked = d.role === "food" && ul?.closest("[data-role='person']");
    if (ul && !assignTo && !blocked) {
      const grid = ul.classList.contains("layout-grid");
      const { x, y } = toContent(ul, d.x, d.y);
      const listId = /** @type {string} */ (ul.dataset.list);
      let index;
      if (d.el.parentElement === ul) {
        index = slotAt(this.slotsOf(ul), x, y, grid);
      } else {
        const slots = this.slotsOf(ul);
        index = insertionIndex(slots, x, y, grid);
      }
      if (index >= 0) this.placeAt(ul, index);
      d.target = { list: listId, index: Array.prototype.indexOf.call(ul.children, d.el) };
    } else if (assignTo) {
      // Hovering a person: the food itself does not move.
      const origin = this.view.listEl(d.origin.list);
      if (origin) this.placeAt(origin, d.origin.index);
      d.target = { ...d.origin };
    }
    this.sendPresence(ul);
  }

  /** @private @param {HTMLElement | null} el */
  setAssignTarget(el) {
    const d = this.drag;
    if (d.highlighted === el) return;
    d.highlighted?.classList.remove("drop-target");
    d.highlighted = el;
    d.assignTo = el ? el.dataset.item : null;
    el?.classList.add("drop-target");
  }

  /**
   * Moves the placeholder to child index `index` of `ul`, animating the items it passes.
   * @private @param {HTMLElement} ul @param {number} index
   */
  placeAt(ul, index) {
    const d = this.drag;
    const el = d.el;
    const from = /** @type {HTMLElement} */ (el.parentElement);
    const children = Array.from(ul.children);
    const current = from === ul ? children.indexOf(el) : -1;
    if (current === index) return;
    /** @type {HTMLElement[]} */
    let affected;
    if (from === ul) {
      const lo = Math.min(current, index);
      const hi = Math.max(current, index);
      affected = /** @type {HTMLElement[]} */ (children.slice(lo, hi + 1));
    } else {
      const fromChildren = Array.from(from.children);
      affected = /** @type {HTMLElement[]} */ ([
        ...fromChildren.slice(fromChildren.indexOf(el)),
        ...children.slice(index),
      ]);
    }
    const first = measure(affected.filter((x) => x !== el));
    if (from === ul) {
      const without = children.filter((c) => c !== el);
      ul.insertBefore(el, without[index] ?? null);
    } else {
      ul.insertBefore(el, children[index] ?? null);
      d.slots.delete(from);
    }
    d.slots.delete(ul);
    play(first, 150);
  }

  /**
   * Reports the drag's state; the caller paces what goes out (the latest state always last).
   * @private @param {HTMLElement | null} ul
   */
  sendPresence(ul) {
    const d = this.drag;
    const list = ul ? ul.dataset.list : d.target.list;
    const under = document.elementFromPoint(d.x, d.y)?.closest("[data-item]");
    /** @type {any} */
    const msg = { phase: "move", item: d.item, list, index: d.target.index };
    if (under instanceof HTMLElement && under !== d.el && under.dataset.item) msg.over = under.dataset.item;
    if (ul) Object.assign(msg, this.relative(ul));
    this.actions.presence(msg);
  }

  /** The pointer relative to a list's scrollable content box (0..1). @private @param {HTMLElement} ul */
  relative(ul) {
    const d = this.drag;
    const x = d ? d.x : 0;
    const y = d ? d.y : 0;
    const c = toContent(ul, x, y);
    return {
      x: round3(clamp01(c.x / Math.max(1, ul.scrollWidth))),
      y: round3(clamp01(c.y / Math.max(1, ul.scrollHeight))),
    };
  }

  /** Scrolls the container under the pointer when it is near an edge. @private @returns {boolean} */
  autoScroll() {
    const d = this.drag;
    if (!d || !d.armed) return false;
    let scrolled = false;
    const ul = this.listAt(d.x, d.y);
    if (ul && ul.scrollHeight > ul.clientHeight) {
      const r = ul.getBoundingClientRect();
      const step = edgeStep(d.y, r.top, r.bottom);
      if (step) {
        const before = ul.scrollTop;
        ul.scrollTop += step;
        scrolled = ul.scrollTop !== before;
      }
    }
    if (!scrolled) {
      const step = edgeStep(d.y, 0, window.innerHeight);
      if (step) {
        const before = window.scrollY;
        window.scrollBy(0, step);
        scrolled = window.scrollY !== before;
      }
    }
    return scrolled;
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
    const el = d.el;
    const ul = /** @type {HTMLElement} */ (el.parentElement);
    const list = /** @type {string} */ (ul.dataset.list);
    const moved = list !== d.origin.list || d.target.index !== d.origin.index;
    const prev = /** @type {HTMLElement | null} */ (el.previousElementSibling);
    const next = /** @type {HTMLElement | null} */ (el.nextElementSibling);
    this.finish(false);
    if (moved) this.actions.move(item, list, prev?.dataset.item ?? null, next?.dataset.item ?? null);
    this.actions.presence({ phase: "end", item, list, index: d.target.index });
    this.actions.announce(`Dropped ${label}. ${this.actions.describe(item, list)}.`);
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
    this.actions.announce(`Cancelled. ${this.model.label(d.item)} is back at ${this.actions.describe(d.item, d.origin.list)}.`);
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
    d.highlighted?.classList.remove("drop-target");
    document.body.classList.remove("dragging");
    const target = d.el;
    const snapshot = d.snapshot;
    if (restore) this.view.render();
    target.classList.remove("placeholder");
    if (reducedMotion() || !target.isConnected) {
      snapshot.remove();
      return;
    }
    let end;
    if (into && into.isConnected) {
      const r = into.getBoundingClientRect();
      const w = snapshot.offsetWidth;
      const h = snapshot.offsetHeight;
      end = `translate3d(${r.left + r.width / 2 - w / 2}px, ${r.top + r.height / 2 - h / 2}px, 0) scale(0.4)`;
    } else {
      const to = target.getBoundingClientRect();
      end = `translate3d(${to.left}px, ${to.top}px, 0) scale(1)`;
    }
    const anim = snapshot.animate([{ opacity: 0.98 }, { transform: end, opacity: 0 }], { duration: 140, easing: "ease-out" });
    anim.onfinish = () => snapshot.remove();
    anim.oncancel = () => snapshot.remove();
  }

  /** Re-applies the placeholder after the board re-rendered under a live drag. */
  afterRender() {
    const d = this.drag;
    if (!d) return;
    d.slots.clear();
    if (!this.model.item(d.item) || !d.el.isConnected) {
      this.cancel("the item is gone");
      return;
    }
    const ul = this.view.listEl(d.target.list);
    if (ul && d.el.parentElement !== ul) ul.insertBefore(d.el, ul.children[d.target.index] ?? null);
    else if (ul) {
      const others = Array.from(ul.children).filter((c) => c !== d.el);
      ul.insertBefore(d.el, others[d.target.index] ?? null);
    }
  }

  // Swipe to delete ---------------------------------------------------------------------------

  /** @private @param {any} p */
  startSwipe(p) {
    const el = /** @type {HTMLElement} */ (p.el);
    this.swipe = { pointerId: p.pointerId, el, item: p.item, x0: p.x0, dx: p.x - p.x0, samples: p.samples };
    el.classList.add("swiping");
    el.style.transform = `translateX(${this.swipe.dx}px)`;
  }

  /** @private @param {boolean} remove */
  endSwipe(remove) {
    const s = this.swipe;
    this.swipe = null;
    if (!s) return;
    const el = s.el;
    const from = `translateX(${s.dx}px)`;
    el.style.transform = "";
    if (remove) {
      const to = `translateX(${Math.sign(s.dx || 1) * el.offsetWidth}px)`;
      this.actions.remove(s.item);
      if (el.isConnected && !reducedMotion()) {
        el.animate([{ transform: from }, { transform: to, opacity: 0 }], { duration: 160, easing: "ease-in" });
      }
      el.classList.remove("swiping");
      return;
    }
    el.classList.remove("swiping");
    if (!reducedMotion()) el.animate([{ transform: from }, { transform: "none" }], { duration: 200, easing: "ease-out" });
  }
}

/** @param {Sample[]} samples @param {PointerEvent} e */
function pushSample(samples, e) {
  samples.push({ t: e.timeStamp, x: e.clientX, y: e.clientY });
  while (samples.length > 2 && samples[samples.length - 1].t - samples[0].t > 100) samples.shift();
}

/** Velocity in px/s over the recent samples. @param {Sample[]} samples */
function velocity(samples) {
  if (samples.length < 2) return { x: 0, y: 0 };
  const a = samples[0];
  const b = samples[samples.length - 1];
  const dt = Math.max(1, b.t - a.t) / 1000;
  return { x: (b.x - a.x) / dt, y: (b.y - a.y) / dt };
}

/** @param {number} y @param {number} top @param {number} bottom @returns {number} px to scroll */
function edgeStep(y, top, bottom) {
  if (y < top + EDGE && y >= top) return -Math.ceil(((top + EDGE - y) / EDGE) * 18);
  if (y > bottom - EDGE && y <= bottom) return Math.ceil(((y - (bottom - EDGE)) / EDGE) * 18);
  return 0;
}

/** @param {number} v */
function clamp01(v) {
  return Math.max(0, Math.min(1, v));
}

/** @param {number} v */
function round3(v) {
  return Math.round(v * 1000) / 1000;
}
