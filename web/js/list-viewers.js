// @ts-check
/**
 * Who is looking at which list: this person's custom presence state is `{list: "<list id>"}`
 * for the list under the pointer or holding the focus (docs/CLIENT.md, `updatePresence`), and
 * each list's title shows an avatar stack of the others whose state names it.
 */

/** At most this many avatars per list; the rest are counted in a `+n`. */
const MAX_AVATARS = 4;

export class ListViewers {
  /**
   * @param {HTMLElement} root the board's lists (sections with `data-list-section`)
   * @param {import("./reorder-client/index.js").ReorderClient} client
   * @param {AbortSignal} signal ends the listeners with the session
   */
  constructor(root, client, signal) {
    this.root = root;
    this.client = client;
    /** @type {string | null} the list this person is looking at */
    this.looking = null;
    const look = (/** @type {Event} */ e) => {
      const section = /** @type {HTMLElement | null} */ (/** @type {Element} */ (e.target).closest?.("[data-list-section]"));
      const list = section?.dataset.listSection ?? null;
      if (list && list !== this.looking) {
        this.looking = list;
        client.updatePresence({ list });
      }
    };
    root.addEventListener("pointerover", look, { signal });
    root.addEventListener("focusin", look, { signal });
    for (const type of ["presence", "peers", "change"]) client.addEventListener(type, () => this.render(), { signal });
  }

  /** Draws every list's avatar stack from the others' current states. */
  render() {
    /** @type {Map<string, string[]>} list → sessions looking at it */
    const byList = new Map();
    for (const { session, state } of this.client.presenceStates) {
      if (typeof state?.list !== "string") continue;
      byList.set(state.list, [...(byList.get(state.list) ?? []), session]);
    }
    for (const section of this.root.querySelectorAll("[data-list-section]")) {
      const el = /** @type {HTMLElement} */ (section);
      this.stack(el, byList.get(el.dataset.listSection ?? "") ?? []);
    }
  }

  /** @private @param {HTMLElement} section @param {string[]} sessions */
  stack(section, sessions) {
    let stack = /** @type {HTMLElement | null} */ (section.querySelector(".list-viewers"));
    if (!stack) {
      stack = document.createElement("span");
      stack.className = "list-viewers";
      section.querySelector(".collection-title")?.append(stack);
    }
    const peers = this.client.presence.known;
    const key = sessions.join(" ");
    if (stack.dataset.sessions === key) return;
    stack.dataset.sessions = key;
    stack.replaceChildren();
    for (const session of sessions.slice(0, MAX_AVATARS)) {
      const peer = peers.get(session);
      const name = peer?.name ?? "Someone";
      const avatar = document.createElement("span");
      avatar.className = "list-viewer";
      avatar.dataset.session = session;
      avatar.textContent = [...name][0]?.toUpperCase() ?? "?";
      avatar.title = `${name} is looking at this list`;
      if (typeof peer?.color === "string" && /^#[0-9a-fA-F]{3,8}$/.test(peer.color)) avatar.style.setProperty("--peer", peer.color);
      stack.append(avatar);
    }
    if (sessions.length > MAX_AVATARS) {
      const more = document.createElement("span");
      more.className = "list-viewer list-viewer-more";
      more.textContent = `+${sessions.length - MAX_AVATARS}`;
      stack.append(more);
    }
    stack.setAttribute("aria-label", sessions.length ? `${sessions.length} looking at this list` : "");
    stack.hidden = sessions.length === 0;
  }
}
