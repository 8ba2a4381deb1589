// @ts-check
/**
 * Swipe to delete (seed 002), touch only: a touch on a list row that moves mostly sideways
 * follows the finger; on release it deletes if the horizontal speed over the last 100 ms is above
 * 500 px/s, beats the vertical one and goes the way the row moved; otherwise it snaps back.
 */
import { reducedMotion } from "./motion.js";

const SWIPE_SPEED = 500;
const SAMPLE_WINDOW_MS = 100;

/**
 * @typedef {{ t: number, x: number, y: number }} Sample
 * @typedef {{ pointerId: number, el: HTMLElement, item: string, x0: number, dx: number, samples: Sample[] }} Swipe
 */

/** Records a pointer position, keeping the last 100 ms. @param {Sample[]} samples @param {PointerEvent} e */
export function pushSample(samples, e) {
  samples.push({ t: e.timeStamp, x: e.clientX, y: e.clientY });
  while (samples.length > 2 && samples[samples.length - 1].t - samples[0].t > SAMPLE_WINDOW_MS) samples.shift();
}

/** Velocity in px/s over the recent samples. @param {Sample[]} samples */
function velocity(samples) {
  if (samples.length < 2) return { x: 0, y: 0 };
  const a = samples[0];
  const b = samples[samples.length - 1];
  const dt = Math.max(1, b.t - a.t) / 1000;
  return { x: (b.x - a.x) / dt, y: (b.y - a.y) / dt };
}

/**
 * Starts swiping the row a touch pressed (`p`: the pending press of the drag controller).
 * @param {{ pointerId: number, el: HTMLElement, item: string, x0: number, x: number, samples: Sample[] }} p
 * @returns {Swipe}
 */
export function startSwipe(p) {
  const swipe = { pointerId: p.pointerId, el: p.el, item: p.item, x0: p.x0, dx: p.x - p.x0, samples: p.samples };
  p.el.classList.add("swiping");
  p.el.style.transform = `translateX(${swipe.dx}px)`;
  return swipe;
}

/** The row follows the finger. @param {Swipe} s @param {PointerEvent} e */
export function followSwipe(s, e) {
  pushSample(s.samples, e);
  s.dx = e.clientX - s.x0;
  s.el.style.transform = `translateX(${s.dx}px)`;
}

/** @param {Swipe} s @returns {boolean} whether the swipe, as it ends, deletes its row */
export function isDeletingSwipe(s) {
  const v = velocity(s.samples);
  return Math.abs(v.x) > SWIPE_SPEED && Math.abs(v.x) > Math.abs(v.y) && Math.sign(v.x) === Math.sign(s.dx);
}

/**
 * Ends a swipe: with `remove`, calls `onRemove` and lets the row fly out; else it snaps back.
 * @param {Swipe} s @param {boolean} remove @param {() => void} onRemove
 */
export function endSwipe(s, remove, onRemove) {
  const el = s.el;
  const from = `translateX(${s.dx}px)`;
  el.style.transform = "";
  el.classList.remove("swiping");
  if (remove) {
    const to = `translateX(${Math.sign(s.dx || 1) * el.offsetWidth}px)`;
    onRemove();
    if (el.isConnected && !reducedMotion()) el.animate([{ transform: from }, { transform: to, opacity: 0 }], { duration: 160, easing: "ease-in" });
    return;
  }
  if (!reducedMotion()) el.animate([{ transform: from }, { transform: "none" }], { duration: 200, easing: "ease-out" });
}
