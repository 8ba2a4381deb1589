"""The cluster side of the kill-and-restart soak (scripts/soak.py, docs/RELIABILITY.md): the
`redis-server` processes the soak owns (one Redis, or the masters of a Redis Cluster and what
makes, watches and repairs that cluster), a minimal Redis client (RESP over a socket, for the
final check of the shared log and to see that Redis is up), and the check of each room's log in
Redis, read from the master that holds the room.

Nothing here talks to anything but 127.0.0.1 and the processes the soak started.
"""

import os
import random
import shutil
import signal
import socket
import subprocess


class RedisReplyError(Exception):
    """An error reply from Redis (`-ERR …`, `-LOADING …`)."""


class RedisClient:
    """One blocking connection speaking RESP2: enough for PING, HGET and XRANGE."""

    def __init__(self, port, timeout=5.0):
        self.sock = socket.create_connection(("127.0.0.1", port), timeout=timeout)
        self.buffer = b""

    def close(self):
        self.sock.close()

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.close()

    def command(self, *args):
        parts = [b"*%d\r\n" % len(args)]
        for arg in args:
            data = arg if isinstance(arg, bytes) else str(arg).encode()
            parts.append(b"$%d\r\n%s\r\n" % (len(data), data))
        self.sock.sendall(b"".join(parts))
        return self._reply()

    def _fill(self):
        chunk = self.sock.recv(65536)
        if not chunk:
            raise ConnectionError("redis closed the connection")
        self.buffer += chunk

    def _line(self):
        while b"\r\n" not in self.buffer:
            self._fill()
        line, self.buffer = self.buffer.split(b"\r\n", 1)
        return line

    def _exact(self, count):
        while len(self.buffer) < count:
            self._fill()
        data, self.buffer = self.buffer[:count], self.buffer[count:]
        return data

    def _reply(self):
        line = self._line()
        kind, rest = line[:1], line[1:]
        if kind == b"+":
            return rest.decode()
        if kind == b"-":
            raise RedisReplyError(rest.decode(errors="replace"))
        if kind == b":":
            return int(rest)
        if kind == b"$":
            size = int(rest)
            return None if size < 0 else self._exact(size + 2)[:-2]
        if kind == b"*":
            size = int(rest)
            return None if size < 0 else [self._reply() for _ in range(size)]
        raise ConnectionError(f"unexpected reply from redis: {line[:40]!r}")


def redis_answers(port):
    """Whether Redis answers PING with PONG (not refused, not still loading its AOF)."""
    try:
        with RedisClient(port, timeout=1.0) as redis:
            return redis.command("PING") == "PONG"
    except (OSError, ConnectionError, RedisReplyError):
        return False


class OwnedProcess:
    """A process this soak started (`self.process`, a `subprocess.Popen` or None), killed and
    stopped by its PID only."""

    process = None

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


class RedisProcess(OwnedProcess):
    """A `redis-server` this soak owns, configured as docs/CLUSTER.md requires (`appendonly yes`,
    `appendfsync always`, `noeviction`, no RDB saves), on 127.0.0.1, killed and stopped by its PID
    only. With `cluster` it is a Redis Cluster master (`cluster-enabled`, its `nodes.conf` in its
    directory, `cluster-require-full-coverage no`, a 2 s node timeout). With `lose_data` every
    start after the first is on an empty directory: the soak's self-check."""

    def __init__(self, port, directory, log, lose_data=False, name="redis-server", cluster=False):
        self.port, self.directory, self.log, self.lose_data = port, directory, log, lose_data
        self.name, self.cluster = name, cluster
        self.process = None
        self.starts = 0

    def start(self):
        if self.lose_data and self.starts > 0:
            shutil.rmtree(self.directory, ignore_errors=True)
        os.makedirs(self.directory, exist_ok=True)
        self.starts += 1
        self.process = subprocess.Popen(
            ["redis-server", "--bind", "127.0.0.1", "--port", str(self.port), "--dir", self.directory,
             "--daemonize", "no", "--appendonly", "yes", "--appendfsync", "always", "--save", "",
             "--maxmemory-policy", "noeviction", "--loglevel", "warning"] + (CLUSTER_FLAGS if self.cluster else []),
            stdout=self.log, stderr=subprocess.STDOUT)


CLUSTER_FLAGS = ["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", "2000",
                 "--cluster-require-full-coverage", "no"]
SLOTS = 16384
HIGHEST_CLUSTER_PORT = 65535 - 10000  # a master's cluster bus is its port + 10,000


def bindable(port):
    with socket.socket() as s:
        try:
            s.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False


def cluster_ports(count):
    """`count` distinct free ports whose cluster bus port (+10,000) is free too, both below the
    kernel's ephemeral range when it leaves room (so no outgoing connection, and no port the soak
    gets from the kernel for a node, takes one before its master binds it)."""
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            first_ephemeral = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        first_ephemeral = 32768
    high = min(HIGHEST_CLUSTER_PORT, first_ephemeral - 1 - 10000)
    low = max(1024, high - 4000)
    if high - low < 1000:
        low, high = 20000, HIGHEST_CLUSTER_PORT
    ports = []
    rng = random.Random()
    for _ in range(10000):
        port = rng.randint(low, high)
        if port not in ports and port + 10000 not in ports and port - 10000 not in ports \
                and bindable(port) and bindable(port + 10000):
            ports.append(port)
            if len(ports) == count:
                return ports
    raise RuntimeError(f"no {count} free ports with free cluster bus ports in {low}…{high}")


def create_cluster(ports, log):
    """`redis-cli --cluster create` of the masters on `ports`, no replicas; raises on failure."""
    log.flush()
    done = subprocess.run(["redis-cli", "--cluster", "create"] + [f"127.0.0.1:{port}" for port in ports]
                          + ["--cluster-replicas", "0", "--cluster-yes"],
                          stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"redis-cli --cluster create exited {done.returncode}")


def cluster_info(port):
    """CLUSTER INFO of the master on `port` as a dict of strings."""
    with RedisClient(port, timeout=1.0) as redis:
        text = redis.command("CLUSTER", "INFO").decode()
    return dict(line.split(":", 1) for line in text.split("\r\n") if ":" in line)


def cluster_ok(ports):
    """Whether every master answers and says `cluster_state:ok` with every slot assigned and served
    by a master it does not suspect (`cluster_slots_ok` 16384)."""
    try:
        for port in ports:
            info = cluster_info(port)
            if info.get("cluster_state") != "ok" or info.get("cluster_slots_ok") != str(SLOTS):
                return False
        return True
    except (OSError, ConnectionError, RedisReplyError):
        return False


def cluster_masters(port):
    """{master port: (node id, [(first slot, last slot), ...])} from CLUSTER SLOTS on `port`."""
    masters = {}
    with RedisClient(port, timeout=5.0) as redis:
        for first, last, master, *_ in redis.command("CLUSTER", "SLOTS"):
            node_port, node_id = master[1], master[2].decode()
            masters.setdefault(node_port, (node_id, []))[1].append((first, last))
    return masters


def room_master(ports, room):
    """The port of the master that holds `room`'s keys (`reorder:{room}:…`): the one of `ports` that
    reads its meta without answering `MOVED`."""
    for port in ports:
        with RedisClient(port, timeout=5.0) as redis:
            try:
                redis.command("EXISTS", f"reorder:{{{room}}}:meta")
                return port
            except RedisReplyError as error:
                if not str(error).startswith("MOVED"):
                    raise
    raise RuntimeError(f"no master of {ports} holds {room}'s slot")


def rejoin_empty(port, old_id, ranges, other_ports):
    """Puts a master restarted on an empty directory (a new node id, no slots, a cluster of its
    own) back in its place: the other masters forget its old id, it claims its old slot ranges,
    meets them and takes a new config epoch. Its slots are then served again, empty. Returns its
    new node id."""
    for other in other_ports:
        with RedisClient(other, timeout=5.0) as redis:
            try:
                redis.command("CLUSTER", "FORGET", old_id)
            except RedisReplyError as error:
                if "Unknown node" not in str(error):
                    raise
    with RedisClient(port, timeout=5.0) as redis:
        new_id = redis.command("CLUSTER", "MYID").decode()
        for first, last in ranges:
            redis.command("CLUSTER", "ADDSLOTSRANGE", first, last)
        for other in other_ports:
            redis.command("CLUSTER", "MEET", "127.0.0.1", other)
        redis.command("CLUSTER", "BUMPEPOCH")
    return new_id



KEY_SEPARATOR = b"\x1f"  # OpRecord.key(client:id:) is client + U+001F + op id


def read_log(port, room, page=1000):
    """The room's shared log, `reorder:{room}:log`, as (seq, op id) in stream order, and the seq
    its meta says was assigned last."""
    log_key, meta_key = f"reorder:{{{room}}}:log", f"reorder:{{{room}}}:meta"
    entries = []
    with RedisClient(port, timeout=10.0) as redis:
        start = "-"
        while True:
            batch = redis.command("XRANGE", log_key, start, "+", "COUNT", page)
            for stream_id, fields in batch:
                values = dict(zip(fields[::2], fields[1::2]))
                seq = int(stream_id.split(b"-")[0])
                key = values.get(b"key", b"")
                op_id = key.split(KEY_SEPARATOR, 1)[1] if KEY_SEPARATOR in key else key
                entries.append((seq, op_id.decode(errors="replace")))
            if len(batch) < page:
                break
            start = "(" + batch[-1][0].decode()
        meta_seq = redis.command("HGET", meta_key, "seq")
    return entries, int(meta_seq) if meta_seq is not None else 0


def meta_seq(port, room):
    """The seq the room's meta says was assigned last (0 for a room Redis does not hold)."""
    with RedisClient(port, timeout=10.0) as redis:
        seq = redis.command("HGET", f"reorder:{{{room}}}:meta", "seq")
    return int(seq) if seq is not None else 0


def check_logs(port_of, rooms, acked):
    """Every acknowledged op (op id -> seq) in its room's log exactly once at that seq; each log
    exactly seqs 1…meta.seq. `port_of(room)` is the port of the Redis (the master) that holds the
    room. Returns (lost, duplicates, gaps, ops logged, problems)."""
    problems = []
    logged = {}
    duplicates = gaps = 0
    for room in rooms:
        entries, meta_seq = read_log(port_of(room), room)
        seqs = [seq for seq, _ in entries]
        room_gaps = sum(1 for a, b in zip([0] + seqs, seqs) if b != a + 1) + (1 if (seqs[-1] if seqs else 0) != meta_seq else 0)
        if room_gaps:
            problems.append(f"{room}: the log's seqs are not exactly 1…{meta_seq} ({len(seqs)} entries)")
        gaps += room_gaps
        for seq, op_id in entries:
            if op_id in logged:
                duplicates += 1
                problems.append(f"{room}: {op_id} is in the log at seq {logged[op_id]} and {seq}")
            logged[op_id] = seq
    lost = 0
    for op_id, seq in acked.items():
        if logged.get(op_id) != seq:
            lost += 1
            problems.append(f"acknowledged {op_id} at seq {seq}, the shared log has {logged.get(op_id)}")
    return lost, duplicates, gaps, len(logged), problems
