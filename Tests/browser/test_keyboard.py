"""Keyboard and screen readers: Space lifts, arrows move, Space drops, Escape cancels; Move to…;
edit ("jiggle") mode with × and Done."""

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import add_list, first_list, lists, settled
from conftest import Page


def keys(page: Page, *sequence: str) -> None:
    chain = ActionChains(page.driver)
    for k in sequence:
        chain.send_keys(k)
    chain.perform()


def focused_item(page: Page):
    return page.js("return document.activeElement && document.activeElement.dataset.item || null")


def test_keyboard_reorder_with_announcements(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    n = len(ids)
    page_a.js("document.querySelector('.brand').focus()")
    # Tab from the header reaches the toolbar first; keep tabbing until an item has focus.
    for _ in range(20):
        keys(page_a, Keys.TAB)
        if focused_item(page_a):
            break
    first_lists = lists(page_a)
    assert focused_item(page_a) == first_lists[0]["items"][0]
    if first_lists[0]["id"] != col["id"]:
        page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    keys(page_a, Keys.SPACE)
    page_a.wait(lambda: "Lifted" in page_a.announcement(), 3, "the lift announcement")
    assert f"Position 1 of {n}" in page_a.announcement()
    keys(page_a, Keys.ARROW_DOWN)
    page_a.wait(lambda: f"Position 2 of {n}" in page_a.announcement(), 3, "a move announcement")
    keys(page_a, Keys.ARROW_DOWN)
    page_a.wait(lambda: f"Position 3 of {n}" in page_a.announcement(), 3, "a move announcement")
    keys(page_a, Keys.SPACE)
    page_a.wait(lambda: "Dropped" in page_a.announcement() and f"Position 3 of {n}" in page_a.announcement(), 3, "the drop")
    page_a.wait_order(col["id"], [ids[1], ids[2], ids[0]] + ids[3:])
    assert focused_item(page_a) == ids[0]
    settled(page_a)

    # Escape puts it back exactly.
    keys(page_a, Keys.SPACE, Keys.ARROW_UP, Keys.ARROW_UP)
    page_a.wait(lambda: f"Position 1 of {n}" in page_a.announcement(), 3, "moved up")
    keys(page_a, Keys.ESCAPE)
    page_a.wait(lambda: "Cancelled" in page_a.announcement(), 3, "the cancel")
    assert page_a.order(col["id"]) == [ids[1], ids[2], ids[0]] + ids[3:]
    assert "Position 3" in page_a.announcement()

    # End takes it to the last place.
    keys(page_a, Keys.SPACE, Keys.END)
    page_a.wait(lambda: f"Position {n} of {n}" in page_a.announcement(), 3, "moved to the end")
    keys(page_a, Keys.SPACE)
    page_a.wait_order(col["id"], [ids[1], ids[2]] + ids[3:] + [ids[0]])
    settled(page_a)


def test_keyboard_moves_across_collections(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    add_list(page_a, "Visited", "list")
    all_lists = lists(page_a)
    index = [entry["id"] for entry in all_lists].index(col["id"])
    other = all_lists[index + 1]
    ids = col["items"]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[1])
    keys(page_a, Keys.SPACE, Keys.ARROW_RIGHT)
    page_a.wait(lambda: page_a.order(other["id"]) and ids[1] in page_a.order(other["id"]), 3, "the move across")
    keys(page_a, Keys.SPACE)
    page_a.wait(lambda: "Dropped" in page_a.announcement(), 3, "the drop")
    assert ids[1] not in page_a.order(col["id"])
    settled(page_a)


def test_move_to_dialog_moves_an_item(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
    keys(page_a, "m")
    page_a.wait(lambda: page_a.js("return document.getElementById('move-dialog').open"), 3, "the dialog")
    page_a.js("document.getElementById('move-position').value = '4'")
    page_a.js("document.getElementById('move-submit').click()")
    page_a.wait_order(col["id"], ids[1:4] + [ids[0]] + ids[4:])
    page_a.wait(lambda: "Position 4" in page_a.announcement(), 3, "the announcement")
    settled(page_a)


def test_jiggle_mode_remove_and_done(server, page_a: Page):
    page_a.open(server, "cities")
    col = first_list(page_a, "list")
    ids = col["items"]
    page_a.js("document.getElementById('edit-button').click()")
    page_a.wait(lambda: page_a.js("return document.body.classList.contains('editing')"), 3, "edit mode")
    anim = page_a.js("return getComputedStyle(document.querySelector('[data-item]')).animationName")
    assert anim in ("jiggle", "jiggle-row")
    remove = page_a.driver.find_element("css selector", f"[data-item='{ids[0]}'] .item-remove")
    assert remove.is_displayed()
    remove.click()
    page_a.wait_order(col["id"], ids[1:])
    # The × buttons are reachable by keyboard: focus the next one and press Enter.
    page_a.js("document.querySelector(`[data-item='${arguments[0]}'] .item-remove`).focus()", ids[1])
    keys(page_a, Keys.ENTER)
    page_a.wait_order(col["id"], ids[2:])
    settled(page_a)
    done = page_a.driver.find_element("id", "done-button")
    assert done.is_displayed()
    done.click()
    page_a.wait(lambda: not page_a.js("return document.body.classList.contains('editing')"), 3, "edit mode to end")
    assert not page_a.driver.find_element("css selector", f"[data-item='{ids[2]}'] .item-remove").is_displayed()
    # Escape also leaves edit mode.
    page_a.js("document.getElementById('edit-button').click()")
    page_a.wait(lambda: page_a.js("return document.body.classList.contains('editing')"), 3, "edit mode")
    keys(page_a, Keys.ESCAPE)
    page_a.wait(lambda: not page_a.js("return document.body.classList.contains('editing')"), 3, "Escape to leave")
