"""A list of 10,000 items: the page renders a window of rows (web/js/view.js, virtual-window.js),
and reordering still works over the whole list: keyboard moves (two pages), remote moves out of
and into the window, a pointer drag with auto-scroll."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import settled
from conftest import Page
from long_lists import LIST, long_board, model_order, pitch, rendered, scroll_list, server_order, shows_model_order, visible_ids
from test_client_server_api import api

N = 10_000


def open_long(page: Page, server) -> None:
    page.open(server, "long", debug=True)
    page.wait(lambda: shows_model_order(page), 10, "the first rows")


def still(page: Page) -> bool:
    """Whether the list did not scroll over two frames."""
    return page.driver.execute_async_script(
        "const [list, done] = arguments; const u = document.querySelector(`[data-list='${list}']`); const t = u.scrollTop;"
        "requestAnimationFrame(() => requestAnimationFrame(() => done(u.scrollTop === t)));", LIST)


def keys(page: Page, *sequence: str) -> None:
    chain = ActionChains(page.driver)
    for k in sequence:
        chain.send_keys(k)
    chain.perform()


def test_a_10000_item_list_renders_a_window_of_rows_with_the_whole_size(make_server, page_a: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    rows = rendered(page_a)
    assert 10 <= len(rows) <= 100, len(rows)
    assert [r["id"] for r in rows] == ids[: len(rows)]
    assert all(r["size"] == N for r in rows) and [r["pos"] for r in rows] == list(range(1, len(rows) + 1))
    nodes = page_a.js("return document.getElementsByTagName('*').length")
    assert nodes < 2_000, f"{nodes} DOM nodes for {N} items"
    # The scroll height stands for every row; the count says the whole size.
    pitch = page_a.item(ids[1])["y"] - page_a.item(ids[0])["y"]
    height = page_a.js("return document.querySelector(`[data-list='${arguments[0]}']`).scrollHeight", LIST)
    assert abs(height - N * pitch) < 2 * pitch, (height, pitch)
    assert page_a.js("return document.querySelector('.collection-count').textContent") == str(N)


def test_scrolling_to_the_end_shows_the_last_items(make_server, page_a: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    scroll_list(page_a, 10**9)
    page_a.wait(lambda: ids[-1] in visible_ids(page_a), 5, "the last item in view")
    assert shows_model_order(page_a)
    rows = rendered(page_a)
    assert rows[-1]["pos"] == N and ids[0] not in [r["id"] for r in rows]
    # Half way down shows the middle.
    scroll_list(page_a, 0)
    page_a.wait(lambda: ids[0] in visible_ids(page_a), 5, "the first item in view again")
    middle = page_a.js("const u = document.querySelector(`[data-list='${arguments[0]}']`); return u.scrollHeight / 2", LIST)
    scroll_list(page_a, middle)
    page_a.wait(lambda: any(abs(int(i[1:]) - N // 2) < 30 for i in visible_ids(page_a)), 5, "the middle in view")
    assert shows_model_order(page_a)


def test_a_20_step_keyboard_move_lands_in_both_pages(make_server, page_a: Page, page_b: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    open_long(page_b, server)
    item = ids[5]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", item)
    keys(page_a, Keys.SPACE)
    page_a.wait(lambda: "Lifted" in page_a.announcement(), 3, "the lift")
    assert f"Position 6 of {N}" in page_a.announcement()
    for step in range(1, 21):
        keys(page_a, Keys.ARROW_DOWN)
        page_a.wait(lambda: f"Position {6 + step} of {N}" in page_a.announcement(), 3, f"step {step}")
    # The lifted item travelled past the first window: still rendered, focused, in view, at its place.
    assert page_a.js("return document.activeElement.dataset.item") == item
    page_a.wait(lambda: item in visible_ids(page_a), 3, "the lifted item in view")
    row = next(r for r in rendered(page_a) if r["id"] == item)
    assert row["pos"] == 26 and not row["off"], row
    keys(page_a, Keys.SPACE)
    page_a.wait(lambda: "Dropped" in page_a.announcement(), 3, "the drop")
    expected = ids[:5] + ids[6:26] + [item] + ids[26:]
    page_a.wait(lambda: model_order(page_a) == expected, 5, "A's order")
    settled(page_a)
    page_b.wait(lambda: model_order(page_b) == expected, 5, "B's order")
    assert page_a.js("return document.activeElement.dataset.item") == item
    # B shows the item at its new place once in view.
    assert item not in [r["id"] for r in rendered(page_b)], "B's window is at the top"
    scroll_list(page_b, 20 * pitch(page_b))
    page_b.wait(lambda: item in visible_ids(page_b), 5, "the moved item in B's view")
    assert shows_model_order(page_b)
    assert server_order(server) == expected


def test_remote_moves_out_of_and_into_the_window_show_at_once(make_server, page_a: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    assert ids[3] in visible_ids(page_a)

    def move(op_id: str, item: str, after: str) -> None:
        status, answer = api(server, "POST", "/api/v1/boards/long/ops",
                             {"ops": [{"id": op_id, "op": {"kind": "move", "item": item, "list": LIST, "after": after}}]})
        assert status == 200 and answer["results"][0]["type"] == "applied", answer

    # Out of the window: an item in view goes to the end.
    move("out", ids[3], ids[-1])
    page_a.wait(lambda: ids[3] not in [r["id"] for r in rendered(page_a)], 5, "the item to leave the window")
    assert shows_model_order(page_a)
    assert visible_ids(page_a)[:4] == [ids[0], ids[1], ids[2], ids[4]]
    # Into the window: the last item (not rendered) comes to third place.
    assert ids[-1] not in [r["id"] for r in rendered(page_a)]
    move("in", ids[-1], ids[1])
    page_a.wait(lambda: visible_ids(page_a)[:4] == [ids[0], ids[1], ids[-1], ids[2]], 5, "the item to enter the window")
    assert shows_model_order(page_a)
    # The end of the list has both changes.
    scroll_list(page_a, 10**9)
    page_a.wait(lambda: visible_ids(page_a)[-2:] == [ids[-2], ids[3]], 5, "the end of the list")
    assert shows_model_order(page_a)


def test_pointer_drag_with_auto_scroll_lands_far_down_a_long_list(make_server, page_a: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    item = ids[1]
    box = page_a.rect(f"[data-list='{LIST}']")
    a = page_a.item(item)
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    page_a.mouse_path(a["cx"], a["cy"], a["cx"], box["y"] + box["h"] - 10, 12)
    page_a.wait(page_a.lifted, 3, "the lift")
    # Near the bottom edge the list scrolls by itself, frame after frame.
    top = lambda: page_a.js("return document.querySelector(`[data-list='${arguments[0]}']`).scrollTop", LIST)
    page_a.wait(lambda: top() > 3_000, 15, "the list to auto-scroll 3,000 px")
    # Back to the middle: scrolling stops, the placeholder follows the pointer.
    page_a.mouse_path(a["cx"], box["y"] + box["h"] - 10, a["cx"], box["cy"], 6)
    page_a.wait(lambda: still(page_a), 3, "the scroll to stop")
    placeholder = page_a.js("const p = document.querySelector('.placeholder'); return p && {id: p.dataset.item,"
                            " pos: +p.getAttribute('aria-posinset'), off: p.classList.contains('off-window')}")
    assert placeholder and placeholder["id"] == item and not placeholder["off"], placeholder
    assert placeholder["pos"] > 50, placeholder
    page_a.mouse("mouseReleased", a["cx"], box["cy"])
    page_a.wait(lambda: not page_a.lifted(), 3, "the drop")
    landed = placeholder["pos"] - 1
    expected = ids[:1] + ids[2 : landed + 1] + [item] + ids[landed + 1 :]
    page_a.wait(lambda: model_order(page_a) == expected, 5, "the item at the placeholder's place")
    settled(page_a)
    assert server_order(server) == expected
    assert shows_model_order(page_a)


def test_a_ghost_of_an_item_outside_the_window_shows_once_it_is_in_view(make_server, page_a: Page, page_b: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    open_long(page_b, server)
    page_a.driver.get_log("browser")  # drops what earlier tests logged
    item = ids[N // 2]
    scroll_list(page_b, (N // 2) * pitch(page_b))
    page_b.wait(lambda: item in visible_ids(page_b), 5, "the middle in B's view")
    page_b.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", item)
    keys(page_b, Keys.SPACE)
    page_b.wait(lambda: "Lifted" in page_b.announcement(), 3, "B's lift")
    # A's window is at the top: the ghost exists, hidden, and carries the item's title.
    ghost = "return (g => g && {hidden: g.hidden, card: g.querySelector('.ghost-card').textContent,"
    ghost += " y: g.getBoundingClientRect().top})(document.querySelector('[data-ghost]'))"
    page_a.wait(lambda: page_a.js(ghost) is not None, 5, "the ghost in A")
    page_a.wait(lambda: page_a.js(ghost)["hidden"], 3, "the ghost hidden (its item is not in view)")
    assert page_a.js(ghost)["card"] == "Item"
    # Scrolled there, A sees the ghost over the held item.
    scroll_list(page_a, (N // 2) * pitch(page_a) - 100)
    page_a.wait(lambda: item in visible_ids(page_a), 5, "the middle in A's view")
    page_a.wait(lambda: not page_a.js(ghost)["hidden"], 3, "the ghost shown")
    row = page_a.item(item)
    page_a.wait(lambda: abs(page_a.js(ghost)["y"] - row["cy"]) < row["h"], 3, "the ghost over the item")
    assert page_a.js("return document.querySelector(`[data-item='${arguments[0]}']`).dataset.heldBy", item) == "Bob"
    keys(page_b, Keys.ESCAPE)
    page_a.wait(lambda: page_a.js(ghost) is None, 5, "the ghost gone")
    severe = [e for e in page_a.driver.get_log("browser") if e["level"] == "SEVERE"]
    assert not severe, severe


def test_move_to_a_far_place_keeps_the_focus_on_the_item_and_undo_brings_it_back(make_server, page_a: Page):
    server, ids = long_board(make_server, N)
    open_long(page_a, server)
    item = ids[2]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", item)
    keys(page_a, "m")
    page_a.wait(lambda: page_a.js("return document.getElementById('move-dialog').open"), 3, "the dialog")
    page_a.js("document.getElementById('move-position').value = '9000'")
    page_a.js("document.getElementById('move-submit').click()")
    expected = ids[:2] + ids[3:9000] + [item] + ids[9000:]
    page_a.wait(lambda: model_order(page_a) == expected, 5, "the move to 9,000")
    page_a.wait(lambda: f"Position 9000 of {N}" in page_a.announcement(), 3, "the announcement")
    # The focus went with the item, 9,000 rows down: it is rendered there, in view.
    page_a.wait(lambda: page_a.js("return document.activeElement.dataset.item") == item, 3, "the focus on the item")
    page_a.wait(lambda: item in visible_ids(page_a), 3, "the item in view")
    assert shows_model_order(page_a)
    settled(page_a)
    page_a.driver.switch_to.active_element.send_keys(Keys.CONTROL, "z")
    page_a.wait(lambda: model_order(page_a) == ids, 5, "the undo")
    settled(page_a)
    assert server_order(server) == ids
