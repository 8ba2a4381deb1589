// @ts-check
/**
 * A board's kept history as the server pages it (`history` frames, docs/PROTOCOL.md), and the
 * board at any step of a page, rebuilt by applying the entries' resolved ops forward onto the
 * page's `base` with the same code that applies `applied` frames (board-state.js). Pure: no DOM,
 * no network, no clock.
 */
import { cloneState, stateFromBoard, applyResolved } from "./board-state.js";

/** @typedef {import("./board-state.js").State} State */

/**
 * Who made an op: `name` as the others saw it (null for API writes), `via: "api"` for an op
 * written through the HTTP API.
 * @typedef {{ name: string | null, via?: string }} HistoryActor
 */

/**
 * One kept op: its `seq`, when it was applied (`at`, ISO 8601 UTC; null in old records), who made
 * it (`actor`, null when unknown: the demo boards' seed ops, old records) and the resolved `op`
 * (as in `applied.op`).
 * @typedef {{ seq: number, at: string | null, actor: HistoryActor | null, op: any }} HistoryEntry
 */

/**
 * One page of history: `entries` newest first (the ops with seq < the `before` asked for),
 * `next` the `before` of the next, older page (null: the kept history ends here), `base` the
 * board right before the page's oldest entry (null when the server cannot rebuild it), and
 * `earliest` (only on an empty page asked for past the kept history) the oldest seq kept.
 * @typedef {{ entries: HistoryEntry[], next: number | null, base: { seq: number, board: State } | null, earliest?: number }} HistoryPage
 */

/** The largest page the server gives (`limit`). */
export const HISTORY_PAGE_MAX = 200;

/**
 * Checks what `client.history` asks for: `before` a whole number ≥ 1, `limit` 1–200 (both
 * optional). Throws a RangeError otherwise: the server's `error` has no request id to tie it to.
 * @param {{ before?: number, limit?: number }} [query] @returns {{ type: "history", before?: number, limit?: number }}
 */
export function historyRequest(query = {}) {
  /** @type {{ type: "history", before?: number, limit?: number }} */
  const frame = { type: "history" };
  if (query.before !== undefined && query.before !== null) {
    if (!Number.isSafeInteger(query.before) || query.before < 1) throw new RangeError("history: before must be a whole number from 1");
    frame.before = query.before;
  }
  if (query.limit !== undefined && query.limit !== null) {
    if (!Number.isSafeInteger(query.limit) || query.limit < 1 || query.limit > HISTORY_PAGE_MAX) throw new RangeError(`history: limit must be 1 to ${HISTORY_PAGE_MAX}`);
    frame.limit = query.limit;
  }
  return frame;
}

/**
 * A `history` frame as a page: entries without a numeric seq or an op are left out, and kept
 * newest first; `base.board` becomes a state like `client.board`.
 * @param {any} msg @returns {HistoryPage}
 */
export function historyPage(msg) {
  /** @type {HistoryEntry[]} */
  const entries = [];
  for (const e of Array.isArray(msg?.entries) ? msg.entries : []) {
    if (!e || typeof e.seq !== "number" || !e.op || typeof e.op !== "object") continue;
    const actor = e.actor && typeof e.actor === "object"
      ? { name: typeof e.actor.name === "string" ? e.actor.name : null, ...(typeof e.actor.via === "string" ? { via: e.actor.via } : {}) }
      : null;
    entries.push({ seq: e.seq, at: typeof e.at === "string" ? e.at : null, actor, op: e.op });
  }
  entries.sort((a, b) => b.seq - a.seq);
  const base = msg?.base && typeof msg.base === "object" && typeof msg.base.seq === "number"
    ? { seq: msg.base.seq, board: stateFromBoard(msg.base.board) }
    : null;
  /** @type {HistoryPage} */
  const page = { entries, next: typeof msg?.next === "number" ? msg.next : null, base };
  if (typeof msg?.earliest === "number") page.earliest = msg.earliest;
  return page;
}

/**
 * The board of a page at step `seq`: its base with every entry up to and including `seq`
 * applied in order (`seq` = `base.seq`: the base itself). Null when the page has no base or
 * `seq` is outside it. `page.base` is not changed.
 * @param {HistoryPage} page @param {number} seq @returns {State | null}
 */
export function boardAt(page, seq) {
  if (!page.base) return null;
  const newest = page.entries.length ? page.entries[0].seq : page.base.seq;
  if (seq < page.base.seq || seq > newest) return null;
  const s = cloneState(page.base.board);
  for (let i = page.entries.length - 1; i >= 0; i--) {
    const e = page.entries[i];
    if (e.seq > seq) break;
    applyResolved(s, e.op);
  }
  return s;
}
