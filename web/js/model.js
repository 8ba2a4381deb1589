// @ts-check
/**
 * The board model: the server's resolved state (`server`, advanced only by `applied` in seq
 * order) plus this client's pending intents applied optimistically on top (`view`).
 *
 * The client has no CRDT: when `applied` arrives, the resolved op is applied to `server`, the
 * matching pending intent (same op id) is dropped, and `view` is rebuilt as server + remaining
 * pending intents. `rejected` drops the intent, which rolls the view back.
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
function emptyState() {
  return { lists: [], items: new Map(), assignments: new Map(), totals: new Map(), graveyard: new Map() };
}

/** @param {State} s @returns {State} a copy deep enough to apply ops to without touching `s`. */
function cloneState(s) {
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
function detach(s, item) {
  const at = locate(s, item);
  if (at) at.list.items.splice(at.index, 1);
  return at;
}

/**
 * Inserts `item` in `list` after `after` (null = start) or, failing that, at `index`.
 * @param {List} list @param {string} item @param {string | null | undefined} after @param {number | undefined} index
 */
function placeAfter(list, item, after, index) {
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
function asFields(x) {
  return x && typeof x === "object" && !Array.isArray(x) ? x : {};
}

/**
 * Adjusts a target's totals by an optimistic change. A count or sum the server did not give as a
 * number stays unknown (`totalsOf` then works it out from the assignments).
 * @param {State} s @param {string} target @param {number} dCount @param {number} dSum
 */
function adjustTotals(s, target, dCount, dSum) {
  const t = s.totals.get(target) || { count: 0, sum: 0 };
  s.totals.set(target, {
    count: isNumber(t.count) ? Math.max(0, t.count + dCount) : /** @type {any} */ (null),
    sum: isNumber(t.sum) ? t.sum + dSum : /** @type {any} */ (null),
  });
}

/** @param {State} s @param {any} totals a `{target: {count, sum}}` map from the server */
function setTotalsMap(s, totals) {
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
function priceOf(s, item) {
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

/**
 * Applies one of our own INTENTS optimistically. Returns false when it cannot apply (the view
 * then simply shows the server state for it).
 * @param {State} s @param {Pending} p
 */
function applyIntent(s, p) {
  const op = p.op;
  switch (op.kind) {
    case "move": {
      const list = s.lists.find((l) => l.id === op.list);
      if (!list || !s.items.has(op.item)) return false;
      detach(s, op.item);
      if (op.after) placeAfter(list, op.item, op.after, list.items.length);
      else if (op.before) {
        const i = list.items.indexOf(op.before);
        list.items.splice(i >= 0 ? i : list.items.length, 0, op.item);
      } else list.items.splice(op.after === null ? 0 : list.items.length, 0, op.item);
      return true;
    }
    case "insert": {
      const list = s.lists.find((l) => l.id === op.list);
      if (!list || !op.item) return false;
      s.items.set(op.item, { id: op.item, fields: op.fields || {} });
      const before = op.before ? list.items.indexOf(op.before) : -1;
      if (op.after) placeAfter(list, op.item, op.after, list.items.length);
      else list.items.splice(before >= 0 ? before : list.items.length, 0, op.item);
      return true;
    }
    case "delete":
      if (!s.items.has(op.item)) return false;
      applyResolved(s, { kind: "delete", item: op.item }, false);
      return true;
    case "restore": {
      const g = s.graveyard.get(op.item);
      if (!g) return false;
      applyResolved(s, { kind: "restore", item: op.item, list: g.list, after: g.after, index: g.index, fields: g.fields }, false);
      return true;
    }
    case "set":
      if (!s.items.has(op.item)) return false;
      applyResolved(s, op);
      return true;
    case "assign": {
      if (!s.items.has(op.item) || !s.items.has(op.target)) return false;
      const id = "pending:" + p.id;
      s.assignments.set(id, { id, item: op.item, target: op.target, pending: true });
      adjustTotals(s, op.target, 1, priceOf(s, op.item));
      return true;
    }
    case "unassign": {
      const a = s.assignments.get(op.assignment);
      if (!a) return false;
      s.assignments.delete(op.assignment);
      adjustTotals(s, a.target, -1, -priceOf(s, a.item));
      return true;
    }
    case "createList":
      applyResolved(s, { ...op, after: op.after ?? undefined, index: s.lists.length });
      return true;
    case "moveList":
      applyResolved(s, { ...op, after: op.after ?? null });
      return true;
    case "deleteList":
      applyResolved(s, op);
      return true;
    default:
      return false;
  }
}

/**
 * @typedef {{ type: "reset" } | { type: "applied", msg: any, mine: Pending | undefined }
 *   | { type: "rejected", msg: any, mine: Pending | undefined } | { type: "local", pending: Pending }} ModelChange
 */

export class BoardModel {
  constructor() {
    this.server = emptyState();
    this.view = emptyState();
    /** @type {number | undefined} */
    this.seq = undefined;
    /** @type {string | undefined} the `epoch` (history) that `seq` belongs to */
    this.epoch = undefined;
    this.loaded = false;
    /** @type {Pending[]} */
    this.pending = [];
    /** @type {Set<(change: ModelChange) => void>} */
    this.listeners = new Set();
    /** Called when a seq gap is seen; the connection then resyncs. */
    this.onGap = () => {};
  }

  /** @param {(change: ModelChange) => void} fn */
  subscribe(fn) {
    this.listeners.add(fn);
  }

  /** @private @param {ModelChange} change */
  emit(change) {
    for (const fn of this.listeners) fn(change);
  }

  /** @private */
  rebuild() {
    const v = cloneState(this.server);
    for (const p of this.pending) applyIntent(v, p);
    this.view = v;
  }

  /**
   * Loads a full board (welcome.board).
   * @param {number} seq @param {any} board
   */
  load(seq, board) {
    const s = emptyState();
    /** @param {any} x @returns {any[]} */
    const array = (x) => (Array.isArray(x) ? x : []);
    for (const l of array(board?.lists)) {
      if (!l || typeof l.id !== "string") continue;
      s.lists.push({ id: l.id, title: String(l.title ?? l.id), layout: l.layout === "grid" ? "grid" : "list", items: [] });
      const list = s.lists[s.lists.length - 1];
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
    this.server = s;
    this.seq = seq;
    this.loaded = true;
    this.rebuild();
    this.emit({ type: "reset" });
  }

  /**
   * Handles `welcome`: a full board replaces the state; a catch-up (`ops`) is applied in order.
   * Returns false (and forgets `seq`, so the next hello asks for a full board) when a catch-up
   * belongs to another history than ours.
   * @param {any} msg @returns {boolean}
   */
  welcome(msg) {
    const epoch = typeof msg.epoch === "string" ? msg.epoch : undefined;
    const seq = typeof msg.seq === "number" && Number.isFinite(msg.seq) ? msg.seq : 0;
    if (msg.board && typeof msg.board === "object") {
      this.epoch = epoch;
      this.load(seq, msg.board);
      return true;
    }
    if (Array.isArray(msg.ops)) {
      if (this.epoch !== undefined && epoch !== undefined && epoch !== this.epoch) {
        this.seq = undefined;
        this.epoch = undefined;
        return false;
      }
      this.epoch = epoch ?? this.epoch;
      for (const a of msg.ops) if (a && typeof a === "object") this.applied(a);
    }
    if (!this.loaded) {
      this.epoch = epoch;
      this.load(seq, { lists: [] });
    }
    return true;
  }

  /** Handles `applied` (also the ones replayed in a welcome). @param {any} msg */
  applied(msg) {
    const index = this.pending.findIndex((p) => p.id === msg.id);
    const mine = index >= 0 ? this.pending.splice(index, 1)[0] : undefined;
    if (this.seq !== undefined && msg.seq <= this.seq) {
      // Already seen (a re-acknowledgement after a reconnect): only the pending intent goes.
      if (mine) {
        this.rebuild();
        this.emit({ type: "applied", msg, mine });
      }
      return;
    }
    if (this.seq !== undefined && msg.seq !== this.seq + 1) {
      if (mine) this.pending.splice(index, 0, mine);
      this.onGap();
      return;
    }
    applyResolved(this.server, msg.op);
    this.seq = msg.seq;
    this.rebuild();
    this.emit({ type: "applied", msg, mine });
  }

  /** Handles `rejected`: the intent is dropped, the view rolls back. @param {any} msg */
  rejected(msg) {
    const index = this.pending.findIndex((p) => p.id === msg.id);
    if (index < 0) return;
    const [mine] = this.pending.splice(index, 1);
    this.rebuild();
    this.emit({ type: "rejected", msg, mine });
  }

  /**
   * Records a new intent and applies it optimistically.
   * @param {string} id @param {any} op @returns {Pending}
   */
  propose(id, op) {
    const p = { id, op };
    this.pending.push(p);
    applyIntent(this.view, p);
    this.emit({ type: "local", pending: p });
    return p;
  }

  // Queries on the view -------------------------------------------------------------------

  /** @param {string} id */
  list(id) {
    return this.view.lists.find((l) => l.id === id);
  }

  /** @param {string} id */
  item(id) {
    return this.view.items.get(id);
  }

  /** @param {string} id */
  where(id) {
    return locate(this.view, id);
  }

  /** @param {string} id @returns {boolean} whether the item is deleted (and restorable). */
  isDeleted(id) {
    return !this.view.items.has(id) && this.view.graveyard.has(id);
  }

  /** @param {string} target @returns {Assignment[]} */
  assignmentsOf(target) {
    return [...this.view.assignments.values()].filter((a) => a.target === target);
  }

  /**
   * A target's totals, always numbers: a count or sum the server did not give as a number is
   * worked out from the assignments on the board.
   * @param {string} target @returns {Totals}
   */
  totalsOf(target) {
    const t = this.view.totals.get(target);
    const mine = this.assignmentsOf(target);
    const count = isNumber(t?.count) ? t.count : mine.length;
    const sum = isNumber(t?.sum) ? t.sum : mine.reduce((acc, a) => acc + priceOf(this.view, a.item), 0);
    return { count, sum };
  }

  /** @param {string} id @returns {string} a short human name for an item. */
  label(id) {
    const f = this.view.items.get(id)?.fields || this.view.graveyard.get(id)?.fields;
    return f ? String(f.title ?? f.name ?? id) : id;
  }
}
