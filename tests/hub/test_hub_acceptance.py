"""The hub end to end: three tables (``chaodipi run --feed``, each its own process, each
signing with its key) stream their hands through a real Mosquitto to ``chaodipi hub``; the
broker is stopped for 30 s and one table is SIGKILLed mid-hand and started again; afterwards
the hub's copy of every table's log equals the table's own log row for row — no event lost,
none twice, nothing refused or in conflict."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from chaodipi.table.feed import record_events
from engine.simulate import simulate_hand
from tests.hub_helpers import key_file
from tests.mqtt_broker import MOSQUITTO, SKIP_REASON, Broker
from tests.waiting import DEADLINE_S, wait_until

pytestmark = pytest.mark.skipif(MOSQUITTO is None, reason=SKIP_REASON)

TABLES = ("T1", "T2", "T3")
SPEED = "8"  # two hands take about 40 s
OUTAGE_S = 30.0


def rows(db: Path) -> list[tuple[Any, ...]]:
    if not db.exists():
        return []
    con = sqlite3.connect(db, timeout=DEADLINE_S)
    try:
        return con.execute("SELECT seq, t, kind, actor, data FROM events ORDER BY seq").fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        con.close()


def write_feeds(folder: Path, table: int) -> tuple[list[Path], int]:
    """Two simulated hands for a table, and how many events the table logs for them."""
    paths = []
    total = 1 + 3  # hand_started, then next_hand + hand_finished + hand_started
    for k, inject in enumerate((["revoke"], [])):
        record, _ = simulate_hand("XX", 10 * table + k, inject)
        path = folder / f"table{table}-hand{k}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        paths.append(path)
        total += len(record_events(record))
    return paths, total


def table_config(folder: Path, table: str, port: int) -> Path:
    path = folder / f"{table}.toml"
    path.write_text(
        f'table_id = "{table}"\n\n[service]\ndata_dir = "{folder / table}"\n\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {port}\ntournament = "cup"\n'
        f'hmac_key_file = "{key_file(folder, table)}"\n',
        encoding="utf-8",
    )
    return path


def start_table(config: Path, feeds: list[Path]) -> subprocess.Popen[bytes]:
    cmd = [sys.executable, "-m", "chaodipi.cli.main", "run", "--config", str(config),
           "--feed", *map(str, feeds), "--speed", SPEED, "--port", "0",
           "--threads", "4"]  # fmt: skip
    return subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


@pytest.mark.slow  # about 60 s: a 30 s broker outage inside two hands at 8× speed
def test_three_tables_survive_a_broker_outage_and_a_killed_table_without_loss_or_double(
    tmp_path: Path,
) -> None:
    broker = Broker(tmp_path / "broker")
    broker.start()
    hub_toml = tmp_path / "hub.toml"
    hub_toml.write_text(
        f'tables = {json.dumps(list(TABLES))}\ndata_dir = "{tmp_path / "hub"}"\n\n'
        f'[mqtt]\nhost = "127.0.0.1"\nport = {broker.port}\ntournament = "cup"\n\n'
        "[table_keys]\n" + "".join(f'{t} = "{key_file(tmp_path, t)}"\n' for t in TABLES),
        encoding="utf-8",
    )
    hub = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "chaodipi.cli.main",
            "hub",
            "--config",
            str(hub_toml),
            "--port",
            "0",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    procs: dict[str, subprocess.Popen[bytes]] = {}
    try:
        assert hub.stdout is not None
        line = hub.stdout.readline()
        assert "serving http://" in line, line
        hub_url = line.rsplit(" ", 1)[-1].strip()
        feeds: dict[str, list[Path]] = {}
        expected: dict[str, int] = {}
        configs: dict[str, Path] = {}
        for i, table in enumerate(TABLES):
            feeds[table], expected[table] = write_feeds(tmp_path, i + 1)
            configs[table] = table_config(tmp_path, table, broker.port)
            procs[table] = start_table(configs[table], feeds[table])
        table_db = {t: tmp_path / t / f"{t}.sqlite" for t in TABLES}
        hub_db = {t: tmp_path / "hub" / f"{t}.sqlite" for t in TABLES}

        # streaming live: every table's first events reach the hub
        assert wait_until(lambda: all(rows(hub_db[t]) for t in TABLES), step=0.5), (
            "nothing reached the hub before the outage"
        )
        before_outage = len(rows(table_db["T2"]))
        broker.stop()
        outage = time.monotonic()

        # T2 plays on into the outage: the events it logs now wait in its log, unsent
        assert wait_until(lambda: len(rows(table_db["T2"])) >= before_outage + 5, step=0.1)
        victim = rows(table_db["T2"])
        assert 1 < len(victim) < expected["T2"], "T2 should be mid-hand"
        os.kill(procs["T2"].pid, signal.SIGKILL)
        procs["T2"].wait(timeout=DEADLINE_S)
        time.sleep(1.0)  # T2 stays down a moment
        procs["T2"] = start_table(configs["T2"], feeds["T2"])  # resumes its log

        time.sleep(max(0.0, OUTAGE_S - (time.monotonic() - outage)))  # the outage lasts 30 s
        held = {t: len(rows(hub_db[t])) for t in TABLES}
        broker.start()

        def all_sent() -> bool:
            done = all(len(rows(table_db[t])) == expected[t] for t in TABLES)
            return done and all(rows(hub_db[t]) == rows(table_db[t]) for t in TABLES)

        wait_until(all_sent, timeout=3 * DEADLINE_S, step=0.5)  # the asserts below say what's off
        for t in TABLES:
            mine, hubs = rows(table_db[t]), rows(hub_db[t])
            assert len(mine) == expected[t], f"{t} logged {len(mine)} of {expected[t]}"
            assert [r[0] for r in hubs] == list(range(1, len(mine) + 1)), f"{t}: gap or double"
            assert hubs == mine, f"{t}: the hub's copy differs from the table's log"
            assert held[t] < len(mine), f"{t}: nothing was sent after the outage"

        with urllib.request.urlopen(f"{hub_url}/api/overview", timeout=DEADLINE_S) as res:
            overview = json.load(res)
        assert [r["table"] for r in overview["tables"]] == list(TABLES)
        assert all(r["held_seq"] == expected[r["table"]] for r in overview["tables"])
        aside = sqlite3.connect(tmp_path / "hub" / "_set_aside.sqlite")
        try:
            for kind in ("conflicts", "rejected"):
                assert aside.execute(f"SELECT COUNT(*) FROM {kind}").fetchone() == (0,), kind
        finally:
            aside.close()
        with urllib.request.urlopen(f"{hub_url}/t/T2/api/records", timeout=DEADLINE_S) as res:
            assert [r["finished"] for r in json.load(res)] == [True, True]
    finally:
        for proc in procs.values():
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
        for proc in procs.values():
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        hub.send_signal(signal.SIGTERM)
        try:
            hub.communicate(timeout=15)
        except subprocess.TimeoutExpired:
            hub.kill()
        broker.stop()
