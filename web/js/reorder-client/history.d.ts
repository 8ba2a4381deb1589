/**
 * Checks what `client.history` asks for: `before` a whole number ≥ 1, `limit` 1–200 (both
 * optional). Throws a RangeError otherwise: the server's `error` has no request id to tie it to.
 * @param {{ before?: number, limit?: number }} [query] @returns {{ type: "history", before?: number, limit?: number }}
 */
export function historyRequest(query?: {
    before?: number;
    limit?: number;
}): {
    type: "history";
    before?: number;
    limit?: number;
};
/**
 * A `history` frame as a page: entries without a numeric seq or an op are left out, and kept
 * newest first; `base.board` becomes a state like `client.board`.
 * @param {any} msg @returns {HistoryPage}
 */
export function historyPage(msg: any): HistoryPage;
/**
 * The board of a page at step `seq`: its base with every entry up to and including `seq`
 * applied in order (`seq` = `base.seq`: the base itself). Null when the page has no base or
 * `seq` is outside it. `page.base` is not changed.
 * @param {HistoryPage} page @param {number} seq @returns {State | null}
 */
export function boardAt(page: HistoryPage, seq: number): State | null;
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
export const HISTORY_PAGE_MAX: 200;
export type State = import("./board-state.js").State;
/**
 * Who made an op: `name` as the others saw it (null for API writes), `via: "api"` for an op
 * written through the HTTP API.
 */
export type HistoryActor = {
    name: string | null;
    via?: string;
};
/**
 * One kept op: its `seq`, when it was applied (`at`, ISO 8601 UTC; null in old records), who made
 * it (`actor`, null when unknown: the demo boards' seed ops, old records) and the resolved `op`
 * (as in `applied.op`).
 */
export type HistoryEntry = {
    seq: number;
    at: string | null;
    actor: HistoryActor | null;
    op: any;
};
/**
 * One page of history: `entries` newest first (the ops with seq < the `before` asked for),
 * `next` the `before` of the next, older page (null: the kept history ends here), `base` the
 * board right before the page's oldest entry (null when the server cannot rebuild it), and
 * `earliest` (only on an empty page asked for past the kept history) the oldest seq kept.
 */
export type HistoryPage = {
    entries: HistoryEntry[];
    next: number | null;
    base: {
        seq: number;
        board: State;
    } | null;
    earliest?: number;
};
