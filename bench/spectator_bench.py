"""Spectator benchmark: one table service, many live scoreboards, events at a steady pace, and
the pages and the referee console probed all along.

    .venv/bin/python bench/spectator_bench.py [--clients 1000] [--rate 5] [--seconds 60] [--json]

A server process runs one table the way ``chaodipi run`` does (its web app behind
:class:`web_dashboard.server.WebServer`, ``[service] web_threads`` threads for pages) and, once
every spectator is connected, appends camera events of simulated hands at ``--rate`` a second
through the camera sink (a new hand when one is played out). This process opens ``--clients``
``/api/stream`` connections with raw asyncio sockets and notes when each ``event: state``
arrives. Latency = arrival time − the event's append time (the log's ``t``; same machine, same
clock). Events appended in one transaction (a new hand: three) are one change of state, so one
message per stream; the acceptance is that every stream gets every change.

A third process probes ``GET /``, ``/referee`` and ``/api/state`` in turn, ``--probes`` requests
a second, each on a new connection, for the whole measured window, and reports each path's
p50 / p99 / max answer time (the acceptance: p99 under 1 s). The server's memory (VmRSS) is
read before the spectators connect and once all of them have their first state: the difference
over ``--clients`` is the memory one open stream costs. The server reports its own CPU time
over the measured window (``resource``). The first 2 s are warm-up and not counted. Every
process raises its open-file limit to the hard limit (a stream is a socket on each side).
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
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
import time
from collections.abc import Callable, Iterator
from functools import partial
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

WARMUP_S = 2.0
PROBED = ("/", "/referee", "/api/state")
P99_LIMIT_MS = 1000.0


def raise_file_limit() -> int:
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    return resource.getrlimit(resource.RLIMIT_NOFILE)[0]


def rss_mb(pid: int) -> float:
    """The resident memory of process ``pid`` (VmRSS), in MB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


# ------------------------------------------------------------------------- the server side


def serve(data_dir: Path, rate: float, seconds: float, threads: int) -> None:
    """The table service with a steady appender; prints its port, then its CPU use."""
    from chaodipi.config import TableConfig, WebConfig
    from chaodipi.table.actions import advance_hand, start_table
    from chaodipi.table.feed import contract_of, record_events
    from chaodipi.table.live import LiveTable
    from chaodipi.table.sink import CameraSink
    from chaodipi.table.store import EventStore
    from engine.simulate import simulate_hand
    from web_dashboard.app import STREAM_PATH, create_app
    from web_dashboard.server import WebServer

    store = EventStore(data_dir / "bench.sqlite")
    live = LiveTable(store, "bench", "XX")
    hands = [simulate_hand("XX", seed)[0] for seed in range(1, 6)]
    start_table(live, contract_of(hands[0]))
    config = TableConfig(table_id="bench", web=WebConfig(referee_pin="902741"))
    app = create_app(store, config, live=live)
    server = WebServer(app, {STREAM_PATH: live}, threads=threads)
    _, port = server.start("127.0.0.1", 0)
    print(json.dumps({"port": port, "pid": os.getpid()}), flush=True)
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
    t0 = time.monotonic()
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
    out = {
        "cpu_s": cpu,
        "wall_s": t1 - tw,
        "first_seq": first_seq,
        "last_seq": store.last_seq,
        "max_rss_mb": r1.ru_maxrss / 1024,
    }
    print(json.dumps(out), flush=True)
    sys.stdin.readline()  # the clients have read everything
    store.close()
    server.stop()


# ------------------------------------------------------------------------- the page probes


def probe(port: int, seconds: float, per_s: float) -> None:
    """GET each of :data:`PROBED` in turn, ``per_s`` a second, for ``seconds``; prints the
    answer times (ms) by path, and any failures."""
    times: dict[str, list[float]] = {path: [] for path in PROBED}
    failures: list[str] = []
    start = time.monotonic()
    n = 0
    while time.monotonic() - start < seconds:
        path = PROBED[n % len(PROBED)]
        t = time.monotonic()
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", path)
            res = conn.getresponse()
            res.read()
            conn.close()
            if res.status != 200:
                failures.append(f"{path}: {res.status}")
        except OSError as e:
            failures.append(f"{path}: {e}")
        times[path].append((time.monotonic() - t) * 1000)
        n += 1
        time.sleep(max(0.0, start + n / per_s - time.monotonic()))
    print(json.dumps({"times_ms": times, "failures": failures}), flush=True)


# ------------------------------------------------------------------------- the spectators

EVENT = re.compile(rb"event: state\nid: (\d+)\n")


class Spectators:
    """``clients`` raw-socket stream readers noting when each state event arrives."""

    def __init__(self, port: int, clients: int) -> None:
        self.port = port
        self.clients = clients
        self.arrivals: dict[int, list[float]] = {}
        self.newest: list[int] = []
        self.connected = 0
        self.failed: list[str] = []
        self.ready = asyncio.Event()

    async def one(self) -> None:
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", self.port)
        except OSError as e:
            self.failed.append(str(e))
            return
        me = len(self.newest)
        self.newest.append(-1)
        writer.write(b"GET /api/stream HTTP/1.1\r\nHost: bench\r\n\r\n")
        buf = b""
        try:
            while chunk := await reader.read(65536):
                now = time.time()
                buf += chunk
                while (end := buf.find(b"\n\n")) >= 0:
                    message, buf = buf[: end + 2], buf[end + 2 :]
                    m = EVENT.search(message)
                    if m is None:
                        continue
                    if self.newest[me] < 0:
                        self.connected += 1
                        if self.connected >= self.clients:
                            self.ready.set()
                    seq = int(m.group(1))
                    self.newest[me] = seq
                    self.arrivals.setdefault(seq, []).append(now)
        finally:
            writer.close()

    async def run(self, server: subprocess.Popen[str], go: Callable[[], None]) -> str:
        """Connect everyone, call ``go``, let the server's appender run; its report line once
        every stream has the last state (or a minute after the report)."""
        tasks = []
        for _ in range(self.clients):
            tasks.append(asyncio.create_task(self.one()))
            await asyncio.sleep(0)  # no thundering herd on the listen backlog
        await asyncio.wait_for(self.ready.wait(), timeout=120)
        go()
        assert server.stdout is not None
        line = await asyncio.get_running_loop().run_in_executor(None, server.stdout.readline)
        last = json.loads(line)["last_seq"]
        deadline = time.monotonic() + 60
        while min(self.newest) < last and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
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


def quantiles(values: list[float]) -> dict[str, float]:
    q = (
        statistics.quantiles(values, n=100, method="inclusive")
        if len(values) > 1
        else [float("nan")] * 99
    )
    return {
        "median": round(statistics.median(values), 1) if values else float("nan"),
        "p95": round(q[94], 1),
        "p99": round(q[98], 1),
        "max": round(max(values), 1) if values else float("nan"),
    }


def warm_up(port: int) -> None:
    """One request to each probed path and one stream message, so that the pools, the
    templates and the state are built before the memory is read."""
    for path in (*PROBED, "/api/stream"):
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", path)
        res = conn.getresponse()
        res.readline() if path == "/api/stream" else res.read()
        conn.close()


def run(args: argparse.Namespace) -> dict[str, Any]:
    raise_file_limit()
    with tempfile.TemporaryDirectory() as tmp:
        me = [sys.executable, __file__]
        cmd = [*me, "--serve", tmp, "--rate", str(args.rate), "--seconds", str(args.seconds)]
        cmd += ["--threads", str(args.threads)]
        server = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        assert server.stdout is not None and server.stdin is not None
        started = json.loads(server.stdout.readline())
        port, pid = started["port"], started["pid"]
        warm_up(port)
        rss_before = rss_mb(pid)
        spectators = Spectators(port, args.clients)
        probes: list[subprocess.Popen[str]] = []
        measured: dict[str, float] = {}

        def go() -> None:
            measured["rss_connected"] = rss_mb(pid)
            probe_cmd = [*me, "--probe", str(port), "--seconds", str(args.seconds + WARMUP_S)]
            probe_cmd += ["--probes", str(args.probes)]
            probes.append(subprocess.Popen(probe_cmd, stdout=subprocess.PIPE, text=True))
            assert server.stdin is not None
            server.stdin.write("go\n")
            server.stdin.flush()

        report = json.loads(asyncio.run(spectators.run(server, go)))
        probed = json.loads(probes[0].communicate(timeout=120)[0])
        server.stdin.write("done\n")
        server.stdin.flush()
        server.wait(timeout=60)
        con = sqlite3.connect(Path(tmp) / "bench.sqlite")
        appended = dict(con.execute("SELECT seq, t FROM events").fetchall())
        con.close()
    first, last = report["first_seq"], report["last_seq"]
    arrivals = spectators.arrivals
    lat = [
        (t - appended[seq]) * 1000
        for seq, times in arrivals.items()
        if first < seq <= last
        for t in times
    ]
    # One transaction (next hand: three events) is one new state: one message per stream.
    changes = {t for seq, t in appended.items() if first < seq <= last}
    per_stream_mb = (measured["rss_connected"] - rss_before) / max(1, args.clients)
    pages = {path: quantiles(times) for path, times in probed["times_ms"].items()}
    return {
        "machine": machine(),
        "clients": args.clients,
        "connected": spectators.connected,
        "failed_connections": len(spectators.failed),
        "rate_per_s": args.rate,
        "seconds": round(report["wall_s"], 1),
        "events": last - first,
        "deliveries": len(lat),
        "expected_deliveries": len(changes) * args.clients,
        "latency_ms": quantiles(lat),
        "pages_ms": pages,
        "page_requests": sum(len(v) for v in probed["times_ms"].values()),
        "page_failures": probed["failures"],
        "server_rss_mb": {
            "before_clients": round(rss_before, 1),
            "clients_connected": round(measured["rss_connected"], 1),
            "max": round(report["max_rss_mb"], 1),
        },
        "rss_kb_per_stream": round(per_stream_mb * 1024, 1),
        "server_cpu_percent_of_one_core": round(100 * report["cpu_s"] / report["wall_s"], 1),
        "threads_for_pages": args.threads,
    }


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--clients", type=int, default=1000)
    p.add_argument("--rate", type=float, default=5.0, help="events appended a second")
    p.add_argument("--seconds", type=float, default=60.0, help="measured time")
    p.add_argument("--probes", type=float, default=5.0, help="page requests a second")
    p.add_argument("--threads", type=int, default=32, help="[service] web_threads (default 32)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--probe", type=int, help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.serve:
        raise_file_limit()
        serve(args.serve, args.rate, args.seconds, args.threads)
        return 0
    if args.probe:
        probe(args.probe, args.seconds, args.probes)
        return 0
    out = run(args)
    if args.json:
        print(json.dumps(out, indent=2))
    else:
        print_report(out)
    pages_ok = all(q["p99"] < P99_LIMIT_MS for q in out["pages_ms"].values())
    complete = out["deliveries"] == out["expected_deliveries"] and not out["page_failures"]
    return 0 if pages_ok and complete else 1


def print_report(out: dict[str, Any]) -> None:
    lm = out["latency_ms"]
    print(f"machine: {out['machine']}")
    head = f"{out['clients']} spectators, {out['rate_per_s']:g} events/s for {out['seconds']} s"
    print(f"{head}: {out['deliveries']}/{out['expected_deliveries']} deliveries")
    print(
        f"event → spectator latency: median {lm['median']} ms, p95 {lm['p95']} ms, "
        f"p99 {lm['p99']} ms, max {lm['max']} ms"
    )
    for path, q in out["pages_ms"].items():
        print(f"GET {path:<11} p50 {q['median']} ms, p99 {q['p99']} ms, max {q['max']} ms")
    if out["page_failures"]:
        print(f"page failures: {out['page_failures'][:5]}")
    rss = out["server_rss_mb"]
    print(
        f"service RSS: {rss['before_clients']} MB before, {rss['clients_connected']} MB with "
        f"{out['clients']} streams open ({out['rss_kb_per_stream']} KB a stream), "
        f"max {rss['max']} MB"
    )
    print(f"service CPU: {out['server_cpu_percent_of_one_core']}% of one core")


if __name__ == "__main__":
    sys.exit(main())
