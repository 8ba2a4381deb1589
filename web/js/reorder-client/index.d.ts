export { ReorderClient } from "./client.js";
/**
 * what `new ReorderClient(options)` takes
 */
export type ClientOptions = import("./client.js").ClientOptions;
/**
 * the board as shown (`client.board`)
 */
export type BoardState = import("./client.js").BoardState;
/**
 * a proposed change: `{id, op}`
 */
export type Intent = import("./client.js").Intent;
/**
 * the connection's state
 */
export type Status = import("./client.js").Status;
/**
 * one list of the board
 */
export type List = import("./board-state.js").List;
/**
 * one item: its id and fields
 */
export type Item = import("./board-state.js").Item;
/**
 * someone in the room
 */
export type Peer = import("./peers.js").Peer;
/**
 * someone's drag in progress
 */
export type Drag = import("./peers.js").Drag;
/**
 * another session's custom presence state (`null`: it left)
 */
export type PresenceUpdate = import("./presence-states.js").PresenceUpdate;
