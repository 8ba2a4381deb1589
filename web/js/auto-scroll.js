// @ts-check
/**
 * Auto-scroll while dragging: within 48 px of the edge of the scrolling list under the pointer
 * (or else of the window), faster nearer the edge (up to 18 px a frame). The drag controller
 * arms it only after the pointer moved 24 px from where it lifted, so that lifting near an edge
 * does not scroll at once.
 */

const EDGE = 48;
const MAX_STEP = 18;

/**
 * Scrolls `ul` (when it scrolls) or else the window, for a pointer at client y `y`.
 * @param {HTMLElement | null} ul the items container under the pointer
 * @param {number} y @returns {boolean} whether anything scrolled (ask again next frame)
 */
export function autoScroll(ul, y) {
  if (ul && ul.scrollHeight > ul.clientHeight) {
    const r = ul.getBoundingClientRect();
    const step = edgeStep(y, r.top, r.bottom);
    if (step) {
      const before = ul.scrollTop;
      ul.scrollTop += step;
      if (ul.scrollTop !== before) return true;
    }
  }
  const step = edgeStep(y, 0, window.innerHeight);
  if (!step) return false;
  const before = window.scrollY;
  window.scrollBy(0, step);
  return window.scrollY !== before;
}

/** @param {number} y @param {number} top @param {number} bottom @returns {number} px to scroll */
function edgeStep(y, top, bottom) {
  if (y < top + EDGE && y >= top) return -Math.ceil(((top + EDGE - y) / EDGE) * MAX_STEP);
  if (y > bottom - EDGE && y <= bottom) return Math.ceil(((y - (bottom - EDGE)) / EDGE) * MAX_STEP);
  return 0;
}
