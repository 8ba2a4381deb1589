#!/usr/bin/env python3
"""Kill-and-restart soak (docs/RELIABILITY.md): clients edit and drag while the server is killed with
SIGKILL at random moments and restarted on the same data directory, cycle after cycle; at the end
every acknowledged op must be in the log exactly once at the seq it was acknowledged with, the log
must have no seq gaps, and every client's board must equal a fresh welcome.

Usage: scripts/soak.py [--mode single] [--cycles N] [--binary PATH] [--report reports/soak.json]
(`make soak` runs it through scripts/soak.sh). It talks to 127.0.0.1 only and starts, kills and
stops only the server it started, by PID. Exit status 0 when lost, duplicates, gaps and diverged are
all 0; 1 otherwise; 2 when it could not run (no binary, the server never came up).

The report is a JSON list with one object per mode (a new run replaces its mode's entry):
{"mode","cycles","acked","lost","duplicates","gaps","diverged","max_recovery_s", ...details}.
"""

import argparse
import asyncio
import json
import os
import random
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

from websockets.asyncio.client import connect
from websockets.exceptions import WebSocketException

ROOMS = [f"soak-{n}" for n in range(5)]
CLIENTS_PER_ROOM = 4
LISTS = ("main", "side")
SEED_ITEMS = 12


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """The one server process this soak owns: started on `data`, killed by its PID only."""

    def __init__(self, binary, data, port, log):
        self.binary, self.data, self.port, self.log = binary, data, port, log
        self.process = None

    def start(self):
        self.process = subprocess.Popen(
            [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
             "--history-ops", "1000000", "--snapshot-every", "200", "--log-level", "warn"],
            stdout=self.log, stderr=subprocess.STDOUT)

    def kill(self):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait()

    def stop(self):
        if self.process and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.kill(self.process.pid, signal.SIGKILL)
                self.process.wait()


class Board:
    """A client's view: lists in order, each a list of [item id, fields]; built from a welcome's
    board and the resolved ops of `applied` frames only (no CRDT)."""

    def __init__(self, board):
        self.order = [lst["id"] for lst in board["lists"]]
        self.items = {lst["id"]: [[it["id"], dict(it.get("fields", {}))] for it in lst["items"]] for lst in board["lists"]}

    def normalized(self):
        return [(name, [(i, sorted(f.items())) for i, f in self.items[name]]) for name in self.order]

    def find(self, item):
        for name, entries in self.items.items():
            for k, (i, _) in enumerate(entries):
                if i == item:
                    return name, k
        return None

    def remove(self, item):
        where = self.find(item)
        if where:
            return self.items[where[0]].pop(where[1])
        return None

    def apply(self, op):
        kind = op["kind"]
        if kind == "createList":
            self.order.insert(op["index"], op["list"])
            self.items[op["list"]] = []
        elif kind in ("insert", "restore"):
            self.items[op["list"]].insert(op["index"], [op["item"], dict(op.get("fields", {}))])
        elif kind == "move":
            entry = self.remove(op["item"])
            if entry is not None and "index" in op:
                self.items[op["list"]].insert(op["index"], entry)
        elif kind == "delete":
            self.remove(op["item"])
        elif kind == "set":
            where = self.find(op["item"])
            if where:
                self.items[where[0]][where[1]][1][op["field"]] = op["value"]
        else:
            raise ValueError(f"the soak sends no {kind}")

    def live_items(self):
        return [(name, i) for name in self.order for i, _ in self.items[name]]


class Stats:
    def __init__(self):
        self.acked = {}  # op id -> seq of its applied
        self.rejected = 0
        self.client_gaps = 0
        self.rollbacks = 0
        self.resyncs = 0
        self.sent = 0
        self.resent = 0
        self.drags = 0
        self.welcomes = 0


class Client:
    """One soak client: joins its room, sends ops and drags, and on every disconnect reconnects with
    `since` and `epoch` and re-sends every op it has no `applied` (or `rejected`) for."""

    def __init__(self, name, room, url, stats, rng):
        self.name, self.room, self.url, self.stats, self.rng = name, room, url, stats, rng
        self.seq = 0
        self.epoch = None
        self.board = None
        self.pending = {}  # op id -> frame, in send order
        self.counter = 0
        self.items_made = 0
        self.deleted = []
        self.welcomed = asyncio.Event()
        self.sending = True
        self.stopped = False
        self.ws = None
        self.attempts = 0  # connections that ended, for the slow-recovery note
        self.last_error = ""

    def hello(self, fresh=False):
        frame = {"type": "hello", "room": self.room, "client": self.name, "name": self.name, "color": "#2196f3"}
        if not fresh and self.board is not None:
            frame["since"] = self.seq
            frame["epoch"] = self.epoch
        return json.dumps(frame)

    def on_applied(self, frame):
        seq = frame["seq"]
        if seq <= self.seq:
            # An idempotent re-send's applied again (to the sender only), or one the welcome held.
            if frame["id"] in self.pending:
                del self.pending[frame["id"]]
                self.stats.acked[frame["id"]] = seq
            return
        if seq != self.seq + 1:
            self.stats.client_gaps += 1
            raise ConnectionResetError(f"{self.name}: applied {seq} after {self.seq}")
        self.board.apply(frame["op"])
        self.seq = seq
        if frame["id"] in self.pending:
            del self.pending[frame["id"]]
            self.stats.acked[frame["id"]] = seq

    def on_welcome(self, frame):
        self.stats.welcomes += 1
        if frame["seq"] < self.seq and frame.get("epoch") == self.epoch:
            self.stats.rollbacks += 1
        if "board" in frame:
            if self.board is not None:
                self.stats.resyncs += 1
            self.board = Board(frame["board"])
            self.seq = frame["seq"]
            self.epoch = frame["epoch"]
            # An op applied while we were away shows only in the board: it is acknowledged by the
            # log check at the end, not here; keep re-sending it (idempotent) to learn its seq.
        else:
            for applied in frame["ops"]:
                self.on_applied(applied)
            if self.seq != frame["seq"]:
                self.stats.client_gaps += 1
                raise ConnectionResetError(f"{self.name}: catch-up ended at {self.seq}, room at {frame['seq']}")
            self.epoch = frame["epoch"]

    def next_op(self):
        self.counter += 1
        op_id = f"{self.name}:{self.counter}"
        live = self.board.live_items()
        roll = self.rng.random()
        if roll < 0.2 or len(live) < 4:
            self.items_made += 1
            op = {"kind": "insert", "list": self.rng.choice(LISTS), "item": f"{self.name}-i{self.items_made}",
                  "fields": {"title": f"{self.name} {self.items_made}", "n": self.items_made}}
        elif roll < 0.75:
            _, item = self.rng.choice(live)
            target = self.rng.choice(LISTS)
            anchors = [i for i, _ in self.board.items[target] if i != item]
            op = {"kind": "move", "item": item, "list": target}
            if anchors and self.rng.random() < 0.8:
                op["after"] = self.rng.choice(anchors)
        elif roll < 0.85:
            _, item = self.rng.choice(live)
            op = {"kind": "set", "item": item, "field": "n", "value": self.rng.randint(0, 999)}
        elif roll < 0.93 or not self.deleted:
            _, item = self.rng.choice(live)
            self.deleted.append(item)
            op = {"kind": "delete", "item": item}
        else:
            op = {"kind": "restore", "item": self.deleted.pop(self.rng.randrange(len(self.deleted)))}
        return op_id, json.dumps({"type": "op", "id": op_id, "op": op})

    async def reader(self, ws):
        async for text in ws:
            frame = json.loads(text)
            kind = frame["type"]
            if kind == "welcome":
                self.on_welcome(frame)
                for frame_text in list(self.pending.values()):
                    self.stats.resent += 1
                    await ws.send(frame_text)
                self.welcomed.set()
            elif kind == "applied":
                self.on_applied(frame)
            elif kind == "rejected":
                if frame.get("code") == "rate_limited":
                    continue  # re-sent at the next reconnect or by the writer
                if self.pending.pop(frame["id"], None) is not None:
                    self.stats.rejected += 1

    async def writer(self, ws):
        await self.welcomed.wait()
        while True:
            await asyncio.sleep(self.rng.uniform(0.05, 0.35))
            if self.sending and len(self.pending) < 8:
                op_id, text = self.next_op()
                self.pending[op_id] = text
                self.stats.sent += 1
                await ws.send(text)
            live = self.board.live_items()
            if live and self.rng.random() < 0.5:
                name, item = self.rng.choice(live)
                for phase in ("start", "move", "end"):
                    await ws.send(json.dumps({"type": "drag", "phase": phase, "item": item, "list": name,
                                              "x": self.rng.random(), "y": self.rng.random()}))
                    self.stats.drags += 1

    async def run(self):
        while not self.stopped:
            self.welcomed.clear()
            try:
                async with connect(f"{self.url}/ws/{self.room}", max_size=None, open_timeout=5) as ws:
                    self.ws = ws
                    await ws.send(self.hello())
                    tasks = [asyncio.create_task(self.reader(ws)), asyncio.create_task(self.writer(ws))]
                    try:
                        await asyncio.wait(tasks, return_when=asyncio.FIRST_COMPLETED)
                    finally:
                        for task in tasks:
                            task.cancel()
                        await asyncio.gather(*tasks, return_exceptions=True)  # read, so asyncio does not log them
            except (OSError, WebSocketException, asyncio.TimeoutError, ConnectionResetError) as error:
                self.attempts += 1
                self.last_error = f"{type(error).__name__}: {error}"
            finally:
                self.ws = None
            if not self.stopped:
                await asyncio.sleep(0.05)


async def fetch(url, room, since=None):
    """One fresh connection's welcome (full board, or the catch-up from `since`)."""
    frame = {"type": "hello", "room": room, "client": "soak-check", "name": "check", "color": "#000"}
    if since is not None:
        frame["since"] = since
    async with connect(f"{url}/ws/{room}", max_size=None, open_timeout=5) as ws:
        await ws.send(json.dumps(frame))
        async for text in ws:
            reply = json.loads(text)
            if reply["type"] == "welcome":
                return reply


async def wait_up(url, deadline):
    while time.monotonic() < deadline:
        try:
            return await fetch(url, ROOMS[0])
        except (OSError, WebSocketException, asyncio.TimeoutError):
            await asyncio.sleep(0.02)
    return None


async def seed(url):
    """Each room: two lists and a few items, through one connection, waiting for every applied."""
    for room in ROOMS:
        async with connect(f"{url}/ws/{room}", max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "room": room, "client": "seed", "name": "seed", "color": "#000"}))
            ops = [{"kind": "createList", "list": name, "title": name, "layout": "list", "after": prev}
                   for prev, name in ((None, "main"), ("main", "side"))]
            ops += [{"kind": "insert", "list": LISTS[k % 2], "item": f"seed-{k}", "fields": {"title": f"item {k}", "n": k}}
                    for k in range(SEED_ITEMS)]
            for k, op in enumerate(ops):
                await ws.send(json.dumps({"type": "op", "id": f"seed-{room}:{k}", "op": op}))
            answered = 0
            async for text in ws:
                frame = json.loads(text)
                if frame["type"] in ("applied", "rejected") and frame.get("id", "").startswith("seed-"):
                    answered += 1
                    if answered == len(ops):
                        break


async def soak(args):
    rng = random.Random(args.seed)
    data = tempfile.mkdtemp(prefix="reorder-soak-")
    port = free_port()
    url = f"ws://127.0.0.1:{port}"
    log = open(os.path.join(data, "server.log"), "ab")
    # --lose-data checks the soak itself: every restart is on a fresh `:memory:` store, so what was
    # acknowledged before is gone and the run must fail.
    server = Server(args.binary, ":memory:" if args.lose_data else os.path.join(data, "data"), port, log)
    server.start()
    stats = Stats()
    clients = []
    result = {"mode": args.mode, "cycles": 0}
    try:
        if await wait_up(url, time.monotonic() + 30) is None:
            print("soak: the server did not come up; see", log.name, file=sys.stderr)
            return None
        await seed(url)
        clients = [Client(f"c{r}x{k}", room, url, stats, random.Random(rng.random()))
                   for r, room in enumerate(ROOMS) for k in range(CLIENTS_PER_ROOM)]
        tasks = [asyncio.create_task(c.run()) for c in clients]
        recoveries = []  # restart -> every client welcomed again
        outages = []  # SIGKILL -> every client welcomed again (includes the random time the server stays down)
        serving = []  # restart -> a probe's hello welcomed (the server is up and its room loaded)
        for cycle in range(args.cycles):
            await asyncio.sleep(rng.uniform(0.3, 2.5))
            server.kill()
            killed = time.monotonic()
            for c in clients:
                c.welcomed.clear()
            await asyncio.sleep(rng.uniform(0.0, 0.3))  # clients find the port closed, and retry
            server.start()
            restarted = time.monotonic()
            if await wait_up(url, time.monotonic() + 30) is None:
                print("soak: the server did not come back in 30 s; see", log.name, file=sys.stderr)
                return None
            serving.append(time.monotonic() - restarted)
            attempts = {c.name: c.attempts for c in clients}
            try:
                await asyncio.wait_for(asyncio.gather(*(c.welcomed.wait() for c in clients)), 3)
            except asyncio.TimeoutError:
                slow = [f"{c.name} ({c.attempts - attempts[c.name]} tries, last {c.last_error!r})"
                        for c in clients if not c.welcomed.is_set()]
                print(f"soak: cycle {cycle + 1}: not welcomed 3 s after the restart: {', '.join(slow)}",
                      file=sys.stderr)
                try:
                    await asyncio.wait_for(asyncio.gather(*(c.welcomed.wait() for c in clients)), 27)
                except asyncio.TimeoutError:
                    print(f"soak: cycle {cycle + 1}: clients not back in 30 s", file=sys.stderr)
            recoveries.append(time.monotonic() - restarted)
            outages.append(time.monotonic() - killed)
            result["cycles"] = cycle + 1
            if (cycle + 1) % 10 == 0:
                print(f"soak: {cycle + 1}/{args.cycles} cycles, {len(stats.acked)} acked,"
                      f" recovery max {max(recoveries):.2f} s", flush=True)

        # Quiesce: no new ops; every pending one is re-sent until answered.
        for c in clients:
            c.sending = False
        deadline = time.monotonic() + 60
        while any(c.pending or not c.welcomed.is_set() for c in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        unanswered = sum(len(c.pending) for c in clients)
        room_seq = {room: (await fetch(url, room))["seq"] for room in ROOMS}
        while any(c.seq < room_seq[c.room] for c in clients) and time.monotonic() < deadline + 30:
            await asyncio.sleep(0.1)  # the last applied frames reach every client
        for c in clients:
            c.stopped = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        lost = duplicates = gaps = diverged = 0
        logged = {}
        for room in ROOMS:
            log_welcome = await fetch(url, room, since=0)
            board_welcome = await fetch(url, room)
            ops = log_welcome.get("ops", [])
            seqs = [op["seq"] for op in ops]
            gaps += sum(1 for a, b in zip([0] + seqs, seqs) if b != a + 1) + (seqs[-1] != log_welcome["seq"] if seqs else 0)
            replay = Board({"lists": []})
            for op in ops:
                if op["id"] in logged:
                    duplicates += 1
                logged[op["id"]] = op["seq"]
                replay.apply(op["op"])
            fresh = Board(board_welcome["board"]).normalized()
            if replay.normalized() != fresh:
                diverged += 1
                print(f"soak: {room}: the log replayed is not the fresh welcome's board", file=sys.stderr)
            for c in clients:
                if c.room == room and (c.board is None or c.board.normalized() != fresh or c.seq != board_welcome["seq"]):
                    diverged += 1
                    print(f"soak: {c.name}: its board (seq {c.seq}) is not the fresh welcome's"
                          f" (seq {board_welcome['seq']})", file=sys.stderr)
        for op_id, seq in stats.acked.items():
            if logged.get(op_id) != seq:
                lost += 1
                print(f"soak: acknowledged {op_id} at seq {seq}, log has {logged.get(op_id)}", file=sys.stderr)
        gaps += stats.client_gaps
        result.update({
            "acked": len(stats.acked), "lost": lost + stats.rollbacks, "duplicates": duplicates, "gaps": gaps,
            "diverged": diverged, "max_recovery_s": round(max(recoveries), 3) if recoveries else 0,
            "mean_recovery_s": round(sum(recoveries) / len(recoveries), 3) if recoveries else 0,
            "max_outage_s": round(max(outages), 3) if outages else 0,
            "median_recovery_s": round(sorted(recoveries)[len(recoveries) // 2], 3) if recoveries else 0,
            "max_serving_s": round(max(serving), 3) if serving else 0,
            "median_serving_s": round(sorted(serving)[len(serving) // 2], 3) if serving else 0,
            "ops_logged": len(logged), "ops_sent": stats.sent, "ops_resent": stats.resent,
            "ops_rejected": stats.rejected, "ops_unanswered": unanswered, "drags_sent": stats.drags,
            "welcomes": stats.welcomes, "full_board_resyncs": stats.resyncs, "rollbacks": stats.rollbacks,
            "clients": len(clients), "rooms": len(ROOMS), "seed": args.seed,
        })
        return result
    finally:
        for c in clients:
            c.stopped = True
        server.stop()
        log.close()
        if args.keep:
            print("soak: data and server log kept in", data, file=sys.stderr)
        else:
            shutil.rmtree(data, ignore_errors=True)


def write_report(path, result):
    entries = []
    if os.path.exists(path):
        try:
            with open(path) as f:
                entries = [e for e in json.load(f) if isinstance(e, dict) and e.get("mode") != result["mode"]]
        except (ValueError, TypeError):
            entries = []
    entries.append(result)
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(entries, f, indent=2)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", default=os.environ.get("SOAK_MODE", "single"), choices=["single", "cluster"])
    parser.add_argument("--cycles", type=int, default=int(os.environ.get("SOAK_CYCLES", "100")))
    parser.add_argument("--binary", default=os.environ.get("SOAK_BINARY", ".build/release/reorder"))
    parser.add_argument("--report", default="reports/soak.json")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", "1")))
    parser.add_argument("--keep", action="store_true", help="keep the data directory and server log")
    parser.add_argument("--lose-data", action="store_true",
                        help="self-check: restart on an empty :memory: store each cycle (the soak must fail)")
    args = parser.parse_args()
    if args.mode == "cluster":
        print("soak: the cluster mode comes with the cluster (issue 15, second part); run --mode single",
              file=sys.stderr)
        return 2
    if not os.access(args.binary, os.X_OK):
        print(f"soak: no server binary at {args.binary} (swift build -c release --product reorder)", file=sys.stderr)
        return 2
    started = time.monotonic()
    result = asyncio.run(soak(args))
    if result is None:
        return 2
    result["seconds"] = round(time.monotonic() - started, 1)
    write_report(args.report, result)
    print(json.dumps(result))
    bad = {k: result[k] for k in ("lost", "duplicates", "gaps", "diverged") if result[k] != 0}
    if bad:
        print(f"soak: FAILED {bad}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
