// @ts-check
/**
 * Undo / redo of this person's own actions. A step is one user gesture (one drag = one step).
 * Undo never rewinds history: it sends NEW intents (a move back, a restore, an unassign), so it
 * composes with everyone else's concurrent edits.
 */

/**
 * @typedef {{ list: string, after: string | null, before: string | null, index: number }} Place
 * @typedef {{ type: "move", item: string, from: Place, to: Place }
 *   | { type: "delete", item: string }
 *   | { type: "insert", item: string }
 *   | { type: "assign", item: string, target: string, opId: string }
 *   | { type: "unassign", item: string, target: string, assignment: string }} Step
 * @typedef {object} UndoPorts
 * @property {(op: any) => string} send proposes an intent, returns its op id
 * @property {(opId: string) => string | undefined} assignmentFor the assignment an assign op made
 * @property {import("./reorder-client/model.js").BoardModel} model
 * @property {(text: string) => void} say
 */

export class UndoStack {
  /** @param {UndoPorts} ports */
  constructor(ports) {
    this.ports = ports;
    /** @type {Step[]} */
    this.done = [];
    /** @type {Step[]} */
    this.undone = [];
    this.onChange = () => {};
  }

  /** Records a step just performed. @param {Step} step */
  record(step) {
    this.done.push(step);
    if (this.done.length > 200) this.done.shift();
    this.undone = [];
    this.onChange();
  }

  get canUndo() {
    return this.done.length > 0;
  }

  get canRedo() {
    return this.undone.length > 0;
  }

  undo() {
    const step = this.done.pop();
    if (!step) return;
    if (this.run(step, true)) this.undone.push(step);
    this.onChange();
  }

  redo() {
    const step = this.undone.pop();
    if (!step) return;
    if (this.run(step, false)) this.done.push(step);
    this.onChange();
  }

  /**
   * Sends the intents that undo (or redo) `step`. Returns false when it no longer applies.
   * @private @param {Step} step @param {boolean} back
   */
  run(step, back) {
    const { send, model, say } = this.ports;
    switch (step.type) {
      case "move": {
        if (!model.item(step.item)) {
          say(`${model.label(step.item)} is gone; nothing to ${back ? "undo" : "redo"}.`);
          return false;
        }
        const place = back ? step.from : step.to;
        const anchors = anchorsFor(model, step.item, place);
        if (!anchors) return false;
        send({ kind: "move", item: step.item, list: place.list, ...anchors });
        say(`${back ? "Undid" : "Redid"} the move of ${model.label(step.item)}.`);
        return true;
      }
      case "delete":
      case "insert": {
        const restore = (step.type === "delete") === back;
        send({ kind: restore ? "restore" : "delete", item: step.item });
        say(`${restore ? "Restored" : "Removed"} ${model.label(step.item)}.`);
        return true;
      }
      case "assign":
      case "unassign": {
        const unassign = (step.type === "assign") === back;
        if (unassign) {
          let assignment = step.type === "assign" ? this.ports.assignmentFor(step.opId) : step.assignment;
          if (assignment?.startsWith("op:")) assignment = this.ports.assignmentFor(assignment.slice(3));
          if (!assignment) {
            say("Still saving; try again in a moment.");
            return false;
          }
          send({ kind: "unassign", assignment });
        } else {
          const opId = send({ kind: "assign", item: step.item, target: step.target });
          if (step.type === "assign") step.opId = opId;
          else step.assignment = "op:" + opId;
        }
        say(`${unassign ? "Unassigned" : "Assigned"} ${model.label(step.item)} ${unassign ? "from" : "to"} ${model.label(step.target)}.`);
        return true;
      }
    }
    return false;
  }
}

/**
 * Anchors (after / before) that put `item` back at `place` in the current view: its old
 * neighbour if it is still there, else the position by index.
 * @param {import("./reorder-client/model.js").BoardModel} model @param {string} item @param {Place} place
 */
export function anchorsFor(model, item, place) {
  const list = model.list(place.list);
  if (!list) return null;
  const others = list.items.filter((id) => id !== item);
  if (place.after && others.includes(place.after)) return { after: place.after };
  if (place.after === null && !place.before) return others.length ? { before: others[0] } : {};
  if (place.before && others.includes(place.before)) return { before: place.before };
  const i = Math.max(0, Math.min(place.index, others.length));
  if (i > 0) return { after: others[i - 1] };
  return others.length ? { before: others[0] } : {};
}
