"""Seed 004: drop a food onto a person. The target highlights while hovered, the preview is the
image only, totals and counts update in every browser, and an assignment can be removed."""

from boards import items_with_role, settled
from conftest import Page, shot


def totals(page: Page, person: str):
    return page.js(
        "const e = document.querySelector(`[data-item='${arguments[0]}']`);"
        "return e ? [Number(e.dataset.total), Number(e.dataset.count)] : null;",
        person,
    )


def price(page: Page, food: str) -> float:
    return page.js(
        "return Number(document.querySelector(`[data-item='${arguments[0]}'] .item-price`).textContent.replace('$', ''))",
        food,
    )


def drop_on(page: Page, food: str, person: str, check_hover: bool = False, other: Page | None = None) -> None:
    a, b = page.item(food), page.item(person)
    page.mouse("mousePressed", a["cx"], a["cy"])
    page.mouse_path(a["cx"], a["cy"], b["cx"], b["cy"], 12)
    if check_hover:
        page.wait(
            lambda: page.js("return document.querySelector(`[data-item='${arguments[0]}']`).classList.contains('drop-target')", person),
            3,
            "the person to highlight",
        )
        preview = page.js(
            "const s = document.querySelector('.drag-snapshot');"
            "return {imageOnly: s.classList.contains('image-only'), children: [...s.children].map(c => c.className),"
            " hasTitle: !!s.querySelector('.item-title')};"
        )
        assert preview["imageOnly"] and preview["children"] == ["item-visual"] and not preview["hasTitle"], preview
        if other is not None:
            # The ghost in the other browser settles over the same person (placed relative to the list).
            near = (
                "const g = document.querySelector('[data-ghost]'); if (!g) return false;"
                "const a = g.getBoundingClientRect();"
                "const b = document.querySelector(`[data-item='${arguments[0]}']`).getBoundingClientRect();"
                "return Math.abs(a.left - (b.left + b.width / 2)) < 40 && Math.abs(a.top - (b.top + b.height / 2)) < 40;"
            )
            other.wait(lambda: other.js(near, person), 5, "the ghost over the person")
            shot(other, "food-ghost-in-b")
            shot(page, "food-drop-target-in-a")
    page.mouse("mouseReleased", b["cx"], b["cy"])
    page.wait(lambda: not page.lifted(), 3, "the drop")


def test_food_onto_person_updates_totals_everywhere_and_can_be_unassigned(server, page_a: Page, page_b: Page):
    page_a.open(server, "food")
    page_b.open(server, "food")
    foods = items_with_role(page_a, "food")
    people = items_with_role(page_a, "person")
    assert len(foods) >= 2 and people
    person = people[0]
    f0, f1 = foods[0], foods[1]
    p0, p1 = price(page_a, f0), price(page_a, f1)
    food_order = page_a.order(page_a.js("return document.querySelector(`[data-item='${arguments[0]}']`).parentElement.dataset.list", f0))

    drop_on(page_a, f0, person, check_hover=True, other=page_b)
    assert not page_a.js("return !!document.querySelector('.drop-target')"), "the highlight ends with the drag"
    page_a.wait(lambda: totals(page_a, person) == [p0, 1], 5, "totals in A")
    page_b.wait(lambda: totals(page_b, person) == [p0, 1], 5, "totals in B")
    drop_on(page_a, f1, person)
    page_b.wait(lambda: totals(page_b, person) == [p0 + p1, 2], 5, "totals in B")
    page_a.wait(lambda: totals(page_a, person) == [p0 + p1, 2], 5, "totals in A")
    # The foods stayed where they were: an assign is not a move.
    lid = page_a.js("return document.querySelector(`[data-item='${arguments[0]}']`).parentElement.dataset.list", f0)
    assert page_a.order(lid) == food_order
    settled(page_a)

    # B removes the first assignment; A sees the totals drop.
    page_b.js(
        "const chip = [...document.querySelectorAll(`[data-item='${arguments[0]}'] .chip`)]"
        ".find(c => c.dataset.assignedItem === arguments[1]); chip.querySelector('button').click();",
        person,
        f0,
    )
    page_a.wait(lambda: totals(page_a, person) == [p1, 1], 5, "totals in A after unassign")
    page_b.wait(lambda: totals(page_b, person) == [p1, 1], 5, "totals in B after unassign")
    settled(page_b)


def test_move_to_dialog_assigns_a_food_without_dragging(server, page_a: Page):
    page_a.open(server, "food")
    foods = items_with_role(page_a, "food")
    people = items_with_role(page_a, "person")
    food, person = foods[-1], people[-1]
    page_a.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", food)
    page_a.js("document.getElementById('move-button').click()")
    page_a.wait(lambda: page_a.js("return document.getElementById('move-dialog').open"), 3, "the dialog")
    page_a.js("const s = document.getElementById('move-list'); s.value = 'assign:' + arguments[0];"
              "s.dispatchEvent(new Event('change')); document.getElementById('move-submit').click();", person)
    page_a.wait(lambda: totals(page_a, person) == [price(page_a, food), 1], 5, "the totals")
    settled(page_a)


def chips(page: Page, person: str) -> list[str]:
    return page.js(
        "return [...document.querySelectorAll(`[data-item='${arguments[0]}'] .chip`)].map(c => c.dataset.assignedItem);",
        person,
    )


def test_deleting_an_assigned_food_drops_it_from_totals_everywhere_and_restoring_brings_it_back(server, page_a: Page, page_b: Page):
    page_a.open(server, "food")
    page_b.open(server, "food")
    foods = items_with_role(page_a, "food")
    person = items_with_role(page_a, "person")[0]
    f0, f1 = foods[0], foods[1]
    p0, p1 = price(page_a, f0), price(page_a, f1)
    drop_on(page_a, f0, person)
    # The second drag starts once the first drop has landed (its chip drawn, acknowledged): the
    # page redraws the board as it lands, and a drag measured meanwhile can miss the person.
    page_a.wait(lambda: chips(page_a, person) == [f0], 5, "the first assignment")
    settled(page_a)
    drop_on(page_a, f1, person)
    page_b.wait(lambda: totals(page_b, person) == [p0 + p1, 2], 5, "both assignments in B")
    settled(page_a)

    # A deletes an assigned food: its assignment goes with it, in both browsers.
    page_a.js("document.getElementById('edit-button').click()")
    page_a.js("document.querySelector(`[data-remove-item='${arguments[0]}']`).click()", f0)
    page_a.js("document.getElementById('done-button').click()")
    for page, name in ((page_a, "A"), (page_b, "B")):
        page.wait(lambda: totals(page, person) == [p1, 1] and chips(page, person) == [f1], 5, f"the totals in {name} after the delete")
    settled(page_a)

    # Undo restores the food and its assignment comes back, in both browsers.
    page_a.js("document.getElementById('undo-button').click()")
    for page, name in ((page_a, "A"), (page_b, "B")):
        page.wait(
            lambda: totals(page, person) == [p0 + p1, 2] and sorted(chips(page, person)) == sorted([f0, f1]),
            5,
            f"the totals in {name} after the restore",
        )
    settled(page_a)


# Sends ops one at a time over a plain WebSocket from the page; resolves to 'ok' once all are applied.
OPS = """
const [room, ops, done] = arguments;
const ws = new WebSocket(`ws://${location.host}/ws/${room}`);
let n = 0;
const next = () => ws.send(JSON.stringify({type: 'op', id: 'script:' + n, op: ops[n]}));
ws.onopen = () => ws.send(JSON.stringify({type: 'hello', room, client: 'script', name: 'script', color: '#333333'}));
ws.onmessage = (event) => {
  const m = JSON.parse(event.data);
  if (m.type === 'welcome') next();
  else if (m.type === 'applied' && m.id === 'script:' + n) { if (++n === ops.length) { ws.close(); done('ok'); } else next(); }
  else if (m.type === 'rejected' || m.type === 'error') { ws.close(); done('error: ' + JSON.stringify(m)); }
};
ws.onerror = () => done('error: websocket');
"""


def test_deleting_a_list_drops_its_items_assignments_from_the_totals(server, page_a: Page, page_b: Page):
    page_a.open(server, "food")
    foods = items_with_role(page_a, "food")
    person = items_with_role(page_a, "person")[0]
    f0, f1 = foods[0], foods[1]
    p1 = price(page_a, f1)
    drop_on(page_a, f0, person)
    # The second drag starts once the first drop has landed (its chip drawn, acknowledged): the
    # page redraws the board as it lands, and a drag measured meanwhile can miss the person.
    page_a.wait(lambda: chips(page_a, person) == [f0], 5, "the first assignment")
    settled(page_a)
    drop_on(page_a, f1, person)
    page_a.wait(lambda: len(chips(page_a, person)) == 2, 5, "both assignments")
    settled(page_a)
    page_b.goto(server.base + "?script")
    ops = [
        {"kind": "createList", "list": "tmp", "title": "Tmp", "layout": "list"},
        {"kind": "move", "item": f0, "list": "tmp"},
        {"kind": "deleteList", "list": "tmp"},
    ]
    assert page_b.driver.execute_async_script(OPS, "food", ops) == "ok"
    page_a.wait(lambda: totals(page_a, person) == [p1, 1] and chips(page_a, person) == [f1], 5, "the totals after the list went")
    page_b.open(server, "food")
    assert totals(page_b, person) == [p1, 1] and chips(page_b, person) == [f1]
