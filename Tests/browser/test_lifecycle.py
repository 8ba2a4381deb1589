"""Board sessions end completely: after switching boards and rejoining, only the open board reacts."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import first_list, settled
from conftest import Page

# Records every frame the page sends from now on (the prototype is shared by every socket, old
# and new, so a session that was left and still sends would show up here).
RECORD_SENT = (
    "window.__sent = []; const send = WebSocket.prototype.send;"
    "WebSocket.prototype.send = function (data) { window.__sent.push(String(data)); return send.call(this, data); };"
)


def sent_of_type(page: Page, kind: str) -> list[dict]:
    return page.js(
        "return window.__sent.map(s => JSON.parse(s)).filter(m => m.type === arguments[0]);",
        kind,
    )


def switch_to(page: Page, server, room: str) -> None:
    page.goto(server.base + "#/b/" + room)
    page.wait(lambda: page.js("return document.getElementById('board-title').textContent") == room, 5, f"{room}'s title")
    page.wait(lambda: page.js("return document.body.dataset.connection") == "open", 10, f"{room} to connect")
    page.wait(lambda: page.js("return document.querySelectorAll('[data-item]').length") > 0, 10, f"{room}'s items")


def switch_boards_and_rename(page: Page, server) -> None:
    """Opens cities, switches boards through the fragment four times (back on cities), renames."""
    page.open(server, "cities")
    for room in ("food", "cities", "food", "cities"):
        switch_to(page, server, room)
    # A new name rejoins the board: one more session that must end the one before it.
    page.js("document.getElementById('identity-button').click()")
    page.js("document.getElementById('name-input').value = 'Ann B'; document.getElementById('identity-form').requestSubmit();")
    page.wait(lambda: page.js("return document.getElementById('identity-button').textContent") == "Ann B", 5, "the new name")
    page.wait(lambda: page.js("return document.body.dataset.connection") == "open", 10, "the rejoin")
    page.wait(lambda: page.js("return document.querySelectorAll('[data-item]').length") > 0, 10, "items")


def test_switching_boards_and_renaming_leaves_one_controller_for_one_drag(server, page_a: Page):
    switch_boards_and_rename(page_a, server)
    page_a.js(RECORD_SENT)
    col = first_list(page_a, "list")
    ids = col["items"]
    a, c = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    page_a.mouse_path(a["cx"], a["cy"], c["cx"], c["cy"] + 2, 12)
    page_a.wait(page_a.lifted, 3, "the lift")
    assert page_a.js("return document.querySelectorAll('.drag-snapshot').length") == 1
    page_a.mouse("mouseReleased", c["cx"], c["cy"] + 2)
    expected = [ids[1], ids[2], ids[0]] + ids[3:]
    page_a.wait_order(col["id"], expected)
    settled(page_a)
    ops = sent_of_type(page_a, "op")
    assert [o["op"]["kind"] for o in ops] == ["move"], ops
    assert ops[0]["op"]["item"] == ids[0]
    starts = [d for d in sent_of_type(page_a, "drag") if d["phase"] == "start"]
    assert len(starts) == 1, starts
    # The drop's snapshot fades out and is removed: none stays behind.
    page_a.wait(lambda: page_a.js("return document.querySelectorAll('.drag-snapshot').length") == 0, 3, "the snapshot to go")
    assert page_a.order(col["id"]) == expected


def test_switching_boards_and_renaming_leaves_one_keyboard_controller(server, page_a: Page):
    switch_boards_and_rename(page_a, server)
    page_a.js(RECORD_SENT)
    col = first_list(page_a, "list")
    ids = col["items"]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    # One arrow is one step: a controller left behind would move the held item once more.
    ActionChains(page_a.driver).send_keys(Keys.SPACE).send_keys(Keys.ARROW_DOWN).send_keys(Keys.SPACE).perform()
    expected = [ids[1], ids[0]] + ids[2:]
    page_a.wait_order(col["id"], expected)
    settled(page_a)
    ops = sent_of_type(page_a, "op")
    assert [(o["op"]["kind"], o["op"]["item"]) for o in ops] == [("move", ids[0])], ops
    assert page_a.order(col["id"]) == expected
