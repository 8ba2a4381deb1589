// @ts-check
/**
 * What becomes of a session's intents that the server has not answered yet: re-sent with their
 * ids, or dropped and reported as rejected. `RoomSession` (session.js) calls it at each welcome,
 * at `rate_limited` / `unavailable`, at a 4404 close and when an intent is answered.
 *
 * Rules (docs/CLIENT.md has them for users):
 * - Pending intents are re-sent with the same ids after each editor's welcome, in the history
 *   they were made in (the server applies each id once); a welcome that replaces the board or
 *   brings another `epoch` rejects them (`board_replaced`), a viewer's welcome rejects them
 *   (`read_only`), a 4404 close rejects them (`board_deleted`). These codes and `outbox_expired`
 *   are the client's own (`DROPPED`); every other code is the server's.
 * - `rate_limited` and `unavailable` are not refusals: the op is re-sent a second later with the
 *   same id, through the session's `timers` (cleared when the session ends).
 * - With an outbox (outbox.js) the tab holding its lock re-sends the intents of closed tabs after
 *   its welcome (`adoptOrphans`); one it may not re-send is `rejected` with `replayed: true`.
 * - An intent answered or dropped leaves `replayed` and the outbox (`settled`).
 */

/**
 * A rejection code of the client's own (every other code is the server's).
 * @typedef {"board_replaced" | "board_deleted" | "read_only" | "outbox_expired"} DropCode
 */

/**
 * @typedef {import("./board-state.js").Pending} Intent
 * @typedef {{ready: boolean, send: (frame: object) => boolean}} ReplayLink
 */

/**
 * Reasons for rejecting intents that the server never saw (beside the server's codes).
 * @type {Record<DropCode, string>}
 */
const DROPPED = {
  board_replaced: "the board was replaced; this change was not applied",
  board_deleted: "the board was deleted",
  read_only: "this connection is a viewer's: it cannot edit",
  outbox_expired: "too many changes were made to the board since; the server would no longer recognise this one, so it was not re-sent",
};

/**
 * The parts of its session an `IntentReplay` works with.
 * @typedef {object} ReplayParts
 * @property {import("./model.js").BoardModel} model the board and its pending intents
 * @property {import("./outbox.js").Outbox | null} outbox where unacknowledged intents are kept
 * @property {import("./timers.js").Timers} timers the session's timers
 * @property {() => ReplayLink} link the session's connection
 * @property {() => ("editor" | "viewer" | null)} role the session's role
 * @property {(type: string, detail: any) => void} emit fires one of the session's events
 */

/** Re-sends a session's unanswered intents, or drops them as rejected. */
export class IntentReplay {
  /** @param {ReplayParts} parts */
  constructor(parts) {
    this.parts = parts;
    /** @type {Set<string>} ids of intents re-sent after a (re)connect or adopted from a closed tab */
    this.replayed = new Set();
  }

  /** After a welcome: an editor re-sends every pending intent and adopts orphans; a viewer drops them. */
  afterWelcome() {
    const { model, outbox, link, role } = this.parts;
    if (role() === "viewer") {
      // A viewer's ops would all be refused: the intents made before this welcome are dropped.
      this.report(model.dropPending(), "read_only");
      return;
    }
    for (const p of model.pending) {
      link().send({ type: "op", id: p.id, op: p.op });
      this.replayed.add(p.id);
    }
    outbox?.sent(model.pending.map((p) => p.id), model.epoch, model.seq);
    this.adoptOrphans();
  }

  /**
   * A `rate_limited` or `unavailable` answer (too fast, or the cluster's shared log unreachable):
   * the op is kept and re-sent a second later with the same id.
   * @param {string} id
   */
  retryLater(id) {
    const p = this.parts.model.pending.find((x) => x.id === id);
    if (!p) return;
    this.parts.timers.timeout(() => this.parts.link().ready && this.parts.link().send({ type: "op", id: p.id, op: p.op }), 1000);
  }

  /**
   * Reports intents dropped here as rejected.
   * @param {Intent[]} dropped
   * @param {DropCode} code
   */
  report(dropped, code) {
    for (const p of dropped) {
      this.parts.emit("rejected", { id: p.id, op: p.op, intent: p, code, message: DROPPED[code], replayed: this.replayed.has(p.id) });
      this.settled(p.id);
    }
  }

  /**
   * An intent is answered or dropped: it leaves `replayed` and the outbox.
   * @param {string} id
   */
  settled(id) {
    this.replayed.delete(id);
    this.parts.outbox?.forget(id);
  }

  /**
   * The sender tab (outbox.js) takes on the intents of tabs that are gone: re-sent with their ids
   * into the history they were made in; the others are dropped as rejected.
   * @returns {Promise<void>}
   */
  async adoptOrphans() {
    const { model, outbox, link, role, emit } = this.parts;
    if (!outbox?.sender || !link().ready || role() !== "editor") return;
    const mine = (/** @type {string} */ id) => model.pending.some((p) => p.id === id);
    const { adopted, dropped } = await outbox.orphans(model.epoch, model.seq ?? 0, mine, () => this.adoptOrphans());
    for (const { record, code } of dropped) {
      const intent = { id: record.id, op: record.op };
      emit("rejected", { id: record.id, op: record.op, intent, code, message: DROPPED[code], replayed: true });
    }
    for (const record of adopted) {
      if (mine(record.id)) continue;
      model.propose(record.id, record.op);
      this.replayed.add(record.id);
      if (link().ready) link().send({ type: "op", id: record.id, op: record.op });
    }
  }
}
