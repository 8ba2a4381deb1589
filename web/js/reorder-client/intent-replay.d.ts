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
    constructor(parts: ReplayParts);
    parts: ReplayParts;
    /** @type {Set<string>} ids of intents re-sent after a (re)connect or adopted from a closed tab */
    replayed: Set<string>;
    /** After a welcome: an editor re-sends every pending intent and adopts orphans; a viewer drops them. */
    afterWelcome(): void;
    /**
     * A `rate_limited` or `unavailable` answer (too fast, or the cluster's shared log unreachable):
     * the op is kept and re-sent a second later with the same id.
     * @param {string} id
     */
    retryLater(id: string): void;
    /**
     * Reports intents dropped here as rejected.
     * @param {Intent[]} dropped
     * @param {DropCode} code
     */
    report(dropped: Intent[], code: DropCode): void;
    /**
     * An intent is answered or dropped: it leaves `replayed` and the outbox.
     * @param {string} id
     */
    settled(id: string): void;
    /**
     * The sender tab (outbox.js) takes on the intents of tabs that are gone: re-sent with their ids
     * into the history they were made in; the others are dropped as rejected.
     * @returns {Promise<void>}
     */
    adoptOrphans(): Promise<void>;
}
/**
 * A rejection code of the client's own (every other code is the server's).
 */
export type DropCode = "board_replaced" | "board_deleted" | "read_only" | "outbox_expired";
export type Intent = import("./board-state.js").Pending;
export type ReplayLink = {
    ready: boolean;
    send: (frame: object) => boolean;
};
/**
 * The parts of its session an `IntentReplay` works with.
 */
export type ReplayParts = {
    /**
     * the board and its pending intents
     */
    model: import("./model.js").BoardModel;
    /**
     * where unacknowledged intents are kept
     */
    outbox: import("./outbox.js").Outbox | null;
    /**
     * the session's timers
     */
    timers: import("./timers.js").Timers;
    /**
     * the session's connection
     */
    link: () => ReplayLink;
    /**
     * the session's role
     */
    role: () => ("editor" | "viewer" | null);
    /**
     * fires one of the session's events
     */
    emit: (type: string, detail: any) => void;
};
