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
 *   graveyard: Map<string, { list: string, after: string | null, index: number, fields: Record<string, any> }>
 * }} State
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

/** @param {State} s @param {string} target @param {number} dCount @param {number} dSum */
function adjustTotals(s, target, dCount, dSum) {
  const t = s.totals.get(target) || { count: 0, sum: 0 };
  s.totals.set(target, { count: Math.max(0, t.count + dCount), sum: t.sum + dSum });
}

/** @param {State} s @param {string} item @returns {number} */
function priceOf(s, item) {
  const p = s.items.get(item)?.fields.price;
  return typeof p === "number" ? p : 0;
}

/**
 * Applies a RESOLVED op (from `applied`) to a state.
 * @param {State} s @param {any} op
 */
export function applyResolved(s, op) {
  switch (op.kind) {
    case "insert":
    case "restore": {
      const fields = op.fields || s.items.get(op.item)?.fields || s.graveyard.get(op.item)?.fields || {};
      s.items.set(op.item, { id: op.item, fields });
      s.graveyard.delete(op.item);
      detach(s, op.item);
      const list = s.lists.find((l) => l.id === op.list);
      if (list) placeAfter(list, op.item, op.after, op.index);
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
      const at = detach(s, op.item);
      const item = s.items.get(op.item);
      if (at && item) {
        const after = at.index > 0 ? at.list.items[at.index - 1] : null;
        s.graveyard.set(op.item, { list: at.list.id, after, index: at.index, fields: item.fields });
      }
      s.items.delete(op.item);
      break;
    }
    case "set": {
      const item = s.items.get(op.item);
      if (item) s.items.set(op.item, { id: item.id, fields: { ...item.fields, [op.field]: op.value } });
      break;
    }
    case "assign":
      s.assignments.set(op.assignment, { id: op.assignment, item: op.item, target: op.target });
      if (op.totals) s.totals.set(op.target, op.totals);
      break;
    case "unassign": {
      const a = s.assignments.get(op.assignment);
      s.assignments.delete(op.assignment);
      const target = op.target || a?.target;
      if (target && op.totals) s.totals.set(target, op.totals);
      break;
    }
    case "createList": {
      if (s.lists.some((l) => l.id === op.list)) break;
      const list = { id: op.list, title: op.title ?? "", layout: op.layout === "grid" ? "grid" : "list", items: [] };
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
      const i = s.lists.findIndex((l) => l.id === op.list);
      if (i >= 0) {
        for (const id of s.lists[i].items) s.items.delete(id);
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
      applyResolved(s, { kind: "delete", item: op.item });
      return true;
    case "restore": {
      const g = s.graveyard.get(op.item);
      if (!g) return false;
      applyResolved(s, { kind: "restore", item: op.item, list: g.list, after: g.after, index: g.index, fields: g.fields });
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
    for (const l of board.lists || []) {
      s.lists.push({ id: l.id, title: l.title ?? l.id, layout: l.layout === "grid" ? "grid" : "list", items: [] });
      const list = s.lists[s.lists.length - 1];
      for (const it of l.items || []) {
        s.items.set(it.id, { id: it.id, fields: it.fields || {} });
        list.items.push(it.id);
      }
    }
    for (const a of board.assignments || []) s.assignments.set(a.id, { id: a.id, item: a.item, target: a.target });
    for (const [target, t] of Object.entries(board.totals || {})) s.totals.set(target, /** @type {Totals} */ (t));
    this.server = s;
    this.seq = seq;
    this.loaded = true;
    this.rebuild();
    this.emit({ type: "reset" });
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

  /** @param {string} target @returns {Totals} */
  totalsOf(target) {
    return this.view.totals.get(target) || { count: 0, sum: 0 };
  }

  /** @param {string} id @returns {string} a short human name for an item. */
  label(id) {
    const f = this.view.items.get(id)?.fields || this.view.graveyard.get(id)?.fields;
    return f ? String(f.title ?? f.name ?? id) : id;
  }
}
