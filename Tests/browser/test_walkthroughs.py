"""The walk-throughs of docs/CLUSTER.md and docs/DEPLOY.md, run as written.

A page's fenced blocks tagged ```sh walkthrough are joined, in order, into one bash script (run
with `-e`) in a temporary directory, with only these substitutions: every port the blocks name
(`127.0.0.1:PORT`, `--port PORT`) becomes a free one, `PREFIX=/usr/local` a temporary directory,
`.build/release/reorder` the binary under test, and `reorder` on the PATH is that binary (its directory first on the PATH). A trap
stops every job the script started, by PID, when it ends; after 60 s the test stops the script's
process group (its own, made for it). No browser is needed.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, reorder_command

DOCS = REPO / "docs"
FENCE = re.compile(r"^```sh walkthrough\n(.*?)^```", re.S | re.M)
PORT = re.compile(r"(?:127\.0\.0\.1:|--port )(\d{4,5})\b")


def walkthrough(page: str) -> str:
    blocks = FENCE.findall((DOCS / page).read_text())
    assert blocks, f"docs/{page} has no ```sh walkthrough block"
    return "\n".join(blocks)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(page: str, tmp_path: Path, cwd: Path) -> str:
    script = walkthrough(page)
    for port in sorted(set(PORT.findall(script))):
        script = re.sub(rf"\b{port}\b", str(free_port()), script)
    binary = Path(reorder_command()[0]).resolve()
    script = script.replace("PREFIX=/usr/local", f"PREFIX={tmp_path / 'prefix'}")
    script = script.replace(".build/release/reorder", str(binary))
    bindir = binary.parent  # not a symlink: serve looks for the web client beside the real executable
    prologue = "trap 'kill $(jobs -p) 2>/dev/null || true; wait' EXIT\ntrap 'exit 1' TERM INT\n"
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}", TMPDIR=str(tmp_path))
    proc = subprocess.Popen(
        ["bash", "-e", "-c", prologue + script], cwd=str(cwd), env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )
    try:
        out, _ = proc.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGTERM)
        out, _ = proc.communicate(timeout=10)
        pytest.fail(f"docs/{page}'s walk-through did not end within 60 s:\n{out}")
    assert proc.returncode == 0, f"docs/{page}'s walk-through failed ({proc.returncode}):\n{out}"
    return out


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="needs redis-server (apt-get install redis-server)")
def test_cluster_walkthrough_serves_one_board_from_two_nodes(tmp_path):
    out = run("CLUSTER.md", tmp_path, tmp_path)
    assert out.count('"status":"ok"') >= 2, out
    assert '"id":"walk-1","type":"applied"' in out, out
    assert '"id":"n2" "id":"n3" "id":"n1" "id":"n4"' in out, out


def test_deploy_install_walkthrough_serves_the_client_from_another_directory(tmp_path):
    out = run("DEPLOY.md", tmp_path, REPO)
    assert '"status":"ok"' in out, out
    assert "<title>Reorder</title>" in out, out
