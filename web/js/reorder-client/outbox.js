// @ts-check
/**
 * The offline outbox: every intent not acknowledged yet is kept in IndexedDB until the server
 * answers it, so changes made offline survive a closed tab or browser and land exactly once.
 *
 * - One database per server origin, room and user: `reorder-outbox:<origin>:<room>:<user>`
 *   (`outboxName`). Store `intents` holds `SavedIntent`s (key `id`, the op id); store `meta`
 *   holds `client`, the `hello.client` every tab of this database connects with. The server
 *   recognises a re-sent op by (hello.client, op id) (docs/PROTOCOL.md, `op`), so an intent sent
 *   by a tab that closed before its `applied` and re-sent by another tab is applied once.
 * - Each tab (client instance) owns the intents it made and sends them itself, as without an
 *   outbox. It holds the Web Lock `<name>#tab:<instance>` while it is connected, so the others
 *   can tell that it is alive (`navigator.locks.query`).
 * - One tab at a time holds `<name>#sender` and adopts the intents of tabs that are gone (a
 *   closed tab, a browser closed offline): it re-sends them with their original ids. A tab that
 *   opens while another holds the lock waits for it and sends nothing but its own; when the
 *   holder closes (its locks are released with it), the next tab gets the lock and adopts.
 * - A saved intent is re-sent only into the history it was made in (its `epoch`) and only while
 *   the server still remembers its op id: fewer than `REMEMBERED_OP_IDS` ops after the `seq` it
 *   was first sent at. Otherwise it is dropped (codes `board_replaced`, `outbox_expired`).
 * - `count` is how many intents the database holds (every tab's); tabs tell each other of a
 *   change through a `BroadcastChannel` of the database's name.
 */

/**
 * How many op ids the server remembers per room (docs/PROTOCOL.md, `op`): a re-sent op id is
 * recognised only while fewer ops than this were applied after it.
 */
export const REMEMBERED_OP_IDS = 10_000;

/**
 * One kept intent.
 * @typedef {object} SavedIntent
 * @property {string} id the op id
 * @property {any} op the intent's op, as sent
 * @property {string} owner the client instance that sends it (the one that made or adopted it)
 * @property {string | null} epoch the history it was made in (null: made before any welcome)
 * @property {number | null} seq the last seq seen when it was first sent into `epoch`
 * @property {number} t when it was made (ms since 1970), then `n`: the order of re-sending
 * @property {number} n
 */

/**
 * The database of a room's outbox for one user on one server.
 * @param {string} origin the server's origin (`https://host:port`)
 * @param {string} room @param {string} user @returns {string}
 */
export function outboxName(origin, room, user) {
  return `reorder-outbox:${origin}:${room}:${user}`;
}

/** @param {IDBRequest | IDBTransaction} r @returns {Promise<any>} */
function settle(r) {
  return new Promise((resolve, reject) => {
    if ("oncomplete" in r) {
      r.oncomplete = () => resolve(undefined);
      r.onabort = r.onerror = () => reject(r.error);
    } else {
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    }
  });
}

/** @param {string} name @returns {Promise<IDBDatabase>} */
function openDatabase(name) {
  const request = indexedDB.open(name, 1);
  request.onupgradeneeded = () => {
    request.result.createObjectStore("intents", { keyPath: "id" });
    request.result.createObjectStore("meta");
  };
  return settle(request);
}

/** @returns {string} 12 random hex digits */
function randomHex() {
  return [...crypto.getRandomValues(new Uint8Array(6))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** The outbox of one client instance (see the top of this file). */
export class Outbox {
  /** @returns {boolean} whether this browser has what an outbox needs (IndexedDB and Web Locks) */
  static available() {
    return typeof indexedDB !== "undefined" && typeof navigator !== "undefined" && !!navigator.locks;
  }

  /**
   * @param {string} name the database (`outboxName`)
   * @param {(count: number) => void} onCount called when `count` changes
   */
  constructor(name, onCount) {
    this.name = name;
    /** This instance's id, the `owner` of its intents. */
    this.owner = "t" + randomHex();
    this.onCount = onCount;
    /** How many intents the database holds (every tab's). */
    this.count = 0;
    /** True while this instance holds `<name>#sender`. */
    this.sender = false;
    /** @type {Map<string, SavedIntent>} this instance's records, by op id */
    this.mine = new Map();
    /** @type {IDBDatabase | null} */
    this.db = null;
    /** @type {Promise<IDBDatabase | null>} */
    this.opened = openDatabase(name).then(
      (db) => (this.db = db),
      (error) => (console.warn("reorder: the outbox could not be opened; intents are kept in memory only", error), null),
    );
    /** @type {Promise<unknown>} the last write: writes run in the order they were asked for */
    this.writes = this.opened;
    this.seen = 0;
    /** @type {AbortController | null} the locks held or asked for while started */
    this.locks = null;
    /** @type {Set<string>} owners whose end is awaited */
    this.watching = new Set();
    this.channel = typeof BroadcastChannel === "function" ? new BroadcastChannel(name) : null;
    // Another tab changed the database: recount while this client is started (not once closed).
    if (this.channel) this.channel.onmessage = () => this.locks && this.recount();
    this.recount();
  }

  /** @returns {Promise<string | null>} the `hello.client` of this database (made once), null without one */
  async client() {
    const db = await this.opened;
    if (!db) return null;
    const tx = db.transaction("meta", "readwrite");
    const meta = tx.objectStore("meta");
    let id = await settle(meta.get("client"));
    if (typeof id !== "string") {
      id = "c" + randomHex();
      meta.put(id, "client");
    }
    await settle(tx);
    return id;
  }

  /**
   * Keeps a new intent of this instance. @param {{ id: string, op: any }} intent
   * @param {string | undefined} epoch @param {number | undefined} seq what the model knew when it was made
   */
  keep(intent, epoch, seq) {
    /** @type {SavedIntent} */
    const record = { id: intent.id, op: intent.op, owner: this.owner, epoch: epoch ?? null, seq: epoch === undefined ? null : (seq ?? null), t: Date.now(), n: ++this.seen };
    this.mine.set(record.id, record);
    this.write((store) => store.put(record));
  }

  /** Forgets an intent (acknowledged, refused or dropped). @param {string} id */
  forget(id) {
    if (this.mine.delete(id)) this.write((store) => store.delete(id));
  }

  /**
   * The intents of this instance sent now into `epoch` at `seq` for the first time: a record
   * that did not know its history yet learns it (the bound of its op id's memory starts there).
   * @param {string[]} ids @param {string | undefined} epoch @param {number | undefined} seq
   */
  sent(ids, epoch, seq) {
    for (const id of ids) {
      const record = this.mine.get(id);
      if (!record || record.epoch !== null || epoch === undefined) continue;
      record.epoch = epoch;
      record.seq = seq ?? 0;
      this.write((store) => store.put(record));
    }
  }

  /**
   * While started, this instance holds its tab lock and asks for the sender lock;
   * `onSender` runs when it gets it. @param {() => void} onSender
   */
  start(onSender) {
    if (this.locks) return;
    const locks = new AbortController();
    this.locks = locks;
    const held = () => new Promise((resolve) => locks.signal.addEventListener("abort", resolve, { once: true }));
    const ignoreAbort = (/** @type {any} */ error) => {
      if (error?.name !== "AbortError") console.warn("reorder: outbox lock", error);
    };
    navigator.locks.request(`${this.name}#tab:${this.owner}`, { signal: locks.signal }, held).catch(ignoreAbort);
    navigator.locks.request(`${this.name}#sender`, { signal: locks.signal }, () => {
      if (locks.signal.aborted) return;
      this.sender = true;
      onSender();
      return held().then(() => (this.sender = false));
    }).catch(ignoreAbort);
  }

  /** Releases the locks (another tab may take over) and stops waiting for others. */
  stop() {
    this.locks?.abort();
    this.locks = null;
    this.sender = false;
    this.watching.clear();
  }

  /**
   * For the sender: the intents of tabs that are gone, adopted (this instance sends them from
   * now on) when they may still be sent into the history `epoch` at `seq`, else to drop. `onGone`
   * runs when a tab that still has intents here closes (adopt again then).
   * @param {string | undefined} epoch @param {number} seq @param {(id: string) => boolean} known intents this instance has already
   * @param {() => void} onGone
   * @returns {Promise<{ adopted: SavedIntent[], dropped: Array<{ record: SavedIntent, code: "board_replaced" | "outbox_expired" }> }>}
   */
  async orphans(epoch, seq, known, onGone) {
    const none = { adopted: [], dropped: [] };
    const db = await this.opened;
    if (!db || !this.sender || !this.locks) return none;
    const signal = this.locks.signal;
    /** @type {SavedIntent[]} */
    const records = await settle(db.transaction("intents").objectStore("intents").getAll());
    const state = await navigator.locks.query();
    const prefix = `${this.name}#tab:`;
    const alive = new Set([...(state.held ?? [])].map((l) => l.name ?? "").filter((n) => n.startsWith(prefix)).map((n) => n.slice(prefix.length)));
    if (!this.sender || signal.aborted) return none;
    records.sort((a, b) => a.t - b.t || a.n - b.n);
    /** @type {SavedIntent[]} */
    const adopted = [];
    /** @type {Array<{ record: SavedIntent, code: "board_replaced" | "outbox_expired" }>} */
    const dropped = [];
    for (const record of records) {
      if (record.owner === this.owner || known(record.id)) continue;
      if (alive.has(record.owner)) {
        this.watch(record.owner, signal, onGone);
        continue;
      }
      if (record.epoch !== null && epoch !== undefined && record.epoch !== epoch) {
        dropped.push({ record, code: "board_replaced" });
      } else if (record.seq !== null && seq - record.seq >= REMEMBERED_OP_IDS) {
        dropped.push({ record, code: "outbox_expired" });
      } else {
        record.owner = this.owner;
        if (record.epoch === null && epoch !== undefined) {
          record.epoch = epoch;
          record.seq = seq;
        }
        this.mine.set(record.id, record);
        this.write((store) => store.put(record));
        adopted.push(record);
      }
    }
    for (const { record } of dropped) this.write((store) => store.delete(record.id));
    return { adopted, dropped };
  }

  /** @private Runs `onGone` once the tab `owner` releases its lock. @param {string} owner @param {AbortSignal} signal @param {() => void} onGone */
  watch(owner, signal, onGone) {
    if (this.watching.has(owner)) return;
    this.watching.add(owner);
    navigator.locks.request(`${this.name}#tab:${owner}`, { signal }, () => {
      this.watching.delete(owner);
      if (!signal.aborted) onGone();
    }).catch(() => this.watching.delete(owner));
  }

  /** @private @param {(store: IDBObjectStore) => void} change one write, after those asked before */
  write(change) {
    this.writes = this.writes.then(async () => {
      if (!this.db) return;
      const tx = this.db.transaction("intents", "readwrite");
      change(tx.objectStore("intents"));
      await settle(tx);
      this.channel?.postMessage("changed");
      await this.recount();
    }).catch((error) => console.warn("reorder: outbox write failed", error));
  }

  /** @private Reads how many intents are kept and says so when it changed. */
  async recount() {
    const db = await this.opened;
    if (!db) return;
    try {
      const count = await settle(db.transaction("intents").objectStore("intents").count());
      if (count !== this.count) {
        this.count = count;
        this.onCount(count);
      }
    } catch (error) {
      console.warn("reorder: outbox count failed", error);
    }
  }
}

/**
 * The `sub` claim of a token (JWT), read without checking the signature (the server checks it):
 * whose outbox the token's intents go to. @param {string | null | undefined} token @returns {string | null}
 */
export function tokenSubject(token) {
  const part = token?.split(".")[1];
  if (!part) return null;
  try {
    const claims = JSON.parse(atob(part.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (part.length % 4)) % 4)));
    return typeof claims?.sub === "string" && claims.sub ? claims.sub : null;
  } catch {
    return null;
  }
}
