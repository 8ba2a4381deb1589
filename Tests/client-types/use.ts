// A TypeScript app on the client's declarations (web/js/reorder-client/*.d.ts), compiled with
// --strict by scripts/client-types.sh --check: the public API is typed, and misuse does not compile.
import {
  ReorderClient, HistoryTimeline, boardAt, restoreIntents,
  type BoardState, type ClientOptions, type HistoryEntry, type HistoryPage, type Intent, type Peer, type PresenceUpdate,
} from "../../web/js/reorder-client/index.js";

const options: ClientOptions = { room: "cities", name: "Ann", url: "https://boards.example.com" };
const client = new ReorderClient(options);
client.on("change", () => {
  const titles: string[] = client.items(client.board.lists[0]?.id ?? "").map((item) => String(item.fields.title));
  console.log(titles, client.seq, client.status);
});
const intent: Intent = client.move("tokyo", "cities", { after: "paris" });
const id: string = intent.id;
const peers: Peer[] = [];
console.log(id, peers.length);
client.connect();
client.updatePresence({ list: "cities" });
const sent: boolean = client.broadcast({ emoji: "🎉" });
const looking: PresenceUpdate[] = client.presenceStates.filter((p) => p.state?.list === "cities");
client.on("presence", (update: PresenceUpdate) => console.log(update.session, update.state));
client.on("broadcast", ({ session, event }) => console.log(session, event));
console.log(sent, looking.length);

// The offline outbox: on by default, per user; `saved` counts what this device keeps.
const offline = new ReorderClient({ room: "cities", user: "u42", outbox: false });
const saved: number = offline.saved;
console.log(saved);
// @ts-expect-error outbox is a boolean
new ReorderClient({ room: "cities", outbox: "yes" });

// History: pages newest first, the board at a step, a timeline of pages, a version restored.
async function scrub(): Promise<Intent[]> {
  const page: HistoryPage = await client.history({ limit: 20 });
  const newest: HistoryEntry | undefined = page.entries[0];
  const who: string = newest?.actor?.via === "api" ? "API" : newest?.actor?.name ?? "Someone";
  const when: string | null = newest?.at ?? null;
  const then: BoardState | null = newest ? boardAt(page, newest.seq) : null;
  const timeline = new HistoryTimeline();
  timeline.add(page);
  if (page.next !== null) timeline.add(await client.history({ before: page.next }));
  const first: BoardState | null = timeline.boardAt(0);
  console.log(who, when, then?.lists.length, timeline.length, timeline.more, page.earliest);
  const ops: any[] = first ? restoreIntents(client.board, first, { newId: (kind, was) => `${kind}-${was}-again` }) : [];
  console.log(ops.length);
  return first ? client.restoreVersion(first, { graves: timeline.boardAt(timeline.length - 1)?.graveyard }) : [];
}
scrub().then((intents) => console.log(intents.map((i) => i.id)));
// @ts-expect-error before is a seq, not a date
client.history({ before: "2026-12-06" });
// @ts-expect-error a timeline takes pages, not boards
new HistoryTimeline().add(client.board);

// @ts-expect-error a client needs its room
new ReorderClient({ name: "no room" });
// @ts-expect-error move takes an item id, not a number
client.move(42, "cities");
// @ts-expect-error a presence state is an object, not a string
client.updatePresence("cities");
