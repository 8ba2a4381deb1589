// @ts-check
/**
 * `restoreIntents(current, target)`: the ops that turn the board as it is into an earlier version
 * of it, as ordinary intents (so they merge with whatever others do meanwhile, and everyone sees
 * them land). Pure; each op is applied to a working copy of `current` as it is chosen (with the
 * same code that applies intents optimistically, intents.js), so every anchor names an item that
 * is where the op expects it.
 *
 * In this order:
 * 1. lists of `target` missing from `current` are created under a new id (a deleted list id is
 *    never live again, docs/PROTOCOL.md), with `target`'s title and layout;
 * 2. items live in `current` but not in `target` are deleted (not those of lists about to go);
 * 3. items live in `target` but not in `current` are restored when `current.graveyard` knows them
 *    and their grave's list is live (`restore` brings them back with their assignments), else
 *    inserted again under a new id with `target`'s fields (an item of a deleted list, or one whose
 *    deletion this client never saw);
 * 4. in each list of `target`, in order, the items are put in `target`'s order with the fewest
 *    moves: those on a longest run already in order stay, each other one is moved (or inserted)
 *    right after its predecessor in `target` (the first one before the list's first item), from
 *    whatever list it is in;
 * 5. lists of `current` that `target` does not have are deleted (their items that `target` keeps
 *    have moved out by then);
 * 6. fields that differ are set, one `set` per field, in field-name order (a field `target` lacks
 *    stays: there is no op to remove one);
 * 7. lists are put in `target`'s order with the fewest `moveList`s (same rule as items);
 * 8. assignments: those of `current` whose (item, target) pair `target` lacks are unassigned,
 *    `target`'s missing pairs assigned. A list's title and layout stay as they are (no op
 *    changes them).
 *
 * Deterministic: the same boards and the same `newId` give the same ops. Nothing is sent when
 * the boards already agree (an empty array).
 */
import { cloneState, locate } from "./board-state.js";
import { applyIntent } from "./intents.js";

/** @typedef {import("./board-state.js").State} State */

/**
 * @typedef {object} RestoreOptions
 * @property {(kind: "item" | "list", was: string) => string} [newId] the id of an item or list made
 *   again (`was`: its id in `target`); default `i-…` / `l-…` with 12 random hex digits, as the
 *   client's `insert` and `createList` make them
 */

/** @param {"item" | "list"} kind @returns {string} a fresh id, as the client's intent methods make them */
function randomId(kind) {
  const bytes = crypto.getRandomValues(new Uint8Array(6));
  return (kind === "item" ? "i-" : "l-") + [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The ops that turn `current` into `target` (see the file's comment for what and in which order).
 * @param {State} current the board as it is (e.g. `client.board`)
 * @param {State} target the version to come back to (e.g. a history step's board)
 * @param {RestoreOptions} [options]
 * @returns {any[]} ops for `client.propose`, in order
 */
export function restoreIntents(current, target, options = {}) {
  const newId = options.newId ?? ((/** @type {"item" | "list"} */ kind) => randomId(kind));
  const work = cloneState(current);
  /** @type {any[]} */
  const ops = [];
  let n = 0;
  /** @param {any} op */
  const emit = (op) => {
    ops.push(op);
    applyIntent(work, { id: `restore:${++n}`, op });
  };
  const liveLists = new Set(current.lists.map((l) => l.id));
  const targetLists = new Set(target.lists.map((l) => l.id));
  /** @type {Map<string, string>} list id in `target` → its id on the board (new when made again) */
  const listId = new Map();
  /** @type {Map<string, string>} item id in `target` → its id on the board */
  const itemId = new Map();

  // 1. Lists made again.
  for (const l of target.lists) {
    if (liveLists.has(l.id)) {
      listId.set(l.id, l.id);
      continue;
    }
    const id = newId("list", l.id);
    listId.set(l.id, id);
    /** @type {any} */
    const op = { kind: "createList", list: id, title: l.title, layout: l.layout };
    const last = work.lists[work.lists.length - 1];
    if (last) op.after = last.id;
    emit(op);
  }

  // 2. Items deleted (those of lists that go in 5. go with their list).
  const wanted = new Set(target.items.keys());
  for (const l of current.lists) {
    if (!targetLists.has(l.id)) continue;
    for (const id of l.items) if (!wanted.has(id)) emit({ kind: "delete", item: id });
  }

  // 3. Items restored; the others missing are inserted in 4.
  for (const l of target.lists) {
    for (const id of l.items) {
      if (work.items.has(id)) {
        itemId.set(id, id);
        continue;
      }
      const grave = work.graveyard.get(id);
      if (grave && liveLists.has(grave.list)) {
        // Back in its grave's list (one that goes in 5. too: 4. moves it out first).
        emit({ kind: "restore", item: id });
        itemId.set(id, id);
      } else {
        itemId.set(id, newId("item", id));
      }
    }
  }

  // 4. Items in order, list by list.
  for (const l of target.lists) {
    const list = /** @type {string} */ (listId.get(l.id));
    const order = l.items.map((id) => /** @type {string} */ (itemId.get(id)));
    const here = work.lists.find((x) => x.id === list)?.items ?? [];
    const stay = inOrder(here, order);
    for (let i = 0; i < order.length; i++) {
      const id = order[i];
      if (stay.has(id)) continue;
      /** @type {any} */
      const at = {};
      if (i > 0) at.after = order[i - 1];
      else {
        const first = work.lists.find((x) => x.id === list)?.items[0];
        if (first && first !== id) at.before = first;
      }
      if (work.items.has(id)) {
        const where = locate(work, id);
        const index = where?.list.items.indexOf(id) ?? -1;
        const settled = where && where.list.id === list && (i > 0 ? where.list.items[index - 1] === order[i - 1] : index === 0);
        if (!settled) emit({ kind: "move", item: id, list, ...at });
      } else {
        const was = /** @type {string} */ (l.items[i]);
        emit({ kind: "insert", list, item: id, fields: { ...target.items.get(was)?.fields }, ...at });
      }
    }
  }

  // 5. Lists that were not there.
  for (const l of current.lists) if (!targetLists.has(l.id)) emit({ kind: "deleteList", list: l.id });

  // 6. Fields.
  for (const [was, item] of target.items) {
    const id = itemId.get(was);
    const now = id ? work.items.get(id) : undefined;
    if (!now) continue;
    for (const field of Object.keys(item.fields).sort()) {
      const value = item.fields[field];
      if (!sameValue(now.fields[field], value)) emit({ kind: "set", item: id, field, value });
    }
  }

  // 7. Lists in order.
  const listOrder = target.lists.map((l) => /** @type {string} */ (listId.get(l.id)));
  const listsStay = inOrder(work.lists.map((l) => l.id), listOrder);
  for (let i = 0; i < listOrder.length; i++) {
    const id = listOrder[i];
    if (listsStay.has(id)) continue;
    const index = work.lists.findIndex((l) => l.id === id);
    if (i > 0 ? work.lists[index - 1]?.id === listOrder[i - 1] : index === 0) continue;
    /** @type {any} */
    const op = { kind: "moveList", list: id };
    if (i > 0) op.after = listOrder[i - 1];
    emit(op);
  }

  // 8. Assignments, as (item, target) pairs.
  /** @type {Map<string, number>} */
  const pairs = new Map();
  const key = (/** @type {string} */ a, /** @type {string} */ b) => JSON.stringify([a, b]);
  for (const a of target.assignments.values()) {
    const item = itemId.get(a.item), onto = itemId.get(a.target);
    if (!item || !onto) continue;
    pairs.set(key(item, onto), (pairs.get(key(item, onto)) ?? 0) + 1);
  }
  for (const a of [...work.assignments.values()].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))) {
    const k = key(a.item, a.target);
    const left = pairs.get(k) ?? 0;
    if (left > 0) pairs.set(k, left - 1);
    else if (!a.pending) emit({ kind: "unassign", assignment: a.id });
  }
  for (const a of target.assignments.values()) {
    const item = itemId.get(a.item), onto = itemId.get(a.target);
    if (!item || !onto) continue;
    const k = key(item, onto);
    const left = pairs.get(k) ?? 0;
    if (left <= 0) continue;
    pairs.set(k, left - 1);
    emit({ kind: "assign", item, target: onto });
  }
  return ops;
}

/**
 * The ids of `order` that may stay where they are in `here`: a longest run of them that `here`
 * already has in `order`'s order (patience sorting, O(n log n)).
 * @param {string[]} here the ids as they are now @param {string[]} order the ids as wanted
 * @returns {Set<string>}
 */
function inOrder(here, order) {
  const rank = new Map(order.map((id, i) => [id, i]));
  const seq = here.filter((id) => rank.has(id));
  const ranks = seq.map((id) => /** @type {number} */ (rank.get(id)));
  /** @type {number[]} index in seq of the smallest tail of a run of each length */
  const tails = [];
  /** @type {number[]} */
  const prev = new Array(seq.length).fill(-1);
  for (let i = 0; i < seq.length; i++) {
    let lo = 0, hi = tails.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (ranks[tails[mid]] < ranks[i]) lo = mid + 1;
      else hi = mid;
    }
    if (lo > 0) prev[i] = tails[lo - 1];
    tails[lo] = i;
  }
  const stay = new Set();
  for (let i = tails.length ? tails[tails.length - 1] : -1; i >= 0; i = prev[i]) stay.add(seq[i]);
  return stay;
}

/** @param {any} a @param {any} b @returns {boolean} whether two field values are the same */
function sameValue(a, b) {
  return a === b || (typeof a === "number" && typeof b === "number" && Number.isNaN(a) && Number.isNaN(b));
}
