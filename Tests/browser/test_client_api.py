"""The embeddable client's API without a UI: `ReorderClient` imported by a script in the page, as
another web app would, against real servers (tokens through `getToken`, refresh at
`token_expiring`, presence between two clients)."""

from __future__ import annotations

from conftest import Page

IMPORT = 'const { ReorderClient } = await import("/js/reorder-client/index.js");'


def run(page: Page, body: str, *args):
    """Runs `body` as an async function in the page (with `ReorderClient` imported); `done(x)`
    ends it with x."""
    script = "const done = arguments[arguments.length - 1]; const args = [...arguments].slice(0, -1);" \
             f"(async () => {{ {IMPORT} {body} }})().catch((e) => done('error: ' + e));"
    return page.driver.execute_async_script(script, *args)


def test_get_token_is_asked_at_every_hello_and_a_viewer_cannot_edit(auth_server, page_a: Page):
    server, tokens = auth_server()
    viewer = tokens.mint("cities", "viewer", "vic")
    editor = tokens.mint("cities", "editor", "eve")
    page_a.goto(server.base + "?setup")
    result = run(page_a, """
        const [viewer, editor] = args;
        let asked = 0;
        const client = new ReorderClient({ room: "cities", name: "Vic", getToken: async () => (++asked === 1 ? viewer : editor) });
        const roles = [], rejected = [];
        client.on("rejected", (r) => rejected.push([r.id, r.code]));
        // Made before any welcome: the viewer's welcome drops it (never sent).
        const early = client.move("tokyo", "cities");
        let late = null;
        client.on("welcome", (w) => {
          roles.push(w.role);
          if (roles.length === 1) {
            // Sent as a viewer: the server refuses it, the board rolls back.
            late = client.move("tokyo", "cities");
            const off = client.on("rejected", (r) => {
              if (r.id !== late.id) return;
              off();
              client.reconnect();  // getToken now gives the editor's token
            });
          } else {
            const mine = client.move("tokyo", "cities");
            client.on("applied", ({ intent }) => {
              if (intent && intent.id === mine.id) {
                const order = client.items("cities").map((i) => i.id);
                client.close();
                done({ asked, roles, rejected, early: early.id, late: late.id, last: order[order.length - 1] });
              }
            });
          }
        });
        client.connect();
    """, viewer, editor)
    assert isinstance(result, dict), result
    assert result["asked"] == 2 and result["roles"] == ["viewer", "editor"], result
    # The intent made before the viewer's welcome is dropped by the client (never sent); the one
    # sent as a viewer is refused by the server.
    assert result["rejected"] == [[result["early"], "read_only"], [result["late"], "read_only"]], result
    assert result["last"] == "tokyo", "the editor's move applied"


def test_at_token_expiring_get_token_refreshes_the_connection(auth_server, page_a: Page):
    server, tokens = auth_server()
    first = tokens.mint("cities", "editor", "ann")
    second = tokens.mint("cities", "viewer", "ann")
    page_a.goto(server.base + "?setup")
    result = run(page_a, """
        const [first, second] = args;
        let asked = 0;
        const client = new ReorderClient({ room: "cities", getToken: () => (++asked === 1 ? first : second) });
        // As the server says it 60 s before `exp`: the client asks getToken and refreshes.
        client.on("welcome", () => client.receive({ type: "token_expiring", expires_in_s: 30 }));
        client.on("refreshed", ({ role }) => {
          client.close();
          done({ asked, role, token: client.token === second, clientRole: client.role });
        });
        client.connect();
    """, first, second)
    assert result == {"asked": 2, "role": "viewer", "token": True, "clientRole": "viewer"}, result


def test_presence_between_two_clients_with_a_cancel_when_one_leaves_mid_drag(server, page_a: Page):
    page_a.goto(server.base + "?setup")
    result = run(page_a, """
        const ann = new ReorderClient({ room: "cities", name: "Ann", color: "#2b8a3e" });
        const bob = new ReorderClient({ room: "cities", name: "Bob" });
        const drags = [], online = [];
        bob.on("drag", (d) => {
          drags.push({ session: d.session === ann.session, phase: d.phase, name: d.name, item: d.item });
          if (d.phase === "start") ann.close();  // Ann leaves in the middle of her drag
          if (d.phase === "cancel") setTimeout(() => { bob.close(); done({ drags, online, others: bob.presence.others }); }, 0);
        });
        bob.on("peers", ({ peers }) => online.push([...peers.values()].map((p) => p.name)));
        ann.on("welcome", () => bob.connect());
        bob.on("welcome", () => ann.sendDrag({ phase: "start", item: "tokyo", list: "cities", index: 0 }));
        ann.connect();
    """)
    assert isinstance(result, dict), result
    assert result["drags"] == [
        {"session": True, "phase": "start", "name": "Ann", "item": "tokyo"},
        {"session": True, "phase": "cancel", "name": "Ann", "item": "tokyo"},
    ], result
    assert ["Ann"] in result["online"] and result["online"][-1] == [] and result["others"] == 0, result
