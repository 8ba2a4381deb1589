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
 * docs/CLIENT.md documents every option, method and event. The folder's other files are the
 * client's parts (connection, model, intents, presence, pacing, timers); apps need only this one.
 */
export { ReorderClient } from "./client.js";
