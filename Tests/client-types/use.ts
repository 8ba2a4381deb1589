// A TypeScript app on the client's declarations (web/js/reorder-client/*.d.ts), compiled with
// --strict by scripts/client-types.sh --check: the public API is typed, and misuse does not compile.
import { ReorderClient, type ClientOptions, type Intent, type Peer, type PresenceUpdate } from "../../web/js/reorder-client/index.js";

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

// @ts-expect-error a client needs its room
new ReorderClient({ name: "no room" });
// @ts-expect-error move takes an item id, not a number
client.move(42, "cities");
// @ts-expect-error a presence state is an object, not a string
client.updatePresence("cities");
