// @ts-check
/**
 * The embeddable Reorder client: `import { ReorderClient } from "/client/v1/index.js"`
 * (from another origin: `https://<reorder server>/client/v1/index.js`, allowed by `--allowed-origins`).
 *
 * ```js
 * const client = new ReorderClient({ room: "cities", name: "Ann" });
 * client.on("change", () => render(client.board));
 * client.connect();
 * client.move("tokyo", "cities", { after: "paris" });
 * ```
 *
 * docs/CLIENT.md documents every option, method and event. The folder's other files are the
 * client's parts (connection, model, intents, presence, pacing, timers, history); apps need only
 * this one: it also exports the pure history helpers, `boardAt` (a history page's board at a
 * step), `HistoryTimeline` (pages joined, the board after any step) and `restoreIntents` (the
 * ops that bring an earlier version back).
 */
export { ReorderClient } from "./client.js";
export { boardAt } from "./history.js";
export { HistoryTimeline } from "./timeline.js";
export { restoreIntents } from "./restore.js";

// The types of the public API, for TypeScript apps (index.d.ts).
/** @typedef {import("./client.js").ClientOptions} ClientOptions what `new ReorderClient(options)` takes */
/** @typedef {import("./client.js").BoardState} BoardState the board as shown (`client.board`) */
/** @typedef {import("./client.js").Intent} Intent a proposed change: `{id, op}` */
/** @typedef {import("./client.js").Status} Status the connection's state */
/** @typedef {import("./board-state.js").List} List one list of the board */
/** @typedef {import("./board-state.js").Item} Item one item: its id and fields */
/** @typedef {import("./peers.js").Peer} Peer someone in the room */
/** @typedef {import("./peers.js").Drag} Drag someone's drag in progress */
/** @typedef {import("./presence-states.js").PresenceUpdate} PresenceUpdate another session's custom presence state (`null`: it left) */
/** @typedef {import("./history.js").HistoryPage} HistoryPage a page of the board's kept history (`client.history`) */
/** @typedef {import("./history.js").HistoryEntry} HistoryEntry one kept op: seq, when, who, the resolved op */
/** @typedef {import("./history.js").HistoryActor} HistoryActor who made a kept op */
/** @typedef {import("./restore.js").RestoreOptions} RestoreOptions options of `restoreIntents` and `client.restoreVersion` */
