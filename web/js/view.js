// @ts-check
/**
 * Renders the board view (model.view) into the DOM, keyed by list and item id so that elements
 * survive re-renders (focus, animations and the drag placeholder stay put), and animates moved
 * items with FLIP.
 */
import { measure, play } from "./motion.js";

/** @typedef {import("./reorder-client/model.js").BoardModel} BoardModel */

/** @param {unknown} n @returns {string} an amount; anything but a finite number shows as $0. */
export function money(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "$0";
  return "$" + (Number.isInteger(n) ? String(n) : n.toFixed(2));
}

export class BoardView {
  /**
   * @param {HTMLElement} root the container of the collections
   * @param {BoardModel} model
   */
  constructor(root, model) {
    this.root = root;
    this.model = model;
    /** @type {Map<string, HTMLElement>} */
    this.itemEls = new Map();
    /** @type {Map<string, HTMLElement>} */
    this.sectionEls = new Map();
    /** @type {Map<string, string>} signature of what each item element shows */
    this.signatures = new Map();
    /** Hook run after every render (the drag controller puts its placeholder back). */
    this.afterRender = () => {};
    /** While true, render() does not move items (a local drag owns the DOM order). */
    this.frozen = false;
    /** True while the page may not change the board: items are not announced as draggable. */
    this.readOnly = false;
  }

  /** Shows items as draggable or not (a viewer's). @param {boolean} readOnly */
  setReadOnly(readOnly) {
    this.readOnly = readOnly;
    for (const el of this.itemEls.values()) el.setAttribute("aria-roledescription", this.roleDescription());
  }

  /** @private @returns {string} */
  roleDescription() {
    return this.readOnly ? "item" : "draggable item";
  }

  /** @param {string} id @returns {HTMLElement | undefined} */
  itemEl(id) {
    return this.itemEls.get(id);
  }

  /** @param {string} id @returns {HTMLElement | null} the items container of a list. */
  listEl(id) {
    return this.sectionEls.get(id)?.querySelector(".items") ?? null;
  }

  /** @returns {HTMLElement[]} the items containers in board order. */
  listEls() {
    return this.model.view.lists.map((l) => this.listEl(l.id)).filter((x) => x !== null);
  }

  /** @param {number} x @param {number} y @returns {HTMLElement | null} the items container at a client point */
  listAt(x, y) {
    for (const ul of this.listEls()) {
      const r = ul.getBoundingClientRect();
      if (x >= r.left && x < r.right && y >= r.top && y < r.bottom) return ul;
    }
    return null;
  }

  /**
   * Brings the DOM in line with the model's view.
   * @param {{ animate?: boolean }} [options]
   */
  render(options = {}) {
    const view = this.model.view;
    const first = options.animate === false ? new Map() : measure(this.itemEls.values());

    // Collections, in order.
    const seenLists = new Set();
    let prevSection = /** @type {Element | null} */ (null);
    for (const list of view.lists) {
      seenLists.add(list.id);
      let section = this.sectionEls.get(list.id);
      if (!section) {
        section = this.createSection(list.id);
        this.sectionEls.set(list.id, section);
      }
      this.updateSection(section, list);
      const expected = prevSection ? prevSection.nextElementSibling : this.root.firstElementChild;
      if (expected !== section) this.root.insertBefore(section, expected);
      prevSection = section;
    }
    for (const [id, section] of this.sectionEls) {
      if (!seenLists.has(id)) {
        section.remove();
        this.sectionEls.delete(id);
      }
    }

    // Items, in order, in each collection.
    const seenItems = new Set();
    for (const list of view.lists) {
      const ul = /** @type {HTMLElement} */ (this.listEl(list.id));
      let cursor = ul.firstElementChild;
      for (const id of list.items) {
        seenItems.add(id);
        const el = this.ensureItem(id);
        if (cursor === el) {
          cursor = cursor.nextElementSibling;
          continue;
        }
        ul.insertBefore(el, cursor);
      }
      // Whatever follows the last expected item does not belong here (moved or deleted).
      while (cursor) {
        const next = cursor.nextElementSibling;
        const id = /** @type {HTMLElement} */ (cursor).dataset.item;
        if (id && !list.items.includes(id)) cursor.remove();
        cursor = next;
      }
      this.updateRoving(ul);
    }
    for (const [id, el] of this.itemEls) {
      if (!seenItems.has(id)) {
        el.remove();
        this.itemEls.delete(id);
        this.signatures.delete(id);
      }
    }
    this.afterRender();
    play(first);
  }

  /** @private @param {string} id */
  createSection(id) {
    const section = document.createElement("section");
    section.className = "collection";
    section.dataset.listSection = id;
    const h = document.createElement("h2");
    h.className = "collection-title";
    const title = document.createElement("span");
    title.className = "collection-name";
    const count = document.createElement("span");
    count.className = "collection-count";
    h.append(title, " ", count);
    const ul = document.createElement("ul");
    ul.className = "items";
    ul.dataset.list = id;
    ul.setAttribute("role", "list");
    section.append(h, ul);
    return section;
  }

  /** @private @param {HTMLElement} section @param {import("./reorder-client/board-state.js").List} list */
  updateSection(section, list) {
    const ul = /** @type {HTMLElement} */ (section.querySelector(".items"));
    const name = /** @type {HTMLElement} */ (section.querySelector(".collection-name"));
    const count = /** @type {HTMLElement} */ (section.querySelector(".collection-count"));
    if (name.textContent !== list.title) name.textContent = list.title;
    const n = String(list.items.length);
    if (count.textContent !== n) count.textContent = n;
    ul.classList.toggle("layout-grid", list.layout === "grid");
    ul.classList.toggle("layout-list", list.layout !== "grid");
    ul.setAttribute("aria-label", list.title);
    const role = this.roleOf(list);
    if (role) section.dataset.role = role;
    else delete section.dataset.role;
  }

  /** @param {import("./reorder-client/board-state.js").List} list @returns {string} "person" when it holds people. */
  roleOf(list) {
    const first = list.items.find((id) => this.model.item(id));
    return first ? String(this.model.item(first)?.fields.role ?? "") : "";
  }

  /** @private @param {string} id @returns {HTMLElement} */
  ensureItem(id) {
    let el = this.itemEls.get(id);
    if (!el) {
      el = document.createElement("li");
      el.className = "item";
      el.dataset.item = id;
      el.tabIndex = -1;
      el.setAttribute("aria-roledescription", this.roleDescription());
      el.setAttribute("aria-describedby", "drag-help");
      this.itemEls.set(id, el);
    }
    const sig = this.signature(id);
    if (this.signatures.get(id) !== sig) {
      this.signatures.set(id, sig);
      this.fillItem(el, id);
    }
    return el;
  }

  /** @private @param {string} id @returns {string} */
  signature(id) {
    const item = this.model.item(id);
    if (!item) return "";
    if (item.fields.role !== "person") return JSON.stringify(item.fields);
    const t = this.model.totalsOf(id);
    const as = this.model.assignmentsOf(id).map((a) => a.id + "=" + a.item + "/" + this.model.label(a.item));
    return JSON.stringify([item.fields, t, as]);
  }

  /** @private @param {HTMLElement} el @param {string} id */
  fillItem(el, id) {
    const item = this.model.item(id);
    if (!item) return;
    const f = item.fields;
    const title = String(f.title ?? f.name ?? id);
    el.dataset.role = String(f.role ?? "");
    el.replaceChildren();

    const visual = document.createElement("span");
    visual.className = "item-visual";
    const hasVisual = (typeof f.image === "string" && f.image !== "") || (typeof f.emoji === "string" && f.emoji !== "");
    el.classList.toggle("no-visual", !hasVisual);
    if (typeof f.image === "string" && f.image) {
      const img = document.createElement("img");
      img.src = f.image;
      img.alt = "";
      img.draggable = false;
      visual.append(img);
    } else if (hasVisual) {
      visual.textContent = String(f.emoji);
    }

    const body = document.createElement("span");
    body.className = "item-body";
    const t = document.createElement("span");
    t.className = "item-title";
    t.textContent = title;
    body.append(t);
    if (typeof f.price === "number") {
      const p = document.createElement("span");
      p.className = "item-price";
      p.textContent = money(f.price);
      body.append(p);
    }
    let label = title;
    if (f.role === "person") {
      const totals = this.model.totalsOf(id);
      el.dataset.total = String(totals.sum);
      el.dataset.count = String(totals.count);
      const line = document.createElement("span");
      line.className = "item-totals";
      line.textContent = `${money(totals.sum)} · ${totals.count} ${totals.count === 1 ? "item" : "items"}`;
      body.append(line);
      label = `${title}, ${money(totals.sum)}, ${totals.count} ${totals.count === 1 ? "item" : "items"}`;
      const chips = document.createElement("span");
      chips.className = "chips";
      for (const a of this.model.assignmentsOf(id)) {
        const chip = document.createElement("span");
        chip.className = "chip";
        chip.dataset.assignment = a.id;
        chip.dataset.assignedItem = a.item;
        const food = this.model.item(a.item)?.fields;
        const emoji = document.createElement("span");
        emoji.className = "chip-emoji";
        emoji.textContent = String(food?.emoji ?? "");
        const name = document.createElement("span");
        name.className = "chip-title";
        name.textContent = this.model.label(a.item);
        chip.title = this.model.label(a.item);
        chip.append(emoji, name);
        const x = document.createElement("button");
        x.type = "button";
        x.className = "chip-remove";
        x.dataset.unassign = a.id;
        x.disabled = Boolean(a.pending);
        x.setAttribute("aria-label", `Unassign ${this.model.label(a.item)} from ${title}`);
        x.textContent = "×";
        chip.append(x);
        chips.append(chip);
      }
      body.append(chips);
    } else {
      delete el.dataset.total;
      delete el.dataset.count;
    }
    el.setAttribute("aria-label", label);

    const move = document.createElement("button");
    move.type = "button";
    move.className = "item-move";
    move.tabIndex = -1;
    move.dataset.moveItem = id;
    move.setAttribute("aria-label", `Move ${title} to…`);
    move.textContent = "⋯";
    const remove = document.createElement("button");
    remove.type = "button";
    remove.className = "item-remove";
    remove.dataset.removeItem = id;
    remove.setAttribute("aria-label", `Remove ${title}`);
    remove.textContent = "×";
    if (hasVisual) el.append(visual, body, move, remove);
    else el.append(body, move, remove);
  }

  /**
   * Keeps exactly one item per collection in the Tab order (roving tabindex).
   * @param {HTMLElement} ul
   */
  updateRoving(ul) {
    const items = /** @type {HTMLElement[]} */ (Array.from(ul.children));
    let active = items.find((el) => el.tabIndex === 0);
    if (!active) active = items[0];
    for (const el of items) {
      const want = el === active ? 0 : -1;
      if (el.tabIndex !== want) el.tabIndex = want;
    }
  }

  /** Makes `el` the Tab stop of its collection and focuses it. @param {HTMLElement} el */
  focusItem(el) {
    const ul = el.parentElement;
    if (ul) for (const other of /** @type {HTMLElement[]} */ (Array.from(ul.children))) other.tabIndex = -1;
    el.tabIndex = 0;
    el.focus({ preventScroll: false });
  }
}
