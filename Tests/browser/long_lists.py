"""A board with one long list, made through the HTTP API, and what a page shows of it.

A long list renders a window of rows (web/js/view.js): the DOM holds only some items, so the
whole order is read from the page's model (`?debug` puts the board session on `window.reorder`)
and the rendered rows by their `aria-posinset`.
"""

from __future__ import annotations

from conftest import Page
from test_client_server_api import api, api_server

LIST = "long"


def long_board(make_server, items: int = 10_000, room: str = "long"):
    """A server (with the HTTP API on) holding `room`: one list `long` of `items` items
    `i0`, `i1`, … titled "Item 1", "Item 2", …. Returns (server, ids in order)."""
    server = api_server(make_server)
    ids = [f"i{n}" for n in range(items)]
    board = {"lists": [{"id": LIST, "title": "Long", "layout": "list",
                        "items": [{"id": i, "fields": {"title": f"Item {n + 1}"}} for n, i in enumerate(ids)]}]}
    status, answer = api(server, "PUT", f"/api/v1/boards/{room}", board)
    assert status == 201, answer
    return server, ids


def model_order(page: Page, list_id: str = LIST) -> list[str]:
    """The list's whole order as the page's model has it (the page must be opened with debug)."""
    return page.js("return window.reorder.model.list(arguments[0]).items.slice()", list_id)


def rendered(page: Page, list_id: str = LIST) -> list[dict]:
    """The rendered rows of the list, in DOM order: id, 1-based position, set size, and whether
    the row is in the list's visible box."""
    return page.js(
        "const u = document.querySelector(`[data-list='${arguments[0]}']`); const b = u.getBoundingClientRect();"
        "return [...u.children].map(c => { const r = c.getBoundingClientRect(); return {"
        " id: c.dataset.item, pos: +c.getAttribute('aria-posinset'), size: +c.getAttribute('aria-setsize'),"
        " off: c.classList.contains('off-window'), visible: r.bottom > b.top && r.top < b.bottom}; });",
        list_id,
    )


def shows_model_order(page: Page, list_id: str = LIST) -> bool:
    """Whether the rendered in-flow rows are one run of the model's order at their positions."""
    order = model_order(page, list_id)
    rows = [r for r in rendered(page, list_id) if not r["off"]]
    if not rows:
        return False
    first = rows[0]["pos"]
    return all(r["pos"] == first + k and r["size"] == len(order) and order[r["pos"] - 1] == r["id"] for k, r in enumerate(rows))


def scroll_list(page: Page, top: float, list_id: str = LIST) -> None:
    """Scrolls the list to `top` px (the page re-renders its window on the next frame)."""
    page.js("document.querySelector(`[data-list='${arguments[0]}']`).scrollTop = arguments[1]", list_id, top)


def visible_ids(page: Page, list_id: str = LIST) -> list[str]:
    return [r["id"] for r in rendered(page, list_id) if r["visible"] and not r["off"]]


def server_order(server, room: str = "long") -> list[str]:
    """The list's order as the server stored it (`GET /api/v1/boards/{room}`)."""
    status, answer = api(server, "GET", f"/api/v1/boards/{room}")
    assert status == 200, answer
    return [i["id"] for i in answer["board"]["lists"][0]["items"]]


def pitch(page: Page, list_id: str = LIST) -> float:
    """The distance between the tops of the first two rendered rows."""
    return page.js("const [a, b] = document.querySelector(`[data-list='${arguments[0]}']`).children;"
                   "return b.getBoundingClientRect().top - a.getBoundingClientRect().top;", list_id)
