/**
 * The custom presence states of the other sessions of a room (`presence {state}`,
 * docs/PROTOCOL.md): the welcome's `presence` list, then `presence {updates}` frames, where a
 * `null` state means the session left.
 */
/** @typedef {{ session: string, state: Record<string, any> | null }} PresenceUpdate */
/** The others' latest states, by session. */
export class PresenceStates {
    /** @type {Map<string, Record<string, any>>} */
    states: Map<string, Record<string, any>>;
    /**
     * A welcome's `presence` list replaces every state. @param {any} list
     * @returns {PresenceUpdate[]} the changes: new states, and `null` for the sessions now gone
     */
    welcome(list: any): PresenceUpdate[];
    /** A `presence {updates}` frame. @param {any} msg @returns {PresenceUpdate[]} the changes */
    update(msg: any): PresenceUpdate[];
    /** @returns {PresenceUpdate[]} every other session's state, by session */
    get all(): PresenceUpdate[];
}
export type PresenceUpdate = {
    session: string;
    state: Record<string, any> | null;
};
