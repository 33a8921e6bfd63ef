"""Audit benchmark: hands audited per second on one core, over simulated hands.

    .venv/bin/python bench/audit_bench.py [--hands 1000] [--rules XX,HF,...] [--rounds 3] [--json]

Hands are simulated first (not timed), as camera records (no hands known: the auditor proves
everything from the plays) with one planted infraction in every fourth hand; then each record
is loaded from JSON text and audited, in this one process (one core). The figure is hands per
second of this process's CPU time, the best of ``--rounds`` passes (a busy machine slows the
wall clock, not the work one core does); the wall-clock rate of that pass is given beside it.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time

from engine.audit import audit
from engine.profiles import PROFILE_NAMES
from engine.record import load_record
from engine.simulate import INJECTABLE, simulate_hand


def progress(label: str, done: int, total: int) -> None:
    if sys.stderr.isatty() or done == total:
        bar = "#" * (30 * done // total)
        print(f"\r{label} [{bar:<30}] {done}/{total}", end="", file=sys.stderr)
        if done == total:
            print(file=sys.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=1000)
    parser.add_argument("--rules", default=",".join(PROFILE_NAMES))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rules = args.rules.split(",")
    texts: list[str] = []
    for i in range(args.hands):
        inject = [INJECTABLE[i // 4 % len(INJECTABLE)]] if i % 4 == 0 else []
        record, _ = simulate_hand(rules[i % len(rules)], seed=i, inject=inject)
        texts.append(json.dumps(record))
        progress("simulate", i + 1, args.hands)
    best: tuple[float, float] | None = None  # (CPU seconds, wall seconds) of the best pass
    for _ in range(max(1, args.rounds)):
        infractions = 0
        start, start_cpu = time.perf_counter(), time.process_time()
        for i, text in enumerate(texts):
            infractions += len(audit(load_record(json.loads(text))).infractions)
            if i % 50 == 49 or i + 1 == len(texts):
                progress("audit   ", i + 1, len(texts))
        cpu, wall = time.process_time() - start_cpu, time.perf_counter() - start
        if best is None or cpu < best[0]:
            best = (cpu, wall)
    assert best is not None
    seconds, wall = best
    result = {
        "hands": len(texts),
        "seconds": round(seconds, 3),
        "hands_per_second": round(len(texts) / seconds, 1),
        "wall_hands_per_second": round(len(texts) / wall, 1),
        "infractions_found": infractions,
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, one process",
    }
    if args.json:
        print(json.dumps(result))
    else:
        print(
            f"{result['hands']} hands in {result['seconds']} s of CPU: "
            f"{result['hands_per_second']} hands/s (wall clock {result['wall_hands_per_second']}/s;"
            f" {result['machine']})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
