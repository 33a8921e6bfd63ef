"""``chaodipi run``: one table in one process, stopped cleanly by SIGTERM, and killed with
SIGKILL at random points over and over without losing or doubling a single event."""

from __future__ import annotations

import json
import os
import random
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
from chaodipi.table.store import EventStore
from chaodipi.table.table_state import fold
from engine.simulate import simulate_hand
from tests.waiting import DEADLINE_S, wait_until

EPOCH = 1_764_400_000.0
SPEED = "400"  # the feed's pace: about a play every 10 ms


def records(folder: Path) -> list[Path]:
    """Two simulated hands, the first with a planted revoke."""
    paths = []
    for seed, inject in ((3, ["revoke"]), (4, [])):
        record, _ = simulate_hand("XX", seed, inject)
        path = folder / f"hand{seed}.json"
        path.write_text(json.dumps(record), encoding="utf-8")
        paths.append(path)
    return paths


def expected_events(paths: list[Path]) -> int:
    """hand_started, each hand's camera events, and next_hand + hand_finished + hand_started
    between the hands."""
    counts = [len(record_events(json.loads(p.read_text()))) for p in paths]
    return 1 + sum(counts) + 3 * (len(paths) - 1)


def start(data: Path, feeds: list[Path]) -> subprocess.Popen[str]:
    """The service on recorded hands; its log lines go to ``<data>.stderr`` (faulthandler on, so
    a service that does not stop can be made to show where each thread waits)."""
    cmd = [sys.executable, "-X", "faulthandler", "-m", "chaodipi.cli.main", "run",
           "--feed", *map(str, feeds), "--speed", SPEED, "--epoch", str(EPOCH),
           "--data-dir", str(data), "--port", "0", "--threads", "8"]  # fmt: skip
    data.parent.mkdir(parents=True, exist_ok=True)
    with open(f"{data}.stderr", "a", encoding="utf-8") as err:
        return subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, text=True)


def stop(proc: subprocess.Popen[str], data: Path, how: signal.Signals) -> str:
    """Send ``how`` and wait for the service to exit; its stdout. One that does not exit by the
    deadline is made to dump its threads' stacks, and the test fails showing them."""
    proc.send_signal(how)
    try:
        return proc.communicate(timeout=DEADLINE_S)[0]
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGABRT)
        proc.communicate(timeout=DEADLINE_S)
        stacks = Path(f"{data}.stderr").read_text(encoding="utf-8")[-8000:]
        pytest.fail(f"the service did not stop within {DEADLINE_S} s of {how.name}:\n{stacks}")


def logged(db: Path) -> int:
    if not db.exists():
        return 0
    con = sqlite3.connect(db, timeout=DEADLINE_S)
    try:
        return int(con.execute("SELECT COUNT(*) FROM events").fetchone()[0])
    except sqlite3.OperationalError:  # not created yet
        return 0
    finally:
        con.close()


def log_rows(db: Path) -> list[tuple[Any, ...]]:
    """(seq, kind, actor, data) of every row: all but the append time."""
    con = sqlite3.connect(db)
    rows = con.execute("SELECT seq, kind, actor, data FROM events ORDER BY seq").fetchall()
    con.close()
    return rows


def state_of(db: Path) -> dict[str, Any]:
    store = EventStore(db)
    state = fold(store.events(), "table-1", "XX")
    store.close()
    return {"public": state.to_public_json(EPOCH), "referee": state.to_referee_json(EPOCH)}


def test_sigterm_stops_the_service_cleanly_and_a_restart_resumes(tmp_path: Path) -> None:
    feeds = records(tmp_path)
    proc = start(tmp_path / "data", feeds)
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert "started" in line and "serving http://127.0.0.1:" in line
    url = line.rsplit(" ", 1)[-1].strip()
    with urllib.request.urlopen(f"{url}/api/state", timeout=DEADLINE_S) as res:
        assert json.load(res)["table"] == "table-1"
    db = tmp_path / "data/table-1.sqlite"
    assert wait_until(lambda: logged(db) > 1)  # past hand_started: the feed is logging plays
    out = stop(proc, tmp_path / "data", signal.SIGTERM)
    assert proc.returncode == 0 and "stopped, log closed" in out
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    n = logged(db)
    proc = start(tmp_path / "data", feeds)
    assert proc.stdout is not None
    assert proc.stdout.readline().startswith(f"chaodipi run: resumed {db} at seq {n}")
    stop(proc, tmp_path / "data", signal.SIGINT)
    assert proc.returncode == 0 and logged(db) >= n


@pytest.mark.slow  # about 30 s: two dozen service start-ups
def test_killed_at_random_points_the_log_equals_a_run_that_never_crashed(tmp_path: Path) -> None:
    feeds = records(tmp_path)
    total = expected_events(feeds)
    rng = random.Random(2026)

    clean_db = tmp_path / "clean/table-1.sqlite"
    proc = start(tmp_path / "clean", feeds)
    wait_until(lambda: logged(clean_db) >= total)
    time.sleep(0.2)  # nothing more may come
    stop(proc, tmp_path / "clean", signal.SIGTERM)
    assert logged(clean_db) == total

    crash_db = tmp_path / "crash/table-1.sqlite"
    kills = 0
    deadline = time.monotonic() + 10 * DEADLINE_S  # the loop ends once both are done
    while time.monotonic() < deadline:
        before = logged(crash_db)
        if before >= total and kills >= 20:
            break
        proc = start(tmp_path / "crash", feeds)
        if rng.random() < 0.25:
            time.sleep(rng.uniform(0.0, 0.5))  # anywhere, start-up included
        else:
            target = before + rng.randint(1, 12)
            while logged(crash_db) < min(target, total) and proc.poll() is None:
                time.sleep(0.002)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate(timeout=DEADLINE_S)
        kills += 1
    proc = start(tmp_path / "crash", feeds)  # a last run to the end, stopped cleanly
    wait_until(lambda: logged(crash_db) >= total)
    time.sleep(0.2)  # nothing more may come
    stop(proc, tmp_path / "crash", signal.SIGTERM)

    assert kills >= 20
    print(f"{kills} SIGKILLs, {total} events")
    crashed, clean = log_rows(crash_db), log_rows(clean_db)
    assert [r[0] for r in crashed] == list(range(1, total + 1))  # gap-free
    assert crashed == clean  # no event lost, none doubled, same order
    assert state_of(crash_db) == state_of(clean_db)
    assert state_of(clean_db)["public"]["match"]["hand"] == 2
