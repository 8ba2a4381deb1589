// @ts-check
/**
 * What the page says about its client's offline outbox (reorder-client/outbox.js):
 * - `#outbox-status` says “n changes saved on this device” (“1 change …”) while the board is not
 *   connected and this device keeps changes for it (`client.saved`, every tab's); hidden otherwise.
 * - `#outbox-dropped` lists the saved changes a re-send dropped (refused by the server, or past the
 *   server's op-id window): which change and why, until “Dismiss”.
 * Every listener ends with the board session; `clearOutboxNotices` empties both for the next board.
 */
import { describeOp } from "./board-events.js";

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** @param {number} n @returns {string} the offline line for `n` saved changes */
export function savedText(n) {
  return `${n} ${n === 1 ? "change" : "changes"} saved on this device`;
}

/**
 * Follows the outbox of `session`'s client.
 * @param {import("./board.js").BoardSession} session
 */
export function followOutbox(session) {
  const signal = session.scope.signal;
  const client = session.client;
  const status = $("outbox-status");
  const show = () => {
    const n = client.saved;
    const offline = client.status !== "open";
    status.hidden = !(offline && n > 0);
    status.textContent = status.hidden ? "" : savedText(n);
    status.dataset.saved = String(n);
  };
  client.addEventListener("saved", show, { signal });
  client.addEventListener("status", show, { signal });
  client.addEventListener("rejected", (e) => {
    const { op, code, message, replayed } = /** @type {CustomEvent} */ (e).detail;
    if (!replayed) return;
    const entry = document.createElement("li");
    entry.dataset.code = code;
    entry.textContent = `Could not ${describeOp(session.model, op)}: ${message || code}.`;
    $("outbox-dropped-list").append(entry);
    $("outbox-dropped").hidden = false;
  }, { signal });
  $("outbox-dropped-dismiss").addEventListener("click", clearOutboxNotices, { signal });
  show();
}

/** Hides the outbox's notices and forgets the dropped changes they listed. */
export function clearOutboxNotices() {
  $("outbox-status").hidden = true;
  $("outbox-dropped").hidden = true;
  $("outbox-dropped-list").replaceChildren();
}
