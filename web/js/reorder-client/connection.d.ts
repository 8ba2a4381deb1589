/**
 * How a close code ends the session, or null when the client reconnects after it.
 * @param {number} code @returns {EndKind | null}
 */
export function endKind(code: number): EndKind | null;
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
export const REFUSED_CODES: number[];
/** The close code of a board deleted (through the HTTP API) while connected. */
export const DELETED_CODE: 4404;
/** The close code of a hello in a protocol version the server does not speak. */
export const UNSUPPORTED_VERSION_CODE: 4400;
/** The one code of the refusals' range (4400–4499) after which a client reconnects: no hello came. */
export const HELLO_TIMEOUT_CODE: 4408;
/** The close code of a node being drained (SIGTERM): reconnect, spread out. */
export const RESTART_CODE: 1012;
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
    constructor(options: ConnectionOptions);
    options: ConnectionOptions;
    /** @type {WebSocket | null} */
    socket: WebSocket | null;
    /** @type {ConnectionState} */
    state: ConnectionState;
    attempt: number;
    /** @type {number | undefined} */
    retryTimer: number | undefined;
    /** True before `start` and after `stop` or an ending close: no socket, no reconnect. */
    stopped: boolean;
    /** True between `welcome` and close: ops may be sent. */
    ready: boolean;
    /** @type {AbortController | null} the socket's and the window's listeners while started */
    listening: AbortController | null;
    /** Opens the socket and keeps it open (reconnecting) until `stop` or an ending close. */
    start(): void;
    /** Closes the socket for good (code 1000). Idempotent. */
    stop(): void;
    /** Reconnects now (on a seq gap, when the network comes back, or for a new token). */
    retryNow(): void;
    /**
     * Sends one message if the socket is open; false otherwise (nothing is queued here).
     * @param {object} msg @returns {boolean}
     */
    send(msg: object): boolean;
    /** @private No socket, no timer, no listener: stopped. */
    private halt;
    /** @private */
    private open;
    /** @private @param {number} [code] the close code that ended the last socket */
    private scheduleRetry;
    /** @private @param {ConnectionState} state @param {string} detail */
    private setState;
}
export type ConnectionState = "connecting" | "open" | "closed";
export type EndKind = "refused" | "deleted" | "ended";
export type ConnectionOptions = {
    /**
     * the room's websocket URL (`ws://host/ws/<room>`)
     */
    url: string;
    /**
     * the `hello` to send, built at every (re)connect
     */
    hello: () => object | Promise<object>;
    /**
     * every server message (JSON-decoded objects only)
     */
    onMessage: (msg: any) => void;
    onState: (state: ConnectionState, detail: string) => void;
    /**
     * a close that ends the session
     */
    onEnd: (code: number, reason: string, kind: EndKind) => void;
    /**
     * owns the reconnect timer
     */
    timers: import("./timers.js").TimerOwner;
};
