"""Pointer drags: mouse, touch long press, the lifted look, cancel, grids and other collections."""

from boards import add_list, first_list, grid_columns, settled
from conftest import Page


def test_mouse_drag_reorders_and_the_server_keeps_it(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    a, c = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.mouse_drag(a["cx"], a["cy"], c["cx"], c["cy"] + 2, steps=12)
    expected = [ids[1], ids[2], ids[0]] + ids[3:]
    page_a.wait_order(col["id"], expected)
    settled(page_a)
    page_a.driver.refresh()
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "reconnect")
    page_a.wait_order(col["id"], expected)


def test_press_and_release_under_four_pixels_is_a_click_not_a_drag(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    r = page_a.item(col["items"][0])
    page_a.mouse("mousePressed", r["cx"], r["cy"])
    page_a.mouse("mouseMoved", r["cx"] + 2, r["cy"] + 2)
    assert not page_a.lifted()
    page_a.mouse("mouseReleased", r["cx"] + 2, r["cy"] + 2)
    assert not page_a.lifted()
    assert page_a.order(col["id"]) == col["items"]
    assert page_a.js("return document.body.dataset.pending") in ("0", None)


def test_lifted_item_is_a_scaled_shadowed_snapshot_and_the_source_is_dimmed(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    r = page_a.item(col["items"][1])
    page_a.mouse("mousePressed", r["cx"], r["cy"])
    page_a.mouse_path(r["cx"], r["cy"], r["cx"] + 10, r["cy"] + 10, 3)
    page_a.wait(page_a.lifted, 3, "the lift")
    style = page_a.js(
        "const s = getComputedStyle(document.querySelector('.drag-snapshot'));"
        "const p = document.querySelector(`[data-item='${arguments[0]}']`);"
        "const child = getComputedStyle(p.firstElementChild);"
        "return {transform: s.transform, shadow: s.boxShadow, opacity: s.opacity,"
        " placeholder: p.classList.contains('placeholder'), childOpacity: child.opacity};",
        col["items"][1],
    )
    scale = float(style["transform"].split("(")[1].split(",")[0])
    assert abs(scale - 1.05) < 1e-6, style
    assert style["shadow"] not in ("", "none"), style
    assert abs(float(style["opacity"]) - 0.98) < 1e-6, style
    assert style["placeholder"] and float(style["childOpacity"]) < 0.5, style
    page_a.mouse("mouseReleased", r["cx"] + 10, r["cy"] + 10)
    page_a.wait(lambda: not page_a.lifted(), 3, "the drop")


def test_escape_mid_drag_restores_the_exact_order(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    a, d = page_a.item(ids[0]), page_a.item(ids[3])
    page_a.mouse("mousePressed", a["cx"], a["cy"])
    page_a.mouse_path(a["cx"], a["cy"], d["cx"], d["cy"] + 2, 10)
    page_a.wait(lambda: page_a.order(col["id"])[0] != ids[0], 3, "the placeholder to move")
    page_a.driver.switch_to.active_element.send_keys("\ue00c")  # Escape
    page_a.wait(lambda: not page_a.lifted(), 3, "the cancel")
    assert page_a.order(col["id"]) == ids
    assert "Cancelled" in page_a.announcement()
    page_a.mouse("mouseReleased", d["cx"], d["cy"])
    assert page_a.order(col["id"]) == ids
    assert page_a.js("return document.body.dataset.pending") in ("0", None)


def test_touch_long_press_lifts_and_reorders(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    a, c = page_a.item(ids[0]), page_a.item(ids[2])
    page_a.touch("touchStart", a["cx"], a["cy"])
    page_a.touch("touchMove", a["cx"] + 3, a["cy"] + 2)  # a small drift is allowed
    page_a.wait(page_a.lifted, 3, "the long press to lift")
    steps = 10
    for i in range(1, steps + 1):
        page_a.touch("touchMove", a["cx"], a["cy"] + (c["cy"] + 2 - a["cy"]) * i / steps)
    assert page_a.lifted(), "the drag survived the touch moves"
    page_a.touch("touchEnd")
    page_a.wait_order(col["id"], [ids[1], ids[2], ids[0]] + ids[3:])
    settled(page_a)


def test_quick_touch_swipe_scrolls_and_never_lifts(server, page_a: Page):
    page_a.open(server, "numbers")
    col = first_list(page_a, "grid", min_items=50)
    box = page_a.rect(f"[data-list='{col['id']}']")
    before = page_a.js("return document.querySelector(`[data-list='${arguments[0]}']`).scrollTop", col["id"])
    x, y = box["cx"], box["y"] + box["h"] * 0.8
    page_a.js("window.__lifts = 0; document.body.addEventListener('pointerdown', () => {}, true);"
              "new MutationObserver(() => { if (document.querySelector('.drag-snapshot')) window.__lifts++; })"
              ".observe(document.body, {childList: true});")
    page_a.touch("touchStart", x, y)
    for i in range(1, 9):
        page_a.touch("touchMove", x, y - 30 * i)
    page_a.touch("touchEnd")
    page_a.wait(
        lambda: page_a.js("return document.querySelector(`[data-list='${arguments[0]}']`).scrollTop", col["id"]) > before,
        3,
        "the list to scroll",
    )
    assert page_a.js("return window.__lifts") == 0
    assert page_a.order(col["id"]) == col["items"]


def test_two_dimensional_grid_move(server, page_a: Page):
    page_a.open(server, "numbers")
    col = first_list(page_a, "grid", min_items=20)
    ids = col["items"]
    cols = grid_columns(page_a, col["id"])
    assert cols >= 2
    # From the first tile to the second row, second column: down and to the right at once.
    target = ids[cols + 1]
    a, b = page_a.item(ids[0]), page_a.item(target)
    page_a.mouse_drag(a["cx"], a["cy"], b["cx"], b["cy"], steps=12)
    expected = ids[1 : cols + 2] + [ids[0]] + ids[cols + 2 :]
    page_a.wait_order(col["id"], expected)
    settled(page_a)


def test_move_into_another_collection_and_into_an_empty_one(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    empty = add_list(page_a, "Empty", "list")
    ids = col["items"]
    src = page_a.item(ids[0])
    box = page_a.rect(f"[data-list='{empty}']")
    page_a.mouse_drag(src["cx"], src["cy"], box["cx"], box["cy"], steps=12)
    page_a.wait_order(empty, [ids[0]])
    page_a.wait_order(col["id"], ids[1:])
    settled(page_a)
    # And back into the first collection, between its first two items.
    moved = page_a.item(ids[0])
    second = page_a.item(ids[2])
    page_a.mouse_drag(moved["cx"], moved["cy"], second["cx"], second["y"] + 3, steps=12)
    page_a.wait_order(empty, [])
    page_a.wait_order(col["id"], [ids[1], ids[0]] + ids[2:])
    settled(page_a)


def test_auto_scroll_near_the_edge_but_not_at_once_when_lifting_there(server, page_a: Page):
    page_a.open(server, "numbers")
    col = first_list(page_a, "grid", min_items=50)
    sel = f"[data-list='{col['id']}']"
    box = page_a.rect(sel)
    scroll_top = lambda: page_a.js("return document.querySelector(arguments[0]).scrollTop", sel)  # noqa: E731
    assert page_a.js("const u = document.querySelector(arguments[0]); return u.scrollHeight > u.clientHeight", sel)
    bottom = box["y"] + box["h"]
    # The last tile that shows above the bottom edge; lift it inside the edge zone (48 px).
    found = page_a.js(
        "const [sel, y] = arguments; const u = document.querySelector(sel);"
        "const t = [...u.children].filter(c => c.getBoundingClientRect().top < y).pop();"
        "const r = t.getBoundingClientRect(); return [t.dataset.item, r.left + r.width / 2, r.top];",
        sel,
        bottom - 20,
    )
    item, x0, top = found
    y0 = max(top + 3, bottom - 44)
    assert y0 < bottom - 24
    page_a.mouse("mousePressed", x0, y0)
    page_a.mouse("mouseMoved", x0, y0 + 5)
    page_a.wait(page_a.lifted, 3, "the lift")
    frames = "const done = arguments[0]; let n = 12; const f = () => --n ? requestAnimationFrame(f) : done(true); requestAnimationFrame(f);"
    page_a.driver.execute_async_script(frames)
    assert scroll_top() == 0, "lifting near the edge does not scroll by itself"
    x = x0 + 40
    page_a.mouse_path(x0, y0 + 5, x, bottom - 4, 4)
    page_a.wait(lambda: scroll_top() > 20, 5, "the list to auto-scroll")
    page_a.mouse_path(x, bottom - 4, x, box["y"] + box["h"] / 2, 3)
    page_a.driver.switch_to.active_element.send_keys("\ue00c")  # Escape
    page_a.wait(lambda: not page_a.lifted(), 3, "the cancel")
    assert page_a.order(col["id"]) == col["items"]


def test_pointercancel_mid_drag_restores_the_exact_order(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    a, c = page_a.item(ids[0]), page_a.item(ids[3])
    page_a.touch("touchStart", a["cx"], a["cy"])
    page_a.wait(page_a.lifted, 3, "the long press to lift")
    for i in range(1, 6):
        page_a.touch("touchMove", a["cx"], a["cy"] + (c["cy"] + 2 - a["cy"]) * i / 5)
    page_a.wait(lambda: page_a.order(col["id"]) != ids, 3, "the placeholder to move")
    page_a.touch("touchCancel")
    page_a.wait(lambda: not page_a.lifted(), 3, "the cancel")
    assert page_a.order(col["id"]) == ids
    assert "Cancelled" in page_a.announcement()
    assert page_a.js("return document.body.dataset.pending") in ("0", None)


def test_a_rejected_intent_rolls_back_visibly_with_a_message(server, page_a: Page):
    # `?debug` exposes the board, so the test can send an intent the server must refuse: a move
    # after an item that does not exist. It applies optimistically, then rolls back.
    page_a.open(server, "cities", debug=True)
    page_a.wait(lambda: page_a.js("return document.querySelectorAll('[data-item]').length") > 3, 10, "items")
    col = first_list(page_a, "list")
    ids = col["items"]
    page_a.js("window.reorder.connection.ready = false")  # hold the op back to see the optimistic state
    page_a.js("window.reorder.propose({kind: 'move', item: arguments[0], list: arguments[1], after: 'no-such-item'})", ids[0], col["id"])
    assert page_a.order(col["id"]) == ids[1:] + [ids[0]], "applied optimistically at once"
    page_a.js("window.reorder.connection.ready = true; const p = window.reorder.model.pending[0];"
              "window.reorder.connection.send({type: 'op', id: p.id, op: p.op});")
    page_a.wait_order(col["id"], ids)
    page_a.wait(lambda: "Could not move" in page_a.js("return document.getElementById('toasts').textContent"), 3, "the message")
    assert page_a.js("return document.body.dataset.pending") == "0"


def test_reduced_motion_means_no_animations(server, page_a: Page):
    page_a.cdp("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-reduced-motion", "value": "reduce"}]})
    try:
        page_a.open(server, "cities")
        col = first_list(page_a, "list")
        ids = col["items"]
        page_a.js(
            "window.__anims = 0; const orig = Element.prototype.animate;"
            "Element.prototype.animate = function (...a) { window.__anims++; return orig.apply(this, a); };"
        )
        a, c = page_a.item(ids[0]), page_a.item(ids[3])
        page_a.mouse_drag(a["cx"], a["cy"], c["cx"], c["cy"] + 2, steps=10)
        page_a.wait_order(col["id"], ids[1:4] + [ids[0]] + ids[4:])
        assert page_a.js("return window.__anims") == 0
        page_a.js("document.getElementById('edit-button').click()")
        assert page_a.js("return getComputedStyle(document.querySelector('[data-item]')).animationName") == "none"
        page_a.js("document.getElementById('done-button').click()")
    finally:
        page_a.cdp("Emulation.setEmulatedMedia", {"features": []})


def test_phone_sized_touch_drag_in_a_grid(server, page_a: Page):
    page_a.cdp("Emulation.setDeviceMetricsOverride", {"width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": True})
    try:
        page_a.open(server, "home")
        col = first_list(page_a, "grid", min_items=12)
        ids = col["items"]
        cols = grid_columns(page_a, col["id"])
        target = ids[cols + 1]
        a, b = page_a.item(ids[0]), page_a.item(target)
        page_a.touch("touchStart", a["cx"], a["cy"])
        page_a.wait(page_a.lifted, 3, "the long press to lift")
        for i in range(1, 9):
            page_a.touch("touchMove", a["cx"] + (b["cx"] - a["cx"]) * i / 8, a["cy"] + (b["cy"] - a["cy"]) * i / 8)
        page_a.touch("touchEnd")
        page_a.wait_order(col["id"], ids[1 : cols + 2] + [ids[0]] + ids[cols + 2 :])
        settled(page_a)
    finally:
        page_a.cdp("Emulation.clearDeviceMetricsOverride", {})
