// @ts-check
/**
 * The life of a client's connection to its room and what the server's messages do to it: the
 * welcome (catch-up or full board, a second welcome that replaces the board, the re-send of
 * unacknowledged intents), applied / rejected, presence, tokens and the closes that end a
 * session. `ReorderClient` (client.js) adds the public reading and intent methods on top.
 *
 * Rules (docs/CLIENT.md has them for users):
 * - What becomes of the intents not answered yet (re-sent with the same ids after each welcome,
 *   dropped as rejected with the client's own codes, adopted from closed tabs) is intent-replay.js's.
 * - With an outbox (outbox.js) every intent is kept in IndexedDB until it is answered; `hello`
 *   says the outbox's client.
 * - `rate_limited` and `unavailable` are not refusals: the op is re-sent a second later;
 *   `storage_full` (the server's disk is full, maybe for hours) is one (docs/PROTOCOL.md).
 * - Everything the client schedules goes through `timers`, cleared by `close` and by a close
 *   that ends the session.
 * - `hello` says `v: 1` (PROTOCOL_VERSION); members and message types the client does not know
 *   are ignored (docs/PROTOCOL.md, "Versions and compatibility").
 */
import { Connection } from "./connection.js";
import { BoardModel } from "./model.js";
import { PeerSet } from "./peers.js";
import { PresenceStates } from "./presence-states.js";
import { DragPacer, presenceIntervalOf } from "./pacer.js";
import { Timers } from "./timers.js";
import { Outbox, outboxName, tokenSubject } from "./outbox.js";
import { HistoryRequests } from "./history-requests.js";
import { IntentReplay } from "./intent-replay.js";

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
 * @property {boolean} [outbox] keep unacknowledged intents in IndexedDB, so that they survive a
 *   closed tab and are re-sent once (default true where IndexedDB and Web Locks exist; see outbox.js)
 * @property {string} [user] whose outbox this is (default: the `sub` of `token`, else `name`): one
 *   database per server, room and user
 */

/**
 * @typedef {import("./peers.js").Drag} Drag
 * @typedef {import("./peers.js").Peer} Peer
 * @typedef {import("./board-state.js").State} BoardState
 * @typedef {import("./board-state.js").Pending} Intent
 * @typedef {"connecting" | "open" | "closed"} Status
 */

/** The protocol version this client speaks (`hello.v`). */
export const PROTOCOL_VERSION = 1;

/** @returns {string} 12 random hex digits */
export function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** @param {string | undefined} base @param {string} room @returns {string} the room's websocket URL */
function socketURL(base, room) {
  const origin = new URL(base ?? globalThis.location.href);
  const scheme = origin.protocol === "https:" || origin.protocol === "wss:" ? "wss:" : "ws:";
  return `${scheme}//${origin.host}/ws/${encodeURIComponent(room)}`;
}

/** @param {string | undefined} base @returns {string} the server's origin, `http(s)://host` also for a `ws(s)://` URL */
function serverOrigin(base) {
  const url = new URL(base ?? globalThis.location.href);
  const scheme = url.protocol === "https:" || url.protocol === "wss:" ? "https:" : "http:";
  return `${scheme}//${url.host}`;
}

/** The connection and message half of `ReorderClient` (use that class; this one is its base). */
export class RoomSession extends EventTarget {
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
    /** The others' custom presence states (`presence` frames). */
    this.states = new PresenceStates();
    /** @type {Record<string, any> | null} this person's own presence state, sent again after each welcome */
    this.ownState = null;
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
    /** The `history` requests not answered yet (history-requests.js). */
    this.histories = new HistoryRequests(() => this.connection);
    const user = options.user ?? tokenSubject(options.token) ?? this.name;
    /** @type {Outbox | null} where unacknowledged intents are kept (null with `outbox: false`) */
    this.outbox = options.outbox !== false && Outbox.available()
      ? new Outbox(outboxName(serverOrigin(options.url), this.room, user), (count) => this.emit("saved", { count }))
      : null;
    /** @type {IntentReplay} the intents not answered yet: re-sent or dropped as rejected (intent-replay.js) */
    this.replay = new IntentReplay({
      model: this.model, outbox: this.outbox, timers: this.timers, link: () => this.connection,
      role: () => this.role, emit: (type, detail) => this.emit(type, detail),
    });
    /** @type {Set<string>} ids of intents re-sent after a (re)connect or adopted from a closed tab */
    this.replayed = this.replay.replayed;
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
        this.emit("rejected", { id: m.id, op: change.mine?.op, intent: change.mine, code: String(m.code ?? ""), message: String(m.message ?? ""), replayed: this.replayed.has(m.id) });
      }
      if ((change.type === "applied" || change.type === "rejected") && change.mine) this.replay.settled(change.mine.id);
      this.emit("change", { cause: change.type, message: "msg" in change ? change.msg : undefined, intent: "mine" in change ? change.mine : change.type === "local" ? change.pending : undefined });
    });
    options.signal?.addEventListener("abort", () => this.close(), { once: true });
  }

  // Life cycle -------------------------------------------------------------------------------------

  /** Connects (and keeps reconnecting until `close`, or until a close ends the session). @returns {this} */
  connect() {
    if (this.options.signal?.aborted) return this;
    this.end = null;
    this.outbox?.start(() => this.replay.adoptOrphans());
    this.connection.start();
    return this;
  }

  /** Closes the connection for good (code 1000) and cancels every timer. Idempotent. */
  close() {
    this.connection.stop();
    this.timers.clear();
    this.pacer.clear();
    this.outbox?.stop();
  }

  /** Reconnects now, e.g. with a new token from `getToken` (pending intents are kept). */
  reconnect() {
    if (this.connection.stopped) this.connect();
    else this.connection.retryNow();
  }

  // Tokens and events -----------------------------------------------------------------------------

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
        if (msg.code === "rate_limited" || msg.code === "unavailable") return this.replay.retryLater(msg.id);
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
      case "presence":
        for (const u of this.states.update(msg)) this.emit("presence", u);
        return;
      case "broadcast":
        if (typeof msg.session === "string") this.emit("broadcast", { session: msg.session, event: msg.event });
        return;
      case "history":
        return this.histories.answered(msg);
      case "token_expiring":
        return this.expiring(msg);
      case "refreshed": {
        if (this.offered) this.token = this.offered;
        this.offered = null;
        if (msg.role === "viewer" || msg.role === "editor") this.setRole(msg.role);
        return this.emit("refreshed", { role: this.role, expiresIn: numberOrNull(msg.expires_in_s) });
      }
      case "error": {
        // A server that does not know `history` refuses the oldest request (the client sends no
        // other type a server of protocol 1 may not know).
        if (msg.code === "unknown_type") this.histories.refused(String(msg.message ?? ""));
        const refresh = msg.code === "unauthorized" && this.offered !== null && this.connection.ready;
        if (refresh) this.offered = null;
        return this.emit("error", { code: String(msg.code ?? ""), message: String(msg.message ?? ""), refresh });
      }
      default:
        // A message type of a later minor version: ignored (docs/PROTOCOL.md).
        return;
    }
  }

  /**
   * A welcome. A second one on an open connection replaces the board; what it does not state
   * (`session`, `role`, `peers`, `presence_interval_ms`) stays as the first welcome said.
   * @private @param {any} msg
   */
  welcome(msg) {
    const replaces = this.welcomed;
    this.welcomed = true;
    if (typeof msg.session === "string") this.session = msg.session;
    else if (!replaces) this.session = null;
    const { ok, dropped } = this.model.welcome(msg, replaces);
    this.replay.report(dropped, "board_replaced");
    if (!ok) {
      // A catch-up from another history: ask again without `since` (a full board follows).
      this.welcomed = false;
      this.connection.retryNow();
      return;
    }
    if (msg.role === "viewer" || msg.role === "editor") this.setRole(msg.role);
    else if (!replaces) this.setRole("editor");
    const interval = presenceIntervalOf(msg);
    if (interval !== null || !replaces) this.pacer.follow(interval);
    const drags = replaces && !Array.isArray(msg.peers) ? [] : this.presence.welcome(msg);
    this.replay.afterWelcome();
    this.emit("welcome", {
      session: this.session, role: this.role, epoch: this.model.epoch, seq: this.model.seq,
      catchUp: !msg.board, replaced: replaces, expiresIn: numberOrNull(msg.expires_in_s), message: msg,
    });
    this.presenceChanged(drags, true);
    if (Array.isArray(msg.presence)) for (const u of this.states.welcome(msg.presence)) this.emit("presence", u);
    if (this.ownState) this.connection.send({ type: "presence", state: this.ownState });
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
    // With an outbox every tab of this user says the outbox's client: the server then recognises
    // an op id re-sent by another tab than the one that sent it first.
    const client = (await this.outbox?.client()) ?? this.clientId;
    const hello = { type: "hello", v: PROTOCOL_VERSION, room: this.room, client, name: this.name, color: this.color };
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

  /**
   * Queues a `history` request; it goes out once the ones before it are answered.
   * @protected @param {object} frame @returns {Promise<import("./history.js").HistoryPage>}
   */
  requestHistory(frame) {
    return this.histories.request(frame);
  }

  /** @private @param {Status} state @param {string} detail */
  stateChanged(state, detail) {
    if (state !== "open") {
      this.welcomed = false;
      // Their answers would have come on the connection that is gone.
      this.histories.rejectAll("the connection closed before the answer");
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
    this.outbox?.stop();
    if (kind === "deleted") {
      this.replay.report(this.model.dropPending(), "board_deleted");
      this.emit("ended", { code, reason });
    } else if (kind === "ended") {
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

  /** @private @param {string} type @param {any} detail */
  emit(type, detail) {
    this.dispatchEvent(new CustomEvent(type, { detail }));
  }
}

/** @param {unknown} v @returns {number | null} */
function numberOrNull(v) {
  return typeof v === "number" && Number.isFinite(v) ? v : null;
}
