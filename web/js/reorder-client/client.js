// @ts-check
/**
 * `ReorderClient`: one connection to one room of a Reorder server, with the board it shows.
 *
 * - The board (`client.board`) is the server's resolved state with this client's pending intents
 *   applied on top; every change fires `change`.
 * - Intents (`move`, `insert`, `delete`, …) apply at once and are sent with ids
 *   `<client>:<n>`; `applied` replaces them with the server's result, `rejected` rolls them back
 *   (event `rejected`). `rate_limited` is not a refusal: the op is re-sent a second later.
 * - The connection reconnects with backoff and asks for a catch-up (`since` + `epoch`); after the
 *   welcome it re-sends every unacknowledged intent with the same id (the server applies each
 *   once). A viewer's welcome drops them instead (rejected `read_only`: a viewer cannot edit).
 * - The offline outbox (outbox.js, option `outbox`, default on) keeps unacknowledged intents in
 *   IndexedDB: a closed tab's are re-sent once by the tab that holds the outbox's Web Lock;
 *   `saved` counts them.
 * - A second `welcome` on an open connection (the board was replaced through the API) resets
 *   the board; the pending intents, made against the old board, are dropped and reported as
 *   rejected `board_replaced`. So is every pending intent when a welcome brings another `epoch`.
 * - A close 4404 (`board deleted`) ends the session: no reconnect, event `ended`; pending intents
 *   are rejected `board_deleted`. A close 4401 / 4403 (the token will not do) ends it too, with
 *   event `refused`. Every other close reconnects.
 * - Presence: `peers` when who is online changes, `drag` for each change of another person's
 *   drag (a person who leaves mid-drag yields a `cancel`), `sendDrag` for one's own, paced at the
 *   server's presence interval. Custom state: `updatePresence(state)` for one's own (latest
 *   wins, sent again after each reconnect), event `presence` `{session, state}` for each change
 *   of another's (`state` null when they left), `presenceStates` for all of them.
 * - Broadcasts: `broadcast(event)` sends an event to the others (not stored), event `broadcast`
 *   `{session, event}` for theirs.
 * - History: `history({before, limit})` asks for a page of the board's kept history (answered in
 *   request order; a page's boards come from `boardAt` or a `HistoryTimeline`), and
 *   `restoreVersion(board)` proposes the intents that bring an earlier version back
 *   (`restoreIntents`, restore.js).
 *
 * The full API, with every option and event, is in docs/CLIENT.md.
 */
import { RoomSession, randomId } from "./session.js";
import { historyRequest } from "./history.js";
import { restoreIntents } from "./restore.js";

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
  // Reading ----------------------------------------------------------------------------------------

  /** @returns {BoardState} the board as shown: the server's state plus the pending intents */
  get board() {
    return this.model.view;
  }

  /** @returns {Intent[]} the intents not acknowledged yet, oldest first */
  get pending() {
    return this.model.pending;
  }

  /** @returns {number} how many intents this device keeps for the room and user (every tab's; 0 without an outbox) */
  get saved() {
    return this.outbox?.count ?? 0;
  }

  /** @returns {Status} the connection's state */
  get status() {
    return this.connection.state;
  }

  /** @returns {boolean} whether the connection is welcomed (intents go out at once) */
  get ready() {
    return this.connection.ready;
  }

  /** @returns {number | undefined} the last seq applied */
  get seq() {
    return this.model.seq;
  }

  /** @returns {string | undefined} the history (`epoch`) the seq belongs to */
  get epoch() {
    return this.model.epoch;
  }

  /**
   * The items of a list as shown, in order.
   * @param {string} list @returns {Array<{ id: string, fields: Record<string, any> }>}
   */
  items(list) {
    const l = this.model.list(list);
    return l ? l.items.map((id) => /** @type {any} */ (this.model.item(id))).filter(Boolean) : [];
  }

  // Intents ----------------------------------------------------------------------------------------

  /**
   * Proposes an intent (any op of docs/PROTOCOL.md): applied to `board` at once, sent now or
   * after the next welcome, re-sent with the same id until the server answers.
   * @param {object} op e.g. `{kind: "move", item, list, after}` @returns {Intent} `{id, op}`
   */
  propose(op) {
    const id = `${this.clientId}:${++this.counter}`;
    const intent = this.model.propose(id, op);
    this.outbox?.keep(intent, this.model.epoch, this.model.seq);
    if (this.connection.ready) this.connection.send({ type: "op", id, op });
    return intent;
  }

  /**
   * Moves an item right after `after`, else right before `before`, else to the end of `list`.
   * @param {string} item @param {string} list @param {{ after?: string | null, before?: string | null }} [at]
   * @returns {Intent}
   */
  move(item, list, at = {}) {
    return this.propose(withAnchors({ kind: "move", item, list }, at));
  }

  /**
   * Inserts an item with `fields` (strings, numbers, booleans) into `list` (placed as `move`).
   * Without `at.item` the item's id is made here (`i-<12 hex>`): `intent.op.item`.
   * @param {string} list @param {Record<string, string | number | boolean>} fields
   * @param {{ after?: string | null, before?: string | null, item?: string }} [at] @returns {Intent}
   */
  insert(list, fields, at = {}) {
    return this.propose(withAnchors({ kind: "insert", list, fields, item: at.item ?? "i-" + randomId() }, at));
  }

  /** Deletes an item (it keeps its place for `restore`). @param {string} item @returns {Intent} */
  delete(item) {
    return this.propose({ kind: "delete", item });
  }

  /** Brings a deleted item back where it was. @param {string} item @returns {Intent} */
  restore(item) {
    return this.propose({ kind: "restore", item });
  }

  /**
   * Sets one field of an item. @param {string} item @param {string} field
   * @param {string | number | boolean} value @returns {Intent}
   */
  set(item, field, value) {
    return this.propose({ kind: "set", item, field, value });
  }

  /** Assigns an item to a target (a food onto a person). @param {string} item @param {string} target @returns {Intent} */
  assign(item, target) {
    return this.propose({ kind: "assign", item, target });
  }

  /** Removes an assignment (its id, `_a<seq>`). @param {string} assignment @returns {Intent} */
  unassign(assignment) {
    return this.propose({ kind: "unassign", assignment });
  }

  /**
   * Creates a list, right after the list `at.after` (absent: last; null: first). Without
   * `at.list` its id is made here (`l-<12 hex>`).
   * @param {string} title @param {"list" | "grid"} layout
   * @param {{ list?: string, after?: string | null }} [at] @returns {Intent}
   */
  createList(title, layout, at = {}) {
    /** @type {any} */
    const op = { kind: "createList", list: at.list ?? "l-" + randomId(), title, layout };
    if (at.after !== undefined) op.after = at.after;
    else {
      const last = this.model.view.lists[this.model.view.lists.length - 1];
      if (last) op.after = last.id;
    }
    if (op.after === null) delete op.after;
    return this.propose(op);
  }

  /** Moves a list right after `after` (absent or null: first). @param {string} list @param {{ after?: string | null }} [at] @returns {Intent} */
  moveList(list, at = {}) {
    /** @type {any} */
    const op = { kind: "moveList", list };
    if (at.after) op.after = at.after;
    return this.propose(op);
  }

  /** Deletes a list and its items. @param {string} list @returns {Intent} */
  deleteList(list) {
    return this.propose({ kind: "deleteList", list });
  }

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
  restoreVersion(target, options = {}) {
    const current = this.model.view;
    const known = options.graves ? withGraves(current, options.graves) : current;
    return restoreIntents(known, target, options).map((op) => this.propose(op));
  }

  // History ----------------------------------------------------------------------------------------

  /**
   * Asks for a page of the board's kept history: the ops before seq `before` (absent: the newest),
   * at most `limit` (1–200, default 50), newest first, with who made each and when, the board
   * before the page's oldest op (`base`) and `next`, the `before` of the older page (null at the
   * end of the kept history). Viewers may ask. Rejected when not connected (or the connection
   * closes before the answer), or when the server keeps no history; throws a RangeError for a
   * `before` or `limit` out of range.
   * @param {{ before?: number, limit?: number }} [query] @returns {Promise<HistoryPage>}
   */
  history(query = {}) {
    return this.requestHistory(historyRequest(query));
  }

  // Presence ---------------------------------------------------------------------------------------

  /**
   * Sends this person's drag (`phase` start, move, end or cancel, `item`, optional `list`, `over`,
   * `index`, `x`, `y`, `t`: docs/PROTOCOL.md), at most one frame per presence interval (a `move`
   * waiting is replaced by the next; start, end and cancel always go). Dropped while offline.
   * @param {{ phase: "start" | "move" | "end" | "cancel", item: string, [key: string]: any }} drag
   */
  sendDrag(drag) {
    if (this.connection.ready) this.pacer.push(drag);
  }

  /**
   * Sets this person's custom presence state (a JSON object of at most 1,024 bytes, e.g.
   * `{list: "foods"}`): the others get it in event `presence`, latest wins. Kept and sent again
   * after each reconnect; while offline it goes with the next welcome.
   * @param {Record<string, any>} state
   */
  updatePresence(state) {
    this.ownState = state;
    if (this.connection.ready) this.connection.send({ type: "presence", state });
  }

  /** @returns {Array<{ session: string, state: Record<string, any> | null }>} the others' current presence states */
  get presenceStates() {
    return this.states.all;
  }

  /**
   * Sends an event (a JSON object of at most 4 KiB) to the others, who get it in event
   * `broadcast` `{session, event}`; not stored, dropped while offline. At most
   * `--max-broadcasts-per-second` (default 20); over it, event `error` with `rate_limited`.
   * @param {Record<string, any>} event @returns {boolean} whether it was sent
   */
  broadcast(event) {
    return this.connection.ready && this.connection.send({ type: "broadcast", event }) !== false;
  }
}

/**
 * `board` with `graves` added to its graveyard (those it has win), as a new state.
 * @param {BoardState} board @param {BoardState["graveyard"]} graves @returns {BoardState}
 */
function withGraves(board, graves) {
  const graveyard = new Map(graves);
  for (const [id, grave] of board.graveyard) graveyard.set(id, grave);
  return { ...board, graveyard };
}

/** @param {any} op @param {{ after?: string | null, before?: string | null }} at */
function withAnchors(op, at) {
  if (at.after) op.after = at.after;
  else if (at.before) op.before = at.before;
  return op;
}
