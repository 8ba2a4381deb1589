// @ts-check
/**
 * The board model: the server's resolved state (`server`, advanced only by `applied` in seq
 * order) plus this client's pending intents applied optimistically on top (`view`).
 *
 * When `applied` arrives, the resolved op is applied to `server`, the matching pending intent
 * (same op id) is dropped, and `view` is rebuilt as server + remaining pending intents. `rejected`
 * drops the intent, which rolls the view back. A welcome with a full board replaces `server`;
 * pending intents survive it only when it is the same history (same `epoch`) the intents were
 * made in and not a replacement of the board (see `welcome`).
 */
import { emptyState, cloneState, locate, stateFromBoard, applyResolved, isNumber, priceOf } from "./board-state.js";
import { applyIntent } from "./intents.js";

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
  constructor() {
    this.server = emptyState();
    this.view = emptyState();
    /** @type {number | undefined} */
    this.seq = undefined;
    /** @type {string | undefined} the `epoch` (history) that `seq` belongs to */
    this.epoch = undefined;
    this.loaded = false;
    /** @type {Pending[]} */
    this.pending = [];
    /** @type {Set<(change: ModelChange) => void>} */
    this.listeners = new Set();
    /** Called when a seq gap is seen; the connection then resyncs. */
    this.onGap = () => {};
  }

  /** @param {(change: ModelChange) => void} fn */
  subscribe(fn) {
    this.listeners.add(fn);
  }

  /** @private @param {ModelChange} change */
  emit(change) {
    for (const fn of this.listeners) fn(change);
  }

  /** @private */
  rebuild() {
    const v = cloneState(this.server);
    for (const p of this.pending) applyIntent(v, p);
    this.view = v;
  }

  /**
   * Loads a full board (welcome.board).
   * @param {number} seq @param {any} board
   */
  load(seq, board) {
    const s = stateFromBoard(board);
    this.server = s;
    this.seq = seq;
    this.loaded = true;
    this.rebuild();
    this.emit({ type: "reset" });
  }

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
  welcome(msg, replaces = false) {
    const epoch = typeof msg.epoch === "string" ? msg.epoch : undefined;
    const seq = typeof msg.seq === "number" && Number.isFinite(msg.seq) ? msg.seq : 0;
    const otherHistory = this.epoch !== undefined && epoch !== undefined && epoch !== this.epoch;
    /** @type {Pending[]} */
    let dropped = [];
    if (replaces || otherHistory) {
      dropped = this.pending;
      this.pending = [];
    }
    if (msg.board && typeof msg.board === "object") {
      this.epoch = epoch;
      this.load(seq, msg.board);
      return { ok: true, dropped };
    }
    if (Array.isArray(msg.ops)) {
      if (otherHistory) {
        this.seq = undefined;
        this.epoch = undefined;
        return { ok: false, dropped };
      }
      this.epoch = epoch ?? this.epoch;
      for (const a of msg.ops) if (a && typeof a === "object") this.applied(a);
    }
    if (!this.loaded) {
      this.epoch = epoch;
      this.load(seq, { lists: [] });
    } else if (dropped.length) {
      this.rebuild();
      this.emit({ type: "reset" });
    }
    return { ok: true, dropped };
  }

  /** Handles `applied` (also the ones replayed in a welcome). @param {any} msg */
  applied(msg) {
    const index = this.pending.findIndex((p) => p.id === msg.id);
    const mine = index >= 0 ? this.pending.splice(index, 1)[0] : undefined;
    if (this.seq !== undefined && msg.seq <= this.seq) {
      // Already seen (a re-acknowledgement after a reconnect): only the pending intent goes.
      if (mine) {
        this.rebuild();
        this.emit({ type: "applied", msg, mine });
      }
      return;
    }
    if (this.seq !== undefined && msg.seq !== this.seq + 1) {
      if (mine) this.pending.splice(index, 0, mine);
      this.onGap();
      return;
    }
    applyResolved(this.server, msg.op);
    this.seq = msg.seq;
    this.rebuild();
    this.emit({ type: "applied", msg, mine });
  }

  /**
   * Drops every pending intent (the board is gone, or the client may not send them): the view
   * rolls back to the server's state. @returns {Pending[]} the dropped intents, oldest first
   */
  dropPending() {
    const dropped = this.pending;
    if (!dropped.length) return dropped;
    this.pending = [];
    this.rebuild();
    this.emit({ type: "reset" });
    return dropped;
  }

  /** Handles `rejected`: the intent is dropped, the view rolls back. @param {any} msg */
  rejected(msg) {
    const index = this.pending.findIndex((p) => p.id === msg.id);
    if (index < 0) return;
    const [mine] = this.pending.splice(index, 1);
    this.rebuild();
    this.emit({ type: "rejected", msg, mine });
  }

  /**
   * Records a new intent and applies it optimistically.
   * @param {string} id @param {any} op @returns {Pending}
   */
  propose(id, op) {
    const p = { id, op };
    this.pending.push(p);
    applyIntent(this.view, p);
    this.emit({ type: "local", pending: p });
    return p;
  }

  // Queries on the view -------------------------------------------------------------------

  /** @param {string} id */
  list(id) {
    return this.view.lists.find((l) => l.id === id);
  }

  /** @param {string} id */
  item(id) {
    return this.view.items.get(id);
  }

  /** @param {string} id */
  where(id) {
    return locate(this.view, id);
  }

  /** @param {string} id @returns {boolean} whether the item is deleted (and restorable). */
  isDeleted(id) {
    return !this.view.items.has(id) && this.view.graveyard.has(id);
  }

  /** @param {string} target @returns {Assignment[]} */
  assignmentsOf(target) {
    return [...this.view.assignments.values()].filter((a) => a.target === target);
  }

  /**
   * A target's totals, always numbers: a count or sum the server did not give as a number is
   * worked out from the assignments on the board.
   * @param {string} target @returns {Totals}
   */
  totalsOf(target) {
    const t = this.view.totals.get(target);
    const mine = this.assignmentsOf(target);
    const count = isNumber(t?.count) ? t.count : mine.length;
    const sum = isNumber(t?.sum) ? t.sum : mine.reduce((acc, a) => acc + priceOf(this.view, a.item), 0);
    return { count, sum };
  }

  /** @param {string} id @returns {string} a short human name for an item. */
  label(id) {
    const f = this.view.items.get(id)?.fields || this.view.graveyard.get(id)?.fields;
    return f ? String(f.title ?? f.name ?? id) : id;
  }
}
