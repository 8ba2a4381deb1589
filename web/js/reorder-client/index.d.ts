export { ReorderClient } from "./client.js";
export { boardAt } from "./history.js";
export { HistoryTimeline } from "./timeline.js";
export { restoreIntents } from "./restore.js";
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
/**
 * a page of the board's kept history (`client.history`)
 */
export type HistoryPage = import("./history.js").HistoryPage;
/**
 * one kept op: seq, when, who, the resolved op
 */
export type HistoryEntry = import("./history.js").HistoryEntry;
/**
 * who made a kept op
 */
export type HistoryActor = import("./history.js").HistoryActor;
/**
 * options of `restoreIntents` and `client.restoreVersion`
 */
export type RestoreOptions = import("./restore.js").RestoreOptions;
