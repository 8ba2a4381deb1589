// @ts-check
/**
 * Entry point: routing between the landing page and a board, and the name/colour dialog.
 *
 * Routes (the server serves only static files, so boards live in the URL fragment):
 *   #/            the landing page
 *   #/b/<room>    a board; also accepted: ?board=<room>
 *   #/b/<room>?token=<jwt>   a share link: the token is kept for the room (token.js) and taken
 *                 out of the address bar before anything else happens
 */
import { loadIdentity, saveIdentity, PALETTE, validColor, randomHex, clampName } from "./identity.js";
import { BoardSession } from "./board.js";
import { takeTokenFromLocation, storedToken, tokenIdentity } from "./token.js";

/** @type {BoardSession | null} */
let session = null;
let identity = loadIdentity();
/**
 * Who the open board's link says this person is, when its token has a `name` claim: the others
 * see that name (and the token's `color`, if it has one), so the page shows it and asks nothing.
 * @type {{ name: string, color: string } | null}
 */
let linkIdentity = null;
/** A colour for a named link without a `color` claim when none was chosen (kept for the page). */
const fallbackColor = validColor(null);

/** @returns {{ name: string, color: string } | null} the name and colour the others see */
function shownIdentity() {
  return linkIdentity ?? identity;
}

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

const ROOM_RE = /^[A-Za-z0-9_.-]{1,64}$/;
const ROOM_RULE = "use 1–64 letters, digits, - _ .";

/**
 * The room in the URL, if any: `room` when it is a valid name, `bad` (what was asked for, as
 * shown to the user) when the link names a board that cannot exist.
 * @returns {{ room: string | null, bad: string | null }}
 */
function currentRoom() {
  const m = location.hash.match(/^#\/b\/([^/?#]*)/);
  /** @type {string | null} */
  let wanted = null;
  if (m) {
    try {
      wanted = decodeURIComponent(m[1]);
    } catch {
      return { room: null, bad: m[1] };
    }
  } else {
    wanted = new URLSearchParams(location.search).get("board");
  }
  if (wanted === null) return { room: null, bad: null };
  return ROOM_RE.test(wanted) ? { room: wanted, bad: null } : { room: null, bad: wanted };
}

/** Shows (or, with null, hides) why a board link was not opened. @param {string | null} bad */
function showLinkError(bad) {
  const p = $("landing-error");
  if (bad === null) {
    p.hidden = true;
    p.textContent = "";
    return;
  }
  const shown = bad.length > 80 ? bad.slice(0, 80) + "…" : bad;
  p.textContent = bad === "" ? `A board link needs a name: ${ROOM_RULE}` : `“${shown}” is not a valid board name: ${ROOM_RULE}`;
  p.hidden = false;
}

function route() {
  const { room, bad } = currentRoom();
  // First of all: the token leaves the address bar (and goes to sessionStorage).
  const linkToken = takeTokenFromLocation(room);
  showLinkError(bad);
  if (session && session.room !== room) {
    session.dispose();
    session = null;
  }
  $("landing").hidden = room !== null;
  $("board").hidden = room === null;
  $("board-toolbar").hidden = room === null;
  $("board-title").textContent = room ? room : "";
  document.title = room ? `${room} · Reorder` : "Reorder";
  const named = room === null ? { name: null, color: null } : tokenIdentity(storedToken(room) ?? linkToken);
  linkIdentity = named.name ? { name: named.name, color: named.color ?? identity?.color ?? fallbackColor } : null;
  if (room === null) {
    updateIdentityButton();
    document.body.dataset.connection = "closed";
    $("conn-status").textContent = "";
    $("peers").replaceChildren();
    return;
  }
  identity = identity ?? loadIdentity();
  updateIdentityButton();
  if (linkIdentity && asking) {
    // A link that names the person answers the question the page was asking.
    asking.abort();
    asking = null;
    /** @type {HTMLDialogElement} */ ($("identity-dialog")).close();
  }
  if (!shownIdentity()) {
    askIdentity(() => route());
    return;
  }
  if (session && linkToken) session.linkChanged();
  if (!session) {
    session = new BoardSession(room, () => /** @type {{name: string, color: string}} */ (shownIdentity()));
    // `?debug` exposes the open board to the console and to tests (e.g. to send a crafted intent).
    if (new URLSearchParams(location.search).has("debug")) /** @type {any} */ (window).reorder = session;
  }
}

/** @type {AbortController | null} the listeners of the identity dialog while it is open */
let asking = null;

/** Asks for a name and colour, remembers them, then calls `done`. @param {() => void} done */
function askIdentity(done) {
  const dialog = /** @type {HTMLDialogElement} */ ($("identity-dialog"));
  const form = /** @type {HTMLFormElement} */ ($("identity-form"));
  const input = /** @type {HTMLInputElement} */ ($("name-input"));
  const swatches = $("color-swatches");
  const chosen = identity ? identity.color : validColor(null);
  swatches.querySelectorAll("label").forEach((l) => l.remove());
  for (const c of PALETTE) {
    const label = document.createElement("label");
    label.className = "swatch";
    label.style.setProperty("--swatch", c);
    const radio = document.createElement("input");
    radio.type = "radio";
    radio.name = "color";
    radio.value = c;
    radio.checked = c === chosen;
    const text = document.createElement("span");
    text.className = "sr-only";
    text.textContent = c;
    label.append(radio, text);
    swatches.append(label);
  }
  if (!PALETTE.includes(chosen)) /** @type {HTMLInputElement} */ (swatches.querySelector("input")).checked = true;
  input.value = identity ? identity.name : "";
  // This ask's listeners last until the dialog closes (saved or cancelled), so asking again
  // never adds a second pair.
  asking?.abort();
  const ask = new AbortController();
  asking = ask;
  const signal = ask.signal;
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    const name = clampName(input.value);
    if (!name) return;
    const data = new FormData(form);
    identity = { name, color: validColor(String(data.get("color") || "")) };
    saveIdentity(identity);
    ask.abort();
    dialog.close();
    updateIdentityButton();
    done();
  }, { signal });
  dialog.addEventListener("cancel", (e) => {
    if (!identity) e.preventDefault();
  }, { signal });
  dialog.addEventListener("close", () => ask.abort(), { signal });
  dialog.showModal();
  input.focus();
}

function updateIdentityButton() {
  const b = /** @type {HTMLButtonElement} */ ($("identity-button"));
  const shown = shownIdentity();
  b.textContent = shown ? shown.name : "Set your name";
  if (shown) b.style.setProperty("--peer", shown.color);
  // A name from the link is the one the others see: there is nothing to change here.
  b.disabled = linkIdentity !== null;
  b.title = linkIdentity ? "Your name comes from the link you opened" : "Change your name and colour";
}

$("identity-button").addEventListener("click", () =>
  askIdentity(() => {
    // A new name or colour: rejoin so that everyone sees it.
    if (session) {
      session.dispose();
      session = null;
    }
    route();
  }),
);

$("new-board-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const input = /** @type {HTMLInputElement} */ ($("new-board-name"));
  const wanted = input.value.trim();
  const room = ROOM_RE.test(wanted) ? wanted : "b-" + randomHex(5);
  input.value = "";
  location.hash = `#/b/${encodeURIComponent(room)}`;
});

window.addEventListener("hashchange", route);
updateIdentityButton();
route();
