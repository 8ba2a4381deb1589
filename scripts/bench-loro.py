#!/usr/bin/env python3
"""Runs the reorder-bench CRDT workload on Loro's MovableList and prints its numbers beside ours.

Workload (identical to `swift run -c release reorder-bench crdt`): one list of 10,000 items, then
100,000 moves; move k takes the item at index `from` to final index `to`, both drawn from
xoshiro256** seeded through SplitMix64 with 42 (`next() % 10000`, from then to).

  scripts/bench-loro.py                      # loro only
  scripts/bench-loro.py --ours ours.json     # ratios against a saved `reorder-bench crdt --json`
  scripts/bench-loro.py --ours -             # ... read from stdin
  scripts/bench-loro.py --run-swift          # run the Swift bench (release) first
  scripts/bench-loro.py --json               # loro's numbers as one JSON object

Loro comes from PyPI (`loro`, installed with pip on first use if missing).

Loro measurements: local = mov() + commit(); remote = import_() of one exported single-move update
into a second doc; merge = two docs that each made 50,000 moves from the same base import each
other's updates; snapshot = ExportMode.Snapshot() after 100,000 moves, load = import_() into a new
doc (Loro decodes lazily). Like the Swift bench: process CPU time, each phase run REORDER_BENCH_REPEATS
times (default 5; loads 5x as many) and the best run counts, since the machine is shared.
"""

import argparse
import json
import os
import resource
import subprocess
import sys
import time

LORO_VERSION = "1.17.1"  # the version the numbers in docs/LOAD.md were measured with

try:
    import loro
except ImportError:  # install the pinned version from PyPI on first use
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", f"loro=={LORO_VERSION}"], check=True)
    import loro
from loro import ExportMode, LoroDoc

ITEMS = 10_000
MOVES = 100_000
SEED = 42
MASK = (1 << 64) - 1
REPEATS = max(1, int(os.environ.get("REORDER_BENCH_REPEATS", "5")))
clock = time.perf_counter if os.environ.get("REORDER_BENCH_WALL") else time.process_time


class Xoshiro256:
    """xoshiro256** seeded through SplitMix64, as Sources/reorder-bench/Xoshiro.swift."""

    def __init__(self, seed):
        x = seed
        state = []
        for _ in range(4):
            x = (x + 0x9E3779B97F4A7C15) & MASK
            z = x
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
            state.append(z ^ (z >> 31))
        self.s = state

    @staticmethod
    def rotl(x, k):
        return ((x << k) | (x >> (64 - k))) & MASK

    def next(self):
        s = self.s
        result = (self.rotl((s[1] * 5) & MASK, 7) * 9) & MASK
        t = (s[1] << 17) & MASK
        s[2] ^= s[0]
        s[3] ^= s[1]
        s[1] ^= s[2]
        s[0] ^= s[3]
        s[2] ^= t
        s[3] = self.rotl(s[3], 45)
        return result

    def below(self, n):
        return self.next() % n


def pairs():
    rng = Xoshiro256(SEED)
    out = []
    for _ in range(MOVES):
        f = rng.below(ITEMS)
        t = rng.below(ITEMS)
        out.append((f, t))
    return out


def base_doc():
    doc = LoroDoc()
    lst = doc.get_movable_list("list")
    for i in range(ITEMS):
        lst.push(i)
    doc.commit()
    return doc


def run_loro():
    moves = pairs()
    results = {}
    expected = list(range(ITEMS))
    for f, t in moves:
        expected.insert(t, expected.pop(f))

    # Local: mov + commit, timed; the per-move update export happens outside the timed span.
    best = float("inf")
    for _ in range(REPEATS):
        doc = base_doc()
        lst = doc.get_movable_list("list")
        base_snapshot = doc.export(ExportMode.Snapshot())
        updates = []
        local = 0.0
        vv = doc.oplog_vv
        for f, t in moves:
            start = clock()
            lst.mov(f, t)
            doc.commit()
            local += clock() - start
            updates.append(doc.export(ExportMode.Updates(vv)))
            vv = doc.oplog_vv
        best = min(best, local)
        assert lst.get_value() == expected, "loro's order equals the reference array"
    results["local_ops_per_s"] = MOVES / best
    results["bytes_per_move"] = sum(len(u) for u in updates) / MOVES

    # Remote: import one single-move update at a time.
    best = float("inf")
    for _ in range(REPEATS):
        remote = LoroDoc()
        remote.import_(base_snapshot)
        start = clock()
        for u in updates:
            remote.import_(u)
        best = min(best, clock() - start)
        assert remote.get_movable_list("list").get_value() == expected
    results["remote_ops_per_s"] = MOVES / best

    # Snapshot after the 100,000 moves.
    snapshot = doc.export(ExportMode.Snapshot())
    results["snapshot_bytes"] = len(snapshot)
    best = float("inf")
    for _ in range(REPEATS * 5):
        start = clock()
        loaded = LoroDoc()
        loaded.import_(snapshot)
        best = min(best, clock() - start)
    results["snapshot_load_ms"] = best * 1000

    # Merge: two docs each make 50,000 moves offline from the same base, then exchange.
    a = LoroDoc()
    a.import_(base_snapshot)
    b = LoroDoc()
    b.import_(base_snapshot)
    vv_a, vv_b = a.oplog_vv, b.oplog_vv
    half = MOVES // 2
    for doc_, part in ((a, moves[:half]), (b, moves[half:])):
        lst_ = doc_.get_movable_list("list")
        for f, t in part:
            lst_.mov(f, t)
            doc_.commit()
    ua = a.export(ExportMode.Updates(vv_a))
    ub = b.export(ExportMode.Updates(vv_b))
    best = float("inf")
    for _ in range(REPEATS):
        a2 = LoroDoc()
        a2.import_(a.export(ExportMode.Snapshot()))
        b2 = LoroDoc()
        b2.import_(b.export(ExportMode.Snapshot()))
        start = clock()
        a2.import_(ub)
        b2.import_(ua)
        best = min(best, clock() - start)
        merged = a2.get_movable_list("list").get_value()
        assert merged == b2.get_movable_list("list").get_value(), "loro replicas converge"
    results["merge_seconds"] = best

    results["peak_rss_bytes"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    return results


# (key, label, higher_is_better)
METRICS = [
    ("remote_ops_per_s", "remote ops/s (decode + apply one move)", True),
    ("local_ops_per_s", "local ops/s (intent -> op -> apply)", True),
    ("merge_seconds", "merge 2 x 50,000 offline moves (s)", False),
    ("snapshot_bytes", "snapshot after 100,000 moves (bytes)", False),
    ("snapshot_load_ms", "snapshot load (ms)", False),
    ("bytes_per_move", "encoded move (bytes)", False),
    ("peak_rss_bytes", "peak RSS of the whole run (bytes)", False),
]


def fmt(value):
    if value is None:
        return "-"
    if isinstance(value, float) and value < 100:
        return f"{value:.3f}"
    return f"{int(value):,}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--ours", help="our `reorder-bench crdt --json` output (a file, or - for stdin)")
    parser.add_argument("--run-swift", action="store_true", help="run `swift run -c release reorder-bench crdt --json`")
    parser.add_argument("--json", action="store_true", help="print loro's numbers as one JSON object")
    args = parser.parse_args()

    ours = None
    if args.run_swift:
        out = subprocess.run(
            ["swift", "run", "-c", "release", "reorder-bench", "crdt", "--json"],
            check=True, capture_output=True, text=True,
        ).stdout
        ours = json.loads(out.strip().splitlines()[-1])
    elif args.ours:
        text = sys.stdin.read() if args.ours == "-" else open(args.ours).read()
        ours = json.loads(text.strip().splitlines()[-1])

    theirs = run_loro()
    if args.json:
        print(json.dumps(theirs))
        return

    version = getattr(loro, "LORO_VERSION", "?")
    print(f"CRDT workload: {ITEMS:,} items, {MOVES:,} random moves, seed {SEED}; loro {version} MovableList")
    header = f"{'metric':40} {'loro':>16}"
    if ours:
        header += f" {'reorder':>16} {'ours vs loro':>13}"
    print(header)
    for key, label, higher in METRICS:
        line = f"{label:40} {fmt(theirs[key]):>16}"
        if ours:
            mine = ours.get(key)
            line += f" {fmt(mine):>16}"
            if mine:
                ratio = mine / theirs[key] if higher else theirs[key] / mine
                line += f" {ratio:>12.2f}x"
        print(line)
    if ours:
        print("ours vs loro: > 1 means reorder is better (faster, or smaller).")


if __name__ == "__main__":
    main()
