// @ts-check
/**
 * The `history` requests of one session, one on the wire at a time: its answer is the next
 * `history` frame, whatever order the server would answer several in, and the next request goes
 * out once it came. Requests still waiting when the connection closes are rejected (their answers
 * would have come on the connection that is gone).
 */
import { historyPage } from "./history.js";

/** @typedef {{ready: boolean, send: (frame: object) => boolean}} HistoryLink */

export class HistoryRequests {
  /** @param {() => HistoryLink} link the session's connection */
  constructor(link) {
    this.link = link;
    /**
     * Requests in order; only the first may be `sent`.
     * @type {Array<{ frame: object, sent: boolean, resolve: (page: import("./history.js").HistoryPage) => void, reject: (error: Error) => void }>}
     */
    this.waiting = [];
  }

  /** Queues a request. @param {object} frame @returns {Promise<import("./history.js").HistoryPage>} */
  request(frame) {
    if (!this.link().ready) return Promise.reject(new Error("history: not connected"));
    return new Promise((resolve, reject) => {
      this.waiting.push({ frame, sent: false, resolve, reject });
      this.send();
    });
  }

  /** A `history` frame: the answer of the request on the wire. @param {any} msg */
  answered(msg) {
    const head = this.waiting[0];
    if (!head?.sent) return;
    this.waiting.shift();
    head.resolve(historyPage(msg));
    this.send();
  }

  /**
   * An `unknown_type` error: a server that keeps no history refused the request on the wire.
   * @param {string} message
   */
  refused(message) {
    const head = this.waiting[0];
    if (!head?.sent) return;
    this.waiting.shift();
    head.reject(new Error(`history: ${message || "the server keeps no history"}`));
    this.send();
  }

  /** Rejects every request. @param {string} why */
  rejectAll(why) {
    for (const w of this.waiting.splice(0)) w.reject(new Error(`history: ${why}`));
  }

  /** @private Sends the oldest request when none is on the wire. */
  send() {
    const head = this.waiting[0];
    if (!head || head.sent) return;
    const link = this.link();
    if (link.ready && link.send(head.frame)) head.sent = true;
    else this.rejectAll("not connected");
  }
}
