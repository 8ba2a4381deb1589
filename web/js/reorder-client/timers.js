// @ts-check
/**
 * The timers of one client: every `setTimeout` it starts goes through `timeout`, so that `clear`
 * (when the client is closed) cancels them all and nothing fires for a closed client.
 *
 * The page's board session (`web/js/scope.js`) has the same two methods; anything that takes a
 * `TimerOwner` accepts either.
 */

/**
 * @typedef {object} TimerOwner
 * @property {(fn: () => void, ms: number) => number} timeout starts a timer and returns its id; an owner already closed starts none and returns 0
 * @property {(id: number | undefined) => void} clearTimeout
 */

/** @implements {TimerOwner} */
export class Timers {
  constructor() {
    /** @type {Set<number>} */
    this.ids = new Set();
  }

  /** @param {() => void} fn @param {number} ms @returns {number} */
  timeout(fn, ms) {
    const id = setTimeout(() => {
      this.ids.delete(id);
      fn();
    }, ms);
    this.ids.add(id);
    return id;
  }

  /** @param {number | undefined} id a timer from `timeout` (0 and undefined are ignored) */
  clearTimeout(id) {
    if (!id) return;
    clearTimeout(id);
    this.ids.delete(id);
  }

  /** Cancels every timer still waiting. */
  clear() {
    for (const id of this.ids) clearTimeout(id);
    this.ids.clear();
  }
}
