// @ts-check
/**
 * Which rows of a long list are rendered (view.js): a list layout of more than
 * `VIRTUAL_THRESHOLD` items shows only the rows in view plus `MARGIN_ROWS` on each side, and two
 * spacers (the list's `::before` / `::after`, sized by `--before` / `--after`) keep its scroll
 * height that of every row.
 *
 * Rows are taken to have one pitch (height + gap), measured from the rendered rows (average);
 * row i's top in the list's content coordinates is `pad + i × pitch`. A taller row (a person with
 * many chips) is laid out in full, the spacers still count it as one pitch. Grids and shorter
 * lists are rendered in full.
 *
 * Pure apart from reading the list's geometry: no rendering here.
 */

/** Lists with more items than this are virtualized (list layout only). */
export const VIRTUAL_THRESHOLD = 200;
/** Rows rendered beyond each edge of the visible part. */
export const MARGIN_ROWS = 10;
/** The pitch assumed before a row was measured: 48 px rows (min-height) plus the 6 px gap. */
export const ESTIMATED_PITCH = 54;

/**
 * @typedef {{ item: string, list: string, index: number }} Hold an item held by a local drag or a
 *   keyboard lift, shown at `index` (among the other items) of `list` until it drops
 */

/** @param {{ layout: string, items: string[] }} list @returns {boolean} whether it renders only a window */
export function isVirtual(list) {
  return list.layout === "list" && list.items.length > VIRTUAL_THRESHOLD;
}

/**
 * The order a list shows: the model's, with a held item taken out and put at its held place.
 * @param {{ id: string, items: string[] }} list @param {Hold | null} hold
 * @returns {string[]} `list.items` itself when the hold does not concern this list
 */
export function displayOrder(list, hold) {
  if (!hold) return list.items;
  const at = list.items.indexOf(hold.item);
  if (hold.list !== list.id) {
    if (at < 0) return list.items;
    return list.items.filter((id) => id !== hold.item);
  }
  const others = at < 0 ? list.items.slice() : list.items.filter((id) => id !== hold.item);
  others.splice(Math.max(0, Math.min(hold.index, others.length)), 0, hold.item);
  return others;
}

/**
 * The rows to render for a list of `n` rows: those in view (the part of the list's box inside the
 * viewport; the list's own box when it is off screen) and `MARGIN_ROWS` more on each side.
 * @param {HTMLElement} ul @param {number} n @param {number} pitch @param {number} pad
 * @returns {{ start: number, end: number }} rows start ..< end
 */
export function rowsInView(ul, n, pitch, pad) {
  const r = ul.getBoundingClientRect();
  const boxTop = r.top + ul.clientTop;
  const boxBottom = boxTop + ul.clientHeight;
  let top = Math.max(boxTop, 0);
  let bottom = Math.min(boxBottom, window.innerHeight);
  if (bottom <= top) {
    top = boxTop;
    bottom = boxBottom;
  }
  // Client y → content y: the list's scroll offset counts.
  const y0 = top - boxTop + ul.scrollTop - pad;
  const y1 = bottom - boxTop + ul.scrollTop - pad;
  const first = Math.floor(y0 / pitch) - MARGIN_ROWS;
  const last = Math.ceil(y1 / pitch) + MARGIN_ROWS;
  const start = Math.max(0, Math.min(n, first));
  const end = Math.max(start, Math.min(n, last));
  return { start, end };
}

/**
 * The pitch of rows laid out one under the other (average distance between their tops).
 * @param {HTMLElement[]} rows in order, in flow @param {number} fallback @returns {number}
 */
export function measurePitch(rows, fallback) {
  if (rows.length < 2) return fallback;
  const pitch = (rows[rows.length - 1].offsetTop - rows[0].offsetTop) / (rows.length - 1);
  return pitch > 0 ? pitch : fallback;
}

/** @param {HTMLElement} ul @returns {number} the list's own padding (CSS `--pad`), where row 0 starts */
export function basePad(ul) {
  const pad = parseFloat(getComputedStyle(ul).getPropertyValue("--pad"));
  return Number.isFinite(pad) ? pad : 0;
}
