// @ts-check
/**
 * One open board: wires the board's client (reorder-client/: connection, model, presence), the
 * view, the drag and keyboard controllers, presence drawing and undo together. What the page does
 * on each client event is in board-events.js, the toolbar in board-toolbar.js, the add forms in
 * board-forms.js, the history panel in history-panel.js.
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
import { ListViewers } from "./list-viewers.js";
import { ReorderClient } from "./reorder-client/index.js";
import { BoardView } from "./view.js";
import { DragController } from "./drag.js";
import { KeyboardController } from "./keyboard.js";
import { Presence } from "./presence.js";
import { UndoStack } from "./undo.js";
import { announce, toast } from "./announce.js";
import { CLIENT_ID } from "./identity.js";
import { MoveDialog } from "./move-dialog.js";
import { Scope } from "./scope.js";
import { Access } from "./access.js";
import { followClient } from "./board-events.js";
import { bindToolbar } from "./board-toolbar.js";
import { followOutbox, clearOutboxNotices } from "./outbox-notice.js";
import { tokenClaims } from "./token.js";
import { HistoryPanel } from "./history-panel.js";

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
      client: () => this.client,
      onRole: (role, previous) => {
        this.applyAccess();
        if (role === "viewer" && previous !== "viewer") announce("View only: you can follow the board but not change it.");
        else if (previous === "viewer" && role !== "viewer") announce("You can edit this board now.");
      },
      onRefused: () => this.applyAccess(),
    });

    const me = identity();
    this.client = new ReorderClient({
      room,
      client: CLIENT_ID,
      name: me.name,
      color: me.color,
      getToken: () => this.access.token(),
      // One outbox per person: the link's `sub`, else the name asked for.
      user: subjectOf(this.access.token()) ?? me.name,
      // Access offers a newer link's token itself (and says when it is refused).
      autoRefresh: false,
      signal: scope.signal,
    });
    /** The client's model and connection (also for tools and tests through `?debug`). */
    this.model = this.client.model;
    this.connection = this.client.connection;
    this.root = $("board-lists");
    this.view = new BoardView(this.root, this.model, scope);
    this.presence = new Presence(this.view, $("ghosts"), $("peers"), scope);
    this.listViewers = new ListViewers(this.root, this.client, scope.signal);

    const describe = (/** @type {string} */ item) => this.describe(item);
    this.drag = new DragController(this.root, this.view, this.model, {
      move: (item, list, after, before) => this.moveIntent(item, list, after, before),
      assign: (item, target) => this.assign(item, target),
      remove: (item) => this.remove(item),
      announce,
      presence: (msg) => this.client.sendDrag(msg),
      describe,
    }, scope);
    this.keyboard = new KeyboardController(this.root, this.view, this.model, {
      move: (item, list, after, before) => this.moveIntent(item, list, after, before),
      remove: (item) => this.remove(item),
      openMoveTo: (item) => this.openMoveTo(item),
      announce,
      presence: (msg) => this.client.sendDrag(msg),
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

    this.history = new HistoryPanel(this);
    followClient(this);
    followOutbox(this);
    this.dragHelp = $("drag-help").textContent ?? "";
    bindToolbar(this);
    this.applyAccess();
    this.client.connect();
  }

  /** Leaves the board, disposing of every listener, timer and frame of this session. */
  dispose() {
    if (this.scope.disposed) return;
    if (this.drag.active) this.drag.cancel("leaving");
    if (this.keyboard.active) this.keyboard.cancel();
    this.client.close();
    this.presence.reset();
    this.scope.dispose();
    clearOutboxNotices();
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
    // Share copies a link that opens the board for anyone, which only a board without a token
    // has: a token is its person's (its `sub`, its name), so it is never handed on
    // (docs/AUTH.md, "Share links"). A refused or ended page has nothing to share either.
    $("share-button").hidden = !this.scope.disposed && (this.access.token() !== null || this.access.refused);
    this.view.setReadOnly(!editable);
    this.history?.applyAccess();
    $("board-hint").hidden = !editable;
    $("drag-help").textContent = editable ? this.dragHelp : VIEW_ONLY_HELP;
  }

  /** @returns {boolean} true (after saying so) when the page may not change the board */
  denied() {
    if (this.access.canEdit) return false;
    announce(this.access.refused ? "This link no longer works: the board cannot be changed." : "View only: this board cannot be changed from this link.");
    return true;
  }

  // Intents -------------------------------------------------------------------------------------

  /** Sends an intent: applied at once in the view, re-sent until acknowledged. @param {any} op @returns {string} */
  propose(op) {
    // A backstop: every gesture checks first, but no path may send an op the page may not.
    if (!this.access.canEdit) return "";
    return this.client.propose(op).id;
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

  /** "position i of n in List", where the item shows (a held item: its held place). @param {string} item */
  describe(item) {
    const at = this.view.positionOf(item);
    if (!at) return `not on the board`;
    return `Position ${at.index + 1} of ${at.size} in ${this.model.list(at.list)?.title ?? at.list}`;
  }

  // Toolbar, edit mode, dialogs -------------------------------------------------------------------

  /** @param {boolean} on */
  setEditing(on) {
    if (on && this.denied()) return;
    this.editing = on;
    document.body.classList.toggle("editing", on);
    // Edit mode widens the lists' padding: long lists place their window again.
    this.view.scheduleRender();
    $("edit-button").hidden = on;
    $("edit-button").setAttribute("aria-pressed", String(on));
    $("done-button").hidden = !on;
    if (on) announce("Edit mode. Press × on an item to remove it, Done or Escape to finish.");
  }

  /** "Move to…" for `item`. @param {string} item */
  openMoveTo(item) {
    if (!this.denied()) this.moveDialog.open(item);
  }

}

/** @param {string | null} token @returns {string | null} the token's `sub`, null without one */
function subjectOf(token) {
  const sub = tokenClaims(token)?.sub;
  return typeof sub === "string" && sub ? sub : null;
}
