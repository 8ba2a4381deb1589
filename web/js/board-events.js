// @ts-check
/**
 * What the board page does on each event of its client (reorder-client/): render the board,
 * say why an intent was undone, draw presence, and hand the link's events to `Access`. Every
 * listener ends with the board session (`scope.signal`).
 */
import { announce, toast } from "./announce.js";

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/**
 * Follows the client of `session`: the board, its intents' fate, presence, the link's rights.
 * @param {import("./board.js").BoardSession} session
 */
export function followClient(session) {
  const signal = session.scope.signal;
  /** @param {string} type @param {(detail: any) => void} fn */
  const on = (type, fn) => session.client.addEventListener(type, (e) => fn(/** @type {CustomEvent} */ (e).detail), { signal });
  on("status", ({ state, detail }) => {
    document.body.dataset.connection = state;
    $("conn-status").textContent = state === "open" ? "Online" : state === "connecting" ? "Connecting…" : `Offline — ${detail}`;
    if (state !== "open" && session.drag.active) session.drag.cancel("connection lost");
  });
  on("welcome", (welcome) => {
    session.access.welcome(welcome);
    session.presence.welcome(welcome.session, session.identity());
    session.view.render({ animate: false });
  });
  on("change", () => {
    session.view.render();
    document.body.dataset.pending = String(session.model.pending.length);
  });
  on("applied", ({ message, intent }) => {
    if (intent && message.op?.kind === "assign") session.assignmentsByOp.set(intent.id, message.op.assignment);
  });
  on("rejected", ({ op, code, message }) => {
    const what = describeOp(session.model, op);
    const why = code === "read_only" ? "this link is view only" : message || code || "rejected";
    toast(`Could not ${what}: ${why}. It was undone.`, "error");
    announce(`Could not ${what}. It was undone.`);
    // The server holds this page for a viewer, whatever the page believed.
    if (code === "read_only") session.access.readOnly();
  });
  on("peers", ({ peers, others }) => session.presence.showPeers(peers, others));
  on("drag", (drag) => session.presence.drag(drag));
  on("expiring", (msg) => session.access.expiring(msg));
  on("refreshed", (msg) => session.access.refreshed(msg));
  on("refused", ({ code, reason }) => session.access.refuse(code, reason));
  on("ended", ({ code, reason }) => {
    session.access.ended(code, reason);
    announce(`${$("access-title").textContent}.`);
  });
  on("error", (error) => {
    console.warn("reorder: server error", error.code, error.message);
    if (session.access.error(error)) return;
    if (!session.client.ready || /room|full|limit/i.test(error.code)) toast(`The server said: ${error.message || error.code}`, "error");
  });
}

/** What an intent did, for "Could not …". @param {import("./reorder-client/model.js").BoardModel} model @param {any} op @returns {string} */
export function describeOp(model, op) {
  if (!op) return "apply a change";
  const name = op.item ? model.label(op.item) : "";
  switch (op.kind) {
    case "move":
      return `move ${name}`;
    case "delete":
      return `remove ${name}`;
    case "restore":
      return `restore ${name}`;
    case "assign":
      return `assign ${name} to ${model.label(op.target)}`;
    case "unassign":
      return "unassign";
    case "insert":
      return "add the item";
    default:
      return `apply “${op.kind}”`;
  }
}
