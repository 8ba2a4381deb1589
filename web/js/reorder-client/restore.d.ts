/**
 * The ops that turn `current` into `target` (see the file's comment for what and in which order).
 * @param {State} current the board as it is (e.g. `client.board`)
 * @param {State} target the version to come back to (e.g. a history step's board)
 * @param {RestoreOptions} [options]
 * @returns {any[]} ops for `client.propose`, in order
 */
export function restoreIntents(current: State, target: State, options?: RestoreOptions): any[];
export type State = import("./board-state.js").State;
export type RestoreOptions = {
    /**
     * the id of an item or list made
     * again (`was`: its id in `target`); default `i-…` / `l-…` with 12 random hex digits, as the
     * client's `insert` and `createList` make them
     */
    newId?: (kind: "item" | "list", was: string) => string;
};
