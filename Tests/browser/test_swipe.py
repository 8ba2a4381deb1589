"""Swipe to delete (seed 002): only a fast sideways touch swipe deletes; slow or vertical ones do not.

Event timestamps are given to Chromium explicitly (CDP `timestamp`), so the speeds are exact and
the test does not depend on how fast this machine delivers the events.
"""

from boards import first_list, settled
from conftest import Page


def swipe(page: Page, x: float, y: float, dx: float, dy: float, steps: int, ms_per_step: float) -> None:
    page.clock = 0.0
    page.touch("touchStart", x, y, advance_ms=0)
    for i in range(1, steps + 1):
        page.touch("touchMove", x + dx * i / steps, y + dy * i / steps, advance_ms=ms_per_step)
    page.touch("touchEnd", advance_ms=ms_per_step)


def test_fast_horizontal_swipe_deletes(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    r = page_a.item(ids[1])
    # 160 px in 40 ms: 4,000 px/s sideways.
    swipe(page_a, r["cx"], r["cy"], 160, 4, steps=4, ms_per_step=10)
    page_a.wait_order(col["id"], [ids[0]] + ids[2:])
    settled(page_a)
    page_a.driver.refresh()
    page_a.wait(lambda: page_a.js("return document.body.dataset.connection") == "open", 10, "reconnect")
    page_a.wait_order(col["id"], [ids[0]] + ids[2:])


def test_slow_horizontal_swipe_snaps_back(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    r = page_a.item(ids[1])
    # 120 px in 1.2 s: 100 px/s, under the 500 px/s threshold.
    swipe(page_a, r["cx"], r["cy"], 120, 0, steps=12, ms_per_step=100)
    page_a.wait(lambda: page_a.js("return !document.querySelector('.swiping')"), 3, "the snap back")
    assert page_a.order(col["id"]) == ids
    assert page_a.js("return document.body.dataset.pending") in ("0", None)


def test_fast_vertical_swipe_scrolls_and_does_not_delete(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    r = page_a.item(ids[2])
    # Fast, but vertical beats horizontal: it is a scroll, not a delete.
    swipe(page_a, r["cx"], r["cy"], 30, -160, steps=4, ms_per_step=10)
    page_a.wait(lambda: page_a.js("return !document.querySelector('.swiping')"), 3, "no swipe")
    assert page_a.order(col["id"]) == ids
    assert page_a.js("return document.body.dataset.pending") in ("0", None)
