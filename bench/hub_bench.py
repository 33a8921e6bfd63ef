"""Hub bench: 64 tables stream through a real Mosquitto to one hub.

Starts ``mosquitto`` on a free port, the hub (:class:`chaodipi.hub.hub.Hub`) in this process and
the tables in a second process: each table is a real event log (:class:`EventStore`) with its
real :class:`~chaodipi.table.outbox.Outbox`. Two phases:

1. **Sustained throughput.** Every table's log is filled with ``--burst`` events first; then
   the outboxes start together and the bench measures how many events a second the hub
   commits until it holds them all.
2. **Latency at a venue's pace.** Each table appends ``--rate`` events a second for
   ``--seconds``; the latency of an event is the hub's commit time minus the table's append
   time (same clock): outbox + broker + hub queue + SQLite commit. Median and p95.

Run: ``.venv/bin/python bench/hub_bench.py [--tables 64] [--burst 500] [--rate 2]``.
"""

from __future__ import annotations

import argparse
import logging
import multiprocessing as mp
import os
import platform
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from chaodipi.hub.config import HubConfig  # noqa: E402
from chaodipi.hub.hub import Hub  # noqa: E402
from chaodipi.mqtt_link import MqttConfig  # noqa: E402
from chaodipi.table.outbox import Outbox  # noqa: E402
from chaodipi.table.store import EventStore, StoredEvent  # noqa: E402
from tests.mqtt_broker import Broker  # noqa: E402

PLAY = {"seat": "N", "cards": ["10H"], "t_landed": 0.0, "t_stable": 0.0, "frames": {}}


def names(n: int) -> list[str]:
    return [f"T{i:02d}" for i in range(1, n + 1)]


def tables_process(port: int, folder: str, n: int, burst: int, rate: float, seconds: float,
                   go: mp.Event, done: mp.Event) -> None:  # fmt: skip
    """The tables: fill, stream the burst, then append at ``rate`` for ``seconds``."""
    logging.getLogger("chaodipi").setLevel(logging.ERROR)  # their goodbyes are not news
    cfg = MqttConfig(host="127.0.0.1", port=port, tournament="bench")
    stores = [EventStore(Path(folder) / t / f"{t}.sqlite") for t in names(n)]
    for store in stores:
        store.append_many([("play", PLAY, "camera")] * burst)
    outboxes = [Outbox(s, t, cfg) for s, t in zip(stores, names(n), strict=True)]
    go.wait()
    for ob in outboxes:
        ob.start()
    for ob in outboxes:
        ob.wait_acked(burst, 300)
    time.sleep(1.0)
    # phase 2: a steady pace, tables spread evenly over each interval
    interval = 1.0 / rate
    start = time.monotonic()
    k = 0
    while time.monotonic() - start < seconds:
        for i, store in enumerate(stores):
            due = start + k * interval + i * interval / n
            delay = due - time.monotonic()
            if delay > 0:
                time.sleep(delay)
            store.append("play", PLAY, "camera")
        k += 1
    for ob in outboxes:
        ob.wait_acked(ob.store.last_seq, 60)
    for ob in outboxes:
        ob.stop(timeout=1)
    done.set()


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--tables", type=int, default=64)
    p.add_argument("--burst", type=int, default=500, help="events per table in phase 1")
    p.add_argument("--rate", type=float, default=2.0, help="events/s per table in phase 2")
    p.add_argument("--seconds", type=float, default=20.0, help="length of phase 2")
    args = p.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        broker = Broker(folder / "broker")
        broker.start()
        config = HubConfig(
            tables=tuple(names(args.tables)),
            data_dir=str(folder / "hub"),
            mqtt=MqttConfig(host="127.0.0.1", port=broker.port, tournament="bench"),
        )
        hub = Hub(config)
        lock = threading.Lock()
        commits: list[tuple[float, int]] = []  # (commit time, events)
        latencies: list[float] = []
        phase = {"burst": True}

        def on_commit(table: str, events: list[StoredEvent], t: float) -> None:
            with lock:
                commits.append((t, len(events)))
                if not phase["burst"]:
                    latencies.extend(t - e.t for e in events)

        hub.listeners.append(on_commit)
        hub.start()
        hub.connected.wait(10)
        ctx = mp.get_context("spawn")
        go, done = ctx.Event(), ctx.Event()
        proc = ctx.Process(
            target=tables_process,
            args=(
                broker.port,
                str(folder / "tables"),
                args.tables,
                args.burst,
                args.rate,
                args.seconds,
                go,
                done,
            ),
        )
        proc.start()
        time.sleep(2.0 + args.tables * 0.05)  # tables fill their logs
        total = args.tables * args.burst
        t0 = time.time()
        go.set()
        while hub.stats.applied < total:
            time.sleep(0.05)
        with lock:
            t_last = max(t for t, _ in commits)
            phase["burst"] = False
        burst_rate = total / (t_last - t0)
        done.wait(args.seconds + 120)
        proc.join(30)
        logging.getLogger("chaodipi").setLevel(logging.ERROR)
        hub.stop()
        broker.stop()
    lat = sorted(latencies)
    p95 = lat[int(0.95 * (len(lat) - 1))] if lat else float("nan")
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    print(f"machine: {cpu}, {os.cpu_count()} cores, Python {platform.python_version()}")
    print(f"tables: {args.tables}, broker: mosquitto on localhost, hub: SQLite per table")
    print(
        f"phase 1: {total} events ({args.burst} a table) committed in {t_last - t0:.2f} s "
        f"= {burst_rate:.0f} events/s sustained"
    )
    print(
        f"phase 2: {len(lat)} events at {args.rate:g}/s a table "
        f"({args.rate * args.tables:.0f}/s in all): append→hub commit latency "
        f"median {1000 * statistics.median(lat):.1f} ms, p95 {1000 * p95:.1f} ms, "
        f"max {1000 * lat[-1]:.1f} ms"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
