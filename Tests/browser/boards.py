"""Finding things on the demo boards by shape, not by hard-coded ids (the server owns the data)."""

from __future__ import annotations


def lists(page) -> list[dict]:
    """Collections in board order: id, layout, role and item ids."""
    return page.js(
        "return [...document.querySelectorAll('[data-list]')].map(u => ({"
        " id: u.dataset.list,"
        " layout: u.classList.contains('layout-grid') ? 'grid' : 'list',"
        " role: (u.closest('[data-list-section]') || u).dataset.role || '',"
        " items: [...u.children].map(c => c.dataset.item)}));"
    )


def first_list(page, layout: str, min_items: int = 3, role: str | None = None) -> dict:
    for entry in lists(page):
        if entry["layout"] == layout and len(entry["items"]) >= min_items and (role is None or entry["role"] == role):
            return entry
    raise AssertionError(f"no {layout} collection with {min_items}+ items on this board: {lists(page)}")


def items_with_role(page, role: str) -> list[str]:
    return page.js(
        "return [...document.querySelectorAll('[data-item]')].filter(e => e.dataset.role === arguments[0]).map(e => e.dataset.item);",
        role,
    )


def settled(page, timeout: float = 10) -> None:
    """Waits until every intent of this page is acknowledged by the server."""
    page.wait(lambda: page.js("return document.body.dataset.pending") in ("0", None), timeout, "acknowledgements")


def add_list(page, title: str, layout: str = "list") -> str:
    """Creates a collection through the UI and returns its id."""
    before = {entry["id"] for entry in lists(page)}
    page.js("document.getElementById('add-list-button').click()")
    page.js(
        "const f = document.getElementById('add-list-form');"
        "f.querySelector('#add-list-name').value = arguments[0];"
        "f.querySelector(`input[name=layout][value=${arguments[1]}]`).checked = true;"
        "f.requestSubmit();",
        title,
        layout,
    )
    page.wait(lambda: len({entry["id"] for entry in lists(page)} - before) == 1, 5, "the new list")
    (new,) = {entry["id"] for entry in lists(page)} - before
    settled(page)
    return new


def grid_columns(page, list_id: str) -> int:
    """How many items the first row of a grid holds (its column count at this width)."""
    return page.js(
        "const u = document.querySelector(`[data-list='${arguments[0]}']`); const t = u.children[0].offsetTop;"
        "return [...u.children].filter(c => c.offsetTop === t).length;",
        list_id,
    )
