// @ts-check
/**
 * The websocket to one room: hello (with `since`, `epoch` and the room token), reconnect with
 * exponential backoff and jitter, re-sending of unacknowledged ops, and `data-connection` on <body>.
 *
 * A close with 4401 (the token is missing, bad or expired) or 4403 (a token for another room) ends
 * the connection for good: reconnecting would be refused the same way, so it is reported through
 * `onRefused` and nothing is retried until `start` is called again (e.g. with a new link).
 *
 * The connection knows nothing about the board: it hands every server message to `onMessage`,
 * asks `getSince()` / `getEpoch()` for the last seq seen and the history it belongs to, and
 * `pendingOps()` for the ops to re-send after a welcome.
 */

/** @typedef {"connecting" | "open" | "closed"} ConnectionState */

/**
 * @typedef {object} ConnectionOptions
 * @property {string} room
 * @property {string} client
 * @property {() => {name: string, color: string}} identity
 * @property {() => number | undefined} getSince the last applied seq seen, if any
 * @property {() => string | undefined} getEpoch the `epoch` of the welcome that seq belongs to
 * @property {() => Array<{id: string, op: object}>} pendingOps unacknowledged ops, oldest first
 * @property {(msg: any) => void} onMessage
 * @property {(state: ConnectionState, detail: string) => void} [onState]
 * @property {() => string | null} [token] the room token to send in `hello`, read at every (re)connect
 * @property {() => boolean} [mayResend] whether the pending ops may be re-sent after a welcome
 *   (asked after `onMessage` has seen it: a viewer sends none)
 * @property {(code: number, reason: string) => void} [onRefused] a 4401 / 4403 close: no reconnect
 * @property {import("./scope.js").Scope} scope the board session: its end stops the connection,
 *   removes every listener (the window's and the sockets') and clears the reconnect timer
 */

/** Close codes that mean "this token will not do": reconnecting cannot help. */
export const REFUSED_CODES = [4401, 4403];

const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 4000;

export class Connection {
  /** @param {ConnectionOptions} options */
  constructor(options) {
    this.options = options;
    /** @type {WebSocket | null} */
    this.socket = null;
    /** @type {ConnectionState} */
    this.state = "closed";
    this.attempt = 0;
    /** @type {number | undefined} */
    this.retryTimer = undefined;
    /** True before `start` and after `stop`: no socket, no reconnect. */
    this.stopped = true;
    /** True between `welcome` and close: ops may be sent. */
    this.ready = false;
    this.watchingNetwork = false;
    this.scope = options.scope;
    this.scope.signal.addEventListener("abort", () => this.stop(), { once: true });
  }

  /** Opens the socket and keeps it open (reconnecting) until `stop` or the end of the session. */
  start() {
    if (!this.stopped || this.scope.disposed) return;
    this.stopped = false;
    if (!this.watchingNetwork) {
      this.watchingNetwork = true;
      window.addEventListener("online", () => this.retryNow(), { signal: this.scope.signal });
    }
    this.open();
  }

  /** Closes the socket for good (leaving the board). Idempotent. */
  stop() {
    if (this.stopped) return;
    this.stopped = true;
    this.ready = false;
    this.scope.clearTimeout(this.retryTimer);
    if (this.socket) this.socket.close(1000, "leaving");
    this.socket = null;
    this.setState("closed", "left");
  }

  /** Forces a reconnect now (used on a seq gap, or when the network comes back). */
  retryNow() {
    if (this.stopped) return;
    this.scope.clearTimeout(this.retryTimer);
    if (this.socket && this.state !== "closed") {
      this.socket.close(4000, "resync");
      return;
    }
    this.open();
  }

  /** @private */
  open() {
    if (this.stopped) return;
    this.ready = false;
    this.setState("connecting", this.attempt ? `reconnecting (attempt ${this.attempt + 1})` : "connecting");
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const url = `${proto}//${location.host}/ws/${encodeURIComponent(this.options.room)}`;
    let socket;
    try {
      socket = new WebSocket(url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    const signal = this.scope.signal;
    socket.addEventListener("open", () => {
      if (socket !== this.socket) return;
      const { name, color } = this.options.identity();
      /** @type {any} */
      const hello = { type: "hello", room: this.options.room, client: this.options.client, name, color };
      const token = this.options.token?.();
      if (token) hello.token = token;
      const since = this.options.getSince();
      if (since !== undefined) {
        // `since` only means something in the history it came from: the server serves a catch-up
        // only when the epoch matches (a server restarted on fresh data sends the full board).
        hello.since = since;
        const epoch = this.options.getEpoch();
        if (epoch !== undefined) hello.epoch = epoch;
      }
      socket.send(JSON.stringify(hello));
    }, { signal });
    socket.addEventListener("message", (event) => {
      if (socket !== this.socket || typeof event.data !== "string") return;
      let msg;
      try {
        msg = JSON.parse(event.data);
      } catch {
        console.warn("reorder: ignoring a frame that is not JSON");
        return;
      }
      if (msg && msg.type === "welcome") {
        this.attempt = 0;
        this.ready = true;
        this.setState("open", "online");
        this.options.onMessage(msg);
        if (this.options.mayResend?.() ?? true) {
          for (const p of this.options.pendingOps()) this.sendRaw({ type: "op", id: p.id, op: p.op });
        }
        return;
      }
      this.options.onMessage(msg);
    }, { signal });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.ready = false;
      if (REFUSED_CODES.includes(event.code)) {
        this.stopped = true;
        this.scope.clearTimeout(this.retryTimer);
        this.setState("closed", event.code === 4403 ? "the link is not for this board" : "the link was refused");
        this.options.onRefused?.(event.code, event.reason);
        return;
      }
      this.scheduleRetry();
    }, { signal });
  }

  /** @private */
  scheduleRetry() {
    if (this.stopped) return;
    const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** this.attempt);
    const delay = Math.round(base / 2 + Math.random() * (base / 2));
    this.attempt += 1;
    this.setState("closed", `offline, retrying in ${(delay / 1000).toFixed(1)} s`);
    this.retryTimer = this.scope.timeout(() => this.open(), delay);
  }

  /**
   * @private
   * @param {ConnectionState} state
   * @param {string} detail
   */
  setState(state, detail) {
    this.state = state;
    document.body.dataset.connection = state;
    this.options.onState?.(state, detail);
  }

  /** @private @param {object} msg */
  sendRaw(msg) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /**
   * Sends an op if connected; otherwise it stays pending and is sent after the next welcome.
   * @param {string} id @param {object} op
   */
  sendOp(id, op) {
    if (this.ready) this.sendRaw({ type: "op", id, op });
  }

  /**
   * Offers the server a new token for this connection (`refresh`); false when not connected.
   * @param {string} token @returns {boolean}
   */
  sendRefresh(token) {
    return this.ready && this.sendRaw({ type: "refresh", token });
  }

  /** Sends a presence message; dropped when offline (presence is not data). @param {object} drag */
  sendDrag(drag) {
    if (this.ready) this.sendRaw({ type: "drag", ...drag });
  }
}
