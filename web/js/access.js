// @ts-check
/**
 * What this page may do on a board, and for how long: the room token it connects with, the role
 * the server granted (`welcome.role`, changed by `refreshed`), the link's expiry, and what the
 * page says when the server refuses the link.
 *
 * Rules:
 * - `hello` carries `token()`: the token the server last accepted (or, before the first welcome,
 *   the one the link brought). A new link for the same room (another share link opened in this
 *   tab) replaces it: sent as `refresh` once the server said the current one is expiring,
 *   otherwise by reconnecting with it.
 * - A refused `refresh` (`error unauthorized` while one is outstanding) keeps the current token
 *   and its rights, and puts it back in sessionStorage (a reload must not pick the refused one).
 * - The link's expiry follows the server's clock: `expires_in_s` of the welcome, `token_expiring`
 *   and `refreshed` (seconds to the token's `exp`) fix the moment it runs out. `#link-status`
 *   counts down over its last minute ("Link expires in 42 s") and, once it is past, says "Link
 *   expired" and the page is read-only: the server still lets the connection on for the 60 s it
 *   allows for clocks that disagree, then closes it (4401 `token expired`), but the link's time
 *   is up. A `refreshed` (a newer link for the room) ends both.
 * - A 4401 / 4403 close says what happened ("This link has expired", "This link is not valid",
 *   "This link is not for this board") and leaves the board read-only; the connection does not
 *   retry (see reorder-client/connection.js). A 4404 close (the board was deleted) does the same
 *   with "This board was deleted", a 4400 (the server does not speak this page's protocol
 *   version) with "This page is out of date", any other of 4400–4499 but 4408 with "The server
 *   closed this board".
 */
import { storedToken, storeToken } from "./token.js";
import { toast } from "./announce.js";
/** @typedef {import("./scope.js").Scope} Scope */

/** @typedef {"editor" | "viewer" | "unknown"} Role "unknown": a token was sent, no welcome yet */

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

/** The countdown is shown over the link's last minute. */
const COUNTDOWN_MS = 60_000;

/**
 * What the expiry notice says `seconds` before the link expires (0 or less: it has).
 * @param {number} seconds @returns {string}
 */
export function expiryText(seconds) {
  if (seconds <= 0) return "Link expired";
  if (seconds < 60) return `Link expires in ${Math.ceil(seconds)} s`;
  return `Link expires in ${Math.round(seconds / 60)} min`;
}

/** @param {number | null} seconds left, as the server said @returns {number | null} when, in performance.now() ms */
function inMs(seconds) {
  return seconds === null ? null : performance.now() + Math.max(0, seconds) * 1000;
}

/**
 * The headline for a refused link.
 * @param {number} code 4401 or 4403
 * @param {string} reason the close reason
 * @param {string} message the `error` message that came before the close, if any
 * @returns {string}
 */
export function refusalTitle(code, reason, message) {
  if (code === 4403) return "This link is not for this board";
  // A connection whose token ran out is closed with reason "token expired"; a token that had
  // already expired at hello is refused with `error unauthorized` saying so.
  if (/token expired/i.test(reason) || /expired/i.test(message)) return "This link has expired";
  return "This link is not valid";
}

/**
 * @typedef {object} AccessOptions
 * @property {string} room
 * @property {Scope} scope the board session: the expiry countdown ends with it
 * @property {() => import("./reorder-client/client.js").ReorderClient} client the board's client
 * @property {(role: Role, previous: Role) => void} onRole the page's rights changed (a role granted,
 *   or a refused link replaced by a new one): apply them at once
 * @property {() => void} onRefused the link was refused: the board becomes read-only
 */

export class Access {
  /** @param {AccessOptions} options */
  constructor(options) {
    this.options = options;
    this.room = options.room;
    this.scope = options.scope;
    /** @type {string | null} the token `hello` sends */
    this.current = storedToken(this.room);
    /** @type {string | null} a token sent in `refresh`, not yet answered */
    this.offered = null;
    /** @type {string | null} a token the server refused in a `refresh` (not offered again) */
    this.refusedOffer = null;
    /**
     * Without a token the server lets everyone edit (as before tokens), so edits may start
     * offline; with one, the welcome says which, and nothing is editable until then.
     * @type {Role}
     */
    this.role = this.current ? "unknown" : "editor";
    /** True once a 4401 / 4403 ended the connection. */
    this.refused = false;
    /** @type {number | null} when (performance.now() ms) the link expires, as the server last said */
    this.expiresAt = null;
    /** True once the link's time is up (until a `refreshed`, or the close that follows). */
    this.expired = false;
    this.tick = 0;
    /** The message of the last `error unauthorized` / `forbidden`, for the refusal's wording. */
    this.lastError = "";
    this.scope.signal.addEventListener("abort", () => this.clearNotices(), { once: true });
    this.clearNotices();
  }

  /** @returns {string | null} the token for `hello` */
  token() {
    return this.current;
  }

  /** @returns {boolean} whether this page may change the board */
  get canEdit() {
    return this.role === "editor" && !this.refused && !this.expired;
  }

  /**
   * A welcome: the role it grants (a server without auth: editor), and the token's time left.
   * A replacement welcome (the board replaced on an open connection) repeats the figure of the
   * join, so only a connection's first welcome sets the expiry.
   * @param {{ role: "editor" | "viewer" | null, expiresIn: number | null, replaced: boolean }} welcome the client's `welcome` event
   */
  welcome(welcome) {
    this.lastError = "";
    this.offered = null;
    this.setRole(welcome.role === "viewer" ? "viewer" : "editor");
    if (!welcome.replaced) this.setExpiry(inMs(welcome.expiresIn));
  }

  /**
   * `token_expiring`: show the countdown, and offer a newer token if this tab has one.
   * @param {{ expiresIn: number | null }} msg the client's `expiring` event
   */
  expiring(msg) {
    this.setExpiry(inMs(msg.expiresIn) ?? performance.now());
    this.offerStored();
  }

  /**
   * `refreshed`: the offered token is now the connection's, with its role.
   * @param {{ role: "editor" | "viewer" | null, expiresIn: number | null }} msg the client's `refreshed` event
   */
  refreshed(msg) {
    if (this.offered) this.current = this.offered;
    this.offered = null;
    this.setExpiry(inMs(msg.expiresIn));
    if (msg.role === "viewer" || msg.role === "editor") this.setRole(msg.role);
  }

  /**
   * An `error` from the server; true when it is about the link (the caller shows nothing more).
   * @param {any} msg @returns {boolean}
   */
  error(msg) {
    const code = String(msg.code);
    if (code !== "unauthorized" && code !== "forbidden") return false;
    if (this.offered && this.options.client().ready) {
      // A refused refresh closes nothing: the current token keeps its rights until it expires.
      this.refusedOffer = this.offered;
      this.offered = null;
      storeToken(this.room, this.current);
      toast(`The new link could not be used: ${String(msg.message || code)}`, "error");
      return true;
    }
    this.lastError = String(msg.message || "");
    return true;
  }

  /** A rejected op with `read_only`: the server sees this page as a viewer. */
  readOnly() {
    this.setRole("viewer");
  }

  /** The connection was closed with 4401 / 4403: say why; no more edits. @param {number} code @param {string} reason */
  refuse(code, reason) {
    this.refused = true;
    this.offered = null;
    this.setExpiry(null);
    const title = refusalTitle(code, reason, this.lastError);
    const why = this.lastError || reason;
    const detail = this.current
      ? `${why ? `The server said: ${why}. ` : ""}Ask whoever shared the board for a new link.`
      : "This board needs a share link: ask whoever shared the board for one.";
    const box = $("access-notice");
    box.dataset.code = String(code);
    $("access-title").textContent = title;
    $("access-detail").textContent = detail;
    box.hidden = false;
    $("role-badge").hidden = true;
    this.options.onRefused();
  }

  /**
   * A close that ends the session and is not about the link: the board was deleted (4404), the
   * server does not speak this page's protocol version (4400), or another refusal of 4400–4499.
   * Say so; no more edits, no reconnect.
   * @param {number} code @param {string} reason
   */
  ended(code, reason) {
    this.refused = true;
    this.offered = null;
    this.setExpiry(null);
    const box = $("access-notice");
    box.dataset.code = String(code);
    const said = reason ? `The server said: ${reason}. ` : "";
    const [title, detail] =
      code === 4404 ? ["This board was deleted", `${said}What is shown is the board as it was; it can no longer be changed.`]
      : code === 4400 ? ["This page is out of date", `${said}The server speaks another version of the protocol: reload the page.`]
      : ["The server closed this board", `${said}What is shown is the board as it was; reload the page to try again.`];
    $("access-title").textContent = title;
    $("access-detail").textContent = detail;
    box.hidden = false;
    $("role-badge").hidden = true;
    this.options.onRefused();
  }

  /**
   * A link for this room was opened in this tab (its token is in sessionStorage now): use it.
   * In the current link's last minute (the server says it is expiring then) it goes as a
   * `refresh`; before that (or after a refusal) the connection starts again with it in `hello`.
   */
  linkChanged() {
    const fresh = storedToken(this.room);
    if (!fresh || fresh === this.current || fresh === this.offered) return;
    const client = this.options.client();
    if (this.inLastMinute() && client.ready) {
      this.refusedOffer = null;
      this.offerStored();
      return;
    }
    this.current = fresh;
    this.offered = null;
    this.refusedOffer = null;
    if (this.refused) {
      this.refused = false;
      this.lastError = "";
      $("access-notice").hidden = true;
      // Until the welcome, the rights are those of the last one (nothing is sent offline anyway).
      this.options.onRole(this.role, this.role);
      client.connect();
    } else {
      client.reconnect();
    }
  }

  /**
   * @private @returns {boolean} whether the link is in its last minute (or past it): the server
   *   has sent, or is about to send, `token_expiring`, so a new link goes as a `refresh`
   */
  inLastMinute() {
    return this.expiresAt !== null && this.expiresAt - performance.now() <= COUNTDOWN_MS;
  }

  /** @private Sends `refresh` with the tab's stored token when it is newer than the current one. */
  offerStored() {
    const fresh = storedToken(this.room);
    if (!fresh || fresh === this.current || fresh === this.offered || fresh === this.refusedOffer) return;
    if (this.options.client().refresh(fresh)) this.offered = fresh;
  }

  /** @private @param {Role} role */
  setRole(role) {
    const previous = this.role;
    this.role = role;
    document.body.dataset.access = role;
    $("role-badge").hidden = role !== "viewer";
    if (role !== previous) this.options.onRole(role, previous);
  }

  /**
   * The link runs out at `at` (performance.now() ms; null: it does not, or nothing is known):
   * hidden until its last minute, then counted down each second, then "Link expired".
   * @private @param {number | null} at
   */
  setExpiry(at) {
    this.expiresAt = at;
    this.scope.clearTimeout(this.tick);
    this.tick = 0;
    const el = $("link-status");
    const hide = () => {
      el.hidden = true;
      el.textContent = "";
      delete el.dataset.expiresIn;
      delete el.dataset.expired;
    };
    if (at === null || this.scope.disposed) {
      hide();
      this.setExpired(false);
      return;
    }
    const show = () => {
      const leftMs = at - performance.now();
      if (leftMs > COUNTDOWN_MS) {
        hide();
        this.setExpired(false);
        this.tick = this.scope.timeout(show, leftMs - COUNTDOWN_MS);
        return;
      }
      const left = Math.max(0, Math.ceil(leftMs / 1000));
      el.textContent = expiryText(left);
      el.dataset.expiresIn = String(left);
      el.hidden = false;
      if (left > 0) {
        delete el.dataset.expired;
        this.setExpired(false);
        // The next whole second of what is left, so the figure changes when the second does.
        this.tick = this.scope.timeout(show, leftMs - (left - 1) * 1000);
      } else {
        el.dataset.expired = "true";
        this.setExpired(true);
      }
    };
    show();
  }

  /** @private @param {boolean} expired */
  setExpired(expired) {
    if (this.expired === expired) return;
    this.expired = expired;
    if (expired) toast("This link has expired: the board can no longer be changed from it. Ask for a new link.", "error");
    this.options.onRole(this.role, this.role);
  }

  /** @private What a board session showed about its link goes with it. */
  clearNotices() {
    this.scope.clearTimeout(this.tick);
    $("link-status").hidden = true;
    $("link-status").textContent = "";
    delete $("link-status").dataset.expiresIn;
    delete $("link-status").dataset.expired;
    $("role-badge").hidden = true;
    $("access-notice").hidden = true;
    delete document.body.dataset.access;
  }
}
