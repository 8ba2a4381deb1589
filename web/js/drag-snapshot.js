// @ts-check
/**
 * What a pointer drag shows: the lifted snapshot (a copy of the item that follows the pointer,
 * scaled 1.05 with a shadow by CSS; a food's is its picture only, seed 004) and its flight back
 * when the drag ends. The placeholder (the source element, dimmed) is the view's held item
 * (drag-target.js moves it; the items it passes slide out of its way, FLIP in view.js).
 */
import { reducedMotion } from "./motion.js";

/**
 * Makes the snapshot of `el` lifted at client point (x, y) and adds it to the page.
 * @param {HTMLElement} el @param {number} x @param {number} y
 * @returns {{ snapshot: HTMLElement, offX: number, offY: number }} the snapshot, and where the
 *   pointer holds it (from its top left corner)
 */
export function liftSnapshot(el, x, y) {
  const rect = el.getBoundingClientRect();
  const snapshot = /** @type {HTMLElement} */ (el.cloneNode(true));
  snapshot.removeAttribute("data-item");
  snapshot.removeAttribute("tabindex");
  snapshot.removeAttribute("aria-label");
  snapshot.classList.add("drag-snapshot");
  snapshot.classList.remove("held", "placeholder");
  snapshot.setAttribute("aria-hidden", "true");
  let w = rect.width;
  let h = rect.height;
  let offX = x - rect.left;
  let offY = y - rect.top;
  if (el.dataset.role === "food") {
    // The preview of a food is its picture only (seed 004).
    snapshot.classList.add("image-only");
    const visual = el.querySelector(".item-visual");
    snapshot.replaceChildren(visual ? visual.cloneNode(true) : "");
    w = h = 64;
    offX = offY = 32;
  }
  snapshot.style.width = `${w}px`;
  snapshot.style.height = `${h}px`;
  document.body.append(snapshot);
  return { snapshot, offX, offY };
}

/**
 * Flies the snapshot to where the item landed (or shrinks it into an assign target), then
 * removes it; at once under reduced motion or when the item is gone.
 * @param {HTMLElement} snapshot @param {HTMLElement} target the item's element
 * @param {HTMLElement | null} into an assign target the preview shrinks into
 */
export function dropSnapshot(snapshot, target, into) {
  if (reducedMotion() || !target.isConnected) {
    snapshot.remove();
    return;
  }
  let end;
  if (into && into.isConnected) {
    const r = into.getBoundingClientRect();
    const w = snapshot.offsetWidth;
    const h = snapshot.offsetHeight;
    end = `translate3d(${r.left + r.width / 2 - w / 2}px, ${r.top + r.height / 2 - h / 2}px, 0) scale(0.4)`;
  } else {
    const to = target.getBoundingClientRect();
    end = `translate3d(${to.left}px, ${to.top}px, 0) scale(1)`;
  }
  const anim = snapshot.animate([{ opacity: 0.98 }, { transform: end, opacity: 0 }], { duration: 140, easing: "ease-out" });
  anim.onfinish = () => snapshot.remove();
  anim.oncancel = () => snapshot.remove();
}
