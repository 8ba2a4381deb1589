// @ts-check
/**
 * The embeddable Reorder client: `import { ReorderClient } from "/js/reorder-client/index.js"`.
 *
 * ```js
 * const client = new ReorderClient({ room: "cities", name: "Ann" });
 * client.on("change", () => render(client.board));
 * client.connect();
 * client.move("tokyo", "cities", { after: "paris" });
 * ```
 *
 * docs/CLIENT.md documents every option, method and event.
 */
export { ReorderClient } from "./client.js";
export { BoardModel } from "./model.js";
export { PeerSet } from "./peers.js";
export { locate, isNumber } from "./board-state.js";
export { DEFAULT_PRESENCE_INTERVAL_MS } from "./pacer.js";
