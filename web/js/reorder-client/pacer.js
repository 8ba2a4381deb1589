// @ts-check
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
export const DEFAULT_PRESENCE_INTERVAL_MS = 33;

/** The longest interval followed: a larger value is taken as this (a drag must still show). */
const MAX_PRESENCE_INTERVAL_MS = 5000;

/**
 * The server's presence interval in a `welcome` or `peers` frame, or null when it states none.
 * @param {any} msg @returns {number | null}
 */
export function presenceIntervalOf(msg) {
  const v = msg?.presence_interval_ms;
  if (typeof v !== "number" || !Number.isFinite(v) || v < 0) return null;
  return Math.min(v, MAX_PRESENCE_INTERVAL_MS);
}

export class DragPacer {
  /**
   * @param {(msg: any) => void} send sends one `drag` frame now
   * @param {import("./timers.js").TimerOwner} scope owns the pacer's timer (the client's timers)
   */
  constructor(send, scope) {
    this.send = send;
    this.scope = scope;
    /** Milliseconds between two frames. */
    this.interval = DEFAULT_PRESENCE_INTERVAL_MS;
    /** `performance.now()` when the last frame was sent. */
    this.last = -Infinity;
    /** @type {any[]} frames waiting for their turn, oldest first (at most a few) */
    this.queue = [];
    this.timer = 0;
  }

  /** Follows the server's interval (null: the default). @param {number | null} ms */
  follow(ms) {
    this.interval = ms ?? DEFAULT_PRESENCE_INTERVAL_MS;
    // A waiting frame may now be due sooner (or later).
    this.scope.clearTimeout(this.timer);
    this.timer = 0;
    this.pump();
  }

  /** Sends `msg` as soon as the interval allows, the latest state last. @param {any} msg */
  push(msg) {
    const tail = this.queue[this.queue.length - 1];
    if (tail && tail.phase === "move" && msg.phase !== "start") this.queue[this.queue.length - 1] = msg;
    else this.queue.push(msg);
    this.pump();
  }

  /** Drops what waits (the connection is gone: presence is not data). */
  clear() {
    this.queue = [];
    this.scope.clearTimeout(this.timer);
    this.timer = 0;
  }

  /** @private */
  pump() {
    if (this.timer || this.queue.length === 0) return;
    const wait = this.last + this.interval - performance.now();
    if (wait > 0) {
      this.timer = this.scope.timeout(() => {
        this.timer = 0;
        this.pump();
      }, Math.ceil(wait));
      return;
    }
    this.send(this.queue.shift());
    this.last = performance.now();
    this.pump();
  }
}
