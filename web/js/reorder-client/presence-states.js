// @ts-check
/**
 * The custom presence states of the other sessions of a room (`presence {state}`,
 * docs/PROTOCOL.md): the welcome's `presence` list, then `presence {updates}` frames, where a
 * `null` state means the session left.
 */

/** @typedef {{ session: string, state: Record<string, any> | null }} PresenceUpdate */

/** The others' latest states, by session. */
export class PresenceStates {
  constructor() {
    /** @type {Map<string, Record<string, any>>} */
    this.states = new Map();
  }

  /**
   * A welcome's `presence` list replaces every state. @param {any} list
   * @returns {PresenceUpdate[]} the changes: new states, and `null` for the sessions now gone
   */
  welcome(list) {
    const before = this.states;
    this.states = new Map();
    /** @type {PresenceUpdate[]} */
    const changes = [];
    for (const entry of Array.isArray(list) ? list : []) {
      if (typeof entry?.session !== "string" || !isObject(entry.state)) continue;
      this.states.set(entry.session, entry.state);
      changes.push({ session: entry.session, state: entry.state });
    }
    for (const session of before.keys()) if (!this.states.has(session)) changes.push({ session, state: null });
    return changes;
  }

  /** A `presence {updates}` frame. @param {any} msg @returns {PresenceUpdate[]} the changes */
  update(msg) {
    /** @type {PresenceUpdate[]} */
    const changes = [];
    for (const entry of Array.isArray(msg.updates) ? msg.updates : []) {
      if (typeof entry?.session !== "string") continue;
      if (isObject(entry.state)) this.states.set(entry.session, entry.state);
      else this.states.delete(entry.session);
      changes.push({ session: entry.session, state: isObject(entry.state) ? entry.state : null });
    }
    return changes;
  }

  /** @returns {PresenceUpdate[]} every other session's state, by session */
  get all() {
    return [...this.states].map(([session, state]) => ({ session, state }));
  }
}

/** @param {unknown} v @returns {v is Record<string, any>} */
function isObject(v) {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}
