// @ts-check
/**
 * The websocket to one room: `hello` on every open, reconnect with exponential backoff and jitter,
 * and the closes that end a session for good.
 *
 * It knows nothing about the board: `hello()` builds the hello (it may wait, e.g. for a token from
 * the app's backend), every server message goes to `onMessage`, and `ready` says whether ops may
 * be sent (between a `welcome` and the close).
 *
 * Closes that end the session (no reconnect: it would be refused or pointless the same way):
 * 4401 and 4403 (the token will not do: `onEnd(code, reason, "refused")`), 4404 (the board was
 * deleted: `onEnd(code, reason, "deleted")`), and every other code of 4400–4499 but 4408 `hello
 * timeout`, the refusals of docs/PROTOCOL.md ("Versions and compatibility"), such as 4400 (the
 * server does not speak this client's protocol version): `onEnd(code, reason, "ended")`. Every
 * other close, an unknown one below 4400 included, reconnects after 250 ms … 4 s
 * (doubling, half of it random), at once when the browser says it is online again. A node being
 * drained closes with 1012 (service restart): the first retry then waits a random 0.25–2 s, so
 * that the clients of one batch do not all reconnect in the same instant.
 */

/** @typedef {"connecting" | "open" | "closed"} ConnectionState */
/** @typedef {"refused" | "deleted" | "ended"} EndKind */

/** Close codes that mean "this token will not do": reconnecting cannot help. */
export const REFUSED_CODES = [4401, 4403];
/** The close code of a board deleted (through the HTTP API) while connected. */
export const DELETED_CODE = 4404;
/** The close code of a hello in a protocol version the server does not speak. */
export const UNSUPPORTED_VERSION_CODE = 4400;
/** The one code of the refusals' range (4400–4499) after which a client reconnects: no hello came. */
export const HELLO_TIMEOUT_CODE = 4408;
/** The close code of a node being drained (SIGTERM): reconnect, spread out. */
export const RESTART_CODE = 1012;

const MIN_DELAY_MS = 250;
const MAX_DELAY_MS = 4000;
const RESTART_SPREAD_MS = 2000;

/**
 * @typedef {object} ConnectionOptions
 * @property {string} url the room's websocket URL (`ws://host/ws/<room>`)
 * @property {() => object | Promise<object>} hello the `hello` to send, built at every (re)connect
 * @property {(msg: any) => void} onMessage every server message (JSON-decoded objects only)
 * @property {(state: ConnectionState, detail: string) => void} onState
 * @property {(code: number, reason: string, kind: EndKind) => void} onEnd a close that ends the session
 * @property {import("./timers.js").TimerOwner} timers owns the reconnect timer
 */

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
    /** True before `start` and after `stop` or an ending close: no socket, no reconnect. */
    this.stopped = true;
    /** True between `welcome` and close: ops may be sent. */
    this.ready = false;
    /** @type {AbortController | null} the socket's and the window's listeners while started */
    this.listening = null;
  }

  /** Opens the socket and keeps it open (reconnecting) until `stop` or an ending close. */
  start() {
    if (!this.stopped) return;
    this.stopped = false;
    this.listening = new AbortController();
    globalThis.addEventListener?.("online", () => this.retryNow(), { signal: this.listening.signal });
    this.open();
  }

  /** Closes the socket for good (code 1000). Idempotent. */
  stop() {
    if (this.stopped) return;
    const socket = this.socket;
    this.halt();
    if (socket) socket.close(1000, "leaving");
    this.setState("closed", "left");
  }

  /** Reconnects now (on a seq gap, when the network comes back, or for a new token). */
  retryNow() {
    if (this.stopped) return;
    this.options.timers.clearTimeout(this.retryTimer);
    if (this.socket && this.state !== "closed") {
      this.socket.close(4000, "resync");
      return;
    }
    this.open();
  }

  /**
   * Sends one message if the socket is open; false otherwise (nothing is queued here).
   * @param {object} msg @returns {boolean}
   */
  send(msg) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN) {
      this.socket.send(JSON.stringify(msg));
      return true;
    }
    return false;
  }

  /** @private No socket, no timer, no listener: stopped. */
  halt() {
    this.stopped = true;
    this.ready = false;
    this.socket = null;
    this.options.timers.clearTimeout(this.retryTimer);
    this.listening?.abort();
    this.listening = null;
  }

  /** @private */
  open() {
    if (this.stopped || !this.listening) return;
    this.ready = false;
    this.setState("connecting", this.attempt ? `reconnecting (attempt ${this.attempt + 1})` : "connecting");
    let socket;
    try {
      socket = new WebSocket(this.options.url);
    } catch {
      this.scheduleRetry();
      return;
    }
    this.socket = socket;
    const signal = this.listening.signal;
    socket.addEventListener("open", async () => {
      let hello;
      try {
        hello = await this.options.hello();
      } catch (error) {
        console.warn("reorder: could not build the hello (retrying)", error);
        if (socket === this.socket) socket.close(4000, "no hello");
        return;
      }
      if (socket === this.socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(hello));
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
      if (!msg || typeof msg !== "object") return;
      if (msg.type === "welcome") {
        this.attempt = 0;
        this.ready = true;
        if (this.state !== "open") this.setState("open", "online");
      }
      this.options.onMessage(msg);
    }, { signal });
    socket.addEventListener("close", (event) => {
      if (socket !== this.socket) return;
      this.socket = null;
      this.ready = false;
      const ending = endKind(event.code);
      if (ending) {
        this.halt();
        const detail =
          event.code === DELETED_CODE ? "the board was deleted"
          : event.code === 4403 ? "the link is not for this board"
          : event.code === UNSUPPORTED_VERSION_CODE ? "the server speaks another protocol version"
          : ending === "refused" ? "the link was refused"
          : `the server refused the connection (${event.code})`;
        this.setState("closed", detail);
        this.options.onEnd(event.code, event.reason, ending);
        return;
      }
      this.scheduleRetry(event.code);
    }, { signal });
  }

  /** @private @param {number} [code] the close code that ended the last socket */
  scheduleRetry(code) {
    if (this.stopped) return;
    const base = Math.min(MAX_DELAY_MS, MIN_DELAY_MS * 2 ** this.attempt);
    const delay =
      code === RESTART_CODE && this.attempt === 0
        ? Math.round(MIN_DELAY_MS + Math.random() * (RESTART_SPREAD_MS - MIN_DELAY_MS))
        : Math.round(base / 2 + Math.random() * (base / 2));
    this.attempt += 1;
    this.setState("closed", `offline, retrying in ${(delay / 1000).toFixed(1)} s`);
    this.retryTimer = this.options.timers.timeout(() => this.open(), delay);
  }

  /** @private @param {ConnectionState} state @param {string} detail */
  setState(state, detail) {
    this.state = state;
    this.options.onState(state, detail);
  }
}

/**
 * How a close code ends the session, or null when the client reconnects after it.
 * @param {number} code @returns {EndKind | null}
 */
export function endKind(code) {
  if (REFUSED_CODES.includes(code)) return "refused";
  if (code === DELETED_CODE) return "deleted";
  if (code >= 4400 && code <= 4499 && code !== HELLO_TIMEOUT_CODE) return "ended";
  return null;
}
