"""``chaodipi demo``: the table service on the bundled demo footage, no camera or config needed.

This module owns the demo command. It runs :class:`chaodipi.table.service.TableService` — the code
of
``chaodipi run`` (pipeline → camera sink → event log → web server) — on the clip in
``chaodipi/demo/`` (see :mod:`chaodipi.demo.clip`):

* **Contract.** The camera cannot see rules, levels, declarer or trump: they come from the hand
  record rendered beside the clip (``demo.record.json``, found as ``chaodipi replay`` finds it).
* **Camera.** The clip plays at its own pace (``--speed`` × faster) through the real pipeline
  with the detector ``--model`` (default ``models/card_detector.onnx``). Without a model the
  camera reading is *simulated*: the clip's ground-truth events (``demo.truth.jsonl``) go through
  the same sink at the clip's pace (:class:`ClipFeed`, a :class:`chaodipi.table.feed.FeedSource`),
  and
  the console says so. Trick pictures come from the clip either way.
* **Data.** A fresh log in a new temporary folder, removed on exit (``--data-dir`` keeps it in
  an empty or new folder instead).
* **Web.** ``--host`` (127.0.0.1) and the first free port from 8080 (``--port N`` for exactly
  ``N``, 0 for any); the referee console's PIN is :data:`DEMO_PIN` (the demo builds its own
  config, so ``chaodipi run``'s refusal of easy PINs does not apply). When the clip ends the
  web keeps serving until Ctrl-C or SIGTERM (exit status 0).

``chaodipi demo --text`` is the old demo: simulate a hand with a revoke and an over-time play
and print the referee's reading of it.
"""

from __future__ import annotations

import argparse
import logging
import shutil
import signal
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

from chaodipi.config import TableConfig, default_config, port_number
from chaodipi.demo.clip import CLIP
from chaodipi.table.actions import start_table
from chaodipi.table.camera_loop import CameraLoop
from chaodipi.table.feed import Camera, FeedSource, contract_of, read_record
from chaodipi.table.service import TableService
from device import Frame, FrameSource, open_source
from vision.enrolment.deck_model import DECK_HELP, detector_for

DEMO_PIN = "8888"
FIRST_PORT = 8080
PORT_TRIES = 20
SETTLE_S = 0.5  # a simulated play is "stable" this long after it lands (the tracker's 3 frames)


class DemoError(ValueError):
    """The demo cannot start; the message is one line naming the fix."""


# ----------------------------------------------------------------------------- the clip


def clip_paths(clip: Path) -> tuple[Path, Path]:
    """The record and the ground-truth events beside ``clip``; a :class:`DemoError` when the
    bundled files are missing."""
    from chaodipi.replay.replay import footage_files

    if not clip.is_file():
        raise DemoError(
            f"demo footage {clip} is missing: reinstall chaodipi, "
            "or regenerate it with python -m chaodipi.demo.clip"
        )
    found = footage_files(str(clip))
    if found.record is None or found.truth is None:
        raise DemoError(
            f"the record or ground truth beside {clip} is missing: "
            "regenerate them with python -m chaodipi.demo.clip"
        )
    return found.record, found.truth


class ClipPictures:
    """Trick pictures from the clip: the frame a play names, read on demand, as JPEG."""

    def __init__(self, clip: Path) -> None:
        self.clip = clip
        self._lock = threading.Lock()

    def jpeg(self, play: Mapping[str, Any]) -> bytes | None:
        import cv2

        frames = play.get("frames") or {}
        wanted = str(frames.get("stable") or frames.get("landed") or "")
        if not wanted.isdigit():
            return None
        with self._lock:
            cap = cv2.VideoCapture(str(self.clip))
            try:
                cap.set(cv2.CAP_PROP_POS_FRAMES, int(wanted))
                ok, image = cap.read()
            finally:
                cap.release()
        if not ok or image is None:
            return None
        ok, data = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, 80])
        return bytes(data) if ok else None


def truth_camera_events(
    truth: list[dict[str, Any]], epoch: float, fps: float
) -> list[tuple[float, Camera]]:
    """The clip's ground-truth events as the camera would report them: ``(clip time, (kind,
    data))`` with times ``epoch + clip time`` and a play stable :data:`SETTLE_S` after landing."""
    out: list[tuple[float, Camera]] = []
    settle_frames = round(SETTLE_S * fps)
    for e in truth:
        kind = str(e.get("type"))
        if kind == "play":
            t = float(e["t_landed"])
            landed = str((e.get("frames") or {}).get("landed", ""))
            stable = str(int(landed) + settle_frames) if landed.isdigit() else ""
            data: dict[str, Any] = {
                "seat": e["seat"],
                "cards": list(e["cards"]),
                "t_landed": epoch + t,
                "t_stable": epoch + t + SETTLE_S,
                "frames": {"landed": landed, "stable": stable},
            }
        elif kind in ("trick_cleared", "kitty"):
            t = float(e["t"])
            data = {k: v for k, v in e.items() if k not in ("seq", "type")}
            data["t"] = epoch + t
        else:
            continue
        out.append((t, (kind, data)))
    return out


class ClipFeed(FeedSource):
    """The clip's ground truth played as the camera, at the clip's pace × ``speed`` (no gap is
    shortened: the over-time play waits as long as in the clip)."""

    def __init__(
        self, record: Mapping[str, Any], truth: list[dict[str, Any]], *, fps: float, speed: float
    ) -> None:
        super().__init__([record], speed=speed, max_gap_s=float("inf"), report_end=True)
        self.truth = truth
        self.fps = fps

    def events(self, index: int, epoch: float) -> list[tuple[float, Camera]]:
        return truth_camera_events(self.truth, epoch, self.fps)


class PacedSource(FrameSource):
    """A recording played at its own pace × ``speed`` (a camera delivers frames in real time;
    when the reader falls behind, frames come as fast as it takes them)."""

    def __init__(self, inner: FrameSource, speed: float) -> None:
        self.inner = inner
        self.speed = speed
        self.live = False
        self._start: float | None = None

    def open(self) -> None:
        self.inner.open()

    def read(self) -> Frame | None:
        frame = self.inner.read()
        if frame is None:
            return None
        now = time.monotonic()
        if self._start is None:
            self._start = now - frame.t / self.speed
        wait = self._start + frame.t / self.speed - now
        if wait > 0:
            time.sleep(wait)
        return frame

    def close(self) -> None:
        self.inner.close()

    def describe(self) -> str:
        return f"{self.inner.describe()} at ×{self.speed:g}"


class PacedCameraLoop(CameraLoop):
    """:class:`CameraLoop` on a :class:`PacedSource`."""

    def __init__(self, *args: Any, speed: float, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.speed = speed

    def _source(self) -> FrameSource:
        return PacedSource(open_source(self.spec), self.speed)


class DemoService(TableService):
    """The table service on the clip: a fresh log started with the record's contract, the clip
    read by the pipeline (paced) or, with a :class:`ClipFeed`, its truth played instead."""

    def __init__(
        self,
        config: TableConfig,
        contract: Mapping[str, Any],
        *,
        model: Path | None,
        feed: ClipFeed | None,
        speed: float,
    ) -> None:
        super().__init__(config, source=str(CLIP), model=model, feed=feed)
        self.contract = dict(contract)
        self.speed = speed
        self.sink.picture = ClipPictures(Path(self.source)).jpeg

    def prepare(self) -> str:
        start_table(self.live, self.contract)  # the log is new: the hand starts with the record's
        return super().prepare()

    def _camera(self, contract: dict[str, Any]) -> Any:
        from vision.detector import CardDetector

        assert self.model is not None
        return PacedCameraLoop(
            self.config,
            self.source,
            self.sink,
            CardDetector(self.model),
            contract,
            speed=self.speed,
        )

    def source_done(self) -> bool:
        """Whether the clip (or its simulated reading) has played to its end."""
        if self.feed is not None:  # a feed goes on reporting health once played out
            return self.feed.done.is_set()
        return bool(self._threads) and not self._threads[0].is_alive()


# ----------------------------------------------------------------------------- the command


def data_folder(arg: Path | None) -> tuple[Path, bool]:
    """The demo's data folder and whether it is a temporary one (removed on exit)."""
    if arg is None:
        return Path(tempfile.mkdtemp(prefix="chaodipi-demo-")), True
    if arg.exists() and (not arg.is_dir() or any(arg.iterdir())):
        raise DemoError(f"--data-dir {arg} is not an empty folder: give an empty or new folder")
    arg.mkdir(parents=True, exist_ok=True)
    return arg, False


def serve(service: DemoService, host: str, port: int | None) -> tuple[str, int]:
    """Serve on ``port``, or on the first free port from :data:`FIRST_PORT`."""
    if port is not None:
        try:
            return service.serve(host, port)
        except OSError as e:
            raise DemoError(
                f"cannot serve on {host}:{port} ({e.strerror}): give another --port, or 0"
            ) from None
    for candidate in range(FIRST_PORT, FIRST_PORT + PORT_TRIES):
        try:
            return service.serve(host, candidate)
        except OSError:
            continue
    return service.serve(host, 0)


def cmd_text(args: argparse.Namespace) -> int:
    """``chaodipi demo --text``: simulate the demo hand and print the referee's reading."""
    from engine.audit import audit
    from engine.record import load_record
    from engine.report import render_text
    from engine.simulate import simulate_hand

    record, _ = simulate_hand(args.rules, args.seed, ["revoke", "overtime"])
    print(render_text(audit(load_record(record))))
    return 0


def say(text: str) -> None:
    print(text, flush=True)


def cmd_demo(args: argparse.Namespace) -> int:
    """Run ``chaodipi demo`` (see the module docstring) until Ctrl-C or SIGTERM."""
    if args.text:
        return cmd_text(args)
    if not args.speed > 0:
        raise DemoError(f"--speed must be > 0 (got {args.speed}): e.g. 4 for four times faster")
    record_path, truth_path = clip_paths(CLIP)
    record = read_record(record_path)
    from chaodipi.replay.replay import read_json
    from vision.events import read_events
    from vision.synth.render import RENDER_FORMAT

    info = read_json(CLIP.with_name(f"{CLIP.stem}.render.json"), "render parameters")
    fps = float(info.get("fps", 10.0)) if info.get("format") == RENDER_FORMAT else 10.0
    duration = float(info.get("duration_s", 0.0))
    from vision.detector import DEFAULT_MODEL

    chosen = detector_for(args.model, args.deck, "demo")
    model = chosen or DEFAULT_MODEL
    simulated = args.ground_truth or not model.is_file()
    if chosen is not None and not model.is_file():
        raise DemoError(f"no detector model at {model}: give an existing --model file")
    feed = ClipFeed(record, read_events(truth_path), fps=fps, speed=args.speed)
    folder, temporary = data_folder(args.data_dir)
    config = default_config()
    config = replace(
        config,
        source=str(CLIP),
        model=str(model),
        web=replace(config.web, referee_pin=DEMO_PIN),
        service=replace(config.service, data_dir=str(folder), web_threads=args.threads),
    )
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(name)s: %(message)s")
    service = DemoService(
        config,
        contract_of(record),
        model=None if simulated else model,
        feed=feed if simulated else None,
        speed=args.speed,
    )
    try:
        return run_demo(args, service, model, simulated, folder, temporary, duration)
    finally:
        if temporary:
            shutil.rmtree(folder, ignore_errors=True)


def run_demo(
    args: argparse.Namespace,
    service: DemoService,
    model: Path,
    simulated: bool,
    folder: Path,
    temporary: bool,
    duration: float,
) -> int:
    """Prepare, serve and wait for Ctrl-C/SIGTERM; print what the user needs."""
    stopping = threading.Event()

    def on_signal(signum: int, frame: FrameType | None) -> None:
        stopping.set()

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    try:
        service.prepare()
        host, port = serve(service, args.host, args.port)
    except BaseException:
        service.stop()
        raise
    c = service.contract
    levels = " ".join(f"{side}={rank}" for side, rank in c["levels"].items())
    base = f"http://{host}:{port}"
    say(f"chaodipi demo: 演示录像 / demo footage {CLIP} ({duration:.0f} s, ×{args.speed:g})")
    say(
        f"  定约（取自录像旁的牌局记录）/ contract from {CLIP.stem}.record.json: "
        f"rules {c['rules']}, declarer {c['declarer']}, trump {c['trump']}, levels {levels}"
    )
    if simulated:
        why = "按要求" if args.ground_truth else f"未安装识牌模型 {model}"
        why_en = (
            "as asked (--ground-truth)" if args.ground_truth else f"no detector model at {model}"
        )
        say(f"  注意：{why}，摄像头读牌为模拟（按录像的真值事件回放）。")
        say(f"  NOTE: {why_en}: the camera reading is SIMULATED from the clip's ground truth.")
    else:
        say(f"  识牌模型 / detector: {model} — 实时读取录像 / reading the footage live")
    kept = "退出时删除 / removed on exit" if temporary else "保留 / kept"
    say(f"  数据（每次新建）/ data (fresh each start): {folder} ({kept})")
    say(f"  记分牌 Scoreboard:        {base}/")
    say(f"  裁判台 Referee console:   {base}/referee   PIN {DEMO_PIN}")
    say(f"  直播叠加 Stream overlay:  {base}/overlay")
    say("  按 Ctrl-C 停止 / Press Ctrl-C to stop.")
    announced = False
    while not stopping.wait(0.25):
        if not announced and service.source_done():
            announced = True
            say(
                "chaodipi demo: 录像放完，网页继续服务，按 Ctrl-C 退出 / "
                "the clip has ended; still serving until Ctrl-C"
            )
    service.stop()
    say("chaodipi demo: stopped")
    return 0


def add_demo_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``demo`` to the CLI."""
    from engine.profiles import PROFILE_NAMES

    p: argparse.ArgumentParser = sub.add_parser(
        "demo",
        help="the table service on the bundled demo footage: scoreboard and referee console "
        "in the browser (--text: audit a simulated hand in the terminal)",
    )
    p.add_argument("--host", default="127.0.0.1", help="address to serve on (default 127.0.0.1)")
    p.add_argument(
        "--port", type=port_number, help=f"port (default: the first free from {FIRST_PORT}; 0: any)"
    )
    p.add_argument("--speed", type=float, default=1.0, help="play the clip × faster (default 1)")
    p.add_argument("--model", type=Path, help="detector ONNX (default models/card_detector.onnx)")
    p.add_argument("--deck", type=Path, metavar="DIR", help=DECK_HELP)
    p.add_argument(
        "--ground-truth",
        action="store_true",
        help="simulate the camera from the clip's ground truth (what happens without a model)",
    )
    p.add_argument("--data-dir", type=Path, help="keep the log here (an empty or new folder)")
    p.add_argument("--threads", type=int, default=16, help="web threads (default 16)")
    p.add_argument(
        "--text", action="store_true", help="only audit a simulated hand and print the reading"
    )
    p.add_argument("--rules", default="XX", choices=PROFILE_NAMES, help="with --text")
    p.add_argument("--seed", type=int, default=2026, help="with --text")
    p.set_defaults(func=cmd_demo)
    return p
