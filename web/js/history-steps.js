// @ts-check
/**
 * A history step in words, as the history panel shows it: who did what, and when (local time,
 * HH:MM): “Ana moved Pizza before Burger, 14:02”, “API added Soup to Foods”, “Ana deleted Soup”.
 *
 * Names come from the boards around the step (the one before it and the one after it, rebuilt
 * from the history): an item's `title` (else `name`, else its id), a list's title. Who: the
 * actor's name, “API” for a write through the HTTP API, “Someone” when the record does not say
 * (the demo boards' seed, old records). Pure apart from the local time zone.
 */

/**
 * @typedef {import("./reorder-client/board-state.js").State} State
 * @typedef {import("./reorder-client/history.js").HistoryEntry} HistoryEntry
 */

/** @param {HistoryEntry["actor"]} actor @returns {string} who made a step */
export function actorName(actor) {
  if (actor?.via === "api") return "API";
  return actor?.name || "Someone";
}

/**
 * The local time of a step, `HH:MM` (24 h); "" when it is not known.
 * @param {string | null} at ISO 8601 @returns {string}
 */
export function localTime(at) {
  if (!at) return "";
  const d = new Date(at);
  if (Number.isNaN(d.getTime())) return "";
  return `${String(d.getHours()).padStart(2, "0")}:${String(d.getMinutes()).padStart(2, "0")}`;
}

/**
 * @param {Array<State | null>} boards where to look, in order @param {string} id
 * @returns {string} the item's title as the first board that knows it has it
 */
function itemName(boards, id) {
  for (const s of boards) {
    const f = s?.items.get(id)?.fields ?? s?.graveyard.get(id)?.fields;
    if (f) return String(f.title ?? f.name ?? id);
  }
  return String(id);
}

/** @param {Array<State | null>} boards @param {string} id @returns {string} a list's title */
function listName(boards, id) {
  for (const s of boards) {
    const l = s?.lists.find((x) => x.id === id);
    if (l) return l.title || id;
  }
  return String(id);
}

/** @param {any} value @returns {string} a field value as shown in a sentence */
function shown(value) {
  return typeof value === "string" ? `“${value}”` : String(value);
}

/**
 * What a step did, without who and when: “moved Pizza before Burger”.
 * @param {any} op the resolved op @param {State | null} before the board before the step
 * @param {State | null} after the board after it @returns {string}
 */
export function stepAction(op, before, after) {
  const boards = [before, after];
  const afterFirst = [after, before];
  const item = (/** @type {string} */ id) => itemName(op?.kind === "insert" || op?.kind === "restore" ? afterFirst : boards, id);
  switch (op?.kind) {
    case "insert":
      return `added ${op.fields?.title ?? item(op.item)} to ${listName(afterFirst, op.list)}`;
    case "move": {
      const list = after?.lists.find((l) => l.id === op.list);
      const i = list ? list.items.indexOf(op.item) : -1;
      const next = i >= 0 ? list?.items[i + 1] : undefined;
      const prev = i > 0 ? list?.items[i - 1] : undefined;
      const fromList = op.from?.list ?? before?.lists.find((l) => l.items.includes(op.item))?.id;
      const where = next ? `before ${itemName(afterFirst, next)}` : prev ? `after ${itemName(afterFirst, prev)}` : "";
      if (fromList === op.list) return `moved ${item(op.item)} ${where || `within ${listName(afterFirst, op.list)}`}`;
      return `moved ${item(op.item)} to ${listName(afterFirst, op.list)}${where ? `, ${where}` : ""}`;
    }
    case "delete":
      return `deleted ${item(op.item)}`;
    case "restore":
      return `restored ${item(op.item)}`;
    case "set":
      return `set the ${op.field} of ${item(op.item)} to ${shown(op.value)}`;
    case "assign":
      return `assigned ${item(op.item)} to ${item(op.target)}`;
    case "unassign": {
      const a = before?.assignments.get(op.assignment);
      const what = op.item ?? a?.item, onto = op.target ?? a?.target;
      return what && onto ? `unassigned ${item(what)} from ${item(onto)}` : "removed an assignment";
    }
    case "createList":
      return `added the list ${op.title || op.list}`;
    case "moveList": {
      const lists = after?.lists ?? [];
      const i = lists.findIndex((l) => l.id === op.list);
      const name = listName(afterFirst, op.list);
      return i > 0 ? `moved the list ${name} after ${lists[i - 1].title}` : `moved the list ${name} to the start`;
    }
    case "deleteList":
      return `deleted the list ${listName(boards, op.list)}`;
    default:
      return "changed the board";
  }
}

/**
 * A step in words: “Ana moved Pizza before Burger, 14:02” (no time when the record has none).
 * @param {HistoryEntry} entry @param {State | null} before @param {State | null} after
 * @returns {string}
 */
export function describeStep(entry, before, after) {
  const time = localTime(entry.at);
  return `${actorName(entry.actor)} ${stepAction(entry.op, before, after)}${time ? `, ${time}` : ""}`;
}
