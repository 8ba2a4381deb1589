"""Two browsers on one board: ghosts, live reorders, convergence, disconnects, restarts, undo."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import first_list, settled
from conftest import Page, shot

NOW = "return performance.timeOrigin + performance.now();"


def ghost(page: Page):
    return page.js(
        "const g = document.querySelector('[data-ghost]'); if (!g || g.hidden) return null;"
        "const r = g.getBoundingClientRect(); return {x: r.left, y: r.top, name: g.textContent,"
        " color: getComputedStyle(g).getPropertyValue('--peer').trim(), item: g.dataset.ghostItem};"
    )


def watch_ghost(page: Page) -> None:
    page.js(
        "window.__ghostAt = null; new MutationObserver(() => {"
        " if (!window.__ghostAt && document.querySelector('[data-ghost]')) window.__ghostAt = performance.timeOrigin + performance.now();"
        "}).observe(document.getElementById('ghosts'), {childList: true});"
    )


def watch_lift(page: Page) -> None:
    page.js(
        "window.__liftAt = null; new MutationObserver(() => {"
        " if (!window.__liftAt && document.querySelector('.drag-snapshot')) window.__liftAt = performance.timeOrigin + performance.now();"
        "}).observe(document.body, {childList: true});"
    )


def test_remote_drag_shows_a_following_ghost_and_the_drop_reorders_the_other_browser(server, page_a: Page, page_b: Page):
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    page_b.wait(lambda: page_b.js("return document.querySelectorAll('[data-peer]').length") == 1, 5, "B to see A online")
    assert "Ann" in page_b.js("return document.getElementById('peers').textContent")
    watch_ghost(page_b)
    watch_lift(page_a)
    a = page_a.item(ids[0])
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    page_a.mouse_path(a["cx"], a["cy"], a["cx"] + 6, a["cy"] + 12, 3)
    page_a.wait(page_a.lifted, 3, "A's lift")
    page_b.wait(lambda: ghost(page_b) is not None, 5, "the ghost in B")
    lift_at = page_a.js("return window.__liftAt")
    ghost_at = page_b.js("return window.__ghostAt")
    latency = ghost_at - lift_at
    print(f"ghost latency: {latency:.0f} ms")
    assert latency < 500, f"the ghost appeared {latency:.0f} ms after the lift"
    g0 = ghost(page_b)
    assert "Ann" in g0["name"] and g0["item"] == ids[0]
    page_b.wait(
        lambda: page_b.js("const e = document.querySelector(`[data-item='${arguments[0]}']`); return e.classList.contains('held') && e.textContent.includes('held by Ann')", ids[0]),
        3,
        "'held by Ann' in B",
    )
    # The ghost follows A's pointer down the list.
    c = page_a.item(ids[3])
    page_a.mouse_path(a["cx"] + 6, a["cy"] + 12, c["cx"], c["cy"] + 2, 8)
    page_b.wait(lambda: ghost(page_b)["y"] > g0["y"] + (c["cy"] - a["cy"]) * 0.7, 3, "the ghost to follow")
    shot(page_b, "ghost-in-b")
    shot(page_a, "dragging-in-a")
    page_b.js(
        "window.__flip = 0; const orig = Element.prototype.animate;"
        "Element.prototype.animate = function (...a) { if (this.dataset && this.dataset.item) window.__flip++; return orig.apply(this, a); };"
    )
    page_a.mouse("mouseReleased", c["cx"], c["cy"] + 2)
    expected = ids[1:4] + [ids[0]] + ids[4:]
    page_a.wait_order(col["id"], expected)
    page_b.wait_order(col["id"], expected)
    assert page_b.js("return window.__flip") >= 3, "the committed move animates into place in B"
    page_b.wait(lambda: ghost(page_b) is None, 3, "the ghost to go")
    assert not page_b.js("return !!document.querySelector('.held')")


def test_concurrent_moves_converge(server, page_a: Page, page_b: Page):
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    a0, a3 = page_a.item(ids[0]), page_a.item(ids[3])
    b0, b5 = page_b.item(ids[0]), page_b.item(ids[5])
    b1, b4 = page_b.item(ids[1]), page_b.item(ids[4])
    # Both lift the same item at once and drop it in different places; B also moves another.
    page_a.mouse("mousePressed", a0["cx"], a0["cy"])
    page_b.mouse("mousePressed", b0["cx"], b0["cy"])
    page_a.mouse_path(a0["cx"], a0["cy"], a3["cx"], a3["cy"] + 2, 6)
    page_b.mouse_path(b0["cx"], b0["cy"], b5["cx"], b5["cy"] + 2, 6)
    page_a.mouse("mouseReleased", a3["cx"], a3["cy"] + 2)
    page_b.mouse("mouseReleased", b5["cx"], b5["cy"] + 2)
    page_b.mouse_drag(b1["cx"], b1["cy"], b4["cx"], b4["cy"] + 2, 6)
    settled(page_a)
    settled(page_b)
    page_a.wait(lambda: page_a.order(col["id"]) == page_b.order(col["id"]), 5, "the same order in A and B")
    final = page_a.order(col["id"])
    assert sorted(final) == sorted(ids), "every item exactly once"


def test_closing_a_browser_mid_drag_removes_its_ghost(server, fresh_page, page_b: Page):
    page_c = fresh_page("Cat", "#2b8a3e")
    page_c.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_c, "list")
    ids = col["items"]
    a = page_c.item(ids[1])
    page_c.mouse("mousePressed", a["cx"], a["cy"])
    page_c.mouse_path(a["cx"], a["cy"], a["cx"], a["cy"] + 40, 4)
    page_b.wait(lambda: ghost(page_b) is not None, 5, "the ghost in B")
    page_c.close_browser()
    page_b.wait(lambda: ghost(page_b) is None, 10, "the ghost to disappear")
    page_b.wait(lambda: not page_b.js("return !!document.querySelector('.held')"), 3, "the item to be free")
    page_b.wait(lambda: page_b.js("return document.querySelectorAll('[data-peer]').length") == 0, 5, "Cat to leave")
    assert page_b.order(col["id"]) == ids


def both_open_after_one_move(server, page_a: Page, page_b: Page) -> tuple[dict, list, list]:
    """A and B on "cities"; A drags the first item below the third, B sees it, A's intent is acked.
    Returns the list, its order before and its order after."""
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    a0, a2 = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.mouse_drag(a0["cx"], a0["cy"], a2["cx"], a2["cy"] + 2, 8)
    moved = [ids[1], ids[2], ids[0]] + ids[3:]
    page_b.wait_order(col["id"], moved)
    settled(page_a)
    return col, ids, moved


def test_server_restart_both_reconnect_and_converge(server, page_a: Page, page_b: Page):
    # One committed move before the restart.
    col, ids, first = both_open_after_one_move(server, page_a, page_b)

    server.stop()
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") != "open", 10, "A to notice")
    page_b.wait(lambda: page_b.js("return document.body.dataset.connection") != "open", 10, "B to notice")
    # A moves while the server is down: the intent waits and is sent after the reconnect.
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[5])
    ActionChains(page_a.driver).send_keys(Keys.SPACE, Keys.ARROW_UP, Keys.SPACE).perform()
    second = first[:4] + [ids[5], ids[4]] + first[6:]
    page_a.wait_order(col["id"], second)
    assert page_a.js("return document.body.dataset.pending") == "1"

    server.start()
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 20, "A to reconnect")
    page_b.wait(lambda: page_b.js("return document.body.dataset.connection") == "open", 20, "B to reconnect")
    settled(page_a)
    page_b.wait_order(col["id"], second, timeout=10)
    assert page_a.order(col["id"]) == second


def test_undo_and_redo_in_a_are_seen_in_b(server, page_a: Page, page_b: Page):
    col, ids, moved = both_open_after_one_move(server, page_a, page_b)
    page_a.js("document.body.focus()")
    ActionChains(page_a.driver).key_down(Keys.CONTROL).send_keys("z").key_up(Keys.CONTROL).perform()
    page_b.wait_order(col["id"], ids)
    page_a.wait_order(col["id"], ids)
    settled(page_a)
    ActionChains(page_a.driver).key_down(Keys.CONTROL).key_down(Keys.SHIFT).send_keys("z").key_up(Keys.SHIFT).key_up(Keys.CONTROL).perform()
    page_b.wait_order(col["id"], moved)
    settled(page_a)
    # The buttons do the same.
    page_a.js("document.getElementById('undo-button').click()")
    page_b.wait_order(col["id"], ids)
    settled(page_a)


def test_a_remote_move_during_a_local_drag_keeps_the_drag_and_both_converge(server, page_a: Page, page_b: Page):
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    b5, b7 = page_b.item(ids[5]), page_b.item(ids[7])
    page_b.mouse("mousePressed", b5["cx"], b5["cy"])
    page_b.mouse_path(b5["cx"], b5["cy"], b7["cx"], b7["cy"] + 2, 6)
    page_b.wait(lambda: page_b.order(col["id"]).index(ids[5]) == 7, 5, "B's placeholder at slot 7")
    # Meanwhile A moves the first item to the end (keyboard "Move to…").
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    ActionChains(page_a.driver).send_keys("m").perform()
    page_a.wait(lambda: page_a.js("return document.getElementById('move-dialog').open"), 5, "the dialog")
    page_a.js("const p = document.getElementById('move-position'); p.value = p.max; document.getElementById('move-submit').click();")
    page_b.wait(lambda: page_b.order(col["id"])[-1] == ids[0], 5, "A's move to reach B mid-drag")
    assert page_b.lifted(), "B's drag survived the remote change"
    at_release = page_b.order(col["id"])
    assert at_release.index(ids[5]) == 7 or at_release[at_release.index(ids[5]) - 1] == ids[7]
    page_b.mouse("mouseReleased", b7["cx"], b7["cy"] + 2)
    settled(page_a)
    settled(page_b)
    page_a.wait(lambda: page_a.order(col["id"]) == page_b.order(col["id"]), 5, "convergence")
    final = page_b.order(col["id"])
    assert final[-1] == ids[0] and sorted(final) == sorted(ids)
    assert final[final.index(ids[5]) - 1] == at_release[at_release.index(ids[5]) - 1], "B's drop kept its neighbour"


# Moves items over a plain WebSocket from the page and resolves to 'ok' once every move is applied.
MOVES = """
const [room, moves, done] = arguments;
const ws = new WebSocket(`ws://${location.host}/ws/${room}`);
let left = moves.length;
ws.onopen = () => ws.send(JSON.stringify({type: 'hello', room, client: 'script', name: 'script', color: '#333333'}));
ws.onmessage = (event) => {
  const m = JSON.parse(event.data);
  if (m.type === 'welcome') {
    moves.forEach((op, i) => ws.send(JSON.stringify({type: 'op', id: 'script:' + i, op: Object.assign({kind: 'move'}, op)})));
  } else if (m.type === 'applied' && String(m.id).startsWith('script:')) {
    if (--left === 0) { ws.close(); done('ok'); }
  } else if (m.type === 'rejected' || m.type === 'error') {
    ws.close(); done('error: ' + JSON.stringify(m));
  }
};
ws.onerror = () => done('error: websocket');
"""


def test_a_server_restarted_on_fresh_data_sends_a_full_board_and_the_browser_converges(server, page_a: Page, page_b: Page):
    import shutil
    import tempfile

    from boards import lists

    page_a.open(server, "cities", debug=True)
    col = first_list(page_a, "list")
    ids = col["items"]
    # A's history: one move after the demo seed.
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    ActionChains(page_a.driver).send_keys(Keys.SPACE, Keys.ARROW_DOWN, Keys.ARROW_DOWN, Keys.SPACE).perform()
    page_a.wait_order(col["id"], [ids[1], ids[2], ids[0]] + ids[3:])
    settled(page_a)

    # A is away (e.g. asleep) while the server restarts on fresh data and someone moves two items:
    # the new history has a later seq than A's, but it is another history.
    page_a.js("window.reorder.connection.stop()")
    fresh_data = tempfile.mkdtemp(prefix="reorder-browser-fresh-")
    server.data_dir = fresh_data
    server.restart()  # same port, empty data
    fresh = server
    try:
        page_b.goto(fresh.base + "?script")
        moves = [{"item": ids[5], "list": col["id"]}, {"item": ids[7], "list": col["id"], "before": ids[0]}]
        assert page_b.driver.execute_async_script(MOVES, "cities", moves) == "ok"
        page_b.open(fresh, "cities")
        expected = lists(page_b)
        assert expected != lists(page_a)

        old_epoch = page_a.js("return window.reorder.model.epoch")
        assert isinstance(old_epoch, str) and old_epoch, "the client keeps the epoch of its welcome"
        page_a.js(
            "window.__hellos = []; const send = WebSocket.prototype.send;"
            "WebSocket.prototype.send = function (d) { const m = JSON.parse(d); if (m.type === 'hello') window.__hellos.push(m); return send.call(this, d); };"
            "window.reorder.connection.start();"
        )
        page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 15, "A to reconnect")
        hello = page_a.js("return window.__hellos[0]")
        assert hello.get("since") is not None and hello.get("epoch") == old_epoch, hello
        page_a.wait(lambda: lists(page_a) == expected, 10, "A to show exactly the server's board")
        # And it stays in step afterwards.
        page_b.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[3])
        ActionChains(page_b.driver).send_keys(Keys.SPACE, Keys.ARROW_UP, Keys.SPACE).perform()
        settled(page_b)
        after = lists(page_b)
        page_a.wait(lambda: lists(page_a) == after, 10, "A to follow B")
    finally:
        page_a.leave()
        page_b.leave()
        server.stop()
        shutil.rmtree(fresh_data, ignore_errors=True)


def test_missing_or_null_totals_and_odd_field_values_still_render(server, page_a: Page):
    from boards import items_with_role

    page_a.open(server, "food", debug=True)
    page_a.wait(lambda: len(items_with_role(page_a, "person")) > 1, 10, "people")
    people = items_with_role(page_a, "person")
    foods = items_with_role(page_a, "food")
    # A welcome as a server with a bug might send it: null / missing / wrong-typed values.
    page_a.js(
        """
        const [people, foods] = arguments;
        const r = window.reorder, s = r.model.server;
        const board = {lists: s.lists.map(l => ({id: l.id, title: l.title, layout: l.layout,
          items: l.items.map(id => ({id, fields: Object.assign({}, s.items.get(id).fields)}))})),
          assignments: [{id: '_x1', item: foods[0], target: people[0]}], totals: {}};
        const field = (id) => board.lists.flatMap(l => l.items).find(i => i.id === id).fields;
        field(foods[0]).price = null;
        field(foods[1]).price = 'cheap';
        field(foods[1]).title = null;
        board.totals[people[0]] = {count: 1, sum: null};
        board.totals[people[1]] = {count: 'two'};
        board.totals[people[2]] = null;
        r.client.receive({type: 'welcome', session: 'x', epoch: r.model.epoch, seq: r.model.seq, board, peers: []});
        """,
        people,
        foods,
    )
    text = page_a.js("return document.getElementById('board-lists').textContent")
    for person in people[:3]:
        line = page_a.js("return document.querySelector(`[data-item='${arguments[0]}'] .item-totals`).textContent", person)
        assert "null" not in line and "NaN" not in line and "undefined" not in line, line
    assert "NaN" not in text and "undefined" not in text
    assert page_a.js("return document.querySelector(`[data-item='${arguments[0]}'] .chip`) !== null", people[0])
    # Rendering goes on: a move still shows.
    col = page_a.js("return document.querySelector(`[data-item='${arguments[0]}']`).parentElement.dataset.list", foods[2])
    before = page_a.order(col)
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", before[1])
    ActionChains(page_a.driver).send_keys(Keys.SPACE, Keys.ARROW_LEFT, Keys.SPACE).perform()
    page_a.wait_order(col, [before[1], before[0]] + before[2:])
    settled(page_a)


def test_a_drained_server_closes_with_1012_and_the_pages_come_back(make_server, page_a: Page, page_b: Page):
    import signal

    server = make_server("--drain-seconds", "1")
    page_a.open(server, "cities")
    page_b.open(server, "cities")
    server.proc.send_signal(signal.SIGTERM)
    assert server.proc.wait(timeout=10) == 0, "a drain exits 0"
    log = "".join(server.log)
    assert "draining" in log and "drained" in log, log
    for page in (page_a, page_b):
        page.wait(lambda: page.js("return document.body.dataset.connection") != "open", 10, "the page to notice")
    server.start()
    for page in (page_a, page_b):
        page.wait(lambda: page.js("return document.body.dataset.connection") == "open", 20, "the page to reconnect")
    col = first_list(page_a, "list")
    ids = col["items"]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    ActionChains(page_a.driver).send_keys(Keys.SPACE, Keys.ARROW_DOWN, Keys.SPACE).perform()
    page_b.wait_order(col["id"], [ids[1], ids[0]] + ids[2:], timeout=10)
