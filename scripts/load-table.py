#!/usr/bin/env python3
"""Writes the current results table of docs/LOAD.md from a `make load` report.

    scripts/load-table.py [REPORT] [DOC]      # defaults: reports/load.json docs/LOAD.md
    scripts/load-table.py --print [REPORT]    # the block on stdout, the doc untouched

REPORT is what `reorder load --summarize` writes (`LoadReport`: every run's `LoadResult`, the
comparisons with the mirror, the scale and cluster figures). The block between the markers
`<!-- load-results:begin -->` and `<!-- load-results:end -->` of DOC is replaced by one line on
the machine and the build, then one table with a row per run and the ratios the targets are read
against. scripts/load.sh calls it at the end of a full run (python3 standard library only).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
import sys
from pathlib import Path

BEGIN = "<!-- load-results:begin -->"
END = "<!-- load-results:end -->"
# Targets as the load tool has them (LoadReport+Targets.swift, ClusterFigures.swift).
F_SPAN, F_COVERAGE, F_STALE, F_KB = 10.0, 0.99, 300.0, 10.0
JOIN_RATIO, ISOLATION_RATIO = 2.0, 1.1
G_COVERAGE, G_P99, H_ACK_P99, H_RAMP_MOVES = 0.995, 100.0, 20.0, 10_000.0


def ms(v: float | None) -> str:
    if v is None:
        return "–"
    return f"{v:.1f}" if v < 10 else f"{v:,.0f}"


def rate(v: float | None) -> str:
    if v is None:
        return "–"
    if v >= 1e6:
        return f"{v / 1e6:.2f}M"
    if v >= 1e4:
        return f"{v / 1e3:.0f}k"
    if v >= 1e3:
        return f"{v / 1e3:.1f}k"
    return f"{v:.0f}"


def pct(v: float | None) -> str:
    return "–" if v is None else f"{100 * v:.2f} %"


def mark(text: str, met: bool) -> str:
    return f"{text} {'✓' if met else '✗'}"


def machine(runs: list[dict]) -> str:
    cpu = "unknown CPU"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    mem = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        mem = f", {kb / 1048576:.0f} GB RAM"
    except (OSError, ValueError, IndexError):
        pass
    loads = [r["loadAverage"] for r in runs if r.get("loadAverage")]
    load = f"; load average {loads[0][0]:.1f} at the first run, {loads[-1][-1]:.1f} at the last" if loads else ""
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty"], capture_output=True, text=True,
                                check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        commit = "unknown"
    flags = os.environ.get("LOAD_SERVER_FLAGS_USED")
    server = f"; server flags `{flags}`" if flags else "; the server's default flags"
    binary = os.environ.get("LOAD_BINARY_USED", "the release build")
    return f"{cpu} × {os.cpu_count()} cores{mem}, Linux {platform.release()}{load}; {binary} of {commit}{server}"


def row(run: dict, comparison: dict | None) -> list[str]:
    label, title = run["label"], run.get("title", "")
    shape = f"{run['clients']:,} × {run['rooms']:,}"
    best = run.get("best")
    moves = run["counters"].get("movesSent", 0) > 0
    drags = run["counters"].get("dragUpdatesSent", 0) > 0 or run.get("mode") == "mirror"
    notes: list[str] = []
    if moves:
        acked = (best or run)["acknowledgedPerSecond"]
        p50 = best.get("ackP50") if best else run["ackLatency"]["p50"]
        p99 = best["ackP99"] if best else run["ackLatency"]["p99"]
        throughput, latency, coverage = f"{rate(acked)} acked/s", f"{ms(p50)} / {ms(p99)}", "–"
        notes.append(f"seq gaps {run['counters'].get('appliedGaps', 0)}")
    elif drags:
        src = best or run
        throughput = f"{rate(src['coveredPerSecond'] if run.get('mode') != 'mirror' else src['deliveredPerSecond'])}"
        throughput += " covered/s" if run.get("mode") != "mirror" else " delivered/s"
        p50 = best.get("dragP50") if best else run["dragLatency"]["p50"]
        p99 = best["dragP99"] if best else run["dragLatency"]["p99"]
        latency = f"{ms(p50)} / {ms(p99)}"
        coverage = pct(comparison["coverage"] if comparison else run.get("coverage"))
        if run.get("mode") == "mirror":
            coverage = "–"
    else:
        throughput, latency, coverage = "–", "–", "–"
    server = run.get("server")
    if comparison and comparison.get("throughputRatio") is not None:
        notes.append(f"covered ÷ mirror {comparison['throughputRatio']:.2f}×, "
                     f"mirror p99 ÷ ours {comparison.get('latencyRatio') or 0:.2f}×")
    if label == "idle" and server:
        notes.append(f"{server['bytesPerIdleConnection'] / 1024:.1f} KB per idle connection")
    if label == "f" or label.startswith("f-"):
        join = run.get("join") or {}
        if "spanSeconds" in join:
            notes.append(mark(f"welcomed in {join['spanSeconds']:.1f} s", join["spanSeconds"] <= F_SPAN))
        notes.append(mark(f"coverage {pct(run['coverage'])}", run["coverage"] >= F_COVERAGE))
        notes.append(mark(f"stale p99 {ms(run['staleness']['p99'])} ms", run["staleness"]["p99"] <= F_STALE))
        if server:
            kb = server["bytesPerIdleConnection"] / 1024
            notes.append(mark(f"{kb:.1f} KB per connection", kb <= F_KB))
    if label.startswith("join-") and run.get("join"):
        notes.append(f"first attempt → last welcome {run['join']['joinSeconds']:.2f} s")
    if label == "g":
        notes.append(mark(f"coverage {pct(run['coverage'])}", run["coverage"] >= G_COVERAGE))
        notes.append(mark(f"p99 {ms(run['dragLatency']['p99'])} ms", run["dragLatency"]["p99"] <= G_P99))
    if label == "h":
        notes.append(mark(f"ack p99 {ms(run['ackLatency']['p99'])} ms", run["ackLatency"]["p99"] < H_ACK_P99))
    if label == "h-ramp":
        moves_s = (best or run)["acknowledgedPerSecond"]
        notes.append(mark(f"{rate(moves_s)} durable moves/s", moves_s >= H_RAMP_MOVES))
    if server:
        notes.append(f"server CPU {server['cpuPercent']:.0f} %")
    return [label, title, shape, throughput, latency, coverage, "; ".join(notes)]


def block(report: dict) -> str:
    runs = report["runs"]
    comparisons = {c["label"]: c for c in report.get("comparisons", [])}
    lines = [f"Machine: {machine(runs)}.", "",
             "| run | scenario | clients × rooms | throughput | p50 / p99 ms | coverage | figures read against targets |",
             "|---|---|--:|--:|--:|--:|---|"]
    for run in runs:
        cells = row(run, comparisons.get(run["label"]))
        lines.append("| " + " | ".join(c.replace("|", "/") for c in cells) + " |")
    scale = report.get("scale") or {}
    if scale.get("joinRatio") is not None:
        pair = " ÷ ".join(scale.get("joinPair") or [])
        join = scale["joinRatio"]
        lines.append(f"| join ratio | {pair} | | | | | {mark(f'{join:.2f}×', join <= JOIN_RATIO)} (≤ 2×) |")
    if scale.get("isolationRatio") is not None:
        rounds = ", ".join(f"{ms(a)} / {ms(b)}" for a, b in zip(scale["isolationWithout"], scale["isolationWith"]))
        ratio = scale["isolationRatio"]
        lines.append(f"| isolation | drag p99 ms without / with the loader: {rounds} | | | | | "
                     f"{mark(f'{ratio:.2f}×', ratio <= ISOLATION_RATIO)} (≤ 1.10×) |")
    cluster = report.get("cluster") or {}
    ratios = [(k, cluster.get(k)) for k in ("coverageRatio", "dragP99Ratio", "ackP99Ratio", "durableMovesRatio")]
    shown = [f"{name.removesuffix('Ratio')} {value:.2f}×" for name, value in ratios if value is not None]
    if shown:
        lines.append(f"| cluster ÷ one node | g, h, h-ramp beside their -1node twins | | | | | {', '.join(shown)} |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--print":
        report = json.loads(Path(argv[1] if len(argv) > 1 else "reports/load.json").read_text())
        print(block(report))
        return 0
    report_path = Path(argv[0] if argv else "reports/load.json")
    doc_path = Path(argv[1] if len(argv) > 1 else "docs/LOAD.md")
    report = json.loads(report_path.read_text())
    doc = doc_path.read_text()
    if doc.count(BEGIN) != 1 or doc.count(END) != 1 or doc.index(BEGIN) > doc.index(END):
        print(f"load-table.py: {doc_path} needs one {BEGIN} … {END} block", file=sys.stderr)
        return 1
    head, rest = doc.split(BEGIN)
    _, tail = rest.split(END)
    doc_path.write_text(f"{head}{BEGIN}\n{block(report)}\n{END}{tail}")
    print(f"load-table.py: wrote the results of {report_path} into {doc_path}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
