// @ts-check
/**
 * The history panel of a board session: “History” in the toolbar opens `#history-dialog`, a
 * modal dialog over the live board that shows the board as it was at one step of its kept
 * history, read-only.
 *
 * - The steps come from the client (`client.history`), 50 at a time, joined in a
 *   `HistoryTimeline`; the scrubber (`#history-range`, oldest on the left) starts on the newest.
 *   Reaching the oldest step loaded asks for the page before it, and the same step stays
 *   selected (“Load older” does the same).
 * - Keyboard on the scrubber: ←/↓ one step older, →/↑ one newer, Page Down / Page Up ten, Home
 *   the oldest loaded, End the newest. Each step is named (`#history-step`, and the scrubber's
 *   `aria-valuetext`, which screen readers read as it changes): “Ana moved Pizza before Burger,
 *   14:02” (history-steps.js).
 * - The board of the step is drawn by a `BoardView` of its own in `#history-board`: no drag,
 *   no keyboard lift, no item buttons.
 * - “Restore this version” (editors only: hidden for a viewer, and when the role changes) sends
 *   the difference between the live board and the step's board as new intents
 *   (`client.restoreVersion`), so they merge with whatever others do meanwhile and everyone
 *   sees them land; the panel then closes on the live board. Escape, “Close” or leaving the
 *   board close it too.
 */
import { BoardModel } from "./reorder-client/model.js";
import { HistoryTimeline } from "./reorder-client/index.js";
import { BoardView } from "./view.js";
import { announce, toast } from "./announce.js";
import { describeStep, localTime } from "./history-steps.js";

/** Steps asked for per page. */
const PAGE = 50;
/** Steps per Page Up / Page Down. */
const JUMP = 10;

/** @param {string} id @returns {HTMLElement} */
function $(id) {
  return /** @type {HTMLElement} */ (document.getElementById(id));
}

export class HistoryPanel {
  /** @param {import("./board.js").BoardSession} session */
  constructor(session) {
    this.session = session;
    this.dialog = /** @type {HTMLDialogElement} */ ($("history-dialog"));
    this.range = /** @type {HTMLInputElement} */ ($("history-range"));
    this.step = $("history-step");
    this.status = $("history-status");
    this.older = /** @type {HTMLButtonElement} */ ($("history-older"));
    this.restoreButton = /** @type {HTMLButtonElement} */ ($("history-restore"));
    this.timeline = new HistoryTimeline();
    /** The step shown: an index into the timeline (-1: none). */
    this.index = -1;
    this.loading = false;
    /** Counts openings: an answer for an earlier opening is dropped. */
    this.generation = 0;
    this.model = new BoardModel();
    this.view = new BoardView($("history-board"), this.model, session.scope);
    this.view.setReadOnly(true);
    // The items of a version are not draggable: no drag help is read for them.
    this.view.afterRender = () => {
      for (const el of $("history-board").querySelectorAll("[aria-describedby]")) el.removeAttribute("aria-describedby");
    };

    const signal = session.scope.signal;
    /** @param {EventTarget} target @param {string} type @param {(e: any) => void} fn */
    const on = (target, type, fn) => target.addEventListener(type, fn, { signal });
    on($("history-button"), "click", () => this.open());
    on($("history-close"), "click", () => this.dialog.close());
    on(this.dialog, "close", () => this.closed());
    on(this.range, "input", () => this.select(Number(this.range.value)));
    on(this.range, "keydown", (/** @type {KeyboardEvent} */ e) => this.key(e));
    on(this.older, "click", () => this.loadOlder());
    on(this.restoreButton, "click", () => this.restore());
    // The panel belongs to the board: leaving the board closes it.
    signal.addEventListener("abort", () => {
      if (this.dialog.open) this.dialog.close();
    }, { once: true });
    this.applyAccess();
  }

  /** Shows “Restore this version” only while the page may change the board. */
  applyAccess() {
    const editable = !this.session.scope.disposed && this.session.access.canEdit;
    this.restoreButton.hidden = !editable;
  }

  /** Opens the panel on the newest step. */
  async open() {
    if (this.dialog.open) return;
    const client = this.session.client;
    if (!client.ready) {
      toast("History needs a connection to the board.", "error");
      announce("History needs a connection to the board.");
      return;
    }
    if (this.session.editing) this.session.setEditing(false);
    const generation = ++this.generation;
    this.timeline = new HistoryTimeline();
    this.index = -1;
    this.show(null);
    this.range.min = "0";
    this.range.max = "0";
    this.range.value = "0";
    this.range.disabled = true;
    this.older.hidden = true;
    this.restoreButton.disabled = true;
    this.step.textContent = "";
    delete this.step.dataset.seq;
    this.setStatus("Loading the history…");
    this.dialog.showModal();
    $("history-close").focus();
    announce("History. Loading the board's past versions.");
    let page;
    try {
      page = await client.history({ limit: PAGE });
    } catch (error) {
      if (generation === this.generation) this.setStatus(`The history could not be loaded: ${error instanceof Error ? error.message : error}.`);
      return;
    }
    if (generation !== this.generation || !this.dialog.open) return;
    this.timeline.add(page);
    if (!this.timeline.length) {
      this.setStatus(page.earliest !== undefined ? "The history kept for this board starts later." : "Nothing is kept for this board yet.");
      announce(this.status.textContent ?? "");
      return;
    }
    this.range.disabled = false;
    this.select(this.timeline.length - 1);
    this.range.focus();
    announce(`History: ${this.timeline.length} ${this.timeline.length === 1 ? "step" : "steps"} loaded. ${this.step.textContent}`);
  }

  /**
   * Shows step `i` (clamped to the loaded steps): its name, its board; at the oldest loaded step
   * the page before it is asked for.
   * @param {number} i
   */
  select(i) {
    const n = this.timeline.length;
    if (!n) return;
    const index = Math.max(0, Math.min(n - 1, Math.round(i)));
    this.index = index;
    const entry = /** @type {import("./reorder-client/history.js").HistoryEntry} */ (this.timeline.entry(index));
    const board = this.timeline.boardAt(index);
    const text = describeStep(entry, this.timeline.boardAt(index - 1), board);
    this.range.max = String(n - 1);
    this.range.value = String(index);
    this.range.setAttribute("aria-valuetext", `${text} (step ${index + 1} of ${n}${this.timeline.more ? ", older steps to load" : ""})`);
    this.step.textContent = text;
    this.step.dataset.seq = String(entry.seq);
    this.dialog.dataset.steps = String(n);
    this.older.hidden = !this.timeline.more;
    this.restoreButton.disabled = board === null;
    if (!this.loading) {
      this.setStatus(board === null ? "The board of this step cannot be shown: the server could not rebuild it." : index === n - 1 ? "The newest step." : "");
    }
    this.show(board);
    if (index === 0 && this.timeline.more) this.loadOlder();
  }

  /** @private @param {KeyboardEvent} e */
  key(e) {
    const i = this.index;
    /** @type {Record<string, number>} */
    const to = {
      ArrowLeft: i - 1, ArrowDown: i - 1, ArrowRight: i + 1, ArrowUp: i + 1,
      PageDown: i - JUMP, PageUp: i + JUMP, Home: 0, End: this.timeline.length - 1,
    };
    if (!(e.key in to) || e.altKey || e.ctrlKey || e.metaKey) return;
    e.preventDefault();
    this.select(to[e.key]);
  }

  /** Asks for the page before the oldest step loaded; the selected step stays selected. */
  async loadOlder() {
    const client = this.session.client;
    const before = this.timeline.next;
    if (this.loading || before === null || !this.dialog.open) return;
    const generation = this.generation;
    this.loading = true;
    this.older.disabled = true;
    this.setStatus("Loading older steps…");
    try {
      const page = await client.history({ before, limit: PAGE });
      if (generation !== this.generation || !this.dialog.open) return;
      const added = this.timeline.add(page);
      this.loading = false;
      if (added === false) this.setStatus("The older steps could not be joined to these.");
      else this.select(this.index + added);
      if (!this.timeline.more) announce(this.timeline.cut ? "Older steps cannot be shown." : "This is the oldest step kept.");
    } catch (error) {
      if (generation === this.generation) this.setStatus(`Older steps could not be loaded: ${error instanceof Error ? error.message : error}.`);
    } finally {
      if (generation === this.generation) {
        this.loading = false;
        this.older.disabled = false;
      }
    }
  }

  /** Sends the intents that bring the selected step's board back, then closes the panel. */
  restore() {
    const session = this.session;
    if (session.denied()) return;
    const target = this.timeline.boardAt(this.index);
    const entry = this.timeline.entry(this.index);
    if (!target || !entry) return;
    const graves = this.timeline.boardAt(this.timeline.length - 1)?.graveyard;
    const intents = session.client.restoreVersion(target, { graves });
    if (!intents.length) {
      this.setStatus("This version is the board as it is now: nothing to restore.");
      announce("This version is the board as it is now: nothing to restore.");
      return;
    }
    const time = localTime(entry.at);
    const said = `Restored the board as it was${time ? ` at ${time}` : ""}: ${intents.length} ${intents.length === 1 ? "change" : "changes"}.`;
    this.dialog.close();
    announce(said);
    toast(said);
  }

  /** @private The panel closed (any way): back to the live board. */
  closed() {
    this.generation++;
    this.loading = false;
    this.older.disabled = false;
    this.show(null);
    delete this.dialog.dataset.steps;
    const button = $("history-button");
    if (!this.session.scope.disposed && !button.hidden) button.focus();
  }

  /** @private Draws a board in the panel (null: none). @param {import("./reorder-client/board-state.js").State | null} board */
  show(board) {
    const empty = new BoardModel().view;
    this.model.server = board ?? empty;
    this.model.view = board ?? empty;
    this.model.loaded = board !== null;
    this.view.render({ animate: board !== null && this.dialog.open });
  }

  /** @private @param {string} text */
  setStatus(text) {
    this.status.textContent = text;
  }
}
