/** @typedef {import("./board-state.js").State} State @typedef {import("./board-state.js").Pending} Pending */
/**
 * Applies one of our own INTENTS optimistically. Returns false when it cannot apply (the view
 * then simply shows the server state for it).
 * @param {State} s @param {Pending} p
 */
export function applyIntent(s: State, p: Pending): boolean;
export type State = import("./board-state.js").State;
export type Pending = import("./board-state.js").Pending;
