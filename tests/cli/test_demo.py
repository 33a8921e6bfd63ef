"""``chaodipi demo``: the table service on the bundled clip — it serves, plays arrive, the
planted infractions show, SIGTERM ends it with status 0; the clip's files and ``--text``."""

from __future__ import annotations

import json
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

import cv2
import pytest

from chaodipi.demo import run as demo_run
from chaodipi.demo.clip import CLIP, SIZE, clip_files
from chaodipi.demo.run import ClipFeed, DemoService, clip_paths, truth_camera_events
from chaodipi.table.feed import contract_of, read_record
from tests.waiting import DEADLINE_S, wait_until
from vision.events import read_events

ROOT = Path(__file__).resolve().parents[2]


class Demo:
    """``chaodipi demo ARGS`` in a subprocess, its stdout read in a thread."""

    def __init__(self, *args: str) -> None:
        cmd = [sys.executable, "-m", "chaodipi.cli.main", "demo", "--port", "0", *args]
        self.proc = subprocess.Popen(
            cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.seen: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)

    def wait_for(self, text: str, timeout: float = DEADLINE_S) -> str:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                line = self.lines.get(timeout=0.1)
            except queue.Empty:
                if self.proc.poll() is not None:
                    break
                continue
            self.seen.append(line)
            if text in line:
                return line
        raise AssertionError(f"no {text!r} in the demo's output: {''.join(self.seen)}")

    def url(self) -> str:
        self.wait_for("Press Ctrl-C")  # the last line of the start-up text
        line = next(line for line in self.seen if "Scoreboard" in line)
        return line.split()[-1].rstrip("/")

    def stop(self) -> int:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=DEADLINE_S)
        while not self.lines.empty():
            self.seen.append(self.lines.get())
        return code

    def kill(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()


def state(url: str) -> dict[str, Any]:
    with urllib.request.urlopen(f"{url}/api/state", timeout=DEADLINE_S) as res:
        data: dict[str, Any] = json.load(res)
    return data


def plays_seen(s: dict[str, Any]) -> int:
    hand = s["hand"]
    done = sum(len(t["plays"]) for t in hand["tricks"])
    return done + len(hand["current_trick"]["plays"])


def test_demo_serves_the_clip_plays_arrive_and_sigterm_exits_zero() -> None:
    demo = Demo("--ground-truth", "--speed", "40")
    try:
        url = demo.url()
        assert any("PIN 8888" in line for line in demo.seen)
        assert any("SIMULATED" in line for line in demo.seen)
        data_line = next(line for line in demo.seen if "fresh each start" in line)
        folder = Path(data_line.split(": ", 1)[1].split(" (")[0])
        assert (folder / "table-1.sqlite").exists()
        first = state(url)
        assert first["hand"]["declarer"] == "E" and first["hand"]["trump"] == "H"
        demo.wait_for("the clip has ended")
        s = state(url)
        assert plays_seen(s) == 20 and len(s["hand"]["tricks"]) == 5
        found = {(i["kind"], i["seat"], i["trick"]) for i in s["infractions"]}
        assert found == {("revoke", "S", 1), ("overtime", "E", 3)}
        assert state(url)["seq"] == s["seq"]  # still serving after the clip
        assert demo.stop() == 0
        assert any("stopped" in line for line in demo.seen)
        assert not folder.exists()  # the temporary data folder goes with the demo
    finally:
        demo.kill()


def test_demo_with_the_detector_reads_a_play_from_the_clip() -> None:
    demo = Demo("--speed", "100")
    try:
        url = demo.url()
        assert not any("SIMULATED" in line for line in demo.seen)
        wait_until(lambda: plays_seen(state(url)) >= 1, step=0.25)
        assert plays_seen(state(url)) >= 1
        assert demo.stop() == 0
    finally:
        demo.kill()


def test_the_clip_opens_in_opencv_and_its_files_agree() -> None:
    assert all(p.is_file() for p in clip_files(CLIP.parent))
    assert CLIP.stat().st_size <= 8_000_000
    cap = cv2.VideoCapture(str(CLIP))
    try:
        assert cap.isOpened()
        assert cap.get(cv2.CAP_PROP_FPS) == pytest.approx(10)
        width, height = SIZE  # the Pi camera's binned mode
        assert (cap.get(cv2.CAP_PROP_FRAME_WIDTH), cap.get(cv2.CAP_PROP_FRAME_HEIGHT)) == (
            width,
            height,
        )
        ok, frame = cap.read()
        assert ok and frame.shape == (height, width, 3)
    finally:
        cap.release()
    record_path, truth_path = clip_paths(CLIP)
    truth = read_events(truth_path)
    assert 55 <= max(e.get("t_landed") or e.get("t") for e in truth) <= 70
    record = read_record(record_path)
    plays = [p for t in record["tricks"][:5] for p in t["plays"]]
    clip_plays = [e for e in truth if e["type"] == "play"]
    assert [(p["seat"], p["cards"]) for p in plays] == [(e["seat"], e["cards"]) for e in clip_plays]
    injected = json.loads(CLIP.with_name("demo.truth.json").read_text(encoding="utf-8"))
    assert {(i["kind"], i["trick"]) for i in injected["injected"]} == {
        ("revoke", 1),
        ("overtime", 3),
    }


def test_truth_events_become_camera_events_on_the_log_clock() -> None:
    truth = [
        {"seq": 1, "type": "play", "seat": "E", "cards": ["4C"], "t_landed": 2.4,
         "t_stable": None, "frames": {"landed": "24", "stable": ""}},
        {"seq": 2, "type": "trick_cleared", "t": 8.0, "frame": "80"},
    ]  # fmt: skip
    events = truth_camera_events(truth, 1000.0, 10.0)
    assert events[0] == (
        2.4,
        ("play", {"seat": "E", "cards": ["4C"], "t_landed": 1002.4, "t_stable": 1002.9,
                  "frames": {"landed": "24", "stable": "29"}}),
    )  # fmt: skip
    assert events[1] == (8.0, ("trick_cleared", {"t": 1008.0, "frame": "80"}))


def test_demo_takes_the_next_free_port_when_the_first_is_busy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    first = busy.getsockname()[1]
    monkeypatch.setattr(demo_run, "FIRST_PORT", first)
    record_path, truth_path = clip_paths(CLIP)
    record = read_record(record_path)
    from dataclasses import replace

    from chaodipi.config import default_config

    config = default_config()
    config = replace(config, service=replace(config.service, data_dir=str(tmp_path)))
    feed = ClipFeed(record, read_events(truth_path), fps=10, speed=1000)
    feed.health_every_s = 0.5
    service = DemoService(config, contract_of(record), model=None, feed=feed, speed=1000)
    try:
        service.prepare()
        _, port = demo_run.serve(service, "127.0.0.1", None)
        assert port != first
        assert feed.done.wait(DEADLINE_S), "the clip did not play to its end"
        url = f"http://127.0.0.1:{port}"
        wait_until(lambda: plays_seen(state(url)) >= 20)
        assert plays_seen(state(url)) == 20
        # the footage has ended: the seat clock stops at its last frame, nobody's time grows
        assert wait_until(lambda: (state(url)["hand"]["clock"] or {}).get("stopped") is True)
    finally:
        service.stop()
        busy.close()


def test_demo_bad_input_is_one_line() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "demo", "--model", "no/such.onnx"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * DEADLINE_S,
    )
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "--model" in done.stderr
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "demo", "--speed", "0"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * DEADLINE_S,
    )
    assert done.returncode == 2 and "--speed" in done.stderr


def test_demo_text_prints_the_referee_reading() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "demo", "--text"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=2 * DEADLINE_S,
    )
    assert done.returncode == 0, done.stderr
    assert "revoke" in done.stdout and "overtime" in done.stdout
