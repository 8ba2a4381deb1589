// @ts-check
/**
 * This client's own INTENTS applied optimistically to a state, before the server resolved them.
 *
 * An intent is what the client asked for (`{kind: "move", item, list, after}`), not what the server
 * made of it: it is applied here the way the server most likely will, and replaced by the server's
 * resolved op when its `applied` arrives (or dropped when it is `rejected`). Pure.
 */
import { applyResolved, adjustTotals, detach, placeAfter, priceOf } from "./board-state.js";

/** @typedef {import("./board-state.js").State} State @typedef {import("./board-state.js").Pending} Pending */

/**
 * Applies one of our own INTENTS optimistically. Returns false when it cannot apply (the view
 * then simply shows the server state for it).
 * @param {State} s @param {Pending} p
 */
export function applyIntent(s, p) {
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

