/**
 * @typedef {import("./board-state.js").State} State
 * @typedef {import("./board-state.js").Pending} Pending
 * @typedef {import("./board-state.js").Assignment} Assignment
 * @typedef {import("./board-state.js").Totals} Totals
 */
/**
 * @typedef {{ type: "reset" } | { type: "applied", msg: any, mine: Pending | undefined }
 *   | { type: "rejected", msg: any, mine: Pending | undefined } | { type: "local", pending: Pending }} ModelChange
 */
export class BoardModel {
    server: import("./board-state.js").State;
    view: import("./board-state.js").State;
    /** @type {number | undefined} */
    seq: number | undefined;
    /** @type {string | undefined} the `epoch` (history) that `seq` belongs to */
    epoch: string | undefined;
    loaded: boolean;
    /** @type {Pending[]} */
    pending: Pending[];
    /** @type {Set<(change: ModelChange) => void>} */
    listeners: Set<(change: ModelChange) => void>;
    /** Called when a seq gap is seen; the connection then resyncs. */
    onGap: () => void;
    /** @param {(change: ModelChange) => void} fn */
    subscribe(fn: (change: ModelChange) => void): void;
    /** @private @param {ModelChange} change */
    private emit;
    /** @private */
    private rebuild;
    /**
     * Loads a full board (welcome.board).
     * @param {number} seq @param {any} board
     */
    load(seq: number, board: any): void;
    /**
     * Handles `welcome`. A full board replaces the state; a catch-up (`ops`) is applied in order.
     *
     * Pending intents are kept (to be re-sent with the same ids) only while the history is the one
     * they were made in: a welcome that `replaces` the board (a second welcome on an open
     * connection: the board was replaced through the API), or whose `epoch` is not the one this
     * model knew, drops them; they are returned so that the caller reports them as rejected.
     * `ok` is false (and `seq` forgotten, so that the next hello asks for a full board) when a
     * catch-up belongs to another history than ours.
     * @param {any} msg @param {boolean} [replaces] @returns {{ ok: boolean, dropped: Pending[] }}
     */
    welcome(msg: any, replaces?: boolean): {
        ok: boolean;
        dropped: Pending[];
    };
    /** Handles `applied` (also the ones replayed in a welcome). @param {any} msg */
    applied(msg: any): void;
    /**
     * Drops every pending intent (the board is gone, or the client may not send them): the view
     * rolls back to the server's state. @returns {Pending[]} the dropped intents, oldest first
     */
    dropPending(): import("./board-state.js").Pending[];
    /** Handles `rejected`: the intent is dropped, the view rolls back. @param {any} msg */
    rejected(msg: any): void;
    /**
     * Records a new intent and applies it optimistically.
     * @param {string} id @param {any} op @returns {Pending}
     */
    propose(id: string, op: any): Pending;
    /** @param {string} id */
    list(id: string): import("./board-state.js").List;
    /** @param {string} id */
    item(id: string): import("./board-state.js").Item;
    /** @param {string} id */
    where(id: string): {
        list: import("./board-state.js").List;
        index: number;
    };
    /** @param {string} id @returns {boolean} whether the item is deleted (and restorable). */
    isDeleted(id: string): boolean;
    /** @param {string} target @returns {Assignment[]} */
    assignmentsOf(target: string): Assignment[];
    /**
     * A target's totals, always numbers: a count or sum the server did not give as a number is
     * worked out from the assignments on the board.
     * @param {string} target @returns {Totals}
     */
    totalsOf(target: string): Totals;
    /** @param {string} id @returns {string} a short human name for an item. */
    label(id: string): string;
}
export type State = import("./board-state.js").State;
export type Pending = import("./board-state.js").Pending;
export type Assignment = import("./board-state.js").Assignment;
export type Totals = import("./board-state.js").Totals;
export type ModelChange = {
    type: "reset";
} | {
    type: "applied";
    msg: any;
    mine: Pending | undefined;
} | {
    type: "rejected";
    msg: any;
    mine: Pending | undefined;
} | {
    type: "local";
    pending: Pending;
};
