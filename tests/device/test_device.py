"""Camera sources: real OpenCV files and folders, Picamera2 against a fake module, reconnects."""

from __future__ import annotations

import json
import sys
import threading
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from device import (
    FolderSource,
    Frame,
    FrameSource,
    OpenCVSource,
    PicameraSource,
    ResilientSource,
    SourceError,
    SourceEvent,
    open_source,
    write_frame_folder,
)
from device.picamera_source import MISSING_MESSAGE
from tests.waiting import DEADLINE_S, wait_until


def _image(value: int, size: tuple[int, int] = (64, 48)) -> np.ndarray:
    width, height = size
    image = np.zeros((height, width, 3), np.uint8)
    image[:, :, 0] = value  # blue
    image[:, :, 2] = 255 - value  # red
    return image


@pytest.fixture
def video(tmp_path: Path) -> Path:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    assert writer.isOpened()
    for i in range(10):
        writer.write(_image(i * 25))
    writer.release()
    return path


# --- OpenCV ------------------------------------------------------------------------------


def test_video_file_frames_carry_file_times(video: Path) -> None:
    with OpenCVSource(video) as source:
        assert not source.live
        frames = list(source)
    assert [f.index for f in frames] == list(range(10))
    assert [f.t for f in frames] == pytest.approx([i / 10 for i in range(10)])
    assert all(f.image.shape == (48, 64, 3) and f.image.dtype == np.uint8 for f in frames)
    assert abs(int(frames[4].image[0, 0, 0]) - 100) < 8  # BGR order survives the round trip
    assert frames[0].source == source.describe() == f"video file {video} (64×48)"
    # A replay gives the same timestamps.
    with OpenCVSource(str(video)) as again:
        assert [f.t for f in again] == [f.t for f in frames]


def test_opencv_errors(tmp_path: Path) -> None:
    with pytest.raises(SourceError, match="video file not found"):
        OpenCVSource(tmp_path / "missing.avi").open()
    junk = tmp_path / "junk.avi"
    junk.write_bytes(b"not a video")
    with pytest.raises(SourceError, match="cannot open video file"):
        OpenCVSource(junk).open()
    with pytest.raises(SourceError, match="not open"):
        OpenCVSource(junk).read()
    assert OpenCVSource("3").kind == "webcam" and OpenCVSource(3).live
    assert OpenCVSource("rtsp://cam.local/stream").kind == "stream"


# --- Folders -----------------------------------------------------------------------------


def _save_images(folder: Path, names: list[str]) -> None:
    folder.mkdir(exist_ok=True)
    for i, name in enumerate(names):
        assert cv2.imwrite(str(folder / name), _image(i * 40))


def test_folder_with_timestamps_csv(tmp_path: Path) -> None:
    _save_images(tmp_path, ["f10.png", "f2.png", "f1.png"])
    (tmp_path / "timestamps.csv").write_text("name,t\nf1.png,5.0\nf2.png,5.25\nf10.png,7.5\n")
    with FolderSource(tmp_path) as source:
        frames = list(source)
    assert [f.t for f in frames] == [5.0, 5.25, 7.5]  # name order, digits as numbers
    assert [int(f.image[0, 0, 0]) for f in frames] == [80, 40, 0]


def test_folder_with_frames_jsonl_and_errors(tmp_path: Path) -> None:
    _save_images(tmp_path, ["a.png", "b.png"])
    lines = [{"name": "a.png", "t": 1.5}, {"name": "b.png", "t": 2}]
    (tmp_path / "frames.jsonl").write_text("".join(json.dumps(r) + "\n" for r in lines))
    with FolderSource(tmp_path) as source:
        assert [f.t for f in source] == [1.5, 2.0]
    (tmp_path / "frames.jsonl").write_text(json.dumps({"name": "a.png", "t": 1}) + "\n")
    with pytest.raises(SourceError, match=r"no timestamp for b\.png"):
        FolderSource(tmp_path).open()
    (tmp_path / "empty").mkdir()
    with pytest.raises(SourceError, match="no images"):
        FolderSource(tmp_path / "empty").open()


def test_folder_fps_fallback(tmp_path: Path) -> None:
    _save_images(tmp_path, ["x0.jpg", "x1.jpg", "x2.jpg"])
    with FolderSource(tmp_path) as source:
        assert len(source) == 3
        assert [f.t for f in source] == [0.0, 0.1, 0.2]
        assert source.read() is None
    with FolderSource(tmp_path, fps=4) as source:
        assert [f.t for f in source] == [0.0, 0.25, 0.5]


def test_write_frame_folder_round_trip(tmp_path: Path) -> None:
    times = [12.345678901, 12.4, 13.0]
    frames = [Frame(_image(i * 60), t, i, "test") for i, t in enumerate(times)]
    assert write_frame_folder(frames, tmp_path / "out") == 3
    with FolderSource(tmp_path / "out") as source:
        back = list(source)
    assert [f.t for f in back] == times  # exact: times are written with repr()
    for original, copy in zip(frames, back, strict=True):
        assert np.array_equal(original.image, copy.image)  # PNG is lossless
    with pytest.raises(FileExistsError):
        write_frame_folder(frames, tmp_path / "out")


# --- open_source -------------------------------------------------------------------------


def test_open_source_dispatch(tmp_path: Path, video: Path) -> None:
    assert isinstance(open_source("picamera"), PicameraSource)
    camera = open_source("picamera:2304x1296")
    assert isinstance(camera, PicameraSource) and camera.size == (2304, 1296)
    assert open_source("picamera").size == (4608, 2592)  # type: ignore[attr-defined]
    webcam = open_source("0")
    assert isinstance(webcam, OpenCVSource) and webcam.spec == 0 and webcam.live
    for url in ("rtsp://10.0.0.5:554/live", "http://cam/video.mjpg", "https://x/y"):
        stream = open_source(url)
        assert isinstance(stream, OpenCVSource) and stream.kind == "stream"
    assert isinstance(open_source(str(tmp_path)), FolderSource)
    file_source = open_source(str(video))
    assert isinstance(file_source, OpenCVSource) and file_source.kind == "file"


def test_open_source_error_is_one_line(tmp_path: Path) -> None:
    for spec in (str(tmp_path / "nope"), "camera", ""):
        with pytest.raises(SourceError) as info:
            open_source(spec)
        message = str(info.value)
        assert "\n" not in message and repr(spec) in message
        assert "picamera:WxH" in message and "rtsp://" in message and "video file" in message
    with pytest.raises(SourceError, match="picamera:WxH"):
        open_source("picamera:big")


# --- Picamera2 (fake module) -------------------------------------------------------------


class FakeRequest:
    def __init__(self, image: np.ndarray, stamp: int) -> None:
        self.image, self.stamp, self.released = image, stamp, False

    def make_array(self, name: str) -> np.ndarray:
        assert name == "main"
        return self.image

    def get_metadata(self) -> dict[str, Any]:
        return {"SensorTimestamp": self.stamp}

    def release(self) -> None:
        self.released = True


class FakePicamera2:
    instances: list[FakePicamera2] = []  # noqa: RUF012 (class-level registry for the test)

    def __init__(self, camera_num: int = 0) -> None:
        self.camera_num = camera_num
        self.camera_controls = {"LensPosition": (0.0, 15.0, 1.0)}
        self.config: dict[str, Any] | None = None
        self.calls: list[str] = []
        self.captured = 0
        FakePicamera2.instances.append(self)

    def create_video_configuration(self, main: dict[str, Any], **kw: Any) -> dict[str, Any]:
        return {"main": dict(main), **kw}

    def configure(self, config: dict[str, Any]) -> None:
        self.config = config
        self.calls.append("configure")

    def start(self) -> None:
        self.calls.append("start")

    def capture_array(self, name: str = "main") -> np.ndarray:
        assert self.config is not None and name == "main"
        width, height = self.config["main"]["size"]
        self.captured += 1
        return np.full((height, width, 3), self.captured, np.uint8)

    def stop(self) -> None:
        self.calls.append("stop")

    def close(self) -> None:
        self.calls.append("close")


class FakePicamera2WithRequests(FakePicamera2):
    def capture_request(self) -> FakeRequest:
        return FakeRequest(self.capture_array("main"), stamp=5_000_000_000 + self.captured)


@pytest.fixture
def fake_picamera2(monkeypatch: pytest.MonkeyPatch) -> types.ModuleType:
    module = types.ModuleType("picamera2")
    module.Picamera2 = FakePicamera2  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "picamera2", module)
    FakePicamera2.instances.clear()
    return module


def test_picamera_configures_and_captures(fake_picamera2: types.ModuleType) -> None:
    clock = iter([100.0, 100.5])
    with PicameraSource(fps=10, focus_m=1.25, clock=lambda: next(clock)) as source:
        assert source.live
        frames = [source.read(), source.read()]
    camera = FakePicamera2.instances[0]
    assert camera.config is not None
    assert camera.config["main"] == {"size": (4608, 2592), "format": "RGB888"}
    controls = camera.config["controls"]
    assert controls["FrameDurationLimits"] == (100_000, 100_000)
    assert controls["AfMode"] == 0 and controls["LensPosition"] == pytest.approx(0.8)
    assert camera.calls == ["configure", "start", "stop", "close"]
    assert all(f is not None and f.image.shape == (2592, 4608, 3) for f in frames)
    assert [(f.index, f.t, int(f.image[0, 0, 0])) for f in frames if f] == [
        (0, 100.0, 1),
        (1, 100.5, 2),
    ]


def test_picamera_uses_sensor_timestamps(fake_picamera2: types.ModuleType) -> None:
    fake_picamera2.Picamera2 = FakePicamera2WithRequests  # type: ignore[attr-defined]
    with PicameraSource(640, 480) as source:
        frame = source.read()
    assert frame is not None and frame.image.shape == (480, 640, 3)
    assert frame.t == pytest.approx(5.000000001)


def test_picamera_missing_module(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "picamera2", None)  # makes the import fail
    with pytest.raises(SourceError) as info:
        PicameraSource().open()
    assert str(info.value) == MISSING_MESSAGE
    assert "\n" not in MISSING_MESSAGE and "pip install -e '.[pi]'" in MISSING_MESSAGE


# --- ResilientSource ---------------------------------------------------------------------


class FakeClock:
    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def __call__(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


class ScriptedSource(FrameSource):
    """A live source whose reads follow a script: 'ok', 'fail', 'none' or 'hang'."""

    live = True

    def __init__(self, script: list[str], release: threading.Event | None = None) -> None:
        self.script: Iterator[str] = iter(script)
        self.release = release
        self.opened = self.closed = False
        self.count = 0

    def open(self) -> None:
        self.opened = True

    def read(self) -> Frame | None:
        step = next(self.script, "ok")
        if step == "fail":
            raise SourceError("camera unplugged")
        if step == "none":
            return None
        if step == "hang":
            assert self.release is not None
            self.release.wait(DEADLINE_S)
            raise SourceError("woke up too late")
        self.count += 1
        return Frame(_image(self.count), 0.0, self.count - 1, "scripted")

    def close(self) -> None:
        self.closed = True

    def describe(self) -> str:
        return "scripted"


@pytest.mark.parametrize("stall_timeout_s", [None, 2.0])
def test_resilient_reconnects_with_backoff(stall_timeout_s: float | None) -> None:
    clock = FakeClock()
    sources = [ScriptedSource(["ok", "fail"]), ScriptedSource(["fail"]), ScriptedSource([])]
    made = iter(sources)
    seen: list[SourceEvent] = []
    with ResilientSource(
        lambda: next(made),
        stall_timeout_s=stall_timeout_s,
        on_event=seen.append,
        clock=clock,
        sleep=clock.sleep,
    ) as source:
        frames = [source.read() for _ in range(3)]
    assert [f.index for f in frames if f] == [0, 1, 2]
    assert [e.kind for e in source.events] == ["disconnected", "disconnected", "reconnected"]
    assert seen == source.events
    assert clock.sleeps == [1.0, 2.0]
    assert [(e.attempt, e.wait_s, e.t) for e in source.events] == [
        (1, 1.0, 0.0),
        (2, 2.0, 1.0),
        (2, 0.0, 3.0),
    ]
    assert "camera unplugged" in source.events[0].detail
    assert all(s.closed for s in sources)


def test_resilient_gives_up_after_max_retries() -> None:
    clock = FakeClock()
    source = ResilientSource(
        lambda: ScriptedSource(["none"]),
        max_retries=3,
        max_backoff_s=3.0,
        stall_timeout_s=None,
        clock=clock,
        sleep=clock.sleep,
    )
    with source, pytest.raises(SourceError, match="gave up after 3 reconnect attempts"):
        source.read()
    assert clock.sleeps == [1.0, 2.0, 3.0]  # capped at max_backoff_s
    assert [e.kind for e in source.events][-2:] == ["disconnected", "gave_up"]


def test_resilient_reports_a_stall() -> None:
    clock = FakeClock()
    release = threading.Event()
    hung = ScriptedSource(["ok", "hang"], release)
    made = iter([hung, ScriptedSource([])])
    with ResilientSource(
        lambda: next(made), stall_timeout_s=0.05, clock=clock, sleep=clock.sleep
    ) as source:
        assert source.read() is not None
        assert source.read() is not None  # from the fresh source, after the stall
        assert [e.kind for e in source.events] == ["stalled", "reconnected"]
        assert clock.sleeps == [1.0]
        assert not hung.closed  # still stuck in its read: left to its thread
        release.set()
        assert wait_until(lambda: hung.closed)


def test_resilient_ends_with_a_finite_source(video: Path) -> None:
    with ResilientSource(lambda: OpenCVSource(video)) as source:
        assert not source.live
        assert len(list(source)) == 10
    assert source.events == []


def test_resilient_retries_a_failed_reopen() -> None:
    clock = FakeClock()
    attempts = iter([ScriptedSource(["fail"]), None, ScriptedSource([])])

    def factory() -> FrameSource:
        made = next(attempts)
        if made is None:
            raise SourceError("no camera on /dev/video0")
        return made

    source = ResilientSource(factory, stall_timeout_s=None, clock=clock, sleep=clock.sleep)
    with source:
        assert source.read() is not None
    assert [e.kind for e in source.events] == ["disconnected", "disconnected", "reconnected"]
    assert "reopen failed: no camera on /dev/video0" in source.events[1].detail
    assert clock.sleeps == [1.0, 2.0]


def test_close_interrupts_the_backoff_wait() -> None:
    source = ResilientSource(
        lambda: ScriptedSource(["fail"] * 100), initial_backoff_s=60, stall_timeout_s=None
    )
    source.open()
    timer = threading.Timer(0.05, source.close)
    timer.start()
    assert source.read() is None  # woken by close(), not after 60 s
    timer.join()
