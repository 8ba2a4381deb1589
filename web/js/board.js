// @ts-check
/**
 * One open board: wires the connection, the model, the view, the drag and keyboard controllers,
 * presence and undo together, and owns the board's toolbar and dialogs.
 *
 * A session ends with `dispose`: its `Scope` removes every listener it added (to the shared board
 * elements, the toolbar, the dialogs, `window`, its sockets) and clears its timers and animation
 * frames, so a board that was left never reacts again.
 *
 * What the page may do follows `Access` (access.js): a viewer, or a page whose link was refused,
 * sends no op at all — every gesture that would change the board (drag, swipe, keyboard lift,
 * Move to…, edit, add, delete, unassign, undo / redo) is off and its controls are hidden, and a
 * role changed by `refreshed` applies at once.
 */
import { Connection } from "./connection.js";
import { BoardModel } from "./model.js";
import { BoardView } from "./view.js";
import { DragController } from "./drag.js";
import { KeyboardController } from "./keyboard.js";
import { Presence } from "./presence.js";
import { UndoStack, anchorsFor } from "./undo.js";
import { announce, toast } from "./announce.js";
import { CLIENT_ID, randomHex } from "./identity.js";
import { MoveDialog } from "./move-dialog.js";
import { DragPacer, presenceIntervalOf } from "./drag-pacer.js";
import { Scope } from "./scope.js";
import { Access } from "./access.js";

/** The editing controls of the toolbar: hidden while the page may not change the board. */
const EDIT_CONTROLS = ["undo-button", "redo-button", "move-button", "edit-button", "add-item-button", "add-list-button"];
/** The board's dialogs that change it: closed when the page becomes read-only. */
const EDIT_DIALOGS = ["move-dialog", "add-item-dialog", "add-list-dialog"];
const VIEW_ONLY_HELP = "View only: this link shows the board live, it cannot change it.";

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

export class BoardSession {
  /**
   * @param {string} room
   * @param {() => {name: string, color: string}} identity
   */
  constructor(room, identity) {
    this.room = room;
    this.identity = identity;
    this.opCounter = 0;
    /** @type {Map<string, string>} op id → assignment id made by our assign ops */
    this.assignmentsByOp = new Map();
    this.editing = false;
    /** @type {string | null} */
    this.lastFocused = null;
    this.scope = new Scope();
    const scope = this.scope;
    this.access = new Access({
      room,
      scope,
      connection: () => this.connection,
      onRole: (role, previous) => {
        this.applyAccess();
        if (role === "viewer" && previous !== "viewer") announce("View only: you can follow the board but not change it.");
        else if (previous === "viewer") announce("You can edit this board now.");
      },
      onRefused: () => this.applyAccess(),
    });

    this.root = $("board-lists");
    this.model = new BoardModel();
    this.view = new BoardView(this.root, this.model);
    this.presence = new Presence(this.view, this.model, $("ghosts"), $("peers"), scope);
    this.pacer = new DragPacer((msg) => this.connection.sendDrag(msg), scope);

    const describe = (/** @type {string} */ item, /** @type {string} */ list) => this.describe(item, list);
    this.drag = new DragController(this.root, this.view, this.model, {
      move: (item, list, after, before) => this.moveIntent(item, list, after, before),
      assign: (item, target) => this.assign(item, target),
      remove: (item) => this.remove(item),
      announce,
      presence: (msg) => this.pacer.push(msg),
      describe,
    }, scope);
    this.keyboard = new KeyboardController(this.root, this.view, this.model, {
      move: (item, list, after, before) => this.moveIntent(item, list, after, before),
      remove: (item) => this.remove(item),
      openMoveTo: (item) => this.openMoveTo(item),
      announce,
      presence: (msg) => this.pacer.push(msg),
      describe,
      editing: () => this.editing,
    }, scope);
    this.drag.busy = () => this.keyboard.active;
    this.keyboard.busy = () => this.drag.active;
    this.drag.locked = () => !this.access.canEdit;
    this.keyboard.locked = () => !this.access.canEdit;
    this.view.afterRender = () => {
      this.drag.afterRender();
      this.keyboard.afterRender();
      this.presence.refreshHeld();
      $("board-empty").hidden = !this.model.loaded || this.model.view.lists.length > 0;
    };
    this.undo = new UndoStack({
      send: (op) => this.propose(op),
      assignmentFor: (opId) => this.assignmentsByOp.get(opId),
      model: this.model,
      say: (text) => announce(text),
    });
    this.undo.onChange = () => {
      /** @type {HTMLButtonElement} */ ($("undo-button")).disabled = !this.undo.canUndo;
      /** @type {HTMLButtonElement} */ ($("redo-button")).disabled = !this.undo.canRedo;
    };
    this.moveDialog = new MoveDialog(this.model, this.view, {
      move: (item, list, after, before) => this.moveIntent(item, list, after, before),
      assign: (item, target) => this.assign(item, target),
      announce,
      describe,
    }, scope);

    this.model.subscribe((change) => {
      if (change.type === "applied" && change.mine && change.msg.op?.kind === "assign") {
        this.assignmentsByOp.set(change.mine.id, change.msg.op.assignment);
      }
      if (change.type === "rejected") {
        const what = describeOp(this.model, change.mine?.op);
        const why = change.msg.code === "read_only" ? "this link is view only" : change.msg.message || change.msg.code || "rejected";
        toast(`Could not ${what}: ${why}. It was undone.`, "error");
        announce(`Could not ${what}. It was undone.`);
      }
      this.view.render();
      document.body.dataset.pending = String(this.model.pending.length);
    });

    this.connection = new Connection({
      room,
      client: CLIENT_ID,
      identity,
      getSince: () => this.model.seq,
      getEpoch: () => this.model.epoch,
      pendingOps: () => this.model.pending,
      token: () => this.access.token(),
      mayResend: () => this.access.canEdit,
      onRefused: (code, reason) => this.access.refuse(code, reason),
      onMessage: (msg) => this.onMessage(msg),
      onState: (state, detail) => {
        $("conn-status").textContent = state === "open" ? "Online" : state === "connecting" ? "Connecting…" : `Offline — ${detail}`;
        if (state !== "open") {
          this.presence.reset();
          if (this.drag.active) this.drag.cancel("connection lost");
          this.pacer.clear();
        }
      },
      scope,
    });
    this.model.onGap = () => this.connection.retryNow();
    this.dragHelp = $("drag-help").textContent ?? "";
    this.bindToolbar();
    this.applyAccess();
    this.connection.start();
  }

  /** Leaves the board, disposing of every listener, timer and frame of this session. */
  dispose() {
    if (this.scope.disposed) return;
    if (this.drag.active) this.drag.cancel("leaving");
    if (this.keyboard.active) this.keyboard.cancel();
    this.connection.stop();
    this.presence.reset();
    this.scope.dispose();
    this.root.replaceChildren();
    this.setEditing(false);
    this.applyAccess();
  }

  /** A link for this board was opened in this tab: use its token (see `Access.linkChanged`). */
  linkChanged() {
    if (!this.scope.disposed) this.access.linkChanged();
  }

  /**
   * Shows the board as the page's rights allow: with every editing control, or read-only (a
   * viewer, a refused link) with none and a gesture in progress cancelled. A left board puts
   * every control back for the next one.
   */
  applyAccess() {
    const editable = this.scope.disposed || this.access.canEdit;
    document.body.classList.toggle("read-only", !editable);
    if (!editable) {
      if (this.drag.active) this.drag.cancel("view only");
      if (this.keyboard.active) this.keyboard.cancel();
      if (this.editing) this.setEditing(false);
      for (const id of EDIT_DIALOGS) {
        const dialog = /** @type {HTMLDialogElement} */ ($(id));
        if (dialog.open) dialog.close();
      }
    }
    for (const id of EDIT_CONTROLS) {
      $(id).hidden = !editable;
      if (!editable) $(id).setAttribute("aria-disabled", "true");
      else $(id).removeAttribute("aria-disabled");
    }
    this.view.setReadOnly(!editable);
    $("board-hint").hidden = !editable;
    $("drag-help").textContent = editable ? this.dragHelp : VIEW_ONLY_HELP;
  }

  /** @private @returns {boolean} true (after saying so) when the page may not change the board */
  denied() {
    if (this.access.canEdit) return false;
    announce(this.access.refused ? "This link no longer works: the board cannot be changed." : "View only: this board cannot be changed from this link.");
    return true;
  }

  // Messages ------------------------------------------------------------------------------------

  /** @private @param {any} msg */
  onMessage(msg) {
    switch (msg.type) {
      case "welcome":
        this.access.welcome(msg);
        if (!this.model.welcome(msg)) {
          // A catch-up from another history: ask again without `since` (a full board follows).
          this.connection.retryNow();
          break;
        }
        // Intents made before a viewer's welcome were never sent, and will not be.
        if (!this.access.canEdit) {
          for (const p of [...this.model.pending]) this.model.rejected({ type: "rejected", id: p.id, code: "read_only" });
        }
        this.presence.welcome(msg, this.identity());
        this.pacer.follow(presenceIntervalOf(msg));
        this.view.render({ animate: false });
        break;
      case "applied":
        this.model.applied(msg);
        break;
      case "rejected":
        if (msg.code === "rate_limited" || msg.code === "unavailable") {
          // Not a refusal (too fast, or the cluster's shared log unreachable): the op is kept and
          // re-sent a little later.
          const p = this.model.pending.find((x) => x.id === msg.id);
          if (p) this.scope.timeout(() => this.connection.sendOp(p.id, p.op), 1000);
          break;
        }
        this.model.rejected(msg);
        // The server holds this page for a viewer, whatever the page believed.
        if (msg.code === "read_only") this.access.readOnly();
        break;
      case "token_expiring":
        this.access.expiring(msg);
        break;
      case "refreshed":
        this.access.refreshed(msg);
        break;
      case "drags":
        this.presence.drags(msg);
        break;
      case "peer":
        this.presence.peer(msg);
        break;
      case "peers": {
        this.presence.peersChanged(msg);
        // The room's interval changed: follow it (a frame without the member keeps the current one).
        const interval = presenceIntervalOf(msg);
        if (interval !== null) this.pacer.follow(interval);
        break;
      }
      case "error":
        console.warn("reorder: server error", msg.code, msg.message);
        if (this.access.error(msg)) break;
        if (!this.connection.ready || /room|full|limit/i.test(String(msg.code))) {
          toast(`The server said: ${String(msg.message || msg.code)}`, "error");
        }
        break;
      default:
        break;
    }
  }

  // Intents -------------------------------------------------------------------------------------

  /** Sends an intent: applied at once in the view, re-sent until acknowledged. @param {any} op @returns {string} */
  propose(op) {
    // A backstop: every gesture checks first, but no path may send an op the page may not.
    if (!this.access.canEdit) return "";
    const id = `${CLIENT_ID}:${++this.opCounter}`;
    this.model.propose(id, op);
    this.connection.sendOp(id, op);
    return id;
  }

  /**
   * A move from a gesture (drag, keyboard, Move to…): one undo step.
   * @param {string} item @param {string} list @param {string | null} after @param {string | null} before
   */
  moveIntent(item, list, after, before) {
    if (this.denied()) return;
    const at = this.model.where(item);
    if (!at) return;
    const from = {
      list: at.list.id,
      after: at.index > 0 ? at.list.items[at.index - 1] : null,
      before: at.list.items[at.index + 1] ?? null,
      index: at.index,
    };
    /** @type {any} */
    const op = { kind: "move", item, list };
    if (after) op.after = after;
    else if (before) op.before = before;
    this.propose(op);
    const now = this.model.where(item);
    const to = { list, after, before, index: now ? now.index : 0 };
    this.undo.record({ type: "move", item, from, to });
  }

  /** @param {string} item @param {string} target */
  assign(item, target) {
    if (this.denied()) return;
    const opId = this.propose({ kind: "assign", item, target });
    this.undo.record({ type: "assign", item, target, opId });
  }

  /** @param {string} assignment */
  unassign(assignment) {
    if (this.denied()) return;
    const a = this.model.view.assignments.get(assignment);
    if (!a || a.pending) return;
    this.propose({ kind: "unassign", assignment });
    this.undo.record({ type: "unassign", item: a.item, target: a.target, assignment });
    announce(`Unassigned ${this.model.label(a.item)} from ${this.model.label(a.target)}.`);
  }

  /** @param {string} item */
  remove(item) {
    if (this.denied() || !this.model.item(item)) return;
    const label = this.model.label(item);
    this.propose({ kind: "delete", item });
    this.undo.record({ type: "delete", item });
    announce(`Removed ${label}.`);
    toast(`Removed ${label}. Undo with Ctrl+Z.`);
  }

  /** "position i of n in List", from what is on screen. @param {string} item @param {string} list */
  describe(item, list) {
    const el = this.view.itemEl(item);
    const ul = this.view.listEl(list);
    const title = this.model.list(list)?.title ?? list;
    if (!el || !ul || el.parentElement !== ul) {
      const at = this.model.where(item);
      if (!at) return `not on the board`;
      return `Position ${at.index + 1} of ${at.list.items.length} in ${at.list.title}`;
    }
    const i = Array.prototype.indexOf.call(ul.children, el);
    return `Position ${i + 1} of ${ul.children.length} in ${title}`;
  }

  // Toolbar, edit mode, dialogs -------------------------------------------------------------------

  /** @param {boolean} on */
  setEditing(on) {
    if (on && this.denied()) return;
    this.editing = on;
    document.body.classList.toggle("editing", on);
    $("edit-button").hidden = on;
    $("edit-button").setAttribute("aria-pressed", String(on));
    $("done-button").hidden = !on;
    if (on) announce("Edit mode. Press × on an item to remove it, Done or Escape to finish.");
  }

  /** @private */
  bindToolbar() {
    const signal = this.scope.signal;
    /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn */
    const on = (target, type, fn) => target.addEventListener(type, fn, { signal });
    on($("undo-button"), "click", () => this.denied() || this.undo.undo());
    on($("redo-button"), "click", () => this.denied() || this.undo.redo());
    on($("edit-button"), "click", () => {
      this.setEditing(true);
      $("done-button").focus();
    });
    on($("done-button"), "click", () => this.setEditing(false));
    on($("move-button"), "click", () => {
      const id = this.lastFocused && this.model.item(this.lastFocused) ? this.lastFocused : this.model.view.lists[0]?.items[0];
      if (id) this.openMoveTo(id);
    });
    on($("share-button"), "click", () => {
      const url = location.href;
      navigator.clipboard?.writeText(url).then(() => toast("Link copied."), () => toast(url));
    });
    on($("add-item-button"), "click", () => this.openAddItem());
    on($("add-list-button"), "click", () => this.openAddList());
    on(this.root, "focusin", (e) => {
      const id = /** @type {HTMLElement} */ (e.target).closest?.("[data-item]")?.getAttribute("data-item");
      if (id) this.lastFocused = id;
    });
    on(this.root, "click", (e) => {
      const el = /** @type {HTMLElement} */ (e.target);
      const remove = el.closest("[data-remove-item]");
      if (remove) {
        const id = /** @type {string} */ (remove.getAttribute("data-remove-item"));
        const next = /** @type {HTMLElement | null} */ (remove.closest("[data-item]")?.nextElementSibling ?? null);
        this.remove(id);
        if (next instanceof HTMLElement && next.isConnected) next.querySelector(".item-remove")?.focus?.();
        return;
      }
      const unassign = el.closest("[data-unassign]");
      if (unassign) return this.unassign(/** @type {string} */ (unassign.getAttribute("data-unassign")));
      const move = el.closest("[data-move-item]");
      if (move) return this.openMoveTo(/** @type {string} */ (move.getAttribute("data-move-item")));
    });
    on(window, "keydown", (/** @type {KeyboardEvent} */ e) => {
      const target = /** @type {HTMLElement} */ (e.target);
      if (target.closest?.("input, textarea, select, dialog")) return;
      const mod = e.ctrlKey || e.metaKey;
      const key = e.key.toLowerCase();
      if (mod && key === "z") {
        e.preventDefault();
        if (this.drag.active || this.keyboard.active || this.denied()) return;
        if (e.shiftKey) this.undo.redo();
        else this.undo.undo();
      } else if (mod && key === "y") {
        e.preventDefault();
        if (!this.denied()) this.undo.redo();
      } else if (e.key === "Escape" && this.editing && !this.drag.active && !this.keyboard.active) {
        this.setEditing(false);
      }
    });
  }

  /** "Move to…" for `item`. @private @param {string} item */
  openMoveTo(item) {
    if (!this.denied()) this.moveDialog.open(item);
  }

  /** @private */
  openAddItem() {
    if (this.denied()) return;
    const dialog = /** @type {HTMLDialogElement} */ ($("add-item-dialog"));
    const form = /** @type {HTMLFormElement} */ ($("add-item-form"));
    const select = /** @type {HTMLSelectElement} */ ($("add-item-list"));
    if (this.model.view.lists.length === 0) {
      toast("Add a list first.");
      return;
    }
    select.replaceChildren(...this.model.view.lists.map((l) => new Option(l.title, l.id)));
    form.reset();
    showForm(dialog, form, this.scope.signal, (data) => {
      const list = this.model.list(String(data.get("list")));
      if (!list) return;
      const title = String(data.get("title") || "").trim();
      if (!title) return;
      /** @type {Record<string, any>} */
      const fields = { title };
      const emoji = String(data.get("emoji") || "").trim();
      if (emoji) fields.emoji = emoji;
      const item = "i-" + randomHex(6);
      /** @type {any} */
      const op = { kind: "insert", list: list.id, fields, item };
      const last = list.items[list.items.length - 1];
      if (last) op.after = last;
      this.propose(op);
      this.undo.record({ type: "insert", item });
      announce(`Added ${title}.`);
    });
  }

  /** @private */
  openAddList() {
    if (this.denied()) return;
    const dialog = /** @type {HTMLDialogElement} */ ($("add-list-dialog"));
    const form = /** @type {HTMLFormElement} */ ($("add-list-form"));
    form.reset();
    showForm(dialog, form, this.scope.signal, (data) => {
      const title = String(data.get("title") || "").trim();
      if (!title) return;
      /** @type {any} */
      const op = { kind: "createList", list: "l-" + randomHex(6), title, layout: data.get("layout") === "grid" ? "grid" : "list" };
      const last = this.model.view.lists[this.model.view.lists.length - 1];
      if (last) op.after = last.id;
      this.propose(op);
      announce(`Added the list ${title}.`);
    });
  }
}

/**
 * Shows a form dialog; `onSubmit` gets the form data when it is submitted (not cancelled). Its
 * listeners last until the dialog closes; the end of `session` (leaving the board) closes it.
 * @param {HTMLDialogElement} dialog @param {HTMLFormElement} form @param {AbortSignal} session
 * @param {(data: FormData) => void} onSubmit
 */
export function showForm(dialog, form, session, onSubmit) {
  if (session.aborted) return;
  const shown = new AbortController();
  const signal = shown.signal;
  const close = () => {
    shown.abort();
    if (dialog.open) dialog.close();
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    close();
    onSubmit(new FormData(form));
  }, { signal });
  for (const b of form.querySelectorAll(".dialog-cancel")) b.addEventListener("click", close, { signal });
  dialog.addEventListener("close", () => shown.abort(), { signal });
  session.addEventListener("abort", close, { signal });
  dialog.showModal();
}

/** @param {import("./model.js").BoardModel} model @param {any} op @returns {string} */
function describeOp(model, op) {
  if (!op) return "apply a change";
  const name = op.item ? model.label(op.item) : "";
  switch (op.kind) {
    case "move":
      return `move ${name}`;
    case "delete":
      return `remove ${name}`;
    case "restore":
      return `restore ${name}`;
    case "assign":
      return `assign ${name} to ${model.label(op.target)}`;
    case "unassign":
      return "unassign";
    case "insert":
      return "add the item";
    default:
      return `apply “${op.kind}”`;
  }
}

export { anchorsFor };
