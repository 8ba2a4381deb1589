export class HistoryTimeline {
    /** @type {HistoryEntry[]} the steps loaded, oldest first */
    entries: HistoryEntry[];
    /** @type {State | null} the board before the oldest step (null: unknown) */
    base: State | null;
    /** @type {number | null} `before` for the next older page; null once the kept history ends */
    next: number | null;
    /** @type {number | null} the oldest seq the server keeps, when a page said so */
    earliest: number | null;
    /** True when older steps exist but were left out: the server could not rebuild their boards. */
    cut: boolean;
    /** True once a page was added. */
    started: boolean;
    /** @private @type {Map<number, State>} the board after step i, every CHECKPOINT steps */
    private kept;
    /** @private @type {{ index: number, state: State } | null} the board asked for last */
    private last;
    /** @returns {number} how many steps are loaded */
    get length(): number;
    /** @returns {boolean} whether the boards of the steps can be shown (the oldest page had a base) */
    get viewable(): boolean;
    /** @returns {boolean} whether older pages remain to be loaded */
    get more(): boolean;
    /**
     * Adds a page: the first one, or the one right before the oldest step. Returns how many steps
     * it added (0 for an empty page), or false for a page that does not join.
     * @param {HistoryPage} page @returns {number | false}
     */
    add(page: HistoryPage): number | false;
    /** @param {number} i @returns {HistoryEntry | undefined} step i (0: the oldest loaded) */
    entry(i: number): HistoryEntry | undefined;
    /** @param {number} seq @returns {number} the index of the step with that seq, or -1 */
    indexOf(seq: number): number;
    /**
     * The board after step i (-1: the board before the oldest step). Null without a base or for an
     * index outside the timeline. The state returned is the timeline's: copy it before changing it.
     * @param {number} i @returns {State | null}
     */
    boardAt(i: number): State | null;
}
export type State = import("./board-state.js").State;
export type HistoryEntry = import("./history.js").HistoryEntry;
export type HistoryPage = import("./history.js").HistoryPage;
