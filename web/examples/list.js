// @ts-check
// The smallest app on the embeddable client (docs/CLIENT.md): the first list of a board, each
// item with an up and a down button. `list.html?room=cities&name=Ann` (room and name optional).
// Served by Reorder it uses that server; copied to another site, `?server=https://reorder.example`
// names the server, whose `--allowed-origins` must list the site.
const params = new URLSearchParams(location.search);
const server = params.get("server") || location.origin;
/** @type {typeof import("../js/reorder-client/index.js")} */
const { ReorderClient } = await import(new URL("/client/v1/index.js", server).href);
const client = new ReorderClient({
  room: params.get("room") || "cities", name: params.get("name") || "List example", url: server,
});
const $ = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));

/** @param {string} text @param {string} label @param {boolean} enabled @param {() => void} onClick */
function button(text, label, enabled, onClick) {
  const b = document.createElement("button");
  b.textContent = text;
  b.setAttribute("aria-label", label);
  b.disabled = !enabled;
  b.addEventListener("click", onClick);
  return b;
}

function render() {
  const list = client.board.lists[0];
  const items = list ? client.items(list.id) : [];
  $("items").replaceChildren(...items.map((item, i) => {
    const title = String(item.fields.title ?? item.id);
    const li = document.createElement("li");
    li.dataset.item = item.id;
    li.append(`${title} `,
      button("▲", `Move ${title} up`, i > 0, () => client.move(item.id, list.id, { before: items[i - 1].id })),
      button("▼", `Move ${title} down`, i < items.length - 1, () => client.move(item.id, list.id, { after: items[i + 1].id })));
    return li;
  }));
}

client.on("change", render);
client.on("status", ({ state }) => ($("status").textContent = state));
client.on("rejected", ({ code, message }) => ($("message").textContent = `Not applied (${code}): ${message}`));
client.on("ended", () => ($("message").textContent = "This board was deleted."));
client.connect();
// For the console (and the browser tests): the client itself.
Object.assign(window, { client });
