"""The camera side of ``chaodipi run``: pipeline events reach the log through the sink with
Unix times and a picture of each complete trick, and a restarted pipeline that sees the same
cards again adds nothing. The detector is a FAKE (fixed detections at table positions, as in
``test_pipeline``'s wiring test): this checks the plumbing, not card reading."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from chaodipi.table.actions import start_table
from chaodipi.table.camera_loop import CameraLoop
from chaodipi.table.evidence import Evidence
from chaodipi.table.live import LiveTable
from chaodipi.table.sink import CameraSink
from chaodipi.table.store import EventStore
from device.source import Frame
from tests.builders import top_down_config
from vision.detector import Detection
from vision.zones import Zones

SIZE = 360
PX_PER_CM = 10.0
OFFSET = 1_764_400_000.0
CONTRACT = {"rules": "XX", "rule_overrides": {}, "levels": {"NS": "5", "EW": "5"},
            "declarer": "N", "trump": "H"}  # fmt: skip
SCRIPT = [(1.0, "N", "AS"), (2.5, "E", "KS"), (4.0, "S", "QS"), (5.5, "W", "JS")]


class FakeDetector:
    """Returns ``self.cards`` (identity → table cm) as boxes, whatever the image shows."""

    def __init__(self) -> None:
        self.cards: list[tuple[str, tuple[float, float]]] = []

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        s = 0.75
        out = []
        for identity, (x, y) in self.cards:
            box = (
                (x - s) * PX_PER_CM,
                (y - s) * PX_PER_CM,
                (x + s) * PX_PER_CM,
                (y + s) * PX_PER_CM,
            )
            out.append(Detection(identity, box, 0.9))
        return out


def play(loop: CameraLoop, fake: FakeDetector, start: float, stop: float, clear_at: float) -> None:
    """Frames at 10 fps from ``start`` to ``stop`` s, as ``CameraLoop.run`` feeds them."""
    zones = Zones.from_config(loop.pipeline.config.table, loop.pipeline.config.zones)
    centre = {s: tuple(np.mean(zones.seats[s], axis=0)) for s in "NESW"}
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)
    for i in range(round(start * 10), round(stop * 10)):
        t = i / 10
        fake.cards = [(c, centre[s]) for t0, s, c in SCRIPT if t >= t0] if t < clear_at else []
        frame = Frame(image, t, i, "test")
        loop.ring.add(frame)
        loop.pipeline.process(frame)
    loop.pipeline.finish()


def test_camera_events_are_logged_once_with_unix_times_and_a_trick_picture(
    tmp_path: Path,
) -> None:
    live = LiveTable(EventStore(tmp_path / "T1.sqlite"), "T1", "XX")
    start_table(live, CONTRACT)
    evidence = Evidence(tmp_path)
    sink = CameraSink(live, evidence=evidence, clock_offset=OFFSET)
    fake = FakeDetector()
    play(
        CameraLoop(top_down_config(SIZE, "T1"), "0", sink, fake, CONTRACT),
        fake,
        0.0,
        7.5,
        clear_at=99,
    )
    events = live.store.events()
    assert [e.kind for e in events] == ["hand_started"] + ["play"] * 4 + ["snapshot"]
    first = events[1].data
    assert first["seat"] == "N" and 0 <= first["t_landed"] - (OFFSET + 1.0) <= 0.25 + 1e-6
    snap = events[-1].data
    assert snap["hand"] == 1 and snap["trick"] == 1
    picture = tmp_path / snap["path"]
    assert picture.read_bytes()[:2] == b"\xff\xd8"  # a JPEG
    assert live.referee_json()["infractions"] == []

    # The service restarts: a fresh pipeline sees the same four cards, then the sweep.
    sink2 = CameraSink(live, evidence=evidence, clock_offset=OFFSET)
    fake2 = FakeDetector()
    play(
        CameraLoop(top_down_config(SIZE, "T1"), "0", sink2, fake2, CONTRACT),
        fake2,
        8.0,
        12.0,
        clear_at=10.0,
    )
    later = [e.kind for e in live.store.events(since=events[-1].seq)]
    assert later == ["trick_cleared"] and sink2.dropped == 4
    hand = live.public_json()["hand"]
    assert [t["winner"] for t in hand["tricks"]] == ["N"] and hand["current_trick"]["plays"] == []
