// @ts-check
/**
 * What one board session owns and must give back when it ends: its event listeners, timers and
 * animation frames.
 *
 * Rules: every `addEventListener` of a board session passes `{ signal: scope.signal }` (the
 * elements and `window` outlive the session, so a listener that is not removed keeps a left board
 * reacting to input); every timer and frame goes through `timeout` / `frame`, so `dispose` can
 * clear them. After `dispose` nothing new is scheduled: a callback that runs late (an animation's
 * `onfinish`, a socket event already queued) cannot bring the session back to life.
 */
export class Scope {
  constructor() {
    this.controller = new AbortController();
    /** Aborted when the session ends: pass it to every `addEventListener` of the session. */
    this.signal = this.controller.signal;
    /** @type {Set<number>} */
    this.timers = new Set();
    /** @type {Set<number>} */
    this.frames = new Set();
  }

  /** @returns {boolean} whether the session has ended. */
  get disposed() {
    return this.signal.aborted;
  }

  /**
   * `setTimeout` owned by the session; returns 0 (no timer) once it has ended.
   * @param {() => void} fn @param {number} ms @returns {number}
   */
  timeout(fn, ms) {
    if (this.disposed) return 0;
    const id = window.setTimeout(() => {
      this.timers.delete(id);
      fn();
    }, ms);
    this.timers.add(id);
    return id;
  }

  /** @param {number | undefined} id a timer from `timeout` (0 and undefined are ignored) */
  clearTimeout(id) {
    if (!id) return;
    window.clearTimeout(id);
    this.timers.delete(id);
  }

  /**
   * `requestAnimationFrame` owned by the session; returns 0 (no frame) once it has ended.
   * @param {FrameRequestCallback} fn @returns {number}
   */
  frame(fn) {
    if (this.disposed) return 0;
    const id = requestAnimationFrame((t) => {
      this.frames.delete(id);
      fn(t);
    });
    this.frames.add(id);
    return id;
  }

  /** @param {number | undefined} id a frame from `frame` (0 and undefined are ignored) */
  cancelFrame(id) {
    if (!id) return;
    cancelAnimationFrame(id);
    this.frames.delete(id);
  }

  /** Ends the session: removes its listeners, clears its timers and frames. Idempotent. */
  dispose() {
    this.controller.abort();
    for (const id of this.timers) window.clearTimeout(id);
    for (const id of this.frames) cancelAnimationFrame(id);
    this.timers.clear();
    this.frames.clear();
  }
}
