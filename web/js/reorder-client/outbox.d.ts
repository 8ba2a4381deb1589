/**
 * One kept intent.
 * @typedef {object} SavedIntent
 * @property {string} id the op id
 * @property {any} op the intent's op, as sent
 * @property {string} owner the client instance that sends it (the one that made or adopted it)
 * @property {string | null} epoch the history it was made in (null: made before any welcome)
 * @property {number | null} seq the last seq seen when it was first sent into `epoch`
 * @property {number} t when it was made (ms since 1970), then `n`: the order of re-sending
 * @property {number} n
 */
/**
 * The database of a room's outbox for one user on one server.
 * @param {string} origin the server's origin (`https://host:port`)
 * @param {string} room @param {string} user @returns {string}
 */
export function outboxName(origin: string, room: string, user: string): string;
/**
 * The `sub` claim of a token (JWT), read without checking the signature (the server checks it):
 * whose outbox the token's intents go to. @param {string | null | undefined} token @returns {string | null}
 */
export function tokenSubject(token: any): any;
/**
 * The offline outbox: every intent not acknowledged yet is kept in IndexedDB until the server
 * answers it, so changes made offline survive a closed tab or browser and land exactly once.
 *
 * - One database per server origin, room and user: `reorder-outbox:<origin>:<room>:<user>`
 *   (`outboxName`). Store `intents` holds `SavedIntent`s (key `id`, the op id); store `meta`
 *   holds `client`, the `hello.client` every tab of this database connects with. The server
 *   recognises a re-sent op by (hello.client, op id) (docs/PROTOCOL.md, `op`), so an intent sent
 *   by a tab that closed before its `applied` and re-sent by another tab is applied once.
 * - Each tab (client instance) owns the intents it made and sends them itself, as without an
 *   outbox. It holds the Web Lock `<name>#tab:<instance>` while it is connected, so the others
 *   can tell that it is alive (`navigator.locks.query`).
 * - One tab at a time holds `<name>#sender` and adopts the intents of tabs that are gone (a
 *   closed tab, a browser closed offline): it re-sends them with their original ids. A tab that
 *   opens while another holds the lock waits for it and sends nothing but its own; when the
 *   holder closes (its locks are released with it), the next tab gets the lock and adopts.
 * - A saved intent is re-sent only into the history it was made in (its `epoch`) and only while
 *   the server still remembers its op id: fewer than `REMEMBERED_OP_IDS` ops after the `seq` it
 *   was first sent at. Otherwise it is dropped (codes `board_replaced`, `outbox_expired`).
 * - `count` is how many intents the database holds (every tab's); tabs tell each other of a
 *   change through a `BroadcastChannel` of the database's name.
 */
/**
 * How many op ids the server remembers per room (docs/PROTOCOL.md, `op`): a re-sent op id is
 * recognised only while fewer ops than this were applied after it.
 */
export const REMEMBERED_OP_IDS: 10000;
/** The outbox of one client instance (see the top of this file). */
export class Outbox {
    /** @returns {boolean} whether this browser has what an outbox needs (IndexedDB and Web Locks) */
    static available(): boolean;
    /**
     * @param {string} name the database (`outboxName`)
     * @param {(count: number) => void} onCount called when `count` changes
     */
    constructor(name: string, onCount: (count: number) => void);
    name: string;
    /** This instance's id, the `owner` of its intents. */
    owner: string;
    onCount: (count: number) => void;
    /** How many intents the database holds (every tab's). */
    count: number;
    /** True while this instance holds `<name>#sender`. */
    sender: boolean;
    /** @type {Map<string, SavedIntent>} this instance's records, by op id */
    mine: Map<string, SavedIntent>;
    /** @type {IDBDatabase | null} */
    db: IDBDatabase | null;
    /** @type {Promise<IDBDatabase | null>} */
    opened: Promise<IDBDatabase | null>;
    /** @type {Promise<unknown>} the last write: writes run in the order they were asked for */
    writes: Promise<unknown>;
    seen: number;
    /** @type {AbortController | null} the locks held or asked for while started */
    locks: AbortController | null;
    /** @type {Set<string>} owners whose end is awaited */
    watching: Set<string>;
    channel: BroadcastChannel;
    /** @returns {Promise<string | null>} the `hello.client` of this database (made once), null without one */
    client(): Promise<string | null>;
    /**
     * Keeps a new intent of this instance. @param {{ id: string, op: any }} intent
     * @param {string | undefined} epoch @param {number | undefined} seq what the model knew when it was made
     */
    keep(intent: any, epoch: string | undefined, seq: number | undefined): void;
    /** Forgets an intent (acknowledged, refused or dropped). @param {string} id */
    forget(id: any): void;
    /**
     * The intents of this instance sent now into `epoch` at `seq` for the first time: a record
     * that did not know its history yet learns it (the bound of its op id's memory starts there).
     * @param {string[]} ids @param {string | undefined} epoch @param {number | undefined} seq
     */
    sent(ids: string[], epoch: string | undefined, seq: number | undefined): void;
    /**
     * While started, this instance holds its tab lock and asks for the sender lock;
     * `onSender` runs when it gets it. @param {() => void} onSender
     */
    start(onSender: any): void;
    /** Releases the locks (another tab may take over) and stops waiting for others. */
    stop(): void;
    /**
     * For the sender: the intents of tabs that are gone, adopted (this instance sends them from
     * now on) when they may still be sent into the history `epoch` at `seq`, else to drop. `onGone`
     * runs when a tab that still has intents here closes (adopt again then).
     * @param {string | undefined} epoch @param {number} seq @param {(id: string) => boolean} known intents this instance has already
     * @param {() => void} onGone
     * @returns {Promise<{ adopted: SavedIntent[], dropped: Array<{ record: SavedIntent, code: "board_replaced" | "outbox_expired" }> }>}
     */
    orphans(epoch: string | undefined, seq: number, known: (id: string) => boolean, onGone: () => void): Promise<{
        adopted: SavedIntent[];
        dropped: Array<{
            record: SavedIntent;
            code: "board_replaced" | "outbox_expired";
        }>;
    }>;
    /** @private Runs `onGone` once the tab `owner` releases its lock. @param {string} owner @param {AbortSignal} signal @param {() => void} onGone */
    private watch;
    /** @private @param {(store: IDBObjectStore) => void} change one write, after those asked before */
    private write;
    /** @private Reads how many intents are kept and says so when it changed. */
    private recount;
}
/**
 * One kept intent.
 */
export type SavedIntent = {
    /**
     * the op id
     */
    id: string;
    /**
     * the intent's op, as sent
     */
    op: any;
    /**
     * the client instance that sends it (the one that made or adopted it)
     */
    owner: string;
    /**
     * the history it was made in (null: made before any welcome)
     */
    epoch: string | null;
    /**
     * the last seq seen when it was first sent into `epoch`
     */
    seq: number | null;
    /**
     * when it was made (ms since 1970), then `n`: the order of re-sending
     */
    t: number;
    n: number;
};
