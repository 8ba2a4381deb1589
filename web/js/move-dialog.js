// @ts-check
/**
 * "Move to…": move an item to a chosen collection and 1-based position without dragging, or
 * (for a food) assign it to a person.
 */

/**
 * @typedef {object} MoveActions
 * @property {(item: string, list: string, after: string | null, before: string | null) => void} move
 * @property {(item: string, target: string) => void} assign
 * @property {(text: string) => void} announce
 * @property {(item: string) => string} describe "position i of n in List", where the item shows
 */
/** @typedef {import("./scope.js").Scope} Scope */

export class MoveDialog {
  /**
   * @param {import("./reorder-client/model.js").BoardModel} model
   * @param {import("./view.js").BoardView} view
   * @param {MoveActions} actions
   * @param {Scope} scope the board session: its listeners end with it (and close the dialog)
   */
  constructor(model, view, actions, scope) {
    this.model = model;
    this.view = view;
    this.actions = actions;
    this.dialog = /** @type {HTMLDialogElement} */ (document.getElementById("move-dialog"));
    this.form = /** @type {HTMLFormElement} */ (document.getElementById("move-form"));
    this.select = /** @type {HTMLSelectElement} */ (document.getElementById("move-list"));
    this.position = /** @type {HTMLInputElement} */ (document.getElementById("move-position"));
    this.title = /** @type {HTMLElement} */ (document.getElementById("move-title"));
    /** @type {string | null} */
    this.item = null;
    const signal = scope.signal;
    this.select.addEventListener("change", () => this.syncPosition(false), { signal });
    this.form.addEventListener("submit", (e) => {
      e.preventDefault();
      this.submit();
    }, { signal });
    document.getElementById("move-cancel")?.addEventListener("click", () => this.dialog.close(), { signal });
    this.dialog.addEventListener("close", () => {
      const el = this.item ? this.view.revealItem(this.item) : null;
      if (el) this.view.focusItem(el);
      this.item = null;
    }, { signal });
    // The dialog belongs to the board: leaving the board (e.g. Back while it is open) closes it.
    signal.addEventListener("abort", () => {
      this.item = null;
      if (this.dialog.open) this.dialog.close();
    }, { once: true });
  }

  /** @param {string} item */
  open(item) {
    const at = this.model.where(item);
    if (!at) return;
    this.item = item;
    const food = this.model.item(item)?.fields.role === "food";
    const options = [];
    for (const list of this.model.view.lists) {
      const people = list.items.length > 0 && list.items.every((id) => this.model.item(id)?.fields.role === "person");
      if (food && people) {
        for (const id of list.items) options.push(new Option(`Assign to ${this.model.label(id)}`, "assign:" + id));
      } else {
        options.push(new Option(list.title, "list:" + list.id));
      }
    }
    this.select.replaceChildren(...options);
    this.select.value = "list:" + at.list.id;
    this.title.textContent = `Move ${this.model.label(item)} to…`;
    this.syncPosition(true);
    this.dialog.showModal();
    this.select.focus();
  }

  /** @private @param {boolean} current */
  syncPosition(current) {
    const value = this.select.value;
    const isList = value.startsWith("list:");
    this.position.disabled = !isList;
    if (!isList || !this.item) return;
    const list = this.model.list(value.slice(5));
    if (!list) return;
    const others = list.items.filter((id) => id !== this.item).length;
    this.position.max = String(others + 1);
    const at = this.model.where(this.item);
    this.position.value = String(current && at && at.list.id === list.id ? at.index + 1 : others + 1);
  }

  /** @private */
  submit() {
    const item = this.item;
    const value = this.select.value;
    this.dialog.close();
    if (!item || !this.model.item(item)) return;
    if (value.startsWith("assign:")) {
      const target = value.slice(7);
      this.actions.assign(item, target);
      this.actions.announce(`Assigned ${this.model.label(item)} to ${this.model.label(target)}.`);
      return;
    }
    const list = this.model.list(value.slice(5));
    if (!list) return;
    const others = list.items.filter((id) => id !== item);
    const p = Math.max(1, Math.min(others.length + 1, Math.floor(Number(this.position.value) || 1)));
    const at = this.model.where(item);
    if (at && at.list.id === list.id && at.index === p - 1) return;
    this.actions.move(item, list.id, others[p - 2] ?? null, others[p - 1] ?? null);
    this.actions.announce(`Moved ${this.model.label(item)}. ${this.actions.describe(item)}.`);
  }
}
