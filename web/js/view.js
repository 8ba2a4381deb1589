// @ts-check
/**
 * Renders the board view (model.view) into the DOM, keyed by list and item id so that elements
 * survive re-renders (focus, animations and the drag placeholder stay put), and animates moved
 * items with FLIP.
 *
 * A long list renders only the rows in view plus a margin (virtual-window.js); every rendered row
 * carries `aria-posinset` / `aria-setsize` of the whole list. Positions are always those of the
 * shown order: the model's, with the item a local drag or keyboard lift holds (`hold`) at its held
 * place. The held item is always rendered, even outside the window: then out of flow, at its
 * place in the list's scroll height (`.off-window`), so focus and the drag placeholder stay.
 */
import { measure, play } from "./motion.js";
import { itemSignature, fillItem } from "./item-content.js";
import { isVirtual, displayOrder, rowsInView, measurePitch, basePad, ESTIMATED_PITCH } from "./virtual-window.js";

/** @typedef {import("./reorder-client/model.js").BoardModel} BoardModel */
/** @typedef {import("./virtual-window.js").Hold} Hold */
/**
 * @typedef {{ start: number, ids: string[], size: number, pitch: number, pad: number, virtual: boolean }} Window
 *   what a list shows: `ids` are its in-flow rows, positions start ..< start + ids.length of `size`
 */

export class BoardView {
  /**
   * @param {HTMLElement} root the container of the collections
   * @param {BoardModel} model
   * @param {import("./scope.js").Scope} scope the board session: its scroll listeners and frames end with it
   */
  constructor(root, model, scope) {
    this.root = root;
    this.model = model;
    this.scope = scope;
    /** @type {Map<string, HTMLElement>} the rendered items */
    this.itemEls = new Map();
    /** @type {Map<string, HTMLElement>} */
    this.sectionEls = new Map();
    /** @type {Map<string, string>} signature of what each item element shows */
    this.signatures = new Map();
    /** @type {Map<string, Window>} per list, what it shows */
    this.windows = new Map();
    /** @type {Hold | null} the item a local drag or keyboard lift holds, and where it shows */
    this.hold = null;
    /** Hook run after every render (the controllers check their held item is still there). */
    this.afterRender = () => {};
    /** True while the page may not change the board: items are not announced as draggable. */
    this.readOnly = false;
    /** Whether some list renders only a window (scrolling then re-renders). */
    this.windowed = false;
    this.frame = 0;
    // Scrolling (a list's or the page's) and resizing move the windows: one render per frame.
    const onScroll = (/** @type {Event} */ e) => {
      const t = e.target;
      if (t === document || (t instanceof HTMLElement && t.classList.contains("virtual"))) this.scheduleRender();
    };
    document.addEventListener("scroll", onScroll, { capture: true, passive: true, signal: scope.signal });
    window.addEventListener("resize", () => this.scheduleRender(), { passive: true, signal: scope.signal });
  }

  /** Renders the windows again on the next frame (when some list is windowed). */
  scheduleRender() {
    if (!this.windowed || this.frame) return;
    this.frame = this.scope.frame(() => {
      this.frame = 0;
      this.render({ animate: false });
    });
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

  /** @param {string} id @returns {HTMLElement | undefined} the item's element, when it is rendered */
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

  /** @param {string} list @returns {Window | undefined} what the list showed at the last render */
  windowOf(list) {
    return this.windows.get(list);
  }

  /**
   * Where an item shows: its list, its 0-based place in the shown order (a held item's held
   * place) and the number of items shown there.
   * @param {string} item @returns {{ list: string, index: number, size: number } | null}
   */
  positionOf(item) {
    const h = this.hold;
    if (h && h.item === item && this.model.list(h.list)) {
      const list = /** @type {import("./reorder-client/board-state.js").List} */ (this.model.list(h.list));
      const others = list.items.length - (list.items.includes(item) ? 1 : 0);
      return { list: h.list, index: Math.max(0, Math.min(h.index, others)), size: others + 1 };
    }
    const at = this.model.where(item);
    if (!at) return null;
    const order = displayOrder(at.list, this.hold);
    return { list: at.list.id, index: order.indexOf(item), size: order.length };
  }

  /**
   * The element at `index` of a list's shown order, scrolling the list (or the page) to it and
   * rendering when it is outside the window.
   * @param {string} listId @param {number} index @returns {HTMLElement | null}
   */
  reveal(listId, index) {
    const list = this.model.list(listId);
    const ul = this.listEl(listId);
    if (!list || !ul) return null;
    const id = displayOrder(list, this.hold)[index];
    if (id === undefined) return null;
    const w = this.windows.get(listId);
    if (!this.itemEls.has(id) && w?.virtual) {
      const rowTop = w.pad + index * w.pitch;
      if (ul.scrollHeight > ul.clientHeight + 1) {
        ul.scrollTop = rowTop - (ul.clientHeight - w.pitch) / 2;
      } else {
        const top = ul.getBoundingClientRect().top + ul.clientTop + rowTop;
        window.scrollBy(0, top - (window.innerHeight - w.pitch) / 2);
      }
      this.render({ animate: false });
    }
    return this.itemEls.get(id) ?? null;
  }

  /** @param {string} item @returns {HTMLElement | null} the item's element, scrolled to and rendered */
  revealItem(item) {
    const at = this.positionOf(item);
    return at ? this.reveal(at.list, at.index) : null;
  }

  /**
   * Brings the DOM in line with the model's view (and the hold).
   * @param {{ animate?: boolean, duration?: number }} [options]
   */
  render(options = {}) {
    const view = this.model.view;
    const hold = this.hold && this.model.item(this.hold.item) ? this.hold : null;
    const first = options.animate === false ? new Map() : measure(this.itemEls.values());
    // The held item moves by its own animation (the placeholder's slot, the keyboard's slide).
    const heldEl = hold ? this.itemEls.get(hold.item) : undefined;
    if (heldEl) first.delete(heldEl);

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
        this.windows.delete(id);
      }
    }

    // Items, in order, in each collection: all of them, or a window of a long list.
    const seenItems = new Set();
    this.windowed = false;
    for (const list of view.lists) {
      const ul = /** @type {HTMLElement} */ (this.listEl(list.id));
      const order = displayOrder(list, hold);
      const virtual = isVirtual({ layout: list.layout, items: order });
      ul.classList.toggle("virtual", virtual);
      if (virtual) {
        this.windowed = true;
        this.renderWindow(ul, list.id, order, hold, seenItems);
      } else {
        if (ul.style.getPropertyValue("--before")) ul.style.removeProperty("--before");
        if (ul.style.getPropertyValue("--after")) ul.style.removeProperty("--after");
        this.placeRows(ul, order, 0, order.length, seenItems);
        this.windows.set(list.id, { start: 0, ids: order.slice(), size: order.length, pitch: ESTIMATED_PITCH, pad: 0, virtual: false });
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
    play(first, options.duration);
  }

  /**
   * Puts `ids` (positions start… of `size`) in `ul` in order, in flow, and removes every other
   * item from it but `spare` (a held item the caller places).
   * @private @param {HTMLElement} ul @param {string[]} ids @param {number} start @param {number} size
   * @param {Set<string>} seen @param {string | null} [spare]
   */
  placeRows(ul, ids, start, size, seen, spare = null) {
    const keep = new Set(ids);
    if (spare) keep.add(spare);
    let cursor = ul.firstElementChild;
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i];
      seen.add(id);
      const el = this.ensureItem(id);
      setPosition(el, start + i, size);
      if (el.classList.contains("off-window")) {
        el.classList.remove("off-window");
        el.style.removeProperty("top");
      }
      if (cursor === el) {
        cursor = cursor.nextElementSibling;
        continue;
      }
      ul.insertBefore(el, cursor);
    }
    // Whatever follows the rows does not belong here (moved, deleted, or out of the window).
    let rest = cursor;
    while (rest) {
      const next = rest.nextElementSibling;
      const id = /** @type {HTMLElement} */ (rest).dataset.item;
      if (id && !keep.has(id)) rest.remove();
      rest = next;
    }
  }

  /**
   * A long list: the rows in view plus a margin, spacers for the others, and the held item even
   * when it is outside (out of flow, at its place).
   * @private @param {HTMLElement} ul @param {string} listId @param {string[]} order
   * @param {Hold | null} hold @param {Set<string>} seen
   */
  renderWindow(ul, listId, order, hold, seen) {
    const pitch = this.windows.get(listId)?.pitch ?? ESTIMATED_PITCH;
    const pad = basePad(ul);
    const n = order.length;
    const { start, end } = rowsInView(ul, n, pitch, pad);
    const ids = order.slice(start, end);
    ul.style.setProperty("--before", `${start * pitch}px`);
    ul.style.setProperty("--after", `${(n - end) * pitch}px`);
    const heldIndex = hold && hold.list === listId ? order.indexOf(hold.item) : -1;
    this.placeRows(ul, ids, start, n, seen, heldIndex >= 0 ? /** @type {Hold} */ (hold).item : null);
    if (heldIndex >= 0 && (heldIndex < start || heldIndex >= end)) {
      const el = this.ensureItem(/** @type {Hold} */ (hold).item);
      seen.add(/** @type {Hold} */ (hold).item);
      setPosition(el, heldIndex, n);
      el.classList.add("off-window");
      el.style.top = `${pad + heldIndex * pitch}px`;
      if (el.parentElement !== ul || el.nextElementSibling) ul.append(el);
    }
    const rows = /** @type {HTMLElement[]} */ (Array.from(ul.children)).filter((c) => !c.classList.contains("off-window"));
    const measured = measurePitch(rows, pitch);
    this.windows.set(listId, { start, ids, size: n, pitch: measured, pad, virtual: true });
    // The first rows measured (or rows that grew) change the spacers: once more on the next frame.
    if (Math.abs(measured - pitch) > 0.5) this.scheduleRender();
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
    const sig = itemSignature(this.model, id);
    if (this.signatures.get(id) !== sig) {
      this.signatures.set(id, sig);
      fillItem(this.model, el, id);
    }
    return el;
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

/** Tells assistive technology where a row is in the whole list. @param {HTMLElement} el @param {number} index @param {number} size */
function setPosition(el, index, size) {
  const pos = String(index + 1);
  const total = String(size);
  if (el.getAttribute("aria-posinset") !== pos) el.setAttribute("aria-posinset", pos);
  if (el.getAttribute("aria-setsize") !== total) el.setAttribute("aria-setsize", total);
}
