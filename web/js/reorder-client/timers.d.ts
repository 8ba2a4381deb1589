/**
 * The timers of one client: every `setTimeout` it starts goes through `timeout`, so that `clear`
 * (when the client is closed) cancels them all and nothing fires for a closed client.
 *
 * The page's board session (`web/js/scope.js`) has the same two methods; anything that takes a
 * `TimerOwner` accepts either.
 */
/**
 * @typedef {object} TimerOwner
 * @property {(fn: () => void, ms: number) => number} timeout starts a timer and returns its id; an owner already closed starts none and returns 0
 * @property {(id: number | undefined) => void} clearTimeout
 */
/** @implements {TimerOwner} */
export class Timers implements TimerOwner {
    /** @type {Set<number>} */
    ids: Set<number>;
    /** @param {() => void} fn @param {number} ms @returns {number} */
    timeout(fn: () => void, ms: number): number;
    /** @param {number | undefined} id a timer from `timeout` (0 and undefined are ignored) */
    clearTimeout(id: number | undefined): void;
    /** Cancels every timer still waiting. */
    clear(): void;
}
export type TimerOwner = {
    /**
     * starts a timer and returns its id; an owner already closed starts none and returns 0
     */
    timeout: (fn: () => void, ms: number) => number;
    clearTimeout: (id: number | undefined) => void;
};
