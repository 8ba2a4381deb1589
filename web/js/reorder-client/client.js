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
 * - A second `welcome` on an open connection (the board was replaced through the API) resets
 *   the board; the pending intents, made against the old board, are dropped and reported as
 *   rejected `board_replaced`. So is every pending intent when a welcome brings another `epoch`.
 * - A close 4404 (`board deleted`) ends the session: no reconnect, event `ended`; pending intents
 *   are rejected `board_deleted`. A close 4401 / 4403 (the token will not do) ends it too, with
 *   event `refused`. Every other close reconnects.
 * - Presence: `peers` when who is online changes, `drag` for each change of another person's
 *   drag (a person who leaves mid-drag yields a `cancel`), `sendDrag` for one's own, paced at the
 *   server's presence interval.
 *
 * The full API, with every option and event, is in docs/CLIENT.md.
 */
import { Connection } from "./connection.js";
import { BoardModel } from "./model.js";
import { PeerSet } from "./peers.js";
import { DragPacer, presenceIntervalOf } from "./pacer.js";
import { Timers } from "./timers.js";

/**
 * @typedef {object} ClientOptions
 * @property {string} room the room (board) name: 1–64 of `A-Z a-z 0-9 - _ .`
 * @property {string} [name] the name the others see (default "Guest"; a token's `name` claim wins)
 * @property {string} [color] the colour the others see, e.g. `#1971c2` (default `#1971c2`)
 * @property {string} [url] the server: `https://host`, `ws://host:port`… (default: this page's origin)
 * @property {string} [client] the client id (default: random per instance; op ids are `<client>:<n>`
 *   with n from 1, so an id given here must not be reused by another instance)
 * @property {string} [token] the room token (a JWT, docs/AUTH.md), sent in every `hello`
 * @property {() => (string | null | undefined | Promise<string | null | undefined>)} [getToken]
 *   asked for the token before every `hello` (wins over `token`), and at `token_expiring`
 * @property {boolean} [autoRefresh] at `token_expiring`, ask `getToken()` and send what it gives
 *   as `refresh` when it is another token (default true)
 * @property {AbortSignal} [signal] aborting it closes the client
 */

/**
 * @typedef {import("./peers.js").Drag} Drag
 * @typedef {import("./peers.js").Peer} Peer
 * @typedef {import("./board-state.js").State} BoardState
 * @typedef {import("./board-state.js").Pending} Intent
 * @typedef {"connecting" | "open" | "closed"} Status
 */

/** Reasons for rejecting intents that the server never saw (beside the server's codes). */
const DROPPED = {
  board_replaced: "the board was replaced; this change was not applied",
  board_deleted: "the board was deleted",
  read_only: "this connection is a viewer's: it cannot edit",
};

/** @returns {string} 12 random hex digits */
function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {string | undefined} base @param {string} room @returns {string} the room's websocket URL */
function socketURL(base, room) {
  const origin = new URL(base ?? globalThis.location.href);
  const scheme = origin.protocol === "https:" || origin.protocol === "wss:" ? "wss:" : "ws:";
  return `${scheme}//${origin.host}/ws/${encodeURIComponent(room)}`;
}

export class ReorderClient extends EventTarget {
  /** @param {ClientOptions} options */
  constructor(options) {
    super();
    if (!options || typeof options.room !== "string") throw new TypeError("ReorderClient needs options.room");
    /** The room (board) name. */
    this.room = options.room;
    /** This client's id (in `hello.client` and in every op id). */
    this.clientId = options.client ?? "c" + randomId();
    this.name = options.name ?? "Guest";
    this.color = options.color ?? "#1971c2";
    this.options = options;
    /** The board: the server's state and the pending intents (see model.js). */
    this.model = new BoardModel();
    /** Who else is online and what they drag. */
    this.presence = new PeerSet();
    /** @type {"editor" | "viewer" | null} the role of the last welcome or `refreshed` (null before one) */
    this.role = null;
    /** @type {string | null} this connection's session, from its welcome */
    this.session = null;
    /** @type {string | null} the token the server last accepted (or the one sent in hello) */
    this.token = options.token ?? null;
    /** @type {string | null} a token sent in `refresh`, not yet answered */
    this.offered = null;
    /** @type {{ code: number, reason: string } | null} set when the session ended for good */
    this.end = null;
    this.counter = 0;
    /** True between a welcome and the close: a further welcome replaces the board. */
    this.welcomed = false;
    this.timers = new Timers();
    this.pacer = new DragPacer((drag) => this.connection.send({ type: "drag", ...drag }), this.timers);
    this.connection = new Connection({
      url: socketURL(options.url, this.room),
      hello: () => this.hello(),
      onMessage: (msg) => this.receive(msg),
      onState: (state, detail) => this.stateChanged(state, detail),
      onEnd: (code, reason, kind) => this.ended(code, reason, kind),
      timers: this.timers,
    });
    this.model.onGap = () => this.connection.retryNow();
    this.model.subscribe((change) => {
      if (change.type === "applied") this.emit("applied", { message: change.msg, intent: change.mine });
      if (change.type === "rejected") {
        const m = change.msg;
        this.emit("rejected", { id: m.id, op: change.mine?.op, intent: change.mine, code: String(m.code ?? ""), message: String(m.message ?? "") });
      }
      this.emit("change", { cause: change.type, message: "msg" in change ? change.msg : undefined, intent: "mine" in change ? change.mine : change.type === "local" ? change.pending : undefined });
    });
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  // Reading ----------------------------------------------------------------------------------------

  /** @returns {BoardState} the board as shown: the server's state plus the pending intents */
  get board() {
    return this.model.view;
  }

  /** @returns {Intent[]} the intents not acknowledged yet, oldest first */
  get pending() {
    return this.model.pending;
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

  // Life cycle -------------------------------------------------------------------------------------

  /** Connects (and keeps reconnecting until `close`, or until a close ends the session). @returns {this} */
  connect() {
    if (this.options.signal?.aborted) return this;
    this.end = null;
    this.connection.start();
    return this;
  }

  /** Closes the connection for good (code 1000) and cancels every timer. Idempotent. */
  close() {
    this.connection.stop();
    this.timers.clear();
    this.pacer.clear();
  }

  /** Reconnects now, e.g. with a new token from `getToken` (pending intents are kept). */
  reconnect() {
    if (this.connection.stopped) this.connect();
    else this.connection.retryNow();
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

  // Presence and tokens ----------------------------------------------------------------------------

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
   * Offers a new token for the open connection (`refresh`): it must be for the same `sub`. Event
   * `refreshed` when accepted, `error` (code `unauthorized`) when refused. @param {string} token
   * @returns {boolean} false when not connected (the next hello asks `getToken` anyway)
   */
  refresh(token) {
    if (!this.connection.ready || !this.connection.send({ type: "refresh", token })) return false;
    this.offered = token;
    return true;
  }

  /**
   * Listens to an event; the listener gets the event's `detail`. Same as
   * `addEventListener(type, (e) => fn(e.detail))`.
   * @param {string} type @param {(detail: any) => void} fn @returns {() => void} removes the listener
   */
  on(type, fn) {
    /** @param {Event} e */
    const listener = (e) => fn(/** @type {CustomEvent} */ (e).detail);
    this.addEventListener(type, listener);
    return () => this.removeEventListener(type, listener);
  }

  // Server messages --------------------------------------------------------------------------------

  /**
   * Handles one server message (the connection calls this; exposed for tools and tests).
   * @param {any} msg
   */
  receive(msg) {
    this.emit("message", { message: msg });
    switch (msg.type) {
      case "welcome":
        return this.welcome(msg);
      case "applied":
        return this.model.applied(msg);
      case "rejected": {
        if (msg.code === "rate_limited") {
          // Not a refusal: the op is kept and re-sent a little later.
          const p = this.model.pending.find((x) => x.id === msg.id);
          if (p) this.timers.timeout(() => this.connection.ready && this.connection.send({ type: "op", id: p.id, op: p.op }), 1000);
          return;
        }
        if (msg.code === "read_only") this.setRole("viewer");
        return this.model.rejected(msg);
      }
      case "peer":
        return this.presenceChanged(this.presence.peer(msg), true);
      case "peers": {
        const interval = presenceIntervalOf(msg);
        if (interval !== null) this.pacer.follow(interval);
        return this.presenceChanged(this.presence.peers(msg), true);
      }
      case "drags": {
        const { changes, joined } = this.presence.dragFrame(msg);
        return this.presenceChanged(changes, joined);
      }
      case "token_expiring":
        return this.expiring(msg);
      case "refreshed": {
        if (this.offered) this.token = this.offered;
        this.offered = null;
        if (msg.role === "viewer" || msg.role === "editor") this.setRole(msg.role);
        return this.emit("refreshed", { role: this.role, expiresIn: numberOrNull(msg.expires_in_s) });
      }
      case "error": {
        const refresh = msg.code === "unauthorized" && this.offered !== null && this.connection.ready;
        if (refresh) this.offered = null;
        return this.emit("error", { code: String(msg.code ?? ""), message: String(msg.message ?? ""), refresh });
      }
      default:
        return;
    }
  }

  /** @private @param {any} msg */
  welcome(msg) {
    const replaces = this.welcomed;
    this.welcomed = true;
    this.session = typeof msg.session === "string" ? msg.session : null;
    const { ok, dropped } = this.model.welcome(msg, replaces);
    this.report(dropped, "board_replaced");
    if (!ok) {
      // A catch-up from another history: ask again without `since` (a full board follows).
      this.welcomed = false;
      this.connection.retryNow();
      return;
    }
    this.setRole(msg.role === "viewer" ? "viewer" : "editor");
    this.pacer.follow(presenceIntervalOf(msg));
    const drags = this.presence.welcome(msg);
    this.emit("welcome", {
      session: this.session, role: this.role, epoch: this.model.epoch, seq: this.model.seq,
      catchUp: !msg.board, replaced: replaces, expiresIn: numberOrNull(msg.expires_in_s), message: msg,
    });
    this.presenceChanged(drags, true);
    if (this.role === "viewer") {
      // A viewer's ops would all be refused: the intents made before this welcome are dropped.
      this.report(this.model.dropPending(), "read_only");
      return;
    }
    for (const p of this.model.pending) this.connection.send({ type: "op", id: p.id, op: p.op });
  }

  /** @private @param {any} msg */
  expiring(msg) {
    this.emit("expiring", { expiresIn: numberOrNull(msg.expires_in_s) });
    const getToken = this.options.getToken;
    if (!getToken || this.options.autoRefresh === false) return;
    Promise.resolve(getToken()).then((fresh) => {
      if (fresh && fresh !== this.token && fresh !== this.offered) this.refresh(fresh);
    }, (error) => console.warn("reorder: getToken failed", error));
  }

  /** @private @returns {Promise<object>} the hello for a (re)connect */
  async hello() {
    if (this.options.getToken) this.token = (await this.options.getToken()) ?? null;
    this.offered = null;
    /** @type {any} */
    const hello = { type: "hello", room: this.room, client: this.clientId, name: this.name, color: this.color };
    if (this.token) hello.token = this.token;
    const since = this.model.seq;
    if (since !== undefined) {
      // `since` only means something in the history it came from: the server serves a catch-up
      // only when the epoch matches (a server restarted on fresh data sends the full board).
      hello.since = since;
      if (this.model.epoch !== undefined) hello.epoch = this.model.epoch;
    }
    return hello;
  }

  /** @private @param {Status} state @param {string} detail */
  stateChanged(state, detail) {
    if (state !== "open") {
      this.welcomed = false;
      this.pacer.clear();
      const ended = this.presence.clear();
      this.presenceChanged(ended, true);
    }
    this.emit("status", { state, detail });
  }

  /** @private @param {number} code @param {string} reason @param {import("./connection.js").EndKind} kind */
  ended(code, reason, kind) {
    this.end = { code, reason };
    this.timers.clear();
    if (kind === "deleted") {
      this.report(this.model.dropPending(), "board_deleted");
      this.emit("ended", { code, reason });
    } else {
      this.emit("refused", { code, reason });
    }
  }

  /** @private @param {"editor" | "viewer"} role */
  setRole(role) {
    const previous = this.role;
    this.role = role;
    if (previous !== role) this.emit("role", { role, previous });
  }

  /** @private @param {Drag[]} drags @param {boolean} peersChanged */
  presenceChanged(drags, peersChanged) {
    if (peersChanged) this.emit("peers", { peers: this.presence.known, others: this.presence.others });
    for (const d of drags) this.emit("drag", d);
  }

  /** @private Reports intents dropped here as rejected. @param {Intent[]} dropped @param {keyof DROPPED} code */
  report(dropped, code) {
    for (const p of dropped) this.emit("rejected", { id: p.id, op: p.op, intent: p, code, message: DROPPED[code] });
  }

  /** @private @param {string} type @param {any} detail */
  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** @param {any} op @param {{ after?: string | null, before?: string | null }} at */
function withAnchors(op, at) {
  if (at.after) op.after = at.after;
  else if (at.before) op.before = at.before;
  return op;
}

/** @param {unknown} v @returns {number | null} */
function numberOrNull(v) {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
