/**
 * @typedef {import("./board-state.js").State} BoardState
 * @typedef {import("./board-state.js").Pending} Intent
 * @typedef {import("./session.js").Status} Status
 * @typedef {import("./session.js").ClientOptions} ClientOptions
 * @typedef {import("./history.js").HistoryPage} HistoryPage
 * @typedef {import("./restore.js").RestoreOptions} RestoreOptions
 */
/** A client of one room: `new ReorderClient(options).connect()`; see docs/CLIENT.md. */
export class ReorderClient extends RoomSession {
    /** @returns {BoardState} the board as shown: the server's state plus the pending intents */
    get board(): import("./board-state.js").State;
    /** @returns {Intent[]} the intents not acknowledged yet, oldest first */
    get pending(): import("./board-state.js").Pending[];
    /** @returns {number} how many intents this device keeps for the room and user (every tab's; 0 without an outbox) */
    get saved(): number;
    /** @returns {Status} the connection's state */
    get status(): import("./session.js").Status;
    /** @returns {boolean} whether the connection is welcomed (intents go out at once) */
    get ready(): boolean;
    /** @returns {number | undefined} the last seq applied */
    get seq(): number;
    /** @returns {string | undefined} the history (`epoch`) the seq belongs to */
    get epoch(): string;
    /**
     * The items of a list as shown, in order.
     * @param {string} list @returns {Array<{ id: string, fields: Record<string, any> }>}
     */
    items(list: string): Array<{
        id: string;
        fields: Record<string, any>;
    }>;
    /**
     * Proposes an intent (any op of docs/PROTOCOL.md): applied to `board` at once, sent now or
     * after the next welcome, re-sent with the same id until the server answers.
     * @param {object} op e.g. `{kind: "move", item, list, after}` @returns {Intent} `{id, op}`
     */
    propose(op: object): import("./board-state.js").Pending;
    /**
     * Moves an item right after `after`, else right before `before`, else to the end of `list`.
     * @param {string} item @param {string} list @param {{ after?: string | null, before?: string | null }} [at]
     * @returns {Intent}
     */
    move(item: string, list: string, at?: {
        after?: string | null;
        before?: string | null;
    }): Intent;
    /**
     * Inserts an item with `fields` (strings, numbers, booleans) into `list` (placed as `move`).
     * Without `at.item` the item's id is made here (`i-<12 hex>`): `intent.op.item`.
     * @param {string} list @param {Record<string, string | number | boolean>} fields
     * @param {{ after?: string | null, before?: string | null, item?: string }} [at] @returns {Intent}
     */
    insert(list: string, fields: Record<string, string | number | boolean>, at?: {
        after?: string | null;
        before?: string | null;
        item?: string;
    }): Intent;
    /** Deletes an item (it keeps its place for `restore`). @param {string} item @returns {Intent} */
    delete(item: any): import("./board-state.js").Pending;
    /** Brings a deleted item back where it was. @param {string} item @returns {Intent} */
    restore(item: any): import("./board-state.js").Pending;
    /**
     * Sets one field of an item. @param {string} item @param {string} field
     * @param {string | number | boolean} value @returns {Intent}
     */
    set(item: any, field: any, value: string | number | boolean): Intent;
    /** Assigns an item to a target (a food onto a person). @param {string} item @param {string} target @returns {Intent} */
    assign(item: any, target: any): import("./board-state.js").Pending;
    /** Removes an assignment (its id, `_a<seq>`). @param {string} assignment @returns {Intent} */
    unassign(assignment: any): import("./board-state.js").Pending;
    /**
     * Creates a list, right after the list `at.after` (absent: last; null: first). Without
     * `at.list` its id is made here (`l-<12 hex>`).
     * @param {string} title @param {"list" | "grid"} layout
     * @param {{ list?: string, after?: string | null }} [at] @returns {Intent}
     */
    createList(title: string, layout: "list" | "grid", at?: {
        list?: string;
        after?: string | null;
    }): Intent;
    /** Moves a list right after `after` (absent or null: first). @param {string} list @param {{ after?: string | null }} [at] @returns {Intent} */
    moveList(list: any, at?: {}): import("./board-state.js").Pending;
    /** Deletes a list and its items. @param {string} list @returns {Intent} */
    deleteList(list: any): import("./board-state.js").Pending;
    /**
     * Proposes the intents that turn `board` as it is into `target`, an earlier version (e.g. a
     * history step's board): lists made again, items deleted, restored, inserted and moved into
     * place, fields set, assignments made and removed (`restoreIntents`, restore.js). They merge
     * with the others' edits like any intents. Nothing is proposed when the boards agree.
     * @param {BoardState} target @param {RestoreOptions & { graves?: BoardState["graveyard"] }} [options]
     *   `graves`: the last places of items deleted before this client joined (e.g. the graveyard of
     *   the newest board of a `HistoryTimeline`), so that they are restored rather than inserted again
     * @returns {Intent[]} the intents, in order
     */
    restoreVersion(target: BoardState, options?: RestoreOptions & {
        graves?: BoardState["graveyard"];
    }): Intent[];
    /**
     * Asks for a page of the board's kept history: the ops before seq `before` (absent: the newest),
     * at most `limit` (1–200, default 50), newest first, with who made each and when, the board
     * before the page's oldest op (`base`) and `next`, the `before` of the older page (null at the
     * end of the kept history). Viewers may ask. Rejected when not connected (or the connection
     * closes before the answer), or when the server keeps no history; throws a RangeError for a
     * `before` or `limit` out of range.
     * @param {{ before?: number, limit?: number }} [query] @returns {Promise<HistoryPage>}
     */
    history(query?: {
        before?: number;
        limit?: number;
    }): Promise<HistoryPage>;
    /**
     * Sends this person's drag (`phase` start, move, end or cancel, `item`, optional `list`, `over`,
     * `index`, `x`, `y`, `t`: docs/PROTOCOL.md), at most one frame per presence interval (a `move`
     * waiting is replaced by the next; start, end and cancel always go). Dropped while offline.
     * @param {{ phase: "start" | "move" | "end" | "cancel", item: string, [key: string]: any }} drag
     */
    sendDrag(drag: {
        [key: string]: any;
        phase: "start" | "move" | "end" | "cancel";
        item: string;
    }): void;
    /**
     * Sets this person's custom presence state (a JSON object of at most 1,024 bytes, e.g.
     * `{list: "foods"}`): the others get it in event `presence`, latest wins. Kept and sent again
     * after each reconnect; while offline it goes with the next welcome.
     * @param {Record<string, any>} state
     */
    updatePresence(state: Record<string, any>): void;
    /** @returns {Array<{ session: string, state: Record<string, any> | null }>} the others' current presence states */
    get presenceStates(): {
        session: string;
        state: Record<string, any> | null;
    }[];
    /**
     * Sends an event (a JSON object of at most 4 KiB) to the others, who get it in event
     * `broadcast` `{session, event}`; not stored, dropped while offline. At most
     * `--max-broadcasts-per-second` (default 20); over it, event `error` with `rate_limited`.
     * @param {Record<string, any>} event @returns {boolean} whether it was sent
     */
    broadcast(event: Record<string, any>): boolean;
}
export type BoardState = import("./board-state.js").State;
export type Intent = import("./board-state.js").Pending;
export type Status = import("./session.js").Status;
export type ClientOptions = import("./session.js").ClientOptions;
export type HistoryPage = import("./history.js").HistoryPage;
export type RestoreOptions = import("./restore.js").RestoreOptions;
import { RoomSession } from "./session.js";
