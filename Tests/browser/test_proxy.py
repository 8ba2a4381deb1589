"""DEPLOY.md's nginx recipe, exactly as written (only its names, ports and certificate paths
filled in): nginx terminates TLS with a self-signed certificate, Reorder listens on loopback with
`--trust-proxy 127.0.0.1` and no `--allowed-origins`, and a real Chromium page works through it."""

from __future__ import annotations

import re
import shutil
import socket
import ssl
import subprocess
import tempfile
import time
from pathlib import Path

from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.keys import Keys

from boards import first_list
from conftest import REPO, Page, make_driver

NGINX = shutil.which("nginx") or "/usr/sbin/nginx"


def recipe() -> str:
    """The first ```nginx block of docs/DEPLOY.md."""
    text = (REPO / "docs" / "DEPLOY.md").read_text()
    match = re.search(r"```nginx\n(.*?)```", text, re.S)
    assert match, "DEPLOY.md has no nginx block"
    return match.group(1)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Nginx:
    """nginx in the foreground on a config of its own in a temporary prefix, stopped by PID."""

    def __init__(self, upstream_port: int):
        self.dir = Path(tempfile.mkdtemp(prefix="reorder-nginx-"))
        self.port = free_port()
        subprocess.run(
            ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
             "-keyout", str(self.dir / "key.pem"), "-out", str(self.dir / "cert.pem")],
            check=True, capture_output=True)
        site = recipe()
        site = site.replace("listen 443 ssl http2;", f"listen 127.0.0.1:{self.port} ssl http2;")
        site = site.replace("server_name boards.example.com;", "server_name localhost;")
        site = re.sub(r"ssl_certificate\s+\S+;", f"ssl_certificate {self.dir / 'cert.pem'};", site)
        site = re.sub(r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {self.dir / 'key.pem'};", site)
        site = site.replace("127.0.0.1:8080", f"127.0.0.1:{upstream_port}")
        temp = self.dir / "temp"
        temp.mkdir()
        conf = self.dir / "nginx.conf"
        conf.write_text(
            f"daemon off;\nuser root;\npid {self.dir / 'nginx.pid'};\nerror_log {self.dir / 'error.log'};\n"
            "events {}\nhttp {\n  access_log off;\n"
            f"  client_body_temp_path {temp}/body; proxy_temp_path {temp}/proxy; fastcgi_temp_path {temp}/f;\n"
            f"  uwsgi_temp_path {temp}/u; scgi_temp_path {temp}/s;\n{site}\n}}\n")
        self.proc = subprocess.Popen([NGINX, "-p", str(self.dir), "-c", str(conf)],
                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=1).close()
                return
            except OSError:
                assert self.proc.poll() is None, f"nginx exited: {self.proc.stdout.read().decode()}"
                time.sleep(0.05)
        raise AssertionError("nginx did not listen")

    @property
    def base(self) -> str:
        return f"https://localhost:{self.port}/"

    def stop(self) -> None:
        self.proc.kill()
        self.proc.wait(timeout=10)
        shutil.rmtree(self.dir, ignore_errors=True)


def upgrade_through(proxy: Nginx, origin: str, source: str = "127.0.0.1") -> tuple[str, str, ssl.SSLSocket]:
    """A websocket upgrade through nginx's TLS from `source`: its status line, head and socket."""
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    raw = socket.create_connection(("127.0.0.1", proxy.port), timeout=10, source_address=(source, 0))
    tls = context.wrap_socket(raw, server_hostname="localhost")
    tls.sendall(
        (f"GET /ws/food HTTP/1.1\r\nHost: localhost:{proxy.port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         f"Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\nOrigin: {origin}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = tls.recv(4096)
        if not chunk:
            break
        head += chunk
    text = head.decode(errors="replace")
    return text.split("\r\n")[0], text, tls


def test_the_deploy_md_nginx_recipe_serves_a_real_page_over_tls(make_server, page_b: Page):
    server = make_server("--trust-proxy", "127.0.0.1", "--max-connections-per-ip", "2")
    proxy = Nginx(server.port)
    driver = make_driver("--ignore-certificate-errors")
    try:
        page = Page(driver, "Tls", "#1971c2")
        page.open(proxy, "cities")
        assert page.js("return location.protocol") == "https:"
        page_b.open(server, "cities")
        col = first_list(page, "list")
        ids = col["items"]
        page.js("document.querySelector(`[data-item='${arguments[0]}']`).focus()", ids[0])
        ActionChains(driver).send_keys(Keys.SPACE).send_keys(Keys.ARROW_DOWN).send_keys(Keys.SPACE).perform()
        page.wait_order(col["id"], [ids[1], ids[0]] + ids[2:], 10)
        page_b.wait_order(col["id"], [ids[1], ids[0]] + ids[2:], 10)

        status, head, sock = upgrade_through(proxy, "https://evil.example")
        sock.close()
        assert status == "HTTP/1.1 403 Forbidden", head
        assert "origin not allowed" in "".join(server.log)

        # The limit (2 per address) counts the client behind nginx, not nginx: a client on
        # 127.0.0.2 gets two websockets and a 429, while the page (its own address) stays open.
        own = f"https://localhost:{proxy.port}"
        opened = [upgrade_through(proxy, own, "127.0.0.2") for _ in range(2)]
        assert [s for s, _, _ in opened] == ["HTTP/1.1 101 Switching Protocols"] * 2, [h for _, h, _ in opened]
        status, head, sock = upgrade_through(proxy, own, "127.0.0.2")
        sock.close()
        assert status == "HTTP/1.1 429 Too Many Requests", head
        assert "retry-after: 1" in head.lower()
        for _, _, s in opened:
            s.close()
        assert page.js("return document.body.dataset.connection") == "open"
    finally:
        driver.quit()
        proxy.stop()
