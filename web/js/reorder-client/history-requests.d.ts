/** @typedef {{ready: boolean, send: (frame: object) => boolean}} HistoryLink */
export class HistoryRequests {
    /** @param {() => HistoryLink} link the session's connection */
    constructor(link: () => HistoryLink);
    link: () => HistoryLink;
    /**
     * Requests in order; only the first may be `sent`.
     * @type {Array<{ frame: object, sent: boolean, resolve: (page: import("./history.js").HistoryPage) => void, reject: (error: Error) => void }>}
     */
    waiting: {
        frame: object;
        sent: boolean;
        resolve: (page: import("./history.js").HistoryPage) => void;
        reject: (error: Error) => void;
    }[];
    /** Queues a request. @param {object} frame @returns {Promise<import("./history.js").HistoryPage>} */
    request(frame: any): Promise<any>;
    /** A `history` frame: the answer of the request on the wire. @param {any} msg */
    answered(msg: any): void;
    /**
     * An `unknown_type` error: a server that keeps no history refused the request on the wire.
     * @param {string} message
     */
    refused(message: string): void;
    /** Rejects every request. @param {string} why */
    rejectAll(why: any): void;
    /** @private Sends the oldest request when none is on the wire. */
    private send;
}
export type HistoryLink = {
    ready: boolean;
    send: (frame: object) => boolean;
};
