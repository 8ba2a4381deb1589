// @ts-check
/**
 * Who else is in the room, and what they drag: the presence state of one connection. Pure.
 *
 * Small rooms announce each arrival and departure (`peer` join / leave); large rooms send one
 * `peers` frame per presence tick with who joined and left and the exact `count` of the others,
 * and their `welcome` lists only some peers beside `peer_count`. So the peers known by name are
 * those listed, those who joined since, and those seen dragging; `others` is the server's count
 * when it states one, never fewer than the peers known.
 *
 * Each method returns the drag changes it implies (a peer who leaves mid-drag yields a `cancel`),
 * so the caller can report every drag, including the ends nobody sent.
 */

/**
 * @typedef {{ name: string, color: string }} Peer
 * @typedef {{ session: string, name: string, color: string, phase: "start" | "move" | "end" | "cancel",
 *   item?: string, list?: string, over?: string | null, index?: number, x?: number, y?: number, t?: any }} Drag
 */

/** A count the server states: a non-negative integer, or null. @param {unknown} v */
function countOf(v) {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 ? v : null;
}

/** @param {any} phase @returns {boolean} whether a drag in this phase is over */
function isOver(phase) {
  return phase === "end" || phase === "cancel";
}

export class PeerSet {
  constructor() {
    /** @type {Map<string, Peer>} the other peers known by name, in the order they became known */
    this.known = new Map();
    /** @type {Map<string, Drag>} the drags in progress, by session */
    this.drags = new Map();
    /** @type {number | null} the server's exact count of the other peers, when it states one */
    this.count = null;
    /** @type {string | null} this connection's session (never among the others) */
    this.me = null;
  }

  /** @returns {number} how many others are online (the stated count, never fewer than those known) */
  get others() {
    return Math.max(this.count ?? 0, this.known.size);
  }

  /** Forgets everyone (the connection is gone). @returns {Drag[]} the drags that end with it */
  clear() {
    const ended = this.endAll();
    this.known.clear();
    this.count = null;
    this.me = null;
    return ended;
  }

  /** A `welcome`: who is there, and what they drag now. @param {any} msg @returns {Drag[]} */
  welcome(msg) {
    const changes = this.endAll();
    this.known.clear();
    this.me = String(msg.session ?? "");
    this.count = countOf(msg.peer_count);
    for (const p of Array.isArray(msg.peers) ? msg.peers : []) {
      const session = String(p?.session);
      if (session === this.me) continue;
      this.known.set(session, { name: String(p.name ?? ""), color: String(p.color ?? "") });
      if (p.drag && typeof p.drag === "object" && !isOver(p.drag.phase)) changes.push(this.track({ ...p.drag, session, name: p.name, color: p.color }));
    }
    return changes;
  }

  /** One arrival or departure (small rooms). @param {any} msg a `peer` message @returns {Drag[]} */
  peer(msg) {
    const session = String(msg.session);
    if (session === this.me) return [];
    if (msg.event === "leave") {
      this.known.delete(session);
      if (this.count !== null) this.count = Math.max(0, this.count - 1);
      return this.end(session);
    }
    if (!this.known.has(session) && this.count !== null) this.count += 1;
    this.known.set(session, { name: String(msg.name ?? ""), color: String(msg.color ?? "") });
    return [];
  }

  /**
   * Who joined and left during one presence tick (large rooms), and the exact count of the
   * others. A session listed in both joined and left is gone. @param {any} msg @returns {Drag[]}
   */
  peers(msg) {
    for (const p of Array.isArray(msg.joined) ? msg.joined : []) {
      const session = String(p?.session);
      if (session !== this.me) this.known.set(session, { name: String(p.name ?? ""), color: String(p.color ?? "") });
    }
    /** @type {Drag[]} */
    const changes = [];
    for (const s of Array.isArray(msg.left) ? msg.left : []) {
      this.known.delete(String(s));
      changes.push(...this.end(String(s)));
    }
    const count = countOf(msg.count);
    if (count !== null) this.count = count;
    return changes;
  }

  /**
   * A `drags` frame. A peer beyond the welcome's bound becomes known when it drags (a drag
   * carries name and colour; the count does not change, it was counted already).
   * @param {any} msg @returns {{ changes: Drag[], joined: boolean }}
   */
  dragFrame(msg) {
    /** @type {Drag[]} */
    const changes = [];
    let joined = false;
    for (const u of Array.isArray(msg.updates) ? msg.updates : []) {
      const session = String(u?.session);
      if (session === this.me) continue;
      if (isOver(u.phase)) {
        // A cancel can follow the `leave` of someone who disconnected mid-drag: no re-adding.
        if (this.drags.has(session)) {
          this.drags.delete(session);
          changes.push({ ...u, session });
        }
        continue;
      }
      if (!this.known.has(session)) {
        this.known.set(session, { name: String(u.name ?? ""), color: String(u.color ?? "") });
        joined = true;
      }
      changes.push(this.track({ ...u, session }));
    }
    return { changes, joined };
  }

  /** @private @param {any} drag @returns {Drag} */
  track(drag) {
    const peer = this.known.get(drag.session);
    const merged = { ...this.drags.get(drag.session), ...drag, name: drag.name ?? peer?.name ?? "", color: drag.color ?? peer?.color ?? "" };
    this.drags.set(drag.session, merged);
    return merged;
  }

  /** @private @param {string} session @returns {Drag[]} */
  end(session) {
    const d = this.drags.get(session);
    if (!d) return [];
    this.drags.delete(session);
    return [{ session, name: d.name, color: d.color, item: d.item, phase: "cancel" }];
  }

  /** @private @returns {Drag[]} */
  endAll() {
    return [...this.drags.keys()].flatMap((s) => this.end(s));
  }
}
