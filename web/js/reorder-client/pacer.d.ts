/**
 * The server's presence interval in a `welcome` or `peers` frame, or null when it states none.
 * @param {any} msg @returns {number | null}
 */
export function presenceIntervalOf(msg: any): number | null;
/**
 * Paces this client's `drag` frames at the server's presence interval.
 *
 * The server relays drags at most once per interval and says which in `welcome` (and in `peers`
 * when a room's interval changes) as `presence_interval_ms`; a server that does not say keeps the
 * default of 33 ms. Frames sent faster would only be coalesced there, so the client sends at most one
 * frame per interval, whatever its phase:
 *
 * - the latest state always goes last: a `move` replaces a `move` still waiting, and an `end` or
 *   `cancel` replaces the `move` before it (the moves of a finished drag are moot);
 * - a `start`, `end` or `cancel` is never dropped: each is sent, in order, one interval apart;
 * - the first frame after a quiet interval goes at once (leading edge).
 *
 * The gap between two frames is measured from the end of one `send` to the start of the next, so it
 * is never shorter than the interval, even when a timer fires early.
 */
/** The interval followed when the server does not state one (its default of 30 frames a second). */
export const DEFAULT_PRESENCE_INTERVAL_MS: 33;
export class DragPacer {
    /**
     * @param {(msg: any) => void} send sends one `drag` frame now
     * @param {import("./timers.js").TimerOwner} scope owns the pacer's timer (the client's timers)
     */
    constructor(send: (msg: any) => void, scope: import("./timers.js").TimerOwner);
    send: (msg: any) => void;
    scope: import("./timers.js").TimerOwner;
    /** Milliseconds between two frames. */
    interval: number;
    /** `performance.now()` when the last frame was sent. */
    last: number;
    /** @type {any[]} frames waiting for their turn, oldest first (at most a few) */
    queue: any[];
    timer: number;
    /** Follows the server's interval (null: the default). @param {number | null} ms */
    follow(ms: any): void;
    /** Sends `msg` as soon as the interval allows, the latest state last. @param {any} msg */
    push(msg: any): void;
    /** Drops what waits (the connection is gone: presence is not data). */
    clear(): void;
    /** @private */
    private pump;
}
