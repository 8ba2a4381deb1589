// @ts-check
/**
 * Where a lifted item would land under the pointer (drag.js): the list under it, the slot the
 * placeholder takes there, or the person a food item would be assigned to; and the presence
 * message that reports it.
 *
 * - Within its own list the placeholder takes the slot under the pointer; entering another list,
 *   it goes to the nearest gap.
 * - A food item over a person is an assign target: the placeholder goes back to its origin and
 *   the person is highlighted. Food never lands inside a person's list.
 */
import { measureSlots, toContent, slotAt, insertionIndex, fractionIn } from "./geometry.js";

/**
 * Moves the drag's placeholder to where the pointer points and updates `d.target`,
 * `d.assignTo` and `d.highlighted`. The target is a place in the list's whole order: in a long
 * list (rendered as a window) it comes from the row pitch, not from the rendered rows.
 * @param {any} d the drag in progress (DragController.drag)
 * @param {import("./view.js").BoardView} view
 * @returns {HTMLElement | null} the list under the pointer
 */
export function followPointer(d, view) {
  const ul = view.listAt(d.x, d.y);
  let assignTo = null;
  if (ul && d.role === "food") {
    const under = /** @type {HTMLElement | null} */ (document.elementFromPoint(d.x, d.y)?.closest("[data-item]") ?? null);
    if (under && under.dataset.role === "person") assignTo = under;
  }
  setAssignTarget(d, assignTo);
  const blocked = d.role === "food" && ul?.closest("[data-role='person']");
  if (ul && !assignTo && !blocked) {
    const listId = /** @type {string} */ (ul.dataset.list);
    const { x, y } = toContent(ul, d.x, d.y);
    const inList = d.target.list === listId;
    const w = view.windowOf(listId);
    let index;
    if (w?.virtual) {
      // Rows of one pitch: the row under the pointer, or the nearest gap entering the list.
      const row = (y - w.pad) / w.pitch;
      index = inList ? clamp(Math.floor(row), 0, w.size - 1) : clamp(Math.round(row), 0, w.size);
    } else {
      const grid = ul.classList.contains("layout-grid");
      const slots = slotsOf(d, ul);
      index = inList ? slotAt(slots, x, y, grid) : insertionIndex(slots, x, y, grid);
    }
    if (index >= 0) hold(d, view, listId, index);
  } else if (assignTo) {
    hold(d, view, d.origin.list, d.origin.index);
  }
  return ul;
}

/** Shows the placeholder at `index` of `list` (the others slide out of its way, 150 ms). */
function hold(/** @type {any} */ d, /** @type {import("./view.js").BoardView} */ view, /** @type {string} */ list, /** @type {number} */ index) {
  if (d.target.list === list && d.target.index === index) return;
  d.target = { list, index };
  view.hold = { item: d.item, list, index };
  view.render({ duration: 150 });
}

/** @param {number} v @param {number} lo @param {number} hi */
function clamp(v, lo, hi) {
  return Math.max(lo, Math.min(hi, v));
}

/**
 * The `drag` presence message for the drag's current state (the caller paces what goes out).
 * @param {any} d the drag in progress
 * @param {HTMLElement | null} ul the list under the pointer
 */
export function dragPresence(d, ul) {
  const list = ul ? ul.dataset.list : d.target.list;
  const under = document.elementFromPoint(d.x, d.y)?.closest("[data-item]");
  /** @type {any} */
  const msg = { phase: "move", item: d.item, list, index: d.target.index };
  if (under instanceof HTMLElement && under !== d.el && under.dataset.item) msg.over = under.dataset.item;
  if (ul) Object.assign(msg, fractionIn(ul, d.x, d.y));
  return msg;
}

/** The measured slots of `ul`, cached for the drag (cleared when the board re-renders). */
function slotsOf(/** @type {any} */ d, /** @type {HTMLElement} */ ul) {
  let s = d.slots.get(ul);
  if (!s) {
    s = measureSlots(ul);
    d.slots.set(ul, s);
  }
  return s;
}

/** Highlights `el` as the assign target (or none). */
function setAssignTarget(/** @type {any} */ d, /** @type {HTMLElement | null} */ el) {
  if (d.highlighted === el) return;
  d.highlighted?.classList.remove("drop-target");
  d.highlighted = el;
  d.assignTo = el ? el.dataset.item : null;
  el?.classList.add("drop-target");
}
