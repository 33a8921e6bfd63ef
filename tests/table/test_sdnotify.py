"""systemd's notify protocol: datagrams on a real socket, watchdog pacing, and ``chaodipi run``
sending READY=1, WATCHDOG=1 while its source lives, and STOPPING=1 on SIGTERM."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from chaodipi import sdnotify
from chaodipi.config import default_config
from chaodipi.table.service import TableService
from engine.simulate import simulate_hand
from tests.tiny_models import tiny_detector
from tests.waiting import DEADLINE_S


@pytest.fixture()
def systemd(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """A datagram socket where systemd would listen, and its $NOTIFY_SOCKET value."""
    path = tmp_path / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(path))
    sock.settimeout(DEADLINE_S)
    yield sock, str(path)
    sock.close()


def messages(sock: socket.socket, until: str, limit_s: float = DEADLINE_S) -> list[str]:
    got: list[str] = []
    end = time.monotonic() + limit_s
    while time.monotonic() < end:
        got.append(sock.recv(4096).decode())
        if until in got[-1]:
            return got
    raise AssertionError(f"no {until} in {got}")


def test_notify_sends_to_the_socket(systemd: tuple[socket.socket, str]) -> None:
    sock, path = systemd
    assert sdnotify.notify("READY=1", "STATUS=up", env={"NOTIFY_SOCKET": path})
    assert sock.recv(100) == b"READY=1\nSTATUS=up"
    assert not sdnotify.notify("READY=1", env={})
    assert not sdnotify.notify("READY=1", env={"NOTIFY_SOCKET": path + ".gone"})


def test_abstract_socket() -> None:
    name = f"chaodipi-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as sock:
        sock.bind("\0" + name)
        assert sdnotify.notify("WATCHDOG=1", env={"NOTIFY_SOCKET": "@" + name})
        assert sock.recv(100) == b"WATCHDOG=1"


def test_watchdog_paces_pings_and_skips_when_dead(systemd: tuple[socket.socket, str]) -> None:
    sock, path = systemd
    now = [100.0]
    env = {"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "3000000", "WATCHDOG_PID": str(os.getpid())}
    dog = sdnotify.Watchdog(env, clock=lambda: now[0])
    assert dog.interval == pytest.approx(1.0)
    assert dog.tick() and sock.recv(100) == b"WATCHDOG=1"
    now[0] += 0.5
    assert not dog.tick()  # not due yet
    now[0] += 0.6
    assert not dog.tick(alive=False)  # due, but the work is dead: stay silent
    assert dog.tick() and dog.pings == 2
    other = sdnotify.Watchdog({**env, "WATCHDOG_PID": "1"})
    assert not other.enabled and not other.tick()
    assert not sdnotify.Watchdog({"NOTIFY_SOCKET": path}).enabled


def test_watchdog_thread(systemd: tuple[socket.socket, str]) -> None:
    sock, path = systemd
    stop = threading.Event()
    dog = sdnotify.Watchdog({"NOTIFY_SOCKET": path, "WATCHDOG_USEC": "300000"})
    thread = dog.start_thread(lambda: True, stop)
    assert thread is not None
    assert sock.recv(100) == b"WATCHDOG=1"
    stop.set()
    thread.join(DEADLINE_S)
    assert not thread.is_alive()


def test_run_notifies_systemd(tmp_path: Path, systemd: tuple[socket.socket, str]) -> None:
    sock, path = systemd
    record, _ = simulate_hand("XX", 3, [])
    hand = tmp_path / "hand.json"
    hand.write_text(json.dumps(record), encoding="utf-8")
    env = {**os.environ, "NOTIFY_SOCKET": path, "WATCHDOG_USEC": "600000"}
    cmd = [sys.executable, "-m", "chaodipi.cli.main", "run", "--feed", str(hand), "--speed", "50",
           "--data-dir", str(tmp_path / "data"), "--port", "0", "--threads", "4"]  # fmt: skip
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        first = messages(sock, "READY=1")
        assert first[-1].startswith("READY=1\nSTATUS=serving http://127.0.0.1:")
        assert messages(sock, "WATCHDOG=1")[-1] == "WATCHDOG=1"
        proc.send_signal(signal.SIGTERM)
        assert messages(sock, "STOPPING=1")[-1].startswith("STOPPING=1")
        assert proc.wait(DEADLINE_S) == 0
    finally:
        proc.kill()
        proc.wait()


def test_dead_camera_loop_stops_the_pings(tmp_path: Path) -> None:
    """A camera loop that dies (here: an unreadable frame) is not alive; systemd restarts."""
    frames = tmp_path / "frames"
    frames.mkdir()
    (frames / "frame_000000.png").write_bytes(b"not a png")
    cfg = default_config()
    cfg = replace(
        cfg,
        source=str(frames),
        model=str(tiny_detector(tmp_path / "card_detector.onnx")),
        service=replace(cfg.service, data_dir=str(tmp_path / "data"), web_threads=4),
    )
    service = TableService(cfg)
    service.prepare()
    assert not service.source_alive()  # not started yet
    service.serve("127.0.0.1", 0)
    try:
        service._threads[0].join(DEADLINE_S)
        assert service._camera_loop.error and "cannot read image" in service._camera_loop.error
        assert not service.source_alive()
    finally:
        service.stop()
