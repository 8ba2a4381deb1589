#!/usr/bin/env python3
"""Kill-and-restart soak (docs/RELIABILITY.md): clients edit and drag while a process is killed with
SIGKILL at random moments and restarted on the same data, cycle after cycle; at the end every
acknowledged op must be in the log exactly once at the seq it was acknowledged with, the log must
have no seq gaps, and every client's board must equal a fresh welcome (on every node).

Modes: `single` kills and restarts the one server (SQLite data directory); `cluster` starts
`redis-server` and NODES nodes (`reorder serve --redis`) and each cycle kills one of them or Redis,
chosen at random; `redis-cluster` starts a 3-master Redis Cluster and NODES nodes (`reorder serve
--redis-cluster`) and each cycle kills one master or one node, chosen at random; clients reconnect
to any node.

Usage: scripts/soak.py [--mode single|cluster|redis-cluster|both] [--cycles N] [--binary PATH]
[--report reports/soak.json] (`make soak` runs it through scripts/soak.sh). It talks to 127.0.0.1
only and starts, kills and stops only the processes it started, by PID. Exit status 0 when lost,
duplicates, gaps and diverged are all 0 in every mode run; 1 otherwise; 2 when it could not run
(no binary, a process never came up).

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

import soak_cluster

ROOMS = [f"soak-{n}" for n in range(5)]
CLIENTS_PER_ROOM = 4
LISTS = ("main", "side")
SEED_ITEMS = 12
# Cluster mode: one op per node through this room after each restart says the cluster commits again.
PROBE_ROOM = "soak-probe"
NODES = 3
MASTERS = 3  # redis-cluster mode
MODES = ("single", "cluster", "redis-cluster")  # the report's order


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server(soak_cluster.OwnedProcess):
    """One `reorder serve` process this soak owns, started on `data` (with `redis_flags`, e.g.
    `--redis URL` or `--redis-cluster SEEDS`: a cluster node), killed and stopped by its PID only."""

    def __init__(self, binary, data, port, log, name="server", redis_flags=()):
        self.binary, self.data, self.port, self.log, self.name = binary, data, port, log, name
        self.redis_flags = list(redis_flags)
        self.url = f"ws://127.0.0.1:{port}"
        self.process = None

    def start(self):
        arguments = [self.binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--data", self.data,
                     "--history-ops", "1000000", "--snapshot-every", "200", "--log-level", "warn"]
        arguments += self.redis_flags
        self.process = subprocess.Popen(arguments, stdout=self.log, stderr=subprocess.STDOUT)



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
        self.unavailable = 0
        self.client_gaps = 0
        self.rollbacks = 0
        self.resyncs = 0
        self.sent = 0
        self.resent = 0
        self.drags = 0
        self.welcomes = 0
        self.closes = {}  # "code reason" -> count, for closes the server sent (a SIGKILL is none)


class Client:
    """One soak client: joins its room, sends ops and drags, and on every disconnect reconnects
    (to its first node, then to any node chosen at random) with `since` and `epoch` and re-sends
    every op it has no `applied` (or final `rejected`) for. An op `rejected` `unavailable` (cluster
    mode, Redis down) stays pending and is re-sent 0.2–0.5 s later with the same id."""

    def __init__(self, name, room, urls, home, stats, rng):
        self.name, self.room, self.urls, self.stats, self.rng = name, room, urls, stats, rng
        self.url = urls[home % len(urls)]
        self.seq = 0
        self.epoch = None
        self.board = None
        self.pending = {}  # op id -> frame, in send order
        self.retry_at = {}  # op id -> when to re-send it after an `unavailable`
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
        frame = {"type": "hello", "v": 1, "room": self.room, "client": self.name, "name": self.name, "color": "#2196f3"}
        if not fresh and self.board is not None:
            frame["since"] = self.seq
            frame["epoch"] = self.epoch
        return json.dumps(frame)

    def acknowledge(self, op_id, seq):
        if op_id in self.pending:
            del self.pending[op_id]
            self.retry_at.pop(op_id, None)
            self.stats.acked[op_id] = seq

    def on_applied(self, frame):
        seq = frame["seq"]
        if seq <= self.seq:
            # An idempotent re-send's applied again (to the sender only), or one the welcome held.
            self.acknowledge(frame["id"], seq)
            return
        if seq != self.seq + 1:
            self.stats.client_gaps += 1
            raise ConnectionResetError(f"{self.name}: applied {seq} after {self.seq}")
        self.board.apply(frame["op"])
        self.seq = seq
        self.acknowledge(frame["id"], seq)

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
                self.retry_at.clear()
                for frame_text in list(self.pending.values()):
                    self.stats.resent += 1
                    await ws.send(frame_text)
                self.welcomed.set()
            elif kind == "applied":
                self.on_applied(frame)
            elif kind == "rejected":
                code = frame.get("code")
                if code == "rate_limited":
                    continue  # re-sent at the next reconnect or by the writer
                if code == "unavailable":
                    if frame["id"] in self.pending:
                        self.stats.unavailable += 1
                        self.retry_at[frame["id"]] = time.monotonic() + self.rng.uniform(0.2, 0.5)
                    continue
                if self.pending.pop(frame["id"], None) is not None:
                    self.retry_at.pop(frame["id"], None)
                    self.stats.rejected += 1

    async def writer(self, ws):
        await self.welcomed.wait()
        while True:
            await asyncio.sleep(self.rng.uniform(0.05, 0.35))
            now = time.monotonic()
            for op_id, due in list(self.retry_at.items()):
                if due <= now and op_id in self.pending:
                    del self.retry_at[op_id]
                    self.stats.resent += 1
                    await ws.send(self.pending[op_id])
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
                        if ws.close_code is not None and ws.close_code != 1006 and not self.stopped:
                            key = f"{ws.close_code} {ws.close_reason}".strip()
                            self.stats.closes[key] = self.stats.closes.get(key, 0) + 1
            except (OSError, WebSocketException, asyncio.TimeoutError, ConnectionResetError) as error:
                self.attempts += 1
                self.last_error = f"{type(error).__name__}: {error}"
            finally:
                self.ws = None
            if not self.stopped:
                self.url = self.rng.choice(self.urls)  # any node (the one server in single mode)
                await asyncio.sleep(0.05)


async def fetch(url, room, since=None):
    """One fresh connection's welcome (full board, or the catch-up from `since`)."""
    frame = {"type": "hello", "v": 1, "room": room, "client": "soak-check", "name": "check", "color": "#000"}
    if since is not None:
        frame["since"] = since
    async with connect(f"{url}/ws/{room}", max_size=None, open_timeout=5) as ws:
        await ws.send(json.dumps(frame))
        async for text in ws:
            reply = json.loads(text)
            if reply["type"] == "welcome":
                return reply


async def fetch_by(url, room, deadline, since=None):
    """`fetch`, tried again while the connection fails or closes before a welcome (a node that
    cannot load the room closes it 1011): (the welcome, None), or (None, the last error) at the
    deadline."""
    while True:
        try:
            return await fetch(url, room, since), None
        except (OSError, WebSocketException, asyncio.TimeoutError) as error:
            if time.monotonic() >= deadline:
                return None, f"{type(error).__name__}: {error}"
            await asyncio.sleep(0.1)


async def wait_up(url, deadline, rooms=(ROOMS[0],)):
    """Waits until `url` welcomes a hello in every one of `rooms` (the server is up and has loaded
    them); the welcome of the first, or None at the deadline."""
    while time.monotonic() < deadline:
        try:
            welcomes = await asyncio.gather(*(fetch(url, room) for room in rooms))
            return welcomes[0]
        except (OSError, WebSocketException, asyncio.TimeoutError):
            await asyncio.sleep(0.02)
    return None


async def seed(url, rooms):
    """Each room: two lists and a few items, through one connection, waiting for every applied;
    the probe room: one list and the item `probe`."""
    for room in rooms:
        async with connect(f"{url}/ws/{room}", max_size=None) as ws:
            await ws.send(json.dumps({"type": "hello", "v": 1, "room": room, "client": "seed", "name": "seed", "color": "#000"}))
            if room == PROBE_ROOM:
                ops = [{"kind": "createList", "list": "main", "title": "main", "layout": "list", "after": None},
                       {"kind": "insert", "list": "main", "item": "probe", "fields": {"title": "probe", "n": 0}}]
            else:
                ops = [{"kind": "createList", "list": name, "title": name, "layout": "list", "after": prev}
                       for prev, name in ((None, "main"), ("main", "side"))]
                ops += [{"kind": "insert", "list": LISTS[k % 2], "item": f"seed-{k}", "fields": {"title": f"item {k}", "n": k}}
                        for k in range(SEED_ITEMS)]
            # One at a time: in cluster mode an op is validated against the ops the node has applied,
            # so an insert sent before its list's createList is back would be rejected unknown_list.
            for k, op in enumerate(ops):
                op_id = f"seed-{room}:{k}"
                text = json.dumps({"type": "op", "id": op_id, "op": op})
                await ws.send(text)
                async for reply in ws:
                    frame = json.loads(reply)
                    if frame.get("id") != op_id:
                        continue
                    if frame["type"] == "applied":
                        break
                    if frame["type"] == "rejected" and frame.get("code") in ("unavailable", "rate_limited"):
                        await asyncio.sleep(0.1)
                        await ws.send(text)
                    elif frame["type"] == "rejected":
                        raise RuntimeError(f"seeding {room}: {op_id} rejected {frame.get('code')}")


async def probe_commit(url, op_id, value, deadline):
    """One op in the probe room through `url`, re-sent (same id) after `unavailable` or a dropped
    connection until it is applied: its seq, or None at the deadline or when it is refused for
    good (its item unknown: the node holds another board than the one seeded)."""
    frame = json.dumps({"type": "op", "id": op_id, "op": {"kind": "set", "item": "probe", "field": "n", "value": value}})
    hello = json.dumps({"type": "hello", "v": 1, "room": PROBE_ROOM, "client": "soak-probe", "name": "probe", "color": "#000"})
    while time.monotonic() < deadline:
        try:
            async with connect(f"{url}/ws/{PROBE_ROOM}", max_size=None, open_timeout=5) as ws:
                await ws.send(hello)
                async for text in ws:
                    reply = json.loads(text)
                    if reply["type"] == "welcome":
                        await ws.send(frame)
                    elif reply["type"] == "applied" and reply["id"] == op_id:
                        return reply["seq"]
                    elif reply["type"] == "rejected" and reply["id"] == op_id:
                        if reply.get("code") not in ("unavailable", "rate_limited"):
                            print(f"soak: probe {op_id} through {url} rejected {reply.get('code')}", file=sys.stderr)
                            return None
                        await asyncio.sleep(0.05)
                        await ws.send(frame)
        except (OSError, WebSocketException, asyncio.TimeoutError):
            await asyncio.sleep(0.05)
    return None


class SingleDeployment:
    """One server on a data directory (`--lose-data`: a fresh `:memory:` store at every start, which
    loses what was acknowledged: the run must fail)."""

    def __init__(self, args, work):
        self.log = open(os.path.join(work, "server.log"), "ab")
        data = ":memory:" if args.lose_data else os.path.join(work, "data")
        self.server = Server(args.binary, data, free_port(), self.log)
        self.urls = [self.server.url]
        self.rooms = ROOMS

    def start(self):
        self.server.start()

    def stop(self):
        self.server.stop()
        self.log.close()

    def victim(self, rng):
        return self.server

    def dropped(self, victim, client):
        return True  # every client was on the one server

    async def ready(self, victim, deadline):
        return await wait_up(self.server.url, deadline) is not None

    async def committing(self, cycle, stats, deadline):
        return True  # in single mode, "every client welcomed again" is the recovery

    async def room_seq(self, room):
        return (await fetch(self.server.url, room))["seq"]

    async def check(self, clients, stats):
        """(lost, duplicates, gaps, diverged, ops logged, details) from the server's log and boards."""
        lost = duplicates = gaps = diverged = 0
        logged = {}
        for room in ROOMS:
            log_welcome = await fetch(self.server.url, room, since=0)
            board_welcome = await fetch(self.server.url, room)
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
            diverged += compare_clients(clients, room, fresh, board_welcome["seq"], "the fresh welcome")
        for op_id, seq in stats.acked.items():
            if logged.get(op_id) != seq:
                lost += 1
                print(f"soak: acknowledged {op_id} at seq {seq}, log has {logged.get(op_id)}", file=sys.stderr)
        return lost + stats.rollbacks, duplicates, gaps, diverged, len(logged), {}


class ClusterDeployment:
    """`redis-server` and NODES nodes (`reorder serve --redis`, each with its own data directory and
    port). Each cycle kills one of them, chosen at random (`--lose-data`: always Redis, restarted on
    an empty directory, which loses the shared log: the run must fail)."""

    def __init__(self, args, work):
        self.args = args
        self.log = open(os.path.join(work, "cluster.log"), "ab")
        self.redis = soak_cluster.RedisProcess(free_port(), os.path.join(work, "redis"), self.log, args.lose_data)
        self.nodes = [Server(args.binary, os.path.join(work, f"node-{k}"), free_port(), self.log, name=f"node-{k}",
                             redis_flags=["--redis", f"redis://127.0.0.1:{self.redis.port}"]) for k in range(args.nodes)]
        self.urls = [node.url for node in self.nodes]
        self.rooms = ROOMS + [PROBE_ROOM]
        self.kills = {"redis-server": 0, "node": 0}
        self.replays = 0

    def start(self):
        self.redis.start()
        deadline = time.monotonic() + 30
        while not soak_cluster.redis_answers(self.redis.port) and time.monotonic() < deadline:
            time.sleep(0.02)
        for node in self.nodes:
            node.start()

    def stop(self):
        for node in self.nodes:
            node.stop()
        self.redis.stop()
        self.log.close()

    def victim(self, rng):
        victim = self.redis if self.args.lose_data else rng.choice([self.redis] + self.nodes)
        self.kills["redis-server" if victim is self.redis else "node"] += 1
        return victim

    def dropped(self, victim, client):
        return getattr(victim, "url", None) == client.url  # a Redis kill drops no websocket

    async def ready(self, victim, deadline):
        if victim is self.redis:
            while time.monotonic() < deadline:
                if await asyncio.to_thread(soak_cluster.redis_answers, self.redis.port):
                    return True
                await asyncio.sleep(0.02)
            return False
        return await wait_up(victim.url, deadline, rooms=ROOMS) is not None

    async def committing(self, cycle, stats, deadline):
        """One probe op through every node, each acknowledged: every node commits to the log again."""
        async def one(k, node):
            op_id = f"probe-{cycle}-{k}"
            try:
                seq = await asyncio.wait_for(probe_commit(node.url, op_id, cycle, deadline), max(0.1, deadline - time.monotonic()))
            except asyncio.TimeoutError:
                seq = None
            if seq is not None:
                stats.acked[op_id] = seq
            return seq is not None
        return all(await asyncio.gather(*(one(k, node) for k, node in enumerate(self.nodes))))

    def master_of(self, room):
        """The port of the Redis that holds `room`'s keys."""
        return self.redis.port

    async def room_seq(self, room):
        return await asyncio.to_thread(lambda: soak_cluster.meta_seq(self.master_of(room), room))

    async def check(self, clients, stats):
        """The shared log in Redis (lost, duplicates, gaps) and every node's fresh welcome, which must
        equal each other's and every client's board (diverged); where a node's catch-up from 0 is
        the whole log (it has held the room since its first op), its replay must equal the board."""
        diverged = 0
        for room in self.rooms:
            seq = await self.room_seq(room)
            welcomes = []
            for node in self.nodes:
                deadline = time.monotonic() + 30
                welcome, error = await fetch_by(node.url, room, deadline)
                while welcome is not None and welcome["seq"] < seq and time.monotonic() < deadline:
                    await asyncio.sleep(0.1)  # its tail may be a read behind
                    welcome = (await fetch_by(node.url, room, deadline))[0] or welcome
                if welcome is None:
                    diverged += 1
                    print(f"soak: {room}: {node.name} gave no fresh welcome in 30 s ({error})", file=sys.stderr)
                else:
                    welcomes.append((node, welcome))
            if not welcomes:
                continue
            first_node, first = welcomes[0]
            fresh = Board(first["board"]).normalized()
            for node, welcome in welcomes:
                if welcome["seq"] != seq or Board(welcome["board"]).normalized() != fresh:
                    diverged += 1
                    print(f"soak: {room}: {node.name}'s fresh welcome (seq {welcome['seq']}) is not"
                          f" {first_node.name}'s (seq {first['seq']}); the log is at {seq}", file=sys.stderr)
                log_welcome, error = await fetch_by(node.url, room, time.monotonic() + 30, since=0)
                if log_welcome is None:
                    diverged += 1
                    print(f"soak: {room}: {node.name} gave no catch-up from 0 in 30 s ({error})", file=sys.stderr)
                elif "ops" in log_welcome and log_welcome["seq"] == seq:
                    replay = Board({"lists": []})
                    for op in log_welcome["ops"]:
                        replay.apply(op["op"])
                    self.replays += 1
                    if replay.normalized() != fresh:
                        diverged += 1
                        print(f"soak: {room}: {node.name}'s log replayed is not the fresh welcome's board", file=sys.stderr)
            diverged += compare_clients(clients, room, fresh, seq, "every node's fresh welcome")
        lost, duplicates, gaps, logged, problems = await asyncio.to_thread(
            soak_cluster.check_logs, self.master_of, self.rooms, stats.acked)
        for problem in problems[:50]:
            print(f"soak: {problem}", file=sys.stderr)
        details = {"nodes": len(self.nodes), "kills": dict(self.kills), "log_replays_checked": self.replays,
                   "behind_welcomes": stats.rollbacks}
        return lost, duplicates, gaps, diverged, logged, details


class RedisClusterDeployment(ClusterDeployment):
    """A 3-master Redis Cluster (each `redis-server --cluster-enabled yes` on its own directory and
    a port whose bus port, +10,000, is free; made with `redis-cli --cluster create`, no replicas)
    and NODES nodes (`reorder serve --redis-cluster` with two masters as seeds). Each cycle kills
    one master or one node, chosen at random; a master restarts on its directory (its nodes.conf
    and AOF: it rejoins with its slots) and has recovered when it answers PING and every master
    says `cluster_state:ok` with every slot served. The checks read each room's log from the
    master that holds it. `--lose-data`: always a master, restarted on an empty directory and
    given its slots back (the others forget its old node id), which loses its rooms' logs: the
    run must fail."""

    def __init__(self, args, work):
        self.args = args
        self.log = open(os.path.join(work, "cluster.log"), "ab")
        ports = soak_cluster.cluster_ports(MASTERS)
        self.masters = [soak_cluster.RedisProcess(port, os.path.join(work, f"master-{k}"), self.log, args.lose_data,
                                                  name=f"master-{k}", cluster=True) for k, port in enumerate(ports)]
        self.ports = ports
        seeds = ",".join(f"redis://127.0.0.1:{port}" for port in ports[:2])
        self.nodes = [Server(args.binary, os.path.join(work, f"node-{k}"), free_port(), self.log, name=f"node-{k}",
                             redis_flags=["--redis-cluster", seeds]) for k in range(args.nodes)]
        self.urls = [node.url for node in self.nodes]
        self.rooms = ROOMS + [PROBE_ROOM]
        self.kills = {"master": 0, "node": 0}
        self.replays = 0
        self.identities = {}  # master port -> (node id, slot ranges), for --lose-data's rejoin
        self.rooms_by_master = {}

    def start(self):
        for master in self.masters:
            master.start()
        deadline = time.monotonic() + 30
        while not all(soak_cluster.redis_answers(port) for port in self.ports):
            if time.monotonic() > deadline:
                raise SetupError("the Redis Cluster's masters did not answer PING in 30 s")
            time.sleep(0.02)
        try:
            soak_cluster.create_cluster(self.ports, self.log)
        except (RuntimeError, subprocess.TimeoutExpired) as error:
            raise SetupError(str(error)) from None
        deadline = time.monotonic() + 30
        while not soak_cluster.cluster_ok(self.ports):
            if time.monotonic() > deadline:
                raise SetupError("the Redis Cluster did not reach cluster_state:ok in 30 s")
            time.sleep(0.05)
        self.identities = soak_cluster.cluster_masters(self.ports[0])
        names = {master.port: f"{master.name} (127.0.0.1:{master.port})" for master in self.masters}
        homes = {room: names[self.master_of(room)] for room in self.rooms}
        self.rooms_by_master = {name: [room for room in self.rooms if homes[room] == name]
                                for name in sorted(set(homes.values()))}
        print("soak: redis-cluster: rooms by master: "
              + "; ".join(f"{name}: {', '.join(rooms)}" for name, rooms in self.rooms_by_master.items()), flush=True)
        if len(self.rooms_by_master) < 2:
            raise SetupError("every room is on one master; the soak's rooms must spread over at least 2")
        for node in self.nodes:
            node.start()

    def stop(self):
        for node in self.nodes:
            node.stop()
        for master in self.masters:
            master.stop()
        self.log.close()

    def victim(self, rng):
        victim = rng.choice(self.masters if self.args.lose_data else self.masters + self.nodes)
        self.kills["master" if victim in self.masters else "node"] += 1
        return victim

    def dropped(self, victim, client):
        return victim in self.nodes and victim.url == client.url  # a master's kill drops no websocket

    async def ready(self, victim, deadline):
        if victim not in self.masters:
            return await wait_up(victim.url, deadline, rooms=ROOMS) is not None
        while not await asyncio.to_thread(soak_cluster.redis_answers, victim.port):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)
        if self.args.lose_data:
            old_id, ranges = self.identities[victim.port]
            new_id = await asyncio.to_thread(soak_cluster.rejoin_empty, victim.port, old_id, ranges,
                                             [port for port in self.ports if port != victim.port])
            self.identities[victim.port] = (new_id, ranges)
        while not await asyncio.to_thread(soak_cluster.cluster_ok, self.ports):
            if time.monotonic() > deadline:
                return False
            await asyncio.sleep(0.02)
        return True

    def master_of(self, room):
        """The port of the master that holds `room`'s slot (asked of the masters, not cached)."""
        return soak_cluster.room_master(self.ports, room)

    async def check(self, clients, stats):
        lost, duplicates, gaps, diverged, logged, details = await super().check(clients, stats)
        details["masters"] = len(self.masters)
        details["rooms_by_master"] = self.rooms_by_master
        return lost, duplicates, gaps, diverged, logged, details


class SetupError(Exception):
    """A deployment could not be started (the soak exits 2)."""


DEPLOYMENTS = {"single": SingleDeployment, "cluster": ClusterDeployment, "redis-cluster": RedisClusterDeployment}


def compare_clients(clients, room, fresh, seq, what):
    """How many of `room`'s clients hold another board (or seq) than `fresh`, each printed."""
    diverged = 0
    for c in clients:
        if c.room == room and (c.board is None or c.board.normalized() != fresh or c.seq != seq):
            diverged += 1
            print(f"soak: {c.name}: its board (seq {c.seq}) is not {what} (seq {seq})", file=sys.stderr)
    return diverged


def by_killed(phases):
    """The largest recovery after a kill of each kind of process ("node" for any node, "master" for
    any Redis Cluster master)."""
    worst = {}
    for phase in phases:
        kind = phase["killed"].split("-")[0] if phase["killed"].startswith(("node-", "master-")) else phase["killed"]
        worst[kind] = max(worst.get(kind, 0), phase["recovery_s"])
    return worst


def median(values):
    return round(sorted(values)[len(values) // 2], 3) if values else 0


async def soak(args, mode):
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix=f"reorder-soak-{mode}-")
    deployment = DEPLOYMENTS[mode](args, work)
    stats = Stats()
    clients = []
    tasks = []
    result = {"mode": mode, "cycles": 0}
    try:
        try:
            deployment.start()
        except SetupError as error:
            print(f"soak: {mode}: {error}; see {deployment.log.name}", file=sys.stderr)
            return None
        deadline = time.monotonic() + 30
        for url in deployment.urls:
            if await wait_up(url, deadline) is None:
                print(f"soak: {url} did not come up; see {deployment.log.name}", file=sys.stderr)
                return None
        await seed(deployment.urls[0], deployment.rooms)
        clients = [Client(f"c{r}x{k}", room, deployment.urls, r * CLIENTS_PER_ROOM + k, stats, random.Random(rng.random()))
                   for r, room in enumerate(ROOMS) for k in range(CLIENTS_PER_ROOM)]
        tasks = [asyncio.create_task(c.run()) for c in clients]
        recoveries = []  # restart -> every client welcomed again (cluster: and a probe op committed through every node)
        outages = []  # SIGKILL -> the same (includes the random time the process stays down)
        serving = []  # restart -> the process serves (a probe's hello welcomed in every room; Redis: PING)
        phases = []  # per cycle: what was killed, and when it served, the clients were back, it all committed
        for cycle in range(args.cycles):
            await asyncio.sleep(rng.uniform(args.traffic_min, args.traffic_max))
            victim = deployment.victim(rng)
            victim.kill()
            killed = time.monotonic()
            for c in clients:
                if deployment.dropped(victim, c):
                    c.welcomed.clear()
            await asyncio.sleep(rng.uniform(0.0, 0.3))  # clients find the port closed, and retry
            victim.start()
            restarted = time.monotonic()
            if not await deployment.ready(victim, time.monotonic() + 30):
                print(f"soak: {victim.name} did not come back in 30 s; see {deployment.log.name}", file=sys.stderr)
                return None
            serving.append(time.monotonic() - restarted)
            attempts = {c.name: c.attempts for c in clients}
            try:
                await asyncio.wait_for(asyncio.gather(*(c.welcomed.wait() for c in clients)), 3)
            except asyncio.TimeoutError:
                slow = [f"{c.name} ({c.attempts - attempts[c.name]} tries, last {c.last_error!r})"
                        for c in clients if not c.welcomed.is_set()]
                print(f"soak: cycle {cycle + 1}: not welcomed 3 s after the restart of {victim.name}: {', '.join(slow)}",
                      file=sys.stderr)
                try:
                    await asyncio.wait_for(asyncio.gather(*(c.welcomed.wait() for c in clients)), 27)
                except asyncio.TimeoutError:
                    print(f"soak: cycle {cycle + 1}: clients not back in 30 s", file=sys.stderr)
            welcomed = time.monotonic()
            if not await deployment.committing(cycle + 1, stats, restarted + 30):
                print(f"soak: cycle {cycle + 1}: a probe op was not acknowledged 30 s after the restart of"
                      f" {victim.name}", file=sys.stderr)
            recoveries.append(time.monotonic() - restarted)
            outages.append(time.monotonic() - killed)
            phases.append({"cycle": cycle + 1, "killed": victim.name, "serving_s": round(serving[-1], 3),
                           "welcomed_s": round(welcomed - restarted, 3), "recovery_s": round(recoveries[-1], 3)})
            result["cycles"] = cycle + 1
            if (cycle + 1) % 10 == 0:
                print(f"soak: {mode}: {cycle + 1}/{args.cycles} cycles, {len(stats.acked)} acked,"
                      f" recovery max {max(recoveries):.2f} s", flush=True)

        # Quiesce: no new ops; every pending one is re-sent until answered.
        for c in clients:
            c.sending = False
        deadline = time.monotonic() + 60
        while any(c.pending or not c.welcomed.is_set() for c in clients) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        unanswered = sum(len(c.pending) for c in clients)
        room_seq = {room: await deployment.room_seq(room) for room in ROOMS}
        while any(c.seq < room_seq[c.room] for c in clients) and time.monotonic() < deadline + 30:
            await asyncio.sleep(0.1)  # the last applied frames reach every client
        for c in clients:
            c.stopped = True
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)

        lost, duplicates, gaps, diverged, logged, details = await deployment.check(clients, stats)
        gaps += stats.client_gaps
        result.update({
            "acked": len(stats.acked), "lost": lost, "duplicates": duplicates, "gaps": gaps,
            "diverged": diverged, "max_recovery_s": round(max(recoveries), 3) if recoveries else 0,
            "mean_recovery_s": round(sum(recoveries) / len(recoveries), 3) if recoveries else 0,
            "median_recovery_s": median(recoveries),
            "max_outage_s": round(max(outages), 3) if outages else 0,
            "max_serving_s": round(max(serving), 3) if serving else 0, "median_serving_s": median(serving),
            "ops_logged": logged, "ops_sent": stats.sent, "ops_resent": stats.resent,
            "ops_rejected": stats.rejected, "ops_unavailable": stats.unavailable, "ops_unanswered": unanswered,
            "drags_sent": stats.drags, "welcomes": stats.welcomes, "full_board_resyncs": stats.resyncs,
            "rollbacks": stats.rollbacks, "server_closes": stats.closes,
            "clients": len(clients), "rooms": len(ROOMS), "seed": args.seed,
            "max_recovery_s_by_killed": by_killed(phases),
            "slowest_cycles": sorted(phases, key=lambda p: -p["recovery_s"])[:5],
        })
        result.update(details)
        return result
    finally:
        for c in clients:
            c.stopped = True
        for t in tasks:
            t.cancel()
        deployment.stop()
        if args.keep:
            print(f"soak: data and logs kept in {work}", file=sys.stderr)
        else:
            shutil.rmtree(work, ignore_errors=True)


def write_report(path, result):
    entries = []
    if os.path.exists(path):
        try:
            with open(path) as f:
                entries = [e for e in json.load(f) if isinstance(e, dict) and e.get("mode") != result["mode"]]
        except (ValueError, TypeError):
            entries = []
    entries.append(result)
    entries.sort(key=lambda e: MODES.index(e["mode"]) if e.get("mode") in MODES else len(MODES))
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    with open(path, "w") as f:
        json.dump(entries, f, indent=2)
        f.write("\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mode", default=os.environ.get("SOAK_MODE", "both"), choices=list(MODES) + ["both"],
                        help="both: single, then cluster (the default); redis-cluster: a 3-master Redis Cluster")
    parser.add_argument("--cycles", type=int, default=int(os.environ.get("SOAK_CYCLES", "100")))
    parser.add_argument("--binary", default=os.environ.get("SOAK_BINARY", ".build/release/reorder"))
    parser.add_argument("--report", default="reports/soak.json")
    parser.add_argument("--seed", type=int, default=int(os.environ.get("SOAK_SEED", "1")))
    parser.add_argument("--nodes", type=int, default=NODES, help="cluster nodes, in both cluster modes (default 3)")
    parser.add_argument("--traffic-min", type=float, default=0.3, help="seconds of traffic before a kill, at least")
    parser.add_argument("--traffic-max", type=float, default=2.5, help="seconds of traffic before a kill, at most")
    parser.add_argument("--keep", action="store_true", help="keep the data directories and the logs")
    parser.add_argument("--lose-data", action="store_true",
                        help="self-check: restart on empty data each cycle (single: a :memory: store; cluster:"
                             " Redis on an empty directory; redis-cluster: a master on an empty directory, given"
                             " its slots back); the soak must fail")
    args = parser.parse_args()
    if not os.access(args.binary, os.X_OK):
        print(f"soak: no server binary at {args.binary} (swift build -c release --product reorder)", file=sys.stderr)
        return 2
    modes = ["single", "cluster"] if args.mode == "both" else [args.mode]
    if "cluster" in modes and shutil.which("redis-server") is None:
        print("soak: the cluster mode needs redis-server (scripts/install-deps.sh test installs it)", file=sys.stderr)
        return 2
    if "redis-cluster" in modes and (shutil.which("redis-server") is None or shutil.which("redis-cli") is None):
        print("soak: the redis-cluster mode needs redis-server and redis-cli 7.0 or later"
              " (scripts/install-deps.sh soak installs redis-server, which brings redis-tools)", file=sys.stderr)
        return 2
    failed = False
    for mode in modes:
        started = time.monotonic()
        result = asyncio.run(soak(args, mode))
        if result is None:
            return 2
        result["seconds"] = round(time.monotonic() - started, 1)
        write_report(args.report, result)
        print(json.dumps(result), flush=True)
        bad = {k: result[k] for k in ("lost", "duplicates", "gaps", "diverged") if result[k] != 0}
        if bad:
            print(f"soak: {mode}: FAILED {bad}", file=sys.stderr)
            failed = True
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
