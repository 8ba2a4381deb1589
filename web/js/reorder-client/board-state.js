// @ts-check
/**
 * A board's state as the client keeps it, and how a RESOLVED op (from `applied`) changes it.
 *
 * The client has no CRDT: the server resolves every intent and says where things ended up
 * (`index`, `after`, `unassigned`, `totals`, …, see docs/PROTOCOL.md), and this file applies that
 * to a plain state. Pure: no DOM, no network, no clock.
 */

/**
 * @typedef {{ id: string, fields: Record<string, any> }} Item
 * @typedef {{ id: string, title: string, layout: "list" | "grid", items: string[] }} List
 * @typedef {{ id: string, item: string, target: string, pending?: boolean }} Assignment
 * @typedef {{ count: number, sum: number }} Totals
 * @typedef {{
 *   lists: List[],
 *   items: Map<string, Item>,
 *   assignments: Map<string, Assignment>,
 *   totals: Map<string, Totals>,
 *   graveyard: Map<string, Grave>
 * }} State
 * @typedef {{ list: string, after: string | null, index: number, fields: Record<string, any>, assignments: Assignment[] }} Grave
 * @typedef {{ id: string, op: any }} Pending
 */

/** @returns {State} */
export function emptyState() {
  return { lists: [], items: new Map(), assignments: new Map(), totals: new Map(), graveyard: new Map() };
}

/**
 * A state from a board as the server sends it (`welcome.board`, a history page's `base.board`):
 * lists in order with their items, assignments and totals. Malformed entries are skipped.
 * @param {any} board @returns {State}
 */
export function stateFromBoard(board) {
  const s = emptyState();
  /** @param {any} x @returns {any[]} */
  const array = (x) => (Array.isArray(x) ? x : []);
  for (const l of array(board?.lists)) {
    if (!l || typeof l.id !== "string") continue;
    /** @type {List} */
    const list = { id: l.id, title: String(l.title ?? l.id), layout: l.layout === "grid" ? "grid" : "list", items: [] };
    s.lists.push(list);
    for (const it of array(l.items)) {
      if (!it || typeof it.id !== "string") continue;
      s.items.set(it.id, { id: it.id, fields: asFields(it.fields) });
      list.items.push(it.id);
    }
  }
  for (const a of array(board?.assignments)) {
    if (a && typeof a.id === "string") s.assignments.set(a.id, { id: a.id, item: a.item, target: a.target });
  }
  setTotalsMap(s, board?.totals);
  return s;
}

/** @param {State} s @returns {State} a copy deep enough to apply ops to without touching `s`. */
export function cloneState(s) {
  return {
    lists: s.lists.map((l) => ({ ...l, items: l.items.slice() })),
    items: new Map(s.items),
    assignments: new Map(s.assignments),
    totals: new Map(s.totals),
    graveyard: new Map(s.graveyard),
  };
}

/** @param {State} s @param {string} item @returns {{ list: List, index: number } | null} */
export function locate(s, item) {
  for (const list of s.lists) {
    const index = list.items.indexOf(item);
    if (index >= 0) return { list, index };
  }
  return null;
}

/** @param {State} s @param {string} item */
export function detach(s, item) {
  const at = locate(s, item);
  if (at) at.list.items.splice(at.index, 1);
  return at;
}

/**
 * Inserts `item` in `list` after `after` (null = start) or, failing that, at `index`.
 * @param {List} list @param {string} item @param {string | null | undefined} after @param {number | undefined} index
 */
export function placeAfter(list, item, after, index) {
  if (after) {
    const i = list.items.indexOf(after);
    if (i >= 0) {
      list.items.splice(i + 1, 0, item);
      return;
    }
  }
  const at = typeof index === "number" ? index : after === null ? 0 : list.items.length;
  list.items.splice(Math.max(0, Math.min(at, list.items.length)), 0, item);
}

/** @param {any} x @returns {x is number} whether `x` is a finite number. */
export function isNumber(x) {
  return typeof x === "number" && Number.isFinite(x);
}

/** @param {any} x @returns {Record<string, any>} `x` if it is a plain object, else an empty one. */
export function asFields(x) {
  return x && typeof x === "object" && !Array.isArray(x) ? x : {};
}

/**
 * Adjusts a target's totals by an optimistic change. A count or sum the server did not give as a
 * number stays unknown (`totalsOf` then works it out from the assignments).
 * @param {State} s @param {string} target @param {number} dCount @param {number} dSum
 */
export function adjustTotals(s, target, dCount, dSum) {
  const t = s.totals.get(target) || { count: 0, sum: 0 };
  s.totals.set(target, {
    count: isNumber(t.count) ? Math.max(0, t.count + dCount) : /** @type {any} */ (null),
    sum: isNumber(t.sum) ? t.sum + dSum : /** @type {any} */ (null),
  });
}

/** @param {State} s @param {any} totals a `{target: {count, sum}}` map from the server */
export function setTotalsMap(s, totals) {
  if (!totals || typeof totals !== "object") return false;
  for (const [target, t] of Object.entries(totals)) if (t && typeof t === "object") s.totals.set(target, t);
  return true;
}

/**
 * Removes the assignments of (or onto) `item`, which is being deleted. With `ids` (the server's
 * `unassigned`: ids or assignment objects) exactly those; without, every one that involves the item.
 * Totals follow from `totals` when the server gave them, else they are adjusted here.
 * @param {State} s @param {string} item @param {any[] | undefined} ids @param {any} totals
 * @returns {Assignment[]} the removed assignments
 */
function hideAssignments(s, item, ids, totals) {
  const wanted = Array.isArray(ids)
    ? ids.map((x) => (typeof x === "string" ? x : x && typeof x.id === "string" ? x.id : null)).filter((x) => x !== null)
    : [...s.assignments.values()].filter((a) => a.item === item || a.target === item).map((a) => a.id);
  /** @type {Assignment[]} */
  const removed = [];
  for (const id of wanted) {
    const a = s.assignments.get(id);
    if (!a) continue;
    s.assignments.delete(id);
    removed.push({ id: a.id, item: a.item, target: a.target });
  }
  if (!setTotalsMap(s, totals)) for (const a of removed) adjustTotals(s, a.target, -1, -priceOf(s, a.item));
  return removed;
}

/**
 * Brings assignments back with a restored item: from the server exactly those in `assigned`
 * (objects, or ids of those hidden at the delete); for an intent, all those hidden at the delete.
 * @param {State} s @param {any[] | undefined} assigned @param {Assignment[]} hidden @param {any} totals
 */
function showAssignments(s, assigned, hidden, totals) {
  const list = assigned ?? hidden;
  /** @type {Assignment[]} */
  const added = [];
  for (const x of list) {
    const a = typeof x === "string" ? hidden.find((h) => h.id === x) : x;
    if (!a || typeof a.id !== "string" || typeof a.item !== "string" || typeof a.target !== "string") continue;
    if (s.assignments.has(a.id)) continue;
    s.assignments.set(a.id, { id: a.id, item: a.item, target: a.target });
    added.push(a);
  }
  if (!setTotalsMap(s, totals)) for (const a of added) adjustTotals(s, a.target, 1, priceOf(s, a.item));
}

/** @param {State} s @param {string} item @returns {number} */
export function priceOf(s, item) {
  const p = s.items.get(item)?.fields.price;
  return typeof p === "number" ? p : 0;
}

/**
 * Applies a RESOLVED op (from `applied`) to a state; `fromServer` false for an intent applied the
 * same way (a delete then takes every assignment of the item with it, as the server will).
 * @param {State} s @param {any} op @param {boolean} [fromServer]
 */
export function applyResolved(s, op, fromServer = true) {
  if (!op || typeof op !== "object" || typeof op.kind !== "string") return;
  switch (op.kind) {
    case "insert":
    case "restore": {
      const grave = s.graveyard.get(op.item);
      const fields = asFields(op.fields || s.items.get(op.item)?.fields || grave?.fields);
      s.items.set(op.item, { id: op.item, fields });
      s.graveyard.delete(op.item);
      detach(s, op.item);
      const list = s.lists.find((l) => l.id === op.list);
      if (list) placeAfter(list, op.item, op.after, op.index);
      if (op.kind === "restore") {
        const assigned = fromServer ? (Array.isArray(op.assigned) ? op.assigned : []) : undefined;
        showAssignments(s, assigned, grave?.assignments ?? [], op.totals);
      }
      break;
    }
    case "move": {
      const list = s.lists.find((l) => l.id === op.list);
      if (!list) break;
      detach(s, op.item);
      placeAfter(list, op.item, op.after, op.index);
      break;
    }
    case "delete": {
      // Resolved (from the server): only the assignments it lists go; an intent: all of the item's.
      const ids = fromServer ? (Array.isArray(op.unassigned) ? op.unassigned : []) : undefined;
      const assignments = hideAssignments(s, op.item, ids, op.totals);
      const at = detach(s, op.item);
      const item = s.items.get(op.item);
      if (at && item) {
        const after = at.index > 0 ? at.list.items[at.index - 1] : null;
        s.graveyard.set(op.item, { list: at.list.id, after, index: at.index, fields: item.fields, assignments });
      }
      s.items.delete(op.item);
      break;
    }
    case "set": {
      const item = s.items.get(op.item);
      if (item && typeof op.field === "string") s.items.set(op.item, { id: item.id, fields: { ...item.fields, [op.field]: op.value } });
      break;
    }
    case "assign":
      s.assignments.set(op.assignment, { id: op.assignment, item: op.item, target: op.target });
      if (op.totals && typeof op.totals === "object") s.totals.set(op.target, op.totals);
      break;
    case "unassign": {
      const a = s.assignments.get(op.assignment);
      s.assignments.delete(op.assignment);
      const target = op.target || a?.target;
      if (target && op.totals && typeof op.totals === "object") s.totals.set(target, op.totals);
      break;
    }
    case "createList": {
      if (s.lists.some((l) => l.id === op.list)) break;
      /** @type {List} */
      const list = { id: op.list, title: String(op.title ?? ""), layout: op.layout === "grid" ? "grid" : "list", items: [] };
      insertList(s, list, op.after, op.index);
      break;
    }
    case "moveList": {
      const i = s.lists.findIndex((l) => l.id === op.list);
      if (i < 0) break;
      const [list] = s.lists.splice(i, 1);
      insertList(s, list, op.after, op.index);
      break;
    }
    case "deleteList": {
      // Its items go with it, and so do their assignments (as item or as target).
      const i = s.lists.findIndex((l) => l.id === op.list);
      const items = i >= 0 ? new Set(s.lists[i].items) : new Set();
      if (fromServer) hideAssignments(s, "", Array.isArray(op.unassigned) ? op.unassigned : [], op.totals);
      else for (const id of items) hideAssignments(s, id, undefined, undefined);
      if (i >= 0) {
        for (const id of items) s.items.delete(id);
        s.lists.splice(i, 1);
      }
      break;
    }
    default:
      console.warn("reorder: unknown op kind", op.kind);
  }
}

/** @param {State} s @param {List} list @param {string | null | undefined} after @param {number | undefined} index */
function insertList(s, list, after, index) {
  if (after) {
    const i = s.lists.findIndex((l) => l.id === after);
    if (i >= 0) return void s.lists.splice(i + 1, 0, list);
  }
  const at = typeof index === "number" ? index : after === null ? 0 : s.lists.length;
  s.lists.splice(Math.max(0, Math.min(at, s.lists.length)), 0, list);
}
