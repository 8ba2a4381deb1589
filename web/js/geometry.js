// @ts-check
/**
 * Hit testing for lists and grids. Slots are measured in the list's content coordinates
 * (offsetLeft/offsetTop, which ignore FLIP transforms and do not change when the list scrolls),
 * so the answer is stable while items animate and while the container auto-scrolls.
 */

/** @typedef {{ left: number, top: number, right: number, bottom: number, cx: number, cy: number }} Slot */

/**
 * @param {HTMLElement} ul a list container (position: relative, so it is the items' offsetParent)
 * @returns {Slot[]} one slot per child element, in DOM order
 */
export function measureSlots(ul) {
  const slots = [];
  for (const child of /** @type {HTMLElement[]} */ (Array.from(ul.children))) {
    const left = child.offsetLeft;
    const top = child.offsetTop;
    const w = child.offsetWidth;
    const h = child.offsetHeight;
    slots.push({ left, top, right: left + w, bottom: top + h, cx: left + w / 2, cy: top + h / 2 });
  }
  return slots;
}

/**
 * The pointer in the list's content coordinates.
 * @param {HTMLElement} ul @param {number} clientX @param {number} clientY
 */
export function toContent(ul, clientX, clientY) {
  const r = ul.getBoundingClientRect();
  return {
    x: clientX - r.left - ul.clientLeft + ul.scrollLeft,
    y: clientY - r.top - ul.clientTop + ul.scrollTop,
  };
}

/**
 * The pointer as a fraction of the list's scrollable content box (0…1 each way, 3 decimals):
 * what a drag's presence carries, so that others place it on the same content whatever their
 * window size.
 * @param {HTMLElement} ul @param {number} clientX @param {number} clientY @returns {{ x: number, y: number }}
 */
export function fractionIn(ul, clientX, clientY) {
  const c = toContent(ul, clientX, clientY);
  /** @param {number} v */
  const fraction = (v) => Math.round(Math.max(0, Math.min(1, v)) * 1000) / 1000;
  return { x: fraction(c.x / Math.max(1, ul.scrollWidth)), y: fraction(c.y / Math.max(1, ul.scrollHeight)) };
}

/**
 * The slot under (or nearest to) a point: used when the placeholder is already in this list,
 * so "the placeholder goes to slot i" is stable (after the move the pointer is over it).
 * @param {Slot[]} slots @param {number} x @param {number} y @param {boolean} grid
 * @returns {number} -1 when there are no slots
 */
export function slotAt(slots, x, y, grid) {
  let best = -1;
  let bestD = Infinity;
  for (let i = 0; i < slots.length; i++) {
    const s = slots[i];
    if (grid) {
      if (x >= s.left && x < s.right && y >= s.top && y < s.bottom) return i;
      const d = (s.cx - x) ** 2 + (s.cy - y) ** 2;
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    } else {
      if (y >= s.top && y < s.bottom) return i;
      const d = Math.abs(s.cy - y);
      if (d < bestD) {
        bestD = d;
        best = i;
      }
    }
  }
  return best;
}

/**
 * Where a new item would go among `slots` (the placeholder is NOT in this list).
 * @param {Slot[]} slots @param {number} x @param {number} y @param {boolean} grid
 * @returns {number} an insertion index in 0...slots.length
 */
export function insertionIndex(slots, x, y, grid) {
  const i = slotAt(slots, x, y, grid);
  if (i < 0) return 0;
  const s = slots[i];
  if (grid) {
    const sameRow = y >= s.top && y < s.bottom;
    if (!sameRow) return y < s.top ? i : i + 1;
    return x < s.cx ? i : i + 1;
  }
  return y < s.cy ? i : i + 1;
}

/**
 * The number of columns in a grid, from the slots of its first row.
 * @param {Slot[]} slots
 */
export function columns(slots) {
  if (slots.length === 0) return 1;
  const top = slots[0].top;
  let n = 0;
  while (n < slots.length && Math.abs(slots[n].top - top) < 2) n++;
  return Math.max(1, n);
}
