"""The embeddable client (web/js/reorder-client/) through its example page, web/examples/list.html:
two browsers reorder one list, a rejected intent rolls back, the client reconnects and catches up
(re-sending what was not acknowledged), a second welcome resets the board, and a 4404 close ends
the session (on the example page and on the board page)."""

from __future__ import annotations

import json

from conftest import Page, Server

# Installed before the page's scripts (as the `wire` fixture is): while `window.__hold` is true,
# the page's socket message listeners get nothing; `window.__release()` hands them what was held,
# in order. Lets a test make the page act on a board it has not yet seen change.
HOLD_SCRIPT = """
(() => {
  const held = [];
  window.__hold = false;
  window.__release = () => { window.__hold = false; for (const [fn, self, e] of held.splice(0)) fn.call(self, e); };
  const add = WebSocket.prototype.addEventListener;
  WebSocket.prototype.addEventListener = function (type, fn, options) {
    if (type !== "message" || typeof fn !== "function") return add.call(this, type, fn, options);
    return add.call(this, type, function (e) { if (window.__hold) held.push([fn, this, e]); else fn.call(this, e); }, options);
  };
})();
"""


def open_example(page: Page, server: Server, room: str = "cities") -> list[str]:
    """Opens the example page on `room` as this page's user; returns the ids shown, in order."""
    page.goto(f"{server.base}examples/list.html?room={room}&name={page.name}")
    page.wait(lambda: page.js("return document.getElementById('status').textContent") == "open", 15, "the example to connect")
    page.wait(lambda: len(shown(page)) > 3, 10, "the list's items")
    return shown(page)


def shown(page: Page) -> list[str]:
    return page.js("return [...document.querySelectorAll('#items [data-item]')].map(li => li.dataset.item)")


def wait_shown(page: Page, expected: list[str]) -> None:
    try:
        page.wait(lambda: shown(page) == expected, 10, f"the list to be {expected}")
    except Exception:
        raise AssertionError(f"the list is {shown(page)}, expected {expected}")


def press(page: Page, item: str, direction: str) -> None:
    """Clicks the item's ▲ (`up`) or ▼ (`down`) button, as a user would."""
    index = 0 if direction == "up" else 1
    page.js("document.querySelectorAll(`[data-item='${arguments[0]}'] button`)[arguments[1]].click()", item, index)


def pending(page: Page) -> int:
    return page.js("return window.client.pending.length")


def test_example_page_moves_show_in_the_other_browser(server, page_a: Page, page_b: Page):
    ids = open_example(page_a, server)
    assert open_example(page_b, server) == ids
    assert page_a.js("return document.querySelector(`[data-item='${arguments[0]}'] button`).disabled", ids[0]), "the first item cannot go up"

    press(page_a, ids[0], "down")
    moved = [ids[1], ids[0]] + ids[2:]
    assert shown(page_a) == moved, "applied at once where it was made"
    wait_shown(page_b, moved)

    press(page_b, ids[-1], "up")
    back = moved[:-2] + [moved[-1], moved[-2]]
    wait_shown(page_a, back)
    page_a.wait(lambda: pending(page_a) == 0 and pending(page_b) == 0, 10, "acknowledgements")
    assert page_a.js("return document.getElementById('message').textContent") == ""


def test_example_page_rolls_back_a_rejected_intent(server, page_a: Page, page_b: Page):
    ident = page_a.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": HOLD_SCRIPT})["identifier"]
    try:
        ids = open_example(page_a, server)
        open_example(page_b, server)
        # A stops hearing the server; B deletes the third item (through the module's API).
        page_a.js("window.__hold = true")
        page_b.js("window.client.delete(arguments[0])", ids[2])
        without = ids[:2] + ids[3:]
        wait_shown(page_b, without)
        page_b.wait(lambda: pending(page_b) == 0, 10, "B's delete to be acknowledged")
        # A, not knowing, moves the deleted item down: shown at once, refused by the server.
        press(page_a, ids[2], "down")
        assert shown(page_a) == ids[:2] + [ids[3], ids[2]] + ids[4:], "applied optimistically"
        assert pending(page_a) == 1
        page_a.js("window.__release()")
        wait_shown(page_a, without)
        page_a.wait(lambda: "Not applied (unknown_item)" in page_a.js("return document.getElementById('message').textContent"), 10, "the message")
        assert pending(page_a) == 0
    finally:
        page_a.cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": ident})


def test_client_reconnects_by_itself_and_resends_what_was_not_acknowledged(server, page_a: Page, page_b: Page, wire):
    wire(page_a)
    ids = open_example(page_a, server)
    open_example(page_b, server)
    server.stop()
    page_a.wait(lambda: page_a.js("return window.client.status") != "open", 10, "A to see the server gone")
    # Offline: the intent shows and waits.
    press(page_a, ids[0], "down")
    moved = [ids[1], ids[0]] + ids[2:]
    assert shown(page_a) == moved and pending(page_a) == 1
    server.restart()  # same port, same data: same history
    page_a.wait(lambda: page_a.js("return window.client.status") == "open", 20, "A to reconnect by itself")
    wait_shown(page_b, moved)
    page_a.wait(lambda: pending(page_a) == 0, 10, "the re-sent intent to be acknowledged")
    hellos = page_a.js("return __wire.sentOfType('hello').map(s => s.msg)")
    welcomes = page_a.js("return __wire.welcomes")
    assert len(hellos) >= 2 and hellos[-1]["since"] == welcomes[0]["seq"] and hellos[-1]["epoch"] == welcomes[0]["epoch"], hellos
    assert "ops" in welcomes[-1] and "board" not in welcomes[-1], "a catch-up, not the full board"
    ops = page_a.js("return __wire.sentOfType('op').map(s => s.msg.id)")
    assert len(ops) == 1, f"sent once, after the welcome (never into the closed socket): {ops}"


def test_client_catches_up_on_what_happened_while_it_was_away(server, page_a: Page, page_b: Page, wire):
    wire(page_a)
    ids = open_example(page_a, server)
    open_example(page_b, server)
    page_a.js("window.client.close()")
    page_a.wait(lambda: page_a.js("return document.getElementById('status').textContent") == "closed", 5, "A to close")
    press(page_b, ids[0], "down")
    press(page_b, ids[3], "up")
    expected = [ids[1], ids[0], ids[3], ids[2]] + ids[4:]
    wait_shown(page_b, expected)
    page_b.wait(lambda: pending(page_b) == 0, 10, "B's moves acknowledged")
    assert shown(page_a) == ids, "A saw nothing while away"
    seq = page_a.js("return window.client.seq")
    page_a.js("window.client.connect()")
    wait_shown(page_a, expected)
    welcome = page_a.js("return __wire.welcomes[__wire.welcomes.length - 1]")
    assert [op["seq"] for op in welcome.get("ops", [])] == [seq + 1, seq + 2], welcome
    assert "board" not in welcome


def test_a_second_welcome_resets_the_board_and_rejects_what_was_pending(server, page_a: Page, wire):
    wire(page_a)
    ids = open_example(page_a, server)
    # Hold A's intents back (as if the socket were slow), then make one.
    page_a.js("window.client.connection.ready = false")
    press(page_a, ids[0], "down")
    assert pending(page_a) == 1
    # The board replaced through the API: the server sends a fresh welcome with a new epoch.
    board = {"lists": [{"id": "cities", "title": "Cities", "layout": "list",
                        "items": [{"id": "x1", "fields": {"title": "One"}}, {"id": "x2", "fields": {"title": "Two"}}]}]}
    page_a.js("window.__rejected = []; window.client.on('rejected', (r) => window.__rejected.push(r));")
    page_a.js("__wire.deliver(arguments[0])", {"type": "welcome", "session": "s-new", "epoch": "e-replaced", "seq": 1,
                                                  "board": board, "peers": [], "role": "viewer",
                                                  "presence_interval_ms": 100})
    wait_shown(page_a, ["x1", "x2"])
    rejected = page_a.js("return window.__rejected")
    assert [(r["code"], r["op"]["item"]) for r in rejected] == [("board_replaced", ids[0])], json.dumps(rejected)
    assert pending(page_a) == 0 and page_a.js("return window.client.epoch") == "e-replaced"
    assert "board_replaced" in page_a.js("return document.getElementById('message').textContent")
    # A replacement that states less keeps what the first welcome said (session, role, interval).
    page_a.js("__wire.deliver(arguments[0])", {"type": "welcome", "epoch": "e-again", "seq": 1, "board": board})
    page_a.wait(lambda: page_a.js("return window.client.epoch") == "e-again", 5, "the third welcome")
    kept = page_a.js("return [window.client.session, window.client.role, window.client.pacer.interval]")
    assert kept == ["s-new", "viewer", 100], kept


def test_close_4404_ends_the_example_session_without_reconnecting(server, page_a: Page, wire):
    wire(page_a)
    ids = open_example(page_a, server)
    page_a.js("window.client.connection.ready = false")
    press(page_a, ids[0], "down")
    page_a.js("__wire.deliverClose(4404, 'board deleted')")
    page_a.wait(lambda: page_a.js("return document.getElementById('message').textContent") == "This board was deleted.", 5, "the end")
    assert page_a.js("return document.getElementById('status').textContent") == "closed"
    state = page_a.js("const c = window.client; return {stopped: c.connection.stopped, timers: c.timers.ids.size,"
                      " end: c.end, pending: c.pending.length, sockets: __wire.sockets.length}")
    assert state == {"stopped": True, "timers": 0, "end": {"code": 4404, "reason": "board deleted"}, "pending": 0, "sockets": 1}, state
    assert shown(page_a) == ids, "the pending move was dropped: the board as it was"


def test_close_4404_on_the_board_page_says_the_board_was_deleted(server, page_a: Page, wire):
    wire(page_a)
    page_a.open(server, "cities")
    page_a.js("__wire.deliverClose(4404, 'board deleted')")
    page_a.wait(lambda: page_a.js("return !document.getElementById('access-notice').hidden"), 5, "the notice")
    assert page_a.js("return document.getElementById('access-notice').dataset.code") == "4404"
    assert page_a.js("return document.getElementById('access-title').textContent") == "This board was deleted"
    assert page_a.js("return document.body.classList.contains('read-only')")
    assert page_a.js("return document.body.dataset.connection") == "closed"
    assert page_a.js("return __wire.sockets.length") == 1


def test_rate_limited_intents_are_resent_until_applied(make_server, page_a: Page, page_b: Page, wire):
    # 2 ops per second, bursts of 4: six moves at once are two over the limit.
    server = make_server("--max-ops-per-second", "2")
    wire(page_a)
    ids = open_example(page_a, server)
    open_example(page_b, server)
    for _ in range(6):
        shown_now = shown(page_a)
        press(page_a, ids[0], "down")
        assert shown(page_a).index(ids[0]) == shown_now.index(ids[0]) + 1, "each click shows at once"
    expected = ids[1:7] + [ids[0]] + ids[7:]
    assert shown(page_a) == expected
    wait_shown(page_b, expected)
    page_a.wait(lambda: pending(page_a) == 0, 15, "every intent applied")
    sent = page_a.js("return __wire.sentOfType('op').map(s => s.msg.id)")
    assert len(set(sent)) == 6 and len(sent) > 6, f"the refused ones went again with the same ids: {sent}"
    assert page_a.js("return document.getElementById('message').textContent") == "", "rate_limited is not a refusal"
    assert shown(page_a) == expected
