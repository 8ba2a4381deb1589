// @ts-check
/** Screen reader announcements through one polite aria-live region, and visible toasts. */

/** @param {string} text */
export function announce(text) {
  const region = document.getElementById("live");
  if (!region) return;
  // Re-setting the same text is not re-read by some screen readers: clear first.
  region.textContent = "";
  window.setTimeout(() => {
    region.textContent = text;
  }, 30);
  region.dataset.last = text;
}

/**
 * Shows a short message (e.g. a rolled-back move) for a few seconds.
 * @param {string} text @param {"info" | "error"} [kind]
 */
export function toast(text, kind = "info") {
  const box = document.getElementById("toasts");
  if (!box) return;
  const el = document.createElement("div");
  el.className = `toast toast-${kind}`;
  el.textContent = text;
  box.append(el);
  window.setTimeout(() => el.remove(), 5000);
}
