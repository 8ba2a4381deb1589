"""Fixtures for the browser suite: a real `reorder serve` per test, headless Chromium pages.

Each test gets its own server process (free port, `--data` in a temp dir, `--demo`), killed by
PID at the end. Two Chromium instances (A and B) are shared by the whole session; every test
opens its board on its own server, so nothing leaks between tests. The binary is
`$REORDER_BIN` (may include arguments) or `.build/debug/reorder` in the repository.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import os
import queue
import re
import shlex
import secrets
import shutil
import subprocess
import tempfile
import threading
import time
from pathlib import Path

import pytest
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.support.ui import WebDriverWait

REPO = Path(__file__).resolve().parents[2]
WEB = REPO / "web"
SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
LISTENING = re.compile(r"listening on https?://[^:/]+:(\d+)")


def reorder_command() -> list[str]:
    env = os.environ.get("REORDER_BIN")
    if env:
        return shlex.split(env)
    binary = REPO / ".build" / "debug" / "reorder"
    if not binary.exists():
        pytest.exit(f"{binary} is missing: run `swift build` first (or set REORDER_BIN)", returncode=2)
    return [str(binary)]


class Server:
    """One `reorder serve` process; `restart()` kills it and starts it again on the same port and data."""

    def __init__(self, data_dir: str, args: tuple[str, ...] = ()):
        self.data_dir = data_dir
        self.args = tuple(args)
        self.port = 0
        self.proc: subprocess.Popen | None = None
        self.log: list[str] = []

    @property
    def base(self) -> str:
        return f"http://127.0.0.1:{self.port}/"

    def start(self, timeout: float = 20.0) -> None:
        cmd = reorder_command() + ["serve", "--port", str(self.port), "--data", self.data_dir, "--demo", "--web", str(WEB), *self.args]
        self.proc = subprocess.Popen(
            cmd, cwd=str(REPO), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, bufsize=1
        )
        lines: queue.Queue[str | None] = queue.Queue()
        proc = self.proc

        def pump() -> None:
            assert proc.stdout is not None
            for line in proc.stdout:
                lines.put(line)
                self.log.append(line)
            lines.put(None)

        threading.Thread(target=pump, daemon=True).start()
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                self.stop()
                raise RuntimeError("the server did not print its address in time:\n" + "".join(self.log[-20:]))
            try:
                line = lines.get(timeout=remaining)
            except queue.Empty:
                continue
            if line is None:
                raise RuntimeError("the server exited:\n" + "".join(self.log[-20:]))
            m = LISTENING.search(line)
            if m:
                self.port = int(m.group(1))
                return

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(timeout=10)
        self.proc = None

    def restart(self) -> None:
        self.stop()
        deadline = time.monotonic() + 15
        while True:
            try:
                self.start()
                return
            except RuntimeError:
                # The port can take a moment to be free again.
                if time.monotonic() > deadline:
                    raise


@pytest.fixture
def server():
    data = tempfile.mkdtemp(prefix="reorder-browser-")
    s = Server(data)
    s.start()
    try:
        yield s
    finally:
        s.stop()
        shutil.rmtree(data, ignore_errors=True)


@pytest.fixture
def make_server():
    """Starts a server with extra `reorder serve` flags: `make_server("--presence-hz", "10")`."""
    started: list[tuple[Server, str]] = []

    def make(*args: str) -> Server:
        data = tempfile.mkdtemp(prefix="reorder-browser-")
        s = Server(data, args)
        started.append((s, data))
        s.start()
        return s

    yield make
    for s, data in started:
        s.stop()
        shutil.rmtree(data, ignore_errors=True)


class Tokens:
    """Room tokens for a server started with `--auth-secret-file`: minted by `reorder token`, as
    an app's backend would, plus the ones `reorder token` refuses to make (see `expired`)."""

    def __init__(self, secret_file: Path):
        self.secret_file = secret_file

    def mint(self, room: str, role: str, sub: str, ttl: str = "1h", *extra: str) -> str:
        """`reorder token --auth-secret-file F --room R --role ROLE --sub S --ttl TTL`: the token."""
        cmd = reorder_command() + [
            "token", "--auth-secret-file", str(self.secret_file), "--room", room, "--role", role, "--sub", sub, "--ttl", ttl, *extra,
        ]
        out = subprocess.run(cmd, cwd=str(REPO), capture_output=True, text=True, timeout=30, check=True).stdout
        return out.strip().splitlines()[0]

    def link(self, server: Server, room: str, role: str, sub: str, ttl: str = "1h", *extra: str) -> str:
        """The share link `reorder token --url` prints: `http://HOST:PORT/#/b/<room>?token=…`."""
        cmd = reorder_command() + [
            "token", "--auth-secret-file", str(self.secret_file), "--room", room, "--role", role, "--sub", sub, "--ttl", ttl,
            "--url", server.base, *extra,
        ]
        out = subprocess.run(cmd, cwd=str(REPO), capture_output=True, text=True, timeout=30, check=True).stdout
        lines = out.strip().splitlines()
        assert len(lines) == 2 and "#/b/" in lines[1], f"reorder token --url printed {out!r}"
        return lines[1]

    def expired(self, room: str, role: str, sub: str, ago_s: int = 3600) -> str:
        """An HS256 token with the right secret whose `exp` is `ago_s` in the past. `reorder token`
        takes only positive lifetimes, and a `--ttl 1s` token stays valid for the server's 60 s of
        leeway, so this one is signed here (RFC 7515 compact form, as PyJWT or `jose` would)."""
        now = int(time.time())
        return sign_hs256(self.secret_file.read_bytes(), {"sub": sub, "room": room, "role": role, "iat": now - ago_s - 60, "exp": now - ago_s})


def sign_hs256(secret: bytes, claims: dict) -> str:
    def part(raw: bytes) -> str:
        return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()

    head = part(json.dumps({"alg": "HS256", "typ": "JWT"}, separators=(",", ":")).encode())
    body = part(json.dumps(claims, separators=(",", ":")).encode())
    mac = hmac.new(secret, f"{head}.{body}".encode(), hashlib.sha256).digest()
    return f"{head}.{body}.{part(mac)}"


@pytest.fixture
def auth_server(make_server):
    """`server, tokens = auth_server()`: a server with auth on (`--auth-secret-file`, a fresh
    32-byte secret as 64 hex characters) and the `Tokens` that open its rooms."""
    made: list[Path] = []

    def make(*args: str) -> tuple[Server, Tokens]:
        folder = Path(tempfile.mkdtemp(prefix="reorder-secret-"))
        secret = folder / "auth-secret"
        secret.write_text(secrets.token_hex(32))
        secret.chmod(0o600)
        made.append(folder)
        return make_server("--auth-secret-file", str(secret), *args), Tokens(secret)

    yield make
    for folder in made:
        shutil.rmtree(folder, ignore_errors=True)


# Installed before the page's own scripts (CDP Page.addScriptToEvaluateOnNewDocument): a WebSocket
# subclass that records every socket, every frame sent (with `performance.now()` taken before the
# native send) and every welcome as the page saw it. WELCOME_DEFAULTS are added to a welcome that
# lacks them, WELCOME_OVERRIDES replace members, WELCOME_DROPS are removed; anything else passes
# through untouched.
# `window.__wire.deliver(frame)` hands a crafted server frame to the page's own message handling.
WIRE_SCRIPT = """
(() => {
  const defaults = WELCOME_DEFAULTS, overrides = WELCOME_OVERRIDES, drops = WELCOME_DROPS;
  const Native = window.WebSocket;
  const wire = { sockets: [], sent: [], welcomes: [] };
  wire.deliver = (frame) => wire.sockets[wire.sockets.length - 1].dispatchEvent(
    new MessageEvent("message", { data: JSON.stringify(frame) }));
  wire.sentOfType = (type) => wire.sent.filter((s) => s.msg && s.msg.type === type);
  // Tells the page its socket was closed with `code` and `reason` (the socket itself stays open,
  // ignored by the page): for closes a real server gives only after a long wait.
  wire.deliverClose = (code, reason) => wire.sockets[wire.sockets.length - 1].dispatchEvent(
    new CloseEvent("close", { code, reason, wasClean: true }));
  window.__wire = wire;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      wire.sockets.push(this);
    }
    send(data) {
      let msg = null;
      try { msg = JSON.parse(String(data)); } catch {}
      wire.sent.push({ t: performance.now(), msg });
      return super.send(data);
    }
    addEventListener(type, fn, options) {
      if (type !== "message" || typeof fn !== "function") return super.addEventListener(type, fn, options);
      return super.addEventListener(type, function (event) {
        if (typeof event.data !== "string" || !event.data.includes('"welcome"')) return fn.call(this, event);
        const msg = JSON.parse(event.data);
        if (msg.type !== "welcome") return fn.call(this, event);
        for (const [k, v] of Object.entries(defaults)) if (!(k in msg)) msg[k] = v;
        Object.assign(msg, overrides);
        for (const k of drops) delete msg[k];
        wire.welcomes.push(msg);
        return fn.call(this, new MessageEvent("message", { data: JSON.stringify(msg) }));
      }, options);
    }
  };
})();
"""


@pytest.fixture
def wire():
    """`wire(page, defaults={...}, overrides={...}, drops=[...])` watches the websockets of `page`'s
    next documents (see WIRE_SCRIPT); removed from the (shared) browser at the end of the test."""
    installed: list[tuple[Page, str]] = []

    def install(page: "Page", defaults: dict | None = None, overrides: dict | None = None, drops: list | None = None) -> None:
        source = (
            WIRE_SCRIPT.replace("WELCOME_DEFAULTS", json.dumps(defaults or {}))
            .replace("WELCOME_OVERRIDES", json.dumps(overrides or {}))
            .replace("WELCOME_DROPS", json.dumps(drops or []))
        )
        ident = page.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": source})["identifier"]
        installed.append((page, ident))

    yield install
    for page, ident in installed:
        try:
            page.cdp("Page.removeScriptToEvaluateOnNewDocument", {"identifier": ident})
        except Exception:
            pass


def make_driver(*extra_args: str) -> webdriver.Chrome:
    options = webdriver.ChromeOptions()
    options.binary_location = os.environ.get("CHROMIUM_BIN", "/usr/bin/chromium")
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--window-size=1280,900",
        "--disable-background-timer-throttling",
        "--disable-renderer-backgrounding",
        "--disable-backgrounding-occluded-windows",
        *extra_args,
    ):
        options.add_argument(arg)
    # Console messages for driver.get_log("browser") (tests assert there are no SEVERE ones).
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    service = Service(os.environ.get("CHROMEDRIVER_BIN", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=options)
    driver.set_script_timeout(30)
    return driver


class Page:
    """A Chromium page with helpers to open a board and to drive real input through CDP."""

    def __init__(self, driver: webdriver.Chrome, name: str, color: str):
        self.driver = driver
        self.name = name
        self.color = color
        self.clock = 0.0

    # Navigation ------------------------------------------------------------------------

    def goto(self, url: str, attempts: int = 3) -> None:
        """Loads `url` as a new document (or, when only the fragment differs, moves to it).

        ChromeDriver's get() was seen (rarely, on a loaded machine) to return with the previous
        document still in place, so the old document is marked first and the navigation counts
        only once the mark is gone; otherwise it is tried again.
        """
        if self.driver.current_url.split("#")[0] == url.split("#")[0]:
            # Only the fragment changes: a same-document navigation (the app follows hashchange).
            self.driver.get(url)
            self.wait(lambda: self.js("return location.href") == url, 5, f"the fragment of {url}")
            return
        for attempt in range(attempts):
            if attempt:
                print(f"goto retry {attempt} {url} at {self.driver.current_url}", flush=True)
            try:
                self.driver.execute_script("window.__oldDocument = true")
            except Exception:
                pass  # e.g. about:blank or an error page: nothing to mark
            self.driver.get(url)
            deadline = time.monotonic() + 5
            while time.monotonic() < deadline:
                try:
                    if self.driver.execute_script("return !window.__oldDocument && document.readyState === 'complete'"):
                        return
                except Exception:
                    pass
                time.sleep(0.05)
        raise AssertionError(f"could not navigate to {url}: still at {self.driver.current_url}")

    def open(self, server: Server, room: str, wait_items: bool = True, debug: bool = False) -> None:
        """Opens `room` as this page's user; with `debug`, through `?debug` (exposes `window.reorder`)."""
        self.goto(server.base + "?setup")
        self.js(
            "localStorage.setItem('reorder.name', arguments[0]); localStorage.setItem('reorder.color', arguments[1]);",
            self.name,
            self.color,
        )
        self.goto(server.base + ("?debug#/b/" if debug else "#/b/") + room)
        self.wait(lambda: self.js("return document.body.dataset.connection") == "open", 15, "the board to connect")
        if debug:
            self.wait(lambda: self.js("return typeof window.reorder === 'object'"), 15, "window.reorder")
        if wait_items:
            self.wait(lambda: self.js("return document.querySelectorAll('[data-item]').length") > 0, 10, "items")

    def open_link(self, link: str, connect: bool = True) -> None:
        """Opens a share link (`…/#/b/<room>?token=…`) as this page's user, as a new document;
        with `connect`, waits for the board to connect and show its items."""
        base = link.split("#")[0]
        self.goto(base + "?setup")
        self.js(
            "localStorage.setItem('reorder.name', arguments[0]); localStorage.setItem('reorder.color', arguments[1]);",
            self.name,
            self.color,
        )
        self.goto(link)
        if connect:
            self.wait(lambda: self.js("return document.body.dataset.connection") == "open", 15, "the board to connect")
            self.wait(lambda: self.js("return document.querySelectorAll('[data-item]').length") > 0, 10, "items")

    def close_browser(self) -> None:
        """Quits this page's whole browser (like closing the window)."""
        self.driver.closed_by_test = True
        self.driver.quit()

    def leave(self) -> None:
        try:
            self.driver.get("about:blank")
        except Exception:
            pass

    # Queries ---------------------------------------------------------------------------

    def js(self, script: str, *args):
        return self.driver.execute_script(script, *args)

    def order(self, list_id: str) -> list[str]:
        return self.js(
            "const u = document.querySelector(`[data-list='${arguments[0]}']`);"
            "return u ? [...u.children].map(c => c.dataset.item) : null;",
            list_id,
        )

    def rect(self, selector: str) -> dict:
        r = self.js(
            "const e = document.querySelector(arguments[0]); if (!e) return null;"
            "const r = e.getBoundingClientRect();"
            "return {x: r.left, y: r.top, w: r.width, h: r.height, cx: r.left + r.width / 2, cy: r.top + r.height / 2};",
            selector,
        )
        assert r is not None, f"no element for {selector}"
        return r

    def item(self, item_id: str) -> dict:
        return self.rect(f"[data-item='{item_id}']")

    def wait(self, cond, timeout: float = 5, what: str = "a condition"):
        # Waits end as soon as the condition holds, so a generous floor costs nothing on a fast
        # machine and keeps a loaded CI machine from failing on slowness alone.
        timeout = max(timeout, 10) * float(os.environ.get("REORDER_TEST_TIME_SCALE", "1"))
        return WebDriverWait(self.driver, timeout, poll_frequency=0.05).until(lambda _d: cond(), f"waiting for {what}")

    def wait_order(self, list_id: str, expected: list[str], timeout: float = 5):
        try:
            return self.wait(lambda: self.order(list_id) == expected, timeout, f"{list_id} == {expected}")
        except Exception:
            raise AssertionError(f"{list_id} is {self.order(list_id)}, expected {expected}")

    def announcement(self) -> str:
        return self.js("return document.getElementById('live').dataset.last || ''")

    # Input through CDP -----------------------------------------------------------------

    def cdp(self, cmd: str, params: dict):
        return self.driver.execute_cdp_cmd(cmd, params)

    def stamp(self, advance_ms: float | None) -> dict:
        """Event timestamps: real time unless `advance_ms` asks for a synthetic clock."""
        if advance_ms is None:
            return {}
        self.clock = max(self.clock + advance_ms / 1000.0, time.time()) if self.clock == 0 else self.clock + advance_ms / 1000.0
        return {"timestamp": self.clock}

    def mouse(self, kind: str, x: float, y: float, pressed: bool = True, advance_ms: float | None = None) -> None:
        params = {"type": kind, "x": x, "y": y, "button": "left" if (pressed or kind != "mouseMoved") else "none"}
        if kind == "mouseMoved":
            params["buttons"] = 1 if pressed else 0
            if not pressed:
                params["button"] = "none"
        else:
            params["clickCount"] = 1
            params["buttons"] = 1 if kind == "mousePressed" else 0
        params.update(self.stamp(advance_ms))
        self.cdp("Input.dispatchMouseEvent", params)

    def mouse_path(self, x0: float, y0: float, x1: float, y1: float, steps: int, advance_ms: float | None = None) -> None:
        for i in range(1, steps + 1):
            t = i / steps
            self.mouse("mouseMoved", x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, advance_ms=advance_ms)

    def mouse_drag(self, x0: float, y0: float, x1: float, y1: float, steps: int = 10) -> None:
        self.mouse("mousePressed", x0, y0)
        self.mouse_path(x0, y0, x1, y1, steps)
        self.mouse("mouseReleased", x1, y1)

    def lifted(self) -> bool:
        return bool(self.js("return !!document.querySelector('.drag-snapshot') && document.body.classList.contains('dragging')"))

    def touch(self, kind: str, x: float | None = None, y: float | None = None, advance_ms: float | None = None) -> None:
        points = [] if kind in ("touchEnd", "touchCancel") else [{"x": x, "y": y, "id": 1, "radiusX": 4, "radiusY": 4, "force": 1}]
        params = {"type": kind, "touchPoints": points}
        params.update(self.stamp(advance_ms))
        self.cdp("Input.dispatchTouchEvent", params)


@pytest.fixture(scope="session")
def _driver_a():
    d = make_driver()
    yield d
    d.quit()


@pytest.fixture(scope="session")
def _driver_b():
    d = make_driver()
    yield d
    d.quit()


@pytest.fixture
def page_a(_driver_a):
    p = Page(_driver_a, "Ann", "#1971c2")
    yield p
    p.leave()


@pytest.fixture
def page_b(_driver_b):
    p = Page(_driver_b, "Bob", "#c2255c")
    yield p
    p.leave()


@pytest.fixture
def fresh_page():
    """A Chromium of its own, for tests that close the browser."""
    drivers = []

    def make(name: str = "Cat", color: str = "#2b8a3e") -> Page:
        d = make_driver()
        drivers.append(d)
        return Page(d, name, color)

    yield make
    for d in drivers:
        if getattr(d, "closed_by_test", False):
            continue
        try:
            d.quit()
        except Exception:
            pass


def shot(page: Page, name: str) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.driver.save_screenshot(str(path))
    return path


def pytest_configure(config):
    """Registers the `perf` marker: measurements, run only by `make bench-web` (never in `make test`)."""
    config.addinivalue_line("markers", "perf: a measurement, not a test; run with -m perf (make bench-web)")
