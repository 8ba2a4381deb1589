"""The offline outbox (docs/CLIENT.md, "The offline outbox"): moves made while the server is down
are kept in IndexedDB, survive a closed browser (same Chromium profile) and land exactly once;
two tabs of one person each send their own, and the tab holding the outbox's lock takes over the
moves of a tab that closed; a saved move the server refuses on its replay is shown and dropped.

Each test asks the server's op log (GET /api/v1/boards/{room}/ops) what landed."""

from __future__ import annotations

from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import first_list, settled
from conftest import Page, make_driver
from test_client_server_api import api, api_server

ROOM = "cities"
# Installed after load in each tab: records what the page sends on its sockets.
RECORD_SENT = """
window.__sent = [];
const send = WebSocket.prototype.send;
WebSocket.prototype.send = function (data) { window.__sent.push(String(data)); return send.call(this, data); };
"""


def profile_page(profile: Path) -> Page:
    """A browser of its own on the Chromium profile `profile` (kept when it quits: IndexedDB stays)."""
    return Page(make_driver(f"--user-data-dir={profile}"), "Cat", "#2b8a3e")


def offline(page: Page) -> None:
    page.wait(lambda: page.js("return document.body.dataset.connection") != "open", 10, "the page to see the server gone")


def saved_text(page: Page) -> str:
    return page.js("const e = document.getElementById('outbox-status'); return e.hidden ? '' : e.textContent")


def move_down(page: Page, item: str) -> None:
    """Moves `item` one place down with the keyboard (Space, arrow down, Space)."""
    page.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", item)
    chain = ActionChains(page.driver)
    for key in (Keys.SPACE, Keys.ARROW_DOWN, Keys.SPACE):
        chain.send_keys(key)
    chain.perform()
    page.wait(lambda: "Dropped" in page.announcement(), 5, "the drop")


def moves_of(server, item: str) -> list[dict]:
    status, body = api(server, "GET", f"/api/v1/boards/{ROOM}/ops?since=0&limit=1000")
    assert status == 200, body
    return [a for a in body["ops"] if a["op"]["kind"] == "move" and a["op"]["item"] == item]


def sent_ops(page: Page) -> list[str]:
    return page.js("return window.__sent.map(s => JSON.parse(s)).filter(m => m.type === 'op').map(m => m.id)")


def test_moves_made_offline_survive_a_closed_browser_and_land_once(make_server, tmp_path):
    server = api_server(make_server)
    profile = tmp_path / "profile"
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        col = first_list(page, "list", min_items=5)
        ids = col["items"]
        assert saved_text(page) == "", "nothing is saved while online with nothing pending"
        server.stop()
        offline(page)
        move_down(page, ids[0])
        page.wait(lambda: saved_text(page) == "1 change saved on this device", 10, "the singular count")
        move_down(page, ids[3])
        page.wait(lambda: saved_text(page) == "2 changes saved on this device", 10, "the plural count")
        moved = [ids[1], ids[0], ids[2], ids[4], ids[3]] + ids[5:]
        page.wait_order(col["id"], moved)
    finally:
        page.driver.quit()

    server.restart()  # same port (same origin, same database) and same data
    assert moves_of(server, ids[0]) == [] and moves_of(server, ids[3]) == [], "nothing landed while the page was away"
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        page.wait_order(col["id"], moved, 10)
        settled(page)
        page.wait(lambda: page.js("return document.getElementById('outbox-status').dataset.saved") == "0", 10, "the outbox to empty")
        first, second = moves_of(server, ids[0]), moves_of(server, ids[3])
        assert len(first) == 1 and len(second) == 1, (first, second)
        assert first[0]["seq"] < second[0]["seq"], "re-sent in the order they were made"
        # Opened once more, the page has nothing left to send.
        page.open(server, ROOM)
        page.wait_order(col["id"], moved)
        assert len(moves_of(server, ids[0])) == 1 and len(moves_of(server, ids[3])) == 1
    finally:
        page.driver.quit()


# Installed before the page's scripts: while `window.__dropApplied` is set, no `applied` frame
# reaches the page (as if the acknowledgement were lost with the connection).
DROP_APPLIED = """
(() => {
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    addEventListener(type, fn, options) {
      if (type !== "message") return super.addEventListener(type, fn, options);
      return super.addEventListener(type, function (event) {
        if (window.__dropApplied && typeof event.data === "string" && event.data.includes('"type":"applied"')) return;
        return fn.call(this, event);
      }, options);
    }
  };
})();
"""


def test_a_move_that_landed_unacknowledged_is_not_applied_twice(make_server, tmp_path):
    server = api_server(make_server)
    profile = tmp_path / "profile"
    page = profile_page(profile)
    try:
        page.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": DROP_APPLIED})
        page.open(server, ROOM)
        col = first_list(page, "list", min_items=3)
        ids = col["items"]
        page.js("window.__dropApplied = true")
        move_down(page, ids[0])
        page.wait(lambda: len(moves_of(server, ids[0])) == 1, 10, "the move to land")
        page.wait(lambda: page.js("return document.getElementById('outbox-status').dataset.saved") == "1", 10, "the move to be saved")
        assert page.js("return document.body.dataset.pending") == "1", "its acknowledgement never reached the page"
    finally:
        page.driver.quit()

    # Another browser session on the same profile re-sends it with its op id: recognised, not applied again.
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        page.wait(lambda: page.js("return document.getElementById('outbox-status').dataset.saved") == "0", 10, "the outbox to empty")
        settled(page)
        page.wait_order(col["id"], [ids[1], ids[0]] + ids[2:])
        assert len(moves_of(server, ids[0])) == 1, moves_of(server, ids[0])
    finally:
        page.driver.quit()


def test_two_tabs_each_send_their_own_and_a_closed_tab_is_taken_over(make_server, tmp_path):
    server = api_server(make_server)
    page = profile_page(tmp_path / "profile")
    driver = page.driver
    try:
        page.open(server, ROOM, debug=True)
        tab_a = driver.current_window_handle
        col = first_list(page, "list", min_items=6)
        ids = col["items"]
        page.wait(lambda: page.js("return window.reorder.client.outbox.sender"), 10, "A to hold the outbox's lock")
        page.js(RECORD_SENT)
        driver.switch_to.new_window("tab")
        tab_b = driver.current_window_handle
        page.goto(server.base + "?debug#/b/" + ROOM)
        page.wait(lambda: page.js("return document.body.dataset.connection") == "open", 15, "B to connect")
        page.wait(lambda: page.js("return document.querySelectorAll('[data-item]').length") > 0, 10, "B's items")
        page.js(RECORD_SENT)
        assert page.js("return window.reorder.client.outbox.sender") is False, "the lock is A's"

        # Both tabs offline, one move each: each tab shows the device's two.
        server.stop()
        offline(page)
        page.js("window.reorder.client.move(arguments[0], arguments[1], {after: arguments[2]})", ids[2], col["id"], ids[3])
        driver.switch_to.window(tab_a)
        offline(page)
        page.js("window.reorder.client.move(arguments[0], arguments[1], {after: arguments[2]})", ids[0], col["id"], ids[1])
        page.wait(lambda: saved_text(page) == "2 changes saved on this device", 10, "A to count both tabs' changes")
        driver.switch_to.window(tab_b)
        page.wait(lambda: saved_text(page) == "2 changes saved on this device", 10, "B to count both tabs' changes")

        server.restart()
        for tab in (tab_a, tab_b):
            driver.switch_to.window(tab)
            page.wait(lambda: page.js("return document.body.dataset.connection") == "open", 20, "the tab to reconnect")
            settled(page)
        page.wait(lambda: page.js("return window.reorder.client.saved") == 0, 10, "the outbox to empty")
        b_sent = sent_ops(page)
        driver.switch_to.window(tab_a)
        a_sent = sent_ops(page)
        a_move, b_move = moves_of(server, ids[0]), moves_of(server, ids[2])
        assert len(a_move) == 1 and len(b_move) == 1, (a_move, b_move)
        assert a_sent == [a_move[0]["id"]] and b_sent == [b_move[0]["id"]], f"each tab sent only its own: {a_sent} {b_sent}"

        # Offline again: A (the lock's holder) moves and closes; B takes the lock over and sends it.
        server.stop()
        offline(page)
        page.js("window.reorder.client.move(arguments[0], arguments[1], {after: arguments[2]})", ids[4], col["id"], ids[5])
        page.wait(lambda: saved_text(page) == "1 change saved on this device", 10, "A's saved change")
        driver.close()
        driver.switch_to.window(tab_b)
        page.wait(lambda: page.js("return window.reorder.client.outbox.sender"), 10, "B to take the lock over")
        page.wait(lambda: saved_text(page) == "1 change saved on this device", 10, "B to count A's change")
        server.restart()
        page.wait(lambda: len(moves_of(server, ids[4])) == 1, 20, "A's move to land through B")
        settled(page)
        page.wait(lambda: page.js("return window.reorder.client.saved") == 0, 10, "the outbox to empty")
        taken = moves_of(server, ids[4])
        assert len(taken) == 1 and taken[0]["by"] == page.js("return window.reorder.client.session"), taken
        assert sent_ops(page).count(taken[0]["id"]) == 1, sent_ops(page)
        order = page.order(col["id"])
        assert order.index(ids[4]) == order.index(ids[5]) + 1, order
    finally:
        driver.quit()


def test_a_saved_move_the_server_refuses_is_shown_and_dropped(make_server, tmp_path):
    server = api_server(make_server)
    profile = tmp_path / "profile"
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        col = first_list(page, "list", min_items=3)
        ids = col["items"]
        server.stop()
        offline(page)
        move_down(page, ids[0])
        page.wait(lambda: saved_text(page) == "1 change saved on this device", 10, "the saved move")
    finally:
        page.driver.quit()

    server.restart()
    # Someone else deletes the item meanwhile: the move cannot apply any more.
    status, body = api(server, "POST", f"/api/v1/boards/{ROOM}/ops", {"ops": [{"id": "other:1", "op": {"kind": "delete", "item": ids[0]}}]})
    assert status == 200 and body["results"][0]["type"] == "applied", body
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        page.wait(lambda: page.js("return !document.getElementById('outbox-dropped').hidden"), 10, "the dropped notice")
        entries = page.js("return [...document.querySelectorAll('#outbox-dropped-list li')].map(li => [li.dataset.code, li.textContent])")
        assert len(entries) == 1 and entries[0][0] == "unknown_item", entries
        assert entries[0][1].startswith("Could not move ") and "no live item with this id" in entries[0][1], entries
        page.wait(lambda: page.js("return document.getElementById('outbox-status').dataset.saved") == "0", 10, "the outbox to empty")
        assert page.order(col["id"]) == ids[1:]
        assert moves_of(server, ids[0]) == []
        page.js("document.getElementById('outbox-dropped-dismiss').click()")
        assert page.js("return document.getElementById('outbox-dropped').hidden") is True
        # Dropped for good: opened again, the page sends nothing and says nothing.
        page.open(server, ROOM)
        settled(page)
        assert page.js("return document.getElementById('outbox-dropped').hidden") is True
        assert moves_of(server, ids[0]) == []
    finally:
        page.driver.quit()


def test_a_closed_tabs_move_is_not_resent_once_the_server_may_have_forgotten_its_op_id(make_server, tmp_path):
    server = api_server(make_server)
    profile = tmp_path / "profile"
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        col = first_list(page, "list", min_items=3)
        ids = col["items"]
        server.stop()
        offline(page)
        move_down(page, ids[0])
        page.wait(lambda: saved_text(page) == "1 change saved on this device", 10, "the saved move")
    finally:
        page.driver.quit()

    server.restart()
    # 10,000 ops after the move's seq: the server's memory of op ids (docs/PROTOCOL.md) no longer
    # reaches back to it, so a re-send might apply it twice.
    for batch in range(10):
        ops = [{"id": f"bulk:{batch}.{i}", "op": {"kind": "set", "item": ids[2], "field": "n", "value": batch * 1000 + i}} for i in range(1000)]
        status, body = api(server, "POST", f"/api/v1/boards/{ROOM}/ops", {"ops": ops})
        assert status == 200 and all(r["type"] == "applied" for r in body["results"]), (status, body and body["results"][:1])
    page = profile_page(profile)
    try:
        page.open(server, ROOM)
        page.wait(lambda: page.js("return !document.getElementById('outbox-dropped').hidden"), 10, "the dropped notice")
        entries = page.js("return [...document.querySelectorAll('#outbox-dropped-list li')].map(li => li.dataset.code)")
        assert entries == ["outbox_expired"], entries
        page.wait(lambda: page.js("return document.getElementById('outbox-status').dataset.saved") == "0", 10, "the outbox to empty")
        assert page.order(col["id"]) == ids
        status, board = api(server, "GET", f"/api/v1/boards/{ROOM}")
        stored = next(entry for entry in board["board"]["lists"] if entry["id"] == col["id"])
        assert status == 200 and [item["id"] for item in stored["items"]] == ids, "the move was not applied"
    finally:
        page.driver.quit()
