// @ts-check
/**
 * `HistoryTimeline`: the pages of a board's history loaded so far, joined into one run of steps,
 * oldest first, and the board after any step.
 *
 * - The first page added is the newest (`client.history()` without `before`); each later one must
 *   be the page right before it (asked with `before: timeline.next`): its newest entry is the
 *   seq right before the timeline's oldest. A page that does not join is refused (`add` false).
 * - The board after step i is the oldest page's `base` with the steps up to i applied, as
 *   `boardAt` does (history.js). Boards are kept every `CHECKPOINT` steps, so moving along the
 *   timeline replays at most that many ops.
 * - Without a base (the server could not rebuild the board), the steps are still named but their
 *   boards are null: `viewable` is false. An older page without a base ends a viewable timeline
 *   instead (`cut`): its steps are not added.
 */
import { cloneState, applyResolved } from "./board-state.js";

/**
 * @typedef {import("./board-state.js").State} State
 * @typedef {import("./history.js").HistoryEntry} HistoryEntry
 * @typedef {import("./history.js").HistoryPage} HistoryPage
 */

/** A board is kept every this many steps. */
const CHECKPOINT = 32;

export class HistoryTimeline {
  constructor() {
    /** @type {HistoryEntry[]} the steps loaded, oldest first */
    this.entries = [];
    /** @type {State | null} the board before the oldest step (null: unknown) */
    this.base = null;
    /** @type {number | null} `before` for the next older page; null once the kept history ends */
    this.next = null;
    /** @type {number | null} the oldest seq the server keeps, when a page said so */
    this.earliest = null;
    /** True when older steps exist but were left out: the server could not rebuild their boards. */
    this.cut = false;
    /** True once a page was added. */
    this.started = false;
    /** @private @type {Map<number, State>} the board after step i, every CHECKPOINT steps */
    this.kept = new Map();
    /** @private @type {{ index: number, state: State } | null} the board asked for last */
    this.last = null;
  }

  /** @returns {number} how many steps are loaded */
  get length() {
    return this.entries.length;
  }

  /** @returns {boolean} whether the boards of the steps can be shown (the oldest page had a base) */
  get viewable() {
    return this.base !== null;
  }

  /** @returns {boolean} whether older pages remain to be loaded */
  get more() {
    return this.next !== null;
  }

  /**
   * Adds a page: the first one, or the one right before the oldest step. Returns how many steps
   * it added (0 for an empty page), or false for a page that does not join.
   * @param {HistoryPage} page @returns {number | false}
   */
  add(page) {
    const older = [...page.entries].sort((a, b) => a.seq - b.seq);
    if (this.started) {
      const oldest = this.entries[0]?.seq;
      if (older.length && (oldest === undefined || older[older.length - 1].seq !== oldest - 1)) return false;
    }
    if (typeof page.earliest === "number") this.earliest = page.earliest;
    if (this.started && this.base && !page.base && older.length) {
      // Steps whose boards cannot be rebuilt would make every board unknown: the timeline
      // ends before them instead.
      this.next = null;
      this.cut = true;
      return 0;
    }
    this.started = true;
    this.next = page.next;
    if (!older.length) return 0;
    this.entries = older.concat(this.entries);
    this.base = page.base ? page.base.board : null;
    this.kept.clear();
    this.last = null;
    return older.length;
  }

  /** @param {number} i @returns {HistoryEntry | undefined} step i (0: the oldest loaded) */
  entry(i) {
    return this.entries[i];
  }

  /** @param {number} seq @returns {number} the index of the step with that seq, or -1 */
  indexOf(seq) {
    const first = this.entries[0]?.seq;
    if (first === undefined) return -1;
    const i = seq - first;
    return this.entries[i]?.seq === seq ? i : this.entries.findIndex((e) => e.seq === seq);
  }

  /**
   * The board after step i (-1: the board before the oldest step). Null without a base or for an
   * index outside the timeline. The state returned is the timeline's: copy it before changing it.
   * @param {number} i @returns {State | null}
   */
  boardAt(i) {
    if (!this.base || i < -1 || i >= this.entries.length) return null;
    if (i === -1) return this.base;
    if (this.last?.index === i) return this.last.state;
    const hit = this.kept.get(i);
    if (hit) return hit;
    // Replay from the nearest known board before i: a checkpoint, or the last board asked for.
    let from = -1;
    for (const k of this.kept.keys()) if (k < i && k > from) from = k;
    const start = this.last && this.last.index < i && this.last.index > from ? this.last : null;
    const s = cloneState(start ? start.state : from === -1 ? this.base : /** @type {State} */ (this.kept.get(from)));
    for (let k = (start ? start.index : from) + 1; k <= i; k++) {
      applyResolved(s, this.entries[k].op);
      if ((k + 1) % CHECKPOINT === 0) this.kept.set(k, k === i ? s : cloneState(s));
    }
    this.last = { index: i, state: s };
    return s;
  }
}
