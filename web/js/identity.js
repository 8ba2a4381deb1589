// @ts-check
/**
 * Who this browser is: a display name and a colour, asked once and remembered in localStorage,
 * and a client id that is stable for this page load (op ids are "<client>:<n>", so a fresh page
 * must never reuse an old client id with a restarted counter).
 */

const NAME_KEY = "reorder.name";
const COLOR_KEY = "reorder.color";

/** Colours offered in the picker; readable on white with white text on top. */
export const PALETTE = ["#d9480f", "#2b8a3e", "#1971c2", "#9c36b5", "#c2255c", "#0b7285", "#e67700", "#5f3dc4"];

/**
 * @typedef {{ name: string, color: string }} Identity
 */

/** @returns {Identity | null} the remembered identity, or null when none was chosen yet. */
export function loadIdentity() {
  try {
    const name = localStorage.getItem(NAME_KEY);
    const color = localStorage.getItem(COLOR_KEY);
    if (name && name.trim()) return { name: clampName(name), color: validColor(color) };
  } catch {
    // localStorage can be unavailable (privacy modes); fall through.
  }
  return null;
}

/** @param {Identity} identity */
export function saveIdentity(identity) {
  try {
    localStorage.setItem(NAME_KEY, identity.name);
    localStorage.setItem(COLOR_KEY, identity.color);
  } catch {
    // Not remembered, but still used for this page.
  }
}

/**
 * A display name the server accepts: trimmed, at most 64 UTF-8 bytes, no control characters.
 * @param {string} name @returns {string}
 */
export function clampName(name) {
  let chars = Array.from(name.replace(/[\u0000-\u001f\u007f]/g, " ").trim());
  const encoder = new TextEncoder();
  while (chars.length && encoder.encode(chars.join("")).length > 64) chars = chars.slice(0, -1);
  return chars.join("").trim();
}

/** @param {string | null} color @returns {string} */
export function validColor(color) {
  return color && /^#[0-9a-fA-F]{6}$/.test(color) ? color : PALETTE[Math.floor(Math.random() * PALETTE.length)];
}

/** @param {number} bytes @returns {string} lowercase hex of `bytes` random bytes. */
export function randomHex(bytes) {
  const a = new Uint8Array(bytes);
  crypto.getRandomValues(a);
  return Array.from(a, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** A client id for this page load. */
export const CLIENT_ID = "c" + randomHex(6);
