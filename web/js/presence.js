// @ts-check
/**
 * Other people: who is online, and their live drags drawn as ghosts in their colour with their
 * name. A ghost is placed relative to the list (the pointer's fraction of the list's scrollable
 * box, falling back to the item it is over, then to its prospective index), so it lands in the
 * right place whatever this window's size, and it is eased between updates.
 *
 * Who is online comes from the client's presence state (reorder-client/peers.js): the peers
 * known by name, and the server's count of the others; when the count is larger, a "+N more"
 * chip stands for the rest. This file only draws.
 *
 * In a long list (rendered as a window, view.js) the item a ghost carries or points at may not be
 * rendered: the ghost is placed from the list's row pitch instead, and shown only while its point
 * is inside the list's visible box.
 */
import { reducedMotion } from "./motion.js";
/** @typedef {import("./scope.js").Scope} Scope */

/**
 * @typedef {{ session: string, name: string, color: string, phase?: string, item?: string, list?: string,
 *   over?: string, index?: number, x?: number, y?: number }} DragState
 * @typedef {{ el: HTMLElement, state: DragState, cx: number, cy: number, placed: boolean }} Ghost
 */

export class Presence {
  /**
   * @param {import("./view.js").BoardView} view
   * @param {HTMLElement} layer where ghosts are drawn (fixed, full screen, no pointer events)
   * @param {HTMLElement} peersEl the "online" list
   * @param {Scope} scope the board session: its animation frames end with it
   */
  constructor(view, layer, peersEl, scope) {
    this.view = view;
    this.layer = layer;
    this.peersEl = peersEl;
    this.scope = scope;
    /** @type {Map<string, {name: string, color: string}>} the other peers known by name */
    this.peers = new Map();
    /** How many others are online (the server's count, never fewer than those known). */
    this.others = 0;
    /** @type {Map<string, Ghost>} */
    this.ghosts = new Map();
    /** @type {string | null} */
    this.me = null;
    this.myName = "";
    this.myColor = "";
    this.frame = 0;
    this.last = 0;
  }

  /** Clears everything (on leaving a board). */
  reset() {
    for (const g of this.ghosts.values()) g.el.remove();
    this.ghosts.clear();
    this.peers = new Map();
    this.others = 0;
    this.me = null;
    this.refreshHeld();
    this.renderPeers();
  }

  /**
   * A welcome: this page's own chip. @param {string | null} session
   * @param {{name: string, color: string}} me
   */
  welcome(session, me) {
    this.me = session ?? "";
    this.myName = me.name;
    this.myColor = me.color;
    this.renderPeers();
  }

  /**
   * Who is online changed (the client's `peers` event).
   * @param {Map<string, {name: string, color: string}>} peers @param {number} others
   */
  showPeers(peers, others) {
    this.peers = peers;
    this.others = others;
    this.renderPeers();
  }

  /** Another person's drag changed (the client's `drag` event). @param {DragState} drag */
  drag(drag) {
    if (drag.phase === "end" || drag.phase === "cancel") this.drop(drag.session);
    else this.update(drag);
  }

  /** @private @param {DragState} state */
  update(state) {
    let g = this.ghosts.get(state.session);
    if (!g || g.state.item !== state.item) {
      if (g) g.el.remove();
      const el = document.createElement("div");
      el.className = "ghost";
      el.dataset.ghost = state.session;
      el.dataset.ghostItem = String(state.item ?? "");
      el.style.setProperty("--peer", safeColor(state.color));
      const card = document.createElement("div");
      card.className = "ghost-card";
      const itemEl = state.item ? this.view.itemEl(state.item) : null;
      const src = itemEl?.querySelector(".item-visual") ?? itemEl?.querySelector(".item-title");
      const fields = state.item ? this.view.model.item(state.item)?.fields : undefined;
      // An item not rendered (outside a long list's window) shows its emoji or title from the model.
      const text = src ? src.textContent : String(fields?.emoji || fields?.title || "");
      card.textContent = (text || "•").slice(0, 4);
      const img = src?.querySelector("img");
      if (img) card.replaceChildren(img.cloneNode(true));
      const name = document.createElement("div");
      name.className = "ghost-name";
      name.textContent = state.name || "someone";
      el.append(card, name);
      this.layer.append(el);
      g = { el, state, cx: 0, cy: 0, placed: false };
      this.ghosts.set(state.session, g);
    }
    g.state = { ...g.state, ...state };
    this.refreshHeld();
    this.animate();
  }

  /** @private @param {string} session */
  drop(session) {
    const g = this.ghosts.get(session);
    if (!g) return;
    this.ghosts.delete(session);
    g.el.remove();
    this.refreshHeld();
  }

  /** Where a ghost should be, in client coordinates (null: not to be shown). @private @param {DragState} s */
  targetOf(s) {
    const ul = s.list ? this.view.listEl(s.list) : null;
    const w = s.list ? this.view.windowOf(s.list) : undefined;
    const r = ul?.getBoundingClientRect();
    /** @type {{ x: number, y: number } | null} */
    let point = null;
    if (ul && r && typeof s.x === "number" && typeof s.y === "number") {
      point = {
        x: r.left + ul.clientLeft - ul.scrollLeft + s.x * ul.scrollWidth,
        y: r.top + ul.clientTop - ul.scrollTop + s.y * ul.scrollHeight,
      };
    } else {
      const overEl = s.over ? this.view.itemEl(s.over) : null;
      if (overEl) point = centre(overEl);
      else if (ul && r && w && typeof s.index === "number") {
        const i = Math.max(0, Math.min(s.index, w.size - 1));
        if (w.virtual) {
          // The row's place in the list's scroll height, rendered or not.
          point = { x: r.left + r.width / 2, y: r.top + ul.clientTop - ul.scrollTop + w.pad + (i + 0.5) * w.pitch };
        } else {
          const el = ul.children[i];
          if (el) point = centre(el);
        }
      }
      const own = s.item ? this.view.itemEl(s.item) : null;
      if (!point && own) point = centre(own);
    }
    if (point && w?.virtual && r && (point.y < r.top || point.y > r.bottom)) return null;
    return point;
  }

  /** @private */
  animate() {
    if (this.frame) return;
    this.last = performance.now();
    this.frame = this.scope.frame((now) => this.step(now));
  }

  /** @private @param {number} now */
  step(now) {
    this.frame = 0;
    const dt = Math.max(1, now - this.last);
    this.last = now;
    const k = reducedMotion() ? 1 : 1 - Math.exp(-dt / 70);
    for (const g of this.ghosts.values()) {
      const t = this.targetOf(g.state);
      if (!t) {
        g.el.hidden = true;
        continue;
      }
      g.el.hidden = false;
      if (!g.placed) {
        g.cx = t.x;
        g.cy = t.y;
        g.placed = true;
      } else {
        g.cx += (t.x - g.cx) * k;
        g.cy += (t.y - g.cy) * k;
      }
      g.el.style.transform = `translate3d(${Math.round(g.cx)}px, ${Math.round(g.cy)}px, 0)`;
    }
    // Keep following while ghosts exist: they ease, and their lists may scroll or reflow.
    if (this.ghosts.size) this.frame = this.scope.frame((t) => this.step(t));
  }

  /** Marks items held by someone: "held by <name>" in their colour. */
  refreshHeld() {
    /** @type {Map<string, {name: string, color: string}>} */
    const held = new Map();
    for (const g of this.ghosts.values()) {
      if (g.state.item) held.set(g.state.item, { name: g.state.name, color: g.state.color });
    }
    for (const el of /** @type {NodeListOf<HTMLElement>} */ (document.querySelectorAll(".item.held"))) {
      const id = el.dataset.item;
      if (!id || !held.has(id)) {
        el.classList.remove("held");
        delete el.dataset.heldBy;
        el.querySelector(".held-label")?.remove();
      }
    }
    for (const [id, who] of held) {
      const el = this.view.itemEl(id);
      if (!el) continue;
      el.classList.add("held");
      el.dataset.heldBy = who.name;
      el.style.setProperty("--peer", safeColor(who.color));
      let label = el.querySelector(".held-label");
      if (!label) {
        label = document.createElement("span");
        label.className = "held-label";
        el.append(label);
      }
      const text = `held by ${who.name}`;
      if (label.textContent !== text) label.textContent = text;
    }
  }

  /** @private */
  renderPeers() {
    const items = [];
    if (this.me !== null && this.myName) items.push(peerChip(this.myName + " (you)", this.myColor));
    for (const [session, p] of this.peers) {
      const chip = peerChip(p.name, p.color);
      chip.dataset.peer = session;
      items.push(chip);
    }
    const others = Math.max(this.others, this.peers.size);
    const online = `${others + 1} online`;
    const more = others - this.peers.size;
    if (more > 0) {
      const chip = document.createElement("li");
      chip.className = "peer peer-more";
      chip.dataset.peerMore = String(more);
      chip.textContent = `+${more} more`;
      chip.setAttribute("aria-label", `${more} more, ${online}`);
      items.push(chip);
    }
    this.peersEl.replaceChildren(...items);
    this.peersEl.setAttribute("aria-label", online);
  }
}

/** @param {Element} el @returns {{ x: number, y: number }} the centre of its box */
function centre(el) {
  const r = el.getBoundingClientRect();
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

/** @param {string} name @param {string} color */
function peerChip(name, color) {
  const li = document.createElement("li");
  li.className = "peer";
  li.style.setProperty("--peer", safeColor(color));
  li.textContent = name;
  return li;
}

/** @param {unknown} c @returns {string} */
function safeColor(c) {
  return typeof c === "string" && /^#[0-9a-fA-F]{3,8}$/.test(c) ? c : "#666666";
}
