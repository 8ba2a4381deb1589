// A TypeScript app on the client's declarations (web/js/reorder-client/*.d.ts), compiled with
// --strict by scripts/client-types.sh --check: the public API is typed, and misuse does not compile.
import { ReorderClient, type ClientOptions, type Intent, type Peer } from "../../web/js/reorder-client/index.js";

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

// @ts-expect-error a client needs its room
new ReorderClient({ name: "no room" });
// @ts-expect-error move takes an item id, not a number
client.move(42, "cities");
