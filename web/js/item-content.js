// @ts-check
/** What an item's element shows (view.js keeps the element and calls these when it changes). */

/** @typedef {import("./reorder-client/model.js").BoardModel} BoardModel */

/** @param {unknown} n @returns {string} an amount; anything but a finite number shows as $0. */
export function money(n) {
  if (typeof n !== "number" || !Number.isFinite(n)) return "$0";
  return "$" + (Number.isInteger(n) ? String(n) : n.toFixed(2));
}

/**
 * What an item shows, as a string: its element is filled again only when this changes.
 * @param {BoardModel} model @param {string} id @returns {string}
 */
export function itemSignature(model, id) {
  const item = model.item(id);
  if (!item) return "";
  if (item.fields.role !== "person") return JSON.stringify(item.fields);
  const t = model.totalsOf(id);
  const as = model.assignmentsOf(id).map((a) => a.id + "=" + a.item + "/" + model.label(a.item));
  return JSON.stringify([item.fields, t, as]);
}

/**
 * Fills an item's element: picture or emoji, title, price, a person's totals and assignment
 * chips, its accessible name, and its ⋯ (Move to…) and × buttons.
 * @param {BoardModel} model @param {HTMLElement} el @param {string} id
 */
export function fillItem(model, el, id) {
  const item = model.item(id);
  if (!item) return;
  const f = item.fields;
  const title = String(f.title ?? f.name ?? id);
  el.dataset.role = String(f.role ?? "");
  el.replaceChildren();

  const visual = document.createElement("span");
  visual.className = "item-visual";
  const hasVisual = (typeof f.image === "string" && f.image !== "") || (typeof f.emoji === "string" && f.emoji !== "");
  el.classList.toggle("no-visual", !hasVisual);
  if (typeof f.image === "string" && f.image) {
    const img = document.createElement("img");
    img.src = f.image;
    img.alt = "";
    img.draggable = false;
    visual.append(img);
  } else if (hasVisual) {
    visual.textContent = String(f.emoji);
  }

  const body = document.createElement("span");
  body.className = "item-body";
  const t = document.createElement("span");
  t.className = "item-title";
  t.textContent = title;
  body.append(t);
  if (typeof f.price === "number") {
    const p = document.createElement("span");
    p.className = "item-price";
    p.textContent = money(f.price);
    body.append(p);
  }
  let label = title;
  if (f.role === "person") {
    const totals = model.totalsOf(id);
    el.dataset.total = String(totals.sum);
    el.dataset.count = String(totals.count);
    const line = document.createElement("span");
    line.className = "item-totals";
    line.textContent = `${money(totals.sum)} · ${totals.count} ${totals.count === 1 ? "item" : "items"}`;
    body.append(line);
    label = `${title}, ${money(totals.sum)}, ${totals.count} ${totals.count === 1 ? "item" : "items"}`;
    const chips = document.createElement("span");
    chips.className = "chips";
    for (const a of model.assignmentsOf(id)) {
      const chip = document.createElement("span");
      chip.className = "chip";
      chip.dataset.assignment = a.id;
      chip.dataset.assignedItem = a.item;
      const food = model.item(a.item)?.fields;
      const emoji = document.createElement("span");
      emoji.className = "chip-emoji";
      emoji.textContent = String(food?.emoji ?? "");
      const name = document.createElement("span");
      name.className = "chip-title";
      name.textContent = model.label(a.item);
      chip.title = model.label(a.item);
      chip.append(emoji, name);
      const x = document.createElement("button");
      x.type = "button";
      x.className = "chip-remove";
      x.dataset.unassign = a.id;
      x.disabled = Boolean(a.pending);
      x.setAttribute("aria-label", `Unassign ${model.label(a.item)} from ${title}`);
      x.textContent = "×";
      chip.append(x);
      chips.append(chip);
    }
    body.append(chips);
  } else {
    delete el.dataset.total;
    delete el.dataset.count;
  }
  el.setAttribute("aria-label", label);

  const move = document.createElement("button");
  move.type = "button";
  move.className = "item-move";
  move.tabIndex = -1;
  move.dataset.moveItem = id;
  move.setAttribute("aria-label", `Move ${title} to…`);
  move.textContent = "⋯";
  const remove = document.createElement("button");
  remove.type = "button";
  remove.className = "item-remove";
  remove.dataset.removeItem = id;
  remove.setAttribute("aria-label", `Remove ${title}`);
  remove.textContent = "×";
  if (hasVisual) el.append(visual, body, move, remove);
  else el.append(body, move, remove);
}
