"""The embeddable client against the real server's board replacement and deletion (docs/API.md):
`PUT /api/v1/boards/{room}?replace=true` gives the open example page a fresh welcome (new epoch,
the new board shown), `DELETE` closes it with 4404 and it does not reconnect."""

from __future__ import annotations

import json
import os
import tempfile
import urllib.request

from conftest import Page
from test_client import open_example, shown, wait_shown

KEY = "k-browser-0123456789abcdef0123456789ab"


def api(server, method: str, path: str, body: dict | None = None) -> tuple[int, dict | None]:
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(server.base.rstrip("/") + path, data=data, method=method,
                                     headers={"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=10) as reply:
            raw = reply.read()
            return reply.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        return error.code, json.loads(error.read() or b"null")


def api_server(make_server):
    keys = os.path.join(tempfile.mkdtemp(prefix="reorder-keys-"), "keys")
    with open(keys, "w") as f:
        f.write(KEY + "\n")
    return make_server("--api-key-file", keys)


def test_a_board_replaced_through_the_api_reaches_the_open_page(make_server, page_a: Page, page_b: Page):
    server = api_server(make_server)
    open_example(page_a, server)
    open_example(page_b, server)
    before = page_a.js("return window.client.epoch")
    board = {"lists": [{"id": "cities", "title": "Cities", "layout": "list",
                        "items": [{"id": "x1", "fields": {"title": "One"}}, {"id": "x2", "fields": {"title": "Two"}},
                                  {"id": "x3", "fields": {"title": "Three"}}]}]}
    status, answer = api(server, "PUT", "/api/v1/boards/cities?replace=true", board)
    assert status in (200, 201), answer
    for page in (page_a, page_b):
        wait_shown(page, ["x1", "x2", "x3"])
        assert page.js("return window.client.epoch") == answer["epoch"] != before
        assert page.js("return window.client.connection.ready") is True, "the same connection goes on"
    # The pages edit the new board: a move in A lands in B.
    page_a.js("document.querySelectorAll(`[data-item='x1'] button`)[1].click()")
    wait_shown(page_b, ["x2", "x1", "x3"])
    status, stored = api(server, "GET", "/api/v1/boards/cities")
    assert status == 200 and stored["epoch"] == answer["epoch"], stored


def test_a_board_deleted_through_the_api_ends_the_page_session_with_4404(make_server, page_a: Page):
    server = api_server(make_server)
    ids = open_example(page_a, server)
    status, _ = api(server, "DELETE", "/api/v1/boards/cities")
    assert status == 204
    page_a.wait(lambda: page_a.js("return document.getElementById('message').textContent") == "This board was deleted.",
                10, "the end")
    end = page_a.js("return window.client.end")
    assert end == {"code": 4404, "reason": "board deleted"}, end
    assert page_a.js("return window.client.connection.stopped") is True, "no reconnect after 4404"
    assert shown(page_a) == ids, "the page keeps what it showed"
    assert api(server, "GET", "/api/v1/boards/cities")[0] == 404
