"""The client for other apps: `/client/v1/` serves the embeddable client with CORS for the
`--allowed-origins`, and web/examples/list.html, served by another web server on another origin,
imports it from Reorder and edits a board that a page on Reorder's own origin sees change."""

from __future__ import annotations

import socket
import subprocess
import sys
import time
import urllib.request

from conftest import REPO, Page
from test_client import press, shown, wait_shown

EXAMPLES = REPO / "web" / "examples"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class OtherSite:
    """`python3 -m http.server` serving web/examples on a port of its own: another origin."""

    def __init__(self) -> None:
        self.port = free_port()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(self.port), "--bind", "127.0.0.1", "--directory", str(EXAMPLES)],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        self.stop()
        raise RuntimeError("http.server did not start")

    @property
    def origin(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)


def fetch(url: str, origin: str | None = None) -> tuple[int, dict[str, str], bytes]:
    request = urllib.request.Request(url, headers={"Origin": origin} if origin else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.status, {k.lower(): v for k, v in response.headers.items()}, response.read()


def test_client_v1_answers_cors_for_allowed_origins_only(make_server):
    site = OtherSite()
    try:
        server = make_server("--allowed-origins", site.origin)
        base = server.base.rstrip("/")
        status, headers, body = fetch(f"{base}/client/v1/index.js", site.origin)
        assert status == 200 and headers["content-type"].startswith("text/javascript")
        assert headers["access-control-allow-origin"] == site.origin
        assert "origin" in headers["vary"].lower()
        assert b"export { ReorderClient }" in body
        assert body == (REPO / "web" / "js" / "reorder-client" / "index.js").read_bytes()
        _, parts, _ = fetch(f"{base}/client/v1/session.js", site.origin)
        assert parts["access-control-allow-origin"] == site.origin, "its parts too (relative imports)"
        _, types, declarations = fetch(f"{base}/client/v1/index.d.ts", site.origin)
        assert b"export type ClientOptions" in declarations and types["content-type"].startswith("text/plain")
        _, refused, _ = fetch(f"{base}/client/v1/index.js", "http://evil.example")
        assert "access-control-allow-origin" not in refused
        _, plain, _ = fetch(f"{base}/client/v1/index.js")
        assert "access-control-allow-origin" not in plain
    finally:
        site.stop()


def open_elsewhere(page: Page, site: OtherSite, server) -> list[str]:
    """Opens list.html from the other site on Reorder's `cities`; returns the ids shown."""
    page.goto(f"{site.origin}/list.html?server={server.base.rstrip('/')}&room=cities&name={page.name}")
    page.wait(lambda: page.js("return document.getElementById('status').textContent") == "open", 15,
              "the page on the other origin to connect")
    page.wait(lambda: len(shown(page)) > 3, 10, "the list's items")
    return shown(page)


def test_pages_on_another_origin_import_the_client_and_edit_the_board(make_server, page_a: Page, page_b: Page):
    site = OtherSite()
    try:
        # The allowed origins are all there are: Reorder's own pages are not among them here.
        server = make_server("--allowed-origins", site.origin)
        ids = open_elsewhere(page_a, site, server)
        assert open_elsewhere(page_b, site, server) == ids
        assert page_a.js("return location.origin") == site.origin != server.base.rstrip("/")
        press(page_a, ids[0], "down")
        moved = [ids[1], ids[0]] + ids[2:]
        wait_shown(page_a, moved)
        wait_shown(page_b, moved)
        page_a.wait(lambda: page_a.js("return window.client.pending.length") == 0, 10, "the move to be acknowledged")
    finally:
        site.stop()


def test_an_origin_not_allowed_cannot_import_the_client(make_server, page_a: Page):
    site = OtherSite()
    try:
        server = make_server()  # no --allowed-origins: only its own origin
        page_a.goto(f"{site.origin}/list.html?server={server.base.rstrip('/')}&room=cities")
        time.sleep(2)
        assert page_a.js("return document.getElementById('status').textContent") == "connecting"
        assert page_a.js("return typeof window.client") == "undefined", "the module never loaded"
    finally:
        site.stop()
