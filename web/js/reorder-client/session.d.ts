/** @returns {string} 12 random hex digits */
export function randomId(): string;
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
export const PROTOCOL_VERSION: 1;
/** The connection and message half of `ReorderClient` (use that class; this one is its base). */
export class RoomSession extends EventTarget {
    /** @param {ClientOptions} options */
    constructor(options: ClientOptions);
    /** The room (board) name. */
    room: string;
    /** This client's id (in `hello.client` and in every op id). */
    clientId: string;
    name: string;
    color: string;
    options: ClientOptions;
    /** The board: the server's state and the pending intents (see model.js). */
    model: BoardModel;
    /** Who else is online and what they drag. */
    presence: PeerSet;
    /** The others' custom presence states (`presence` frames). */
    states: PresenceStates;
    /** @type {Record<string, any> | null} this person's own presence state, sent again after each welcome */
    ownState: Record<string, any> | null;
    /** @type {"editor" | "viewer" | null} the role of the last welcome or `refreshed` (null before one) */
    role: "editor" | "viewer" | null;
    /** @type {string | null} this connection's session, from its welcome */
    session: string | null;
    /** @type {string | null} the token the server last accepted (or the one sent in hello) */
    token: string | null;
    /** @type {string | null} a token sent in `refresh`, not yet answered */
    offered: string | null;
    /** @type {{ code: number, reason: string } | null} set when the session ended for good */
    end: {
        code: number;
        reason: string;
    };
    counter: number;
    /** True between a welcome and the close: a further welcome replaces the board. */
    welcomed: boolean;
    timers: Timers;
    /** The `history` requests not answered yet (history-requests.js). */
    histories: any;
    /** @type {Outbox | null} where unacknowledged intents are kept (null with `outbox: false`) */
    outbox: Outbox | null;
    /** @type {IntentReplay} the intents not answered yet: re-sent or dropped as rejected (intent-replay.js) */
    replay: IntentReplay;
    /** @type {Set<string>} ids of intents re-sent after a (re)connect or adopted from a closed tab */
    replayed: Set<string>;
    pacer: DragPacer;
    connection: any;
    /** Connects (and keeps reconnecting until `close`, or until a close ends the session). @returns {this} */
    connect(): RoomSession;
    /** Closes the connection for good (code 1000) and cancels every timer. Idempotent. */
    close(): void;
    /** Reconnects now, e.g. with a new token from `getToken` (pending intents are kept). */
    reconnect(): void;
    /**
     * Offers a new token for the open connection (`refresh`): it must be for the same `sub`. Event
     * `refreshed` when accepted, `error` (code `unauthorized`) when refused. @param {string} token
     * @returns {boolean} false when not connected (the next hello asks `getToken` anyway)
     */
    refresh(token: any): boolean;
    /**
     * Listens to an event; the listener gets the event's `detail`. Same as
     * `addEventListener(type, (e) => fn(e.detail))`.
     * @param {string} type @param {(detail: any) => void} fn @returns {() => void} removes the listener
     */
    on(type: string, fn: (detail: any) => void): () => void;
    /**
     * Handles one server message (the connection calls this; exposed for tools and tests).
     * @param {any} msg
     */
    receive(msg: any): any;
    /**
     * A welcome. A second one on an open connection replaces the board; what it does not state
     * (`session`, `role`, `peers`, `presence_interval_ms`) stays as the first welcome said.
     * @private @param {any} msg
     */
    private welcome;
    /** @private @param {any} msg */
    private expiring;
    /** @private @returns {Promise<object>} the hello for a (re)connect */
    private hello;
    /**
     * Queues a `history` request; it goes out once the ones before it are answered.
     * @protected @param {object} frame @returns {Promise<import("./history.js").HistoryPage>}
     */
    protected requestHistory(frame: object): Promise<import("./history.js").HistoryPage>;
    /** @private @param {Status} state @param {string} detail */
    private stateChanged;
    /** @private @param {number} code @param {string} reason @param {import("./connection.js").EndKind} kind */
    private ended;
    /** @private @param {"editor" | "viewer"} role */
    private setRole;
    /** @private @param {Drag[]} drags @param {boolean} peersChanged */
    private presenceChanged;
    /** @private @param {string} type @param {any} detail */
    private emit;
}
export type ClientOptions = {
    /**
     * the room (board) name: 1–64 of `A-Z a-z 0-9 - _ .`
     */
    room: string;
    /**
     * the name the others see (default "Guest"; a token's `name` claim wins)
     */
    name?: string;
    /**
     * the colour the others see, e.g. `#1971c2` (default `#1971c2`)
     */
    color?: string;
    /**
     * the server: `https://host`, `ws://host:port`… (default: this page's origin)
     */
    url?: string;
    /**
     * the client id (default: random per instance; op ids are `<client>:<n>`
     * with n from 1, so an id given here must not be reused by another instance)
     */
    client?: string;
    /**
     * the room token (a JWT, docs/AUTH.md), sent in every `hello`
     */
    token?: string;
    /**
     * asked for the token before every `hello` (wins over `token`), and at `token_expiring`
     */
    getToken?: () => (string | null | undefined | Promise<string | null | undefined>);
    /**
     * at `token_expiring`, ask `getToken()` and send what it gives
     * as `refresh` when it is another token (default true)
     */
    autoRefresh?: boolean;
    /**
     * aborting it closes the client
     */
    signal?: AbortSignal;
    /**
     * keep unacknowledged intents in IndexedDB, so that they survive a
     * closed tab and are re-sent once (default true where IndexedDB and Web Locks exist; see outbox.js)
     */
    outbox?: boolean;
    /**
     * whose outbox this is (default: the `sub` of `token`, else `name`): one
     * database per server, room and user
     */
    user?: string;
};
export type Drag = import("./peers.js").Drag;
export type Peer = import("./peers.js").Peer;
export type BoardState = import("./board-state.js").State;
export type Intent = import("./board-state.js").Pending;
export type Status = "connecting" | "open" | "closed";
import { BoardModel } from "./model.js";
import { PeerSet } from "./peers.js";
import { PresenceStates } from "./presence-states.js";
import { Timers } from "./timers.js";
import { Outbox } from "./outbox.js";
import { IntentReplay } from "./intent-replay.js";
import { DragPacer } from "./pacer.js";
