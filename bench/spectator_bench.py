"""Spectator benchmark: one table service, many live scoreboards, events at a steady pace.

    .venv/bin/python bench/spectator_bench.py [--clients 100] [--rate 5] [--seconds 30] [--json]

A server process runs one table the way ``chaodipi run`` does (its web app under waitress,
one thread per open stream) and appends camera events of simulated hands at ``--rate`` a second
through the camera sink (a new hand when one is played out). This process opens ``--clients``
``/api/stream`` connections with raw asyncio sockets and notes when each ``event: state``
arrives. Latency = arrival time − the event's append time (the log's ``t``; same machine, same
clock). The server reports its own CPU time over the measured window (``resource``). The first
2 s are warm-up and not counted. Events appended in one transaction (a new hand: three) are one
change of state, so one message per stream.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import re
import resource
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

WARMUP_S = 2.0


# ------------------------------------------------------------------------- the server side


def serve(data_dir: Path, rate: float, seconds: float, threads: int) -> None:
    """The table service with a steady appender; prints its port, then its CPU use."""
    from waitress.server import create_server

    from chaodipi.config import TableConfig
    from chaodipi.table.actions import advance_hand, start_table
    from chaodipi.table.feed import contract_of, record_events
    from chaodipi.table.live import LiveTable
    from chaodipi.table.sink import CameraSink
    from chaodipi.table.store import EventStore
    from engine.simulate import simulate_hand
    from web_dashboard.app import create_app

    store = EventStore(data_dir / "bench.sqlite")
    live = LiveTable(store, "bench", "XX")
    hands = [simulate_hand("XX", seed)[0] for seed in range(1, 6)]
    start_table(live, contract_of(hands[0]))
    app = create_app(store, TableConfig(table_id="bench"), live=live)
    server = create_server(
        app, host="127.0.0.1", port=0, threads=threads, connection_limit=threads + 32
    )
    threading.Thread(target=server.run, daemon=True).start()
    print(json.dumps({"port": server.effective_port}), flush=True)
    sys.stdin.readline()  # the clients are connected
    sink = CameraSink(live)

    def appends() -> Iterator[Callable[[], object]]:
        k = 0
        while True:
            for _, (kind, data) in record_events(hands[k % len(hands)], time.time()):
                yield partial(sink.emit, kind, data)
            k += 1
            contract = contract_of(hands[k % len(hands)])
            yield partial(advance_hand, live, "system", contract)

    todo = appends()
    r0, t0 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    warm = None
    n = 0
    step = 1.0 / rate
    while time.monotonic() - t0 < seconds + WARMUP_S:
        if warm is None and time.monotonic() - t0 >= WARMUP_S:
            warm = (resource.getrusage(resource.RUSAGE_SELF), time.monotonic(), store.last_seq)
        next(todo)()
        n += 1
        next_at = t0 + n * step
        time.sleep(max(0.0, next_at - time.monotonic()))
    r1, t1 = resource.getrusage(resource.RUSAGE_SELF), time.monotonic()
    assert warm is not None
    rw, tw, first_seq = warm
    cpu = (r1.ru_utime - rw.ru_utime) + (r1.ru_stime - rw.ru_stime)
    total_cpu = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
    out = {
        "cpu_s": cpu,
        "wall_s": t1 - tw,
        "first_seq": first_seq,
        "last_seq": store.last_seq,
        "total_cpu_s": total_cpu,
        "max_rss_mb": r1.ru_maxrss / 1024,
    }
    time.sleep(1.0)  # let the last events reach the clients
    print(json.dumps(out), flush=True)
    store.close()


# ------------------------------------------------------------------------- the clients

EVENT = re.compile(rb"event: state\nid: (\d+)\n")


class Spectators:
    """``clients`` raw-socket stream readers noting when each state event arrives."""

    def __init__(self, port: int, clients: int) -> None:
        self.port = port
        self.clients = clients
        self.arrivals: dict[int, list[float]] = {}
        self.connected = 0
        self.ready = asyncio.Event()
        self.stop = asyncio.Event()

    async def one(self) -> None:
        reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        writer.write(b"GET /api/stream HTTP/1.0\r\nHost: bench\r\n\r\n")
        await writer.drain()
        buf = b""
        first = True
        while not self.stop.is_set():
            try:
                chunk = await asyncio.wait_for(reader.read(65536), timeout=0.5)
            except TimeoutError:
                continue
            if not chunk:
                break
            now = time.time()
            buf += chunk
            while (end := buf.find(b"\n\n")) >= 0:
                message, buf = buf[: end + 2], buf[end + 2 :]
                m = EVENT.search(message)
                if m is None:
                    continue
                if first:
                    first = False
                    self.connected += 1
                    if self.connected >= self.clients:
                        self.ready.set()
                self.arrivals.setdefault(int(m.group(1)), []).append(now)
        writer.close()

    async def run(self, server: subprocess.Popen[str]) -> str:
        """Connect everyone, start the server's appender, return its report line."""
        tasks = [asyncio.create_task(self.one()) for _ in range(self.clients)]
        await asyncio.wait_for(self.ready.wait(), timeout=60)
        assert server.stdin is not None and server.stdout is not None
        server.stdin.write("go\n")
        server.stdin.flush()
        line = await asyncio.get_running_loop().run_in_executor(None, server.stdout.readline)
        self.stop.set()
        await asyncio.gather(*tasks)
        return line


def machine() -> str:
    model = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                model = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{platform.system()} {platform.machine()}, {os.cpu_count()} cores, {model}".strip()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=100)
    p.add_argument("--rate", type=float, default=5.0, help="events appended a second")
    p.add_argument("--seconds", type=float, default=30.0, help="measured time")
    p.add_argument("--json", action="store_true")
    p.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    args = p.parse_args()
    threads = args.clients + 8
    if args.serve:
        serve(args.serve, args.rate, args.seconds, threads)
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [sys.executable, __file__, "--serve", tmp, "--rate", str(args.rate)]
        cmd += ["--seconds", str(args.seconds), "--clients", str(args.clients)]
        server = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None
        port = json.loads(server.stdout.readline())["port"]
        spectators = Spectators(port, args.clients)
        cpu = json.loads(asyncio.run(spectators.run(server)))
        arrivals = spectators.arrivals
        server.wait(timeout=30)
        con = sqlite3.connect(Path(tmp) / "bench.sqlite")
        appended = dict(con.execute("SELECT seq, t FROM events").fetchall())
        con.close()
    lat = [
        (t - appended[seq]) * 1000
        for seq, times in arrivals.items()
        if cpu["first_seq"] < seq <= cpu["last_seq"]
        for t in times
    ]
    events = cpu["last_seq"] - cpu["first_seq"]
    # One transaction (next hand: three events) is one new state: one message per stream.
    changes = len({t for seq, t in appended.items() if cpu["first_seq"] < seq <= cpu["last_seq"]})
    expected = changes * args.clients
    q = statistics.quantiles(lat, n=100) if len(lat) > 1 else [float("nan")] * 99
    out: dict[str, Any] = {
        "machine": machine(),
        "clients": args.clients,
        "rate_per_s": args.rate,
        "seconds": round(cpu["wall_s"], 1),
        "events": events,
        "deliveries": len(lat),
        "expected_deliveries": expected,
        "latency_ms": {
            "median": round(statistics.median(lat), 1),
            "p95": round(q[94], 1),
            "p99": round(q[98], 1),
            "max": round(max(lat), 1),
        },
        "server_cpu_percent_of_one_core": round(100 * cpu["cpu_s"] / cpu["wall_s"], 1),
        "server_max_rss_mb": round(cpu["max_rss_mb"], 1),
    }
    if args.json:
        print(json.dumps(out, indent=2))
        return 0
    lm = out["latency_ms"]
    print(f"machine: {out['machine']}")
    head = f"{args.clients} spectators, {args.rate:g} events/s for {out['seconds']} s"
    print(f"{head}: {len(lat)}/{expected} deliveries")
    print(
        f"event → spectator latency: median {lm['median']} ms, p95 {lm['p95']} ms, "
        f"p99 {lm['p99']} ms, max {lm['max']} ms"
    )
    cpu_pct = out["server_cpu_percent_of_one_core"]
    print(f"service CPU: {cpu_pct}% of one core, max RSS {out['server_max_rss_mb']} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
