/**
 * A board's state as the client keeps it, and how a RESOLVED op (from `applied`) changes it.
 *
 * The client has no CRDT: the server resolves every intent and says where things ended up
 * (`index`, `after`, `unassigned`, `totals`, …, see docs/PROTOCOL.md), and this file applies that
 * to a plain state. Pure: no DOM, no network, no clock.
 */
/**
 * @typedef {{ id: string, fields: Record<string, any> }} Item
 * @typedef {{ id: string, title: string, layout: "list" | "grid", items: string[] }} List
 * @typedef {{ id: string, item: string, target: string, pending?: boolean }} Assignment
 * @typedef {{ count: number, sum: number }} Totals
 * @typedef {{
 *   lists: List[],
 *   items: Map<string, Item>,
 *   assignments: Map<string, Assignment>,
 *   totals: Map<string, Totals>,
 *   graveyard: Map<string, Grave>
 * }} State
 * @typedef {{ list: string, after: string | null, index: number, fields: Record<string, any>, assignments: Assignment[] }} Grave
 * @typedef {{ id: string, op: any }} Pending
 */
/** @returns {State} */
export function emptyState(): State;
/**
 * A state from a board as the server sends it (`welcome.board`, a history page's `base.board`):
 * lists in order with their items, assignments and totals. Malformed entries are skipped.
 * @param {any} board @returns {State}
 */
export function stateFromBoard(board: any): State;
/** @param {State} s @returns {State} a copy deep enough to apply ops to without touching `s`. */
export function cloneState(s: State): State;
/** @param {State} s @param {string} item @returns {{ list: List, index: number } | null} */
export function locate(s: State, item: string): {
    list: List;
    index: number;
} | null;
/** @param {State} s @param {string} item */
export function detach(s: State, item: string): {
    list: List;
    index: number;
};
/**
 * Inserts `item` in `list` after `after` (null = start) or, failing that, at `index`.
 * @param {List} list @param {string} item @param {string | null | undefined} after @param {number | undefined} index
 */
export function placeAfter(list: List, item: string, after: string | null | undefined, index: number | undefined): void;
/** @param {any} x @returns {x is number} whether `x` is a finite number. */
export function isNumber(x: any): x is number;
/** @param {any} x @returns {Record<string, any>} `x` if it is a plain object, else an empty one. */
export function asFields(x: any): Record<string, any>;
/**
 * Adjusts a target's totals by an optimistic change. A count or sum the server did not give as a
 * number stays unknown (`totalsOf` then works it out from the assignments).
 * @param {State} s @param {string} target @param {number} dCount @param {number} dSum
 */
export function adjustTotals(s: State, target: string, dCount: number, dSum: number): void;
/** @param {State} s @param {any} totals a `{target: {count, sum}}` map from the server */
export function setTotalsMap(s: State, totals: any): boolean;
/** @param {State} s @param {string} item @returns {number} */
export function priceOf(s: State, item: string): number;
/**
 * Applies a RESOLVED op (from `applied`) to a state; `fromServer` false for an intent applied the
 * same way (a delete then takes every assignment of the item with it, as the server will).
 * @param {State} s @param {any} op @param {boolean} [fromServer]
 */
export function applyResolved(s: State, op: any, fromServer?: boolean): void;
export type Item = {
    id: string;
    fields: Record<string, any>;
};
export type List = {
    id: string;
    title: string;
    layout: "list" | "grid";
    items: string[];
};
export type Assignment = {
    id: string;
    item: string;
    target: string;
    pending?: boolean;
};
export type Totals = {
    count: number;
    sum: number;
};
export type State = {
    lists: List[];
    items: Map<string, Item>;
    assignments: Map<string, Assignment>;
    totals: Map<string, Totals>;
    graveyard: Map<string, Grave>;
};
export type Grave = {
    list: string;
    after: string | null;
    index: number;
    fields: Record<string, any>;
    assignments: Assignment[];
};
export type Pending = {
    id: string;
    op: any;
};
