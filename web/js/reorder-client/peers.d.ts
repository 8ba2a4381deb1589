export class PeerSet {
    /** @type {Map<string, Peer>} the other peers known by name, in the order they became known */
    known: Map<string, Peer>;
    /** @type {Map<string, Drag>} the drags in progress, by session */
    drags: Map<string, Drag>;
    /** @type {number | null} the server's exact count of the other peers, when it states one */
    count: number | null;
    /** @type {string | null} this connection's session (never among the others) */
    me: string | null;
    /** @returns {number} how many others are online (the stated count, never fewer than those known) */
    get others(): number;
    /** Forgets everyone (the connection is gone). @returns {Drag[]} the drags that end with it */
    clear(): Drag[];
    /** A `welcome`: who is there, and what they drag now. @param {any} msg @returns {Drag[]} */
    welcome(msg: any): Drag[];
    /** One arrival or departure (small rooms). @param {any} msg a `peer` message @returns {Drag[]} */
    peer(msg: any): Drag[];
    /**
     * Who joined and left during one presence tick (large rooms), and the exact count of the
     * others. A session listed in both joined and left is gone. @param {any} msg @returns {Drag[]}
     */
    peers(msg: any): Drag[];
    /**
     * A `drags` frame. A peer beyond the welcome's bound becomes known when it drags (a drag
     * carries name and colour; the count does not change, it was counted already).
     * @param {any} msg @returns {{ changes: Drag[], joined: boolean }}
     */
    dragFrame(msg: any): {
        changes: Drag[];
        joined: boolean;
    };
    /** @private @param {any} drag @returns {Drag} */
    private track;
    /** @private @param {string} session @returns {Drag[]} */
    private end;
    /** @private @returns {Drag[]} */
    private endAll;
}
export type Peer = {
    name: string;
    color: string;
};
export type Drag = {
    session: string;
    name: string;
    color: string;
    phase: "start" | "move" | "end" | "cancel";
    item?: string;
    list?: string;
    over?: string | null;
    index?: number;
    x?: number;
    y?: number;
    t?: any;
};
