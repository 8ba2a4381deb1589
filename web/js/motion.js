// @ts-check
/** Motion helpers: FLIP animation of moved elements, respecting prefers-reduced-motion. */

const reduced = window.matchMedia("(prefers-reduced-motion: reduce)");

/** @returns {boolean} whether animations should be skipped. */
export function reducedMotion() {
  return reduced.matches;
}

/**
 * Records the on-screen boxes of `elements` (the "First" of FLIP).
 * @param {Iterable<HTMLElement>} elements
 * @returns {Map<HTMLElement, DOMRect>}
 */
export function measure(elements) {
  /** @type {Map<HTMLElement, DOMRect>} */
  const boxes = new Map();
  if (reducedMotion()) return boxes;
  const h = window.innerHeight;
  for (const el of elements) {
    if (!el.isConnected) continue;
    const r = el.getBoundingClientRect();
    // Only what is on (or near) the screen is worth animating.
    if (r.bottom < -200 || r.top > h + 200 || r.width === 0) continue;
    boxes.set(el, r);
  }
  return boxes;
}

/**
 * Animates each element from its recorded box to where it is now ("Last, Invert, Play").
 * @param {Map<HTMLElement, DOMRect>} first
 * @param {number} [duration]
 */
export function play(first, duration = 180) {
  if (reducedMotion() || first.size === 0) return;
  /** @type {Array<[HTMLElement, number, number]>} */
  const moves = [];
  for (const [el, a] of first) {
    if (!el.isConnected) continue;
    const b = el.getBoundingClientRect();
    const dx = a.left - b.left;
    const dy = a.top - b.top;
    if (Math.abs(dx) < 0.5 && Math.abs(dy) < 0.5) continue;
    moves.push([el, dx, dy]);
  }
  for (const [el, dx, dy] of moves) {
    el.animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: "none" }], {
      duration,
      easing: "cubic-bezier(0.2, 0, 0, 1)",
    });
  }
}
