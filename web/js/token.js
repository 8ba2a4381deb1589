// @ts-check
/**
 * Room tokens on the page: a share link carries one in its fragment (`#/b/<room>?token=…`, as
 * `reorder token --url` prints it; a fragment never reaches a server, so the token stays out of
 * access logs). The page keeps it per room in `sessionStorage` (this tab only, gone with it),
 * takes it out of the address bar at once (so it is not bookmarked, copied or shown over a
 * shoulder), and sends it in every `hello` to that room.
 */

const KEY_PREFIX = "reorder.token.";

/** @param {string} room @returns {string} the sessionStorage key of a room's token */
export function tokenKey(room) {
  return KEY_PREFIX + room;
}

/** @param {string} room @returns {string | null} the token this tab keeps for `room` */
export function storedToken(room) {
  try {
    return sessionStorage.getItem(tokenKey(room)) || null;
  } catch {
    return null;
  }
}

/** Keeps (or, with null, forgets) the token for `room`. @param {string} room @param {string | null} token */
export function storeToken(room, token) {
  try {
    if (token) sessionStorage.setItem(tokenKey(room), token);
    else sessionStorage.removeItem(tokenKey(room));
  } catch {
    // Storage can be unavailable (privacy modes): the token then lasts for this page only,
    // through the session that was given it.
  }
}

/**
 * Takes the token out of a board link in the address bar: stores it for `room` and replaces
 * the URL with the same one without `?token=…` (replaceState: no history entry, no
 * `hashchange`). Other fragment parameters are kept.
 * @param {string | null} room the room the fragment names (null: a link to no valid board, whose
 *   token is only removed)
 * @returns {string | null} the token the link carried, if any
 */
export function takeTokenFromLocation(room) {
  const hash = location.hash;
  const q = hash.indexOf("?");
  if (q < 0) return null;
  const params = new URLSearchParams(hash.slice(q + 1));
  const token = params.get("token");
  if (token === null) return null;
  params.delete("token");
  const rest = params.toString();
  const cleaned = hash.slice(0, q) + (rest ? "?" + rest : "");
  history.replaceState(history.state, "", location.pathname + location.search + cleaned);
  if (!token || room === null) return null;
  storeToken(room, token);
  return token;
}

/**
 * The claims of a token as the page reads them, to know who the link says this person is and
 * until when (`name`, `color`, `exp`). The page does not check the signature: the server does,
 * and refuses a token that is not valid; a token the page cannot read gives null.
 * @param {string | null} token @returns {Record<string, unknown> | null}
 */
export function tokenClaims(token) {
  if (!token) return null;
  const part = token.split(".")[1];
  if (!part || !/^[A-Za-z0-9_-]+$/.test(part)) return null;
  try {
    const binary = atob(part.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (part.length % 4)) % 4));
    const text = new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
    const claims = JSON.parse(text);
    return claims && typeof claims === "object" && !Array.isArray(claims) ? claims : null;
  } catch {
    return null;
  }
}

/**
 * Who a token names, by the rules the server applies to its `name` and `color` claims (docs/AUTH.md):
 * a `name` of 1–64 bytes, a `color` of 1–32 bytes of `A-Z a-z 0-9 # ( ) , . % -` and spaces. The
 * others see these instead of what `hello` says, so the page shows them too and does not ask.
 * @param {string | null} token @returns {{ name: string | null, color: string | null }}
 */
export function tokenIdentity(token) {
  const claims = tokenClaims(token);
  const bytes = (/** @type {string} */ s) => new TextEncoder().encode(s).length;
  const name = claims && typeof claims.name === "string" && claims.name && bytes(claims.name) <= 64 ? claims.name : null;
  const color =
    claims && typeof claims.color === "string" && /^[A-Za-z0-9#(),.% -]{1,32}$/.test(claims.color) ? claims.color : null;
  return { name, color };
}
