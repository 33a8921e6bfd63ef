"""Hand records → camera footage with ground truth: what ``chaodipi render`` writes.

This module owns the output of a render: :func:`render_hand` turns a ``chaodipi-hand/1`` record
into frames of an overhead camera watching the table (see :mod:`vision.synth.render_plan` for the
choreography and :mod:`vision.synth.render_scene` for the pixels) and writes, for a folder ``OUT``:

* ``OUT/frame_000000.jpg`` … and ``OUT/timestamps.csv`` (frame *i* at exactly *i / fps* s),
  in the format of :func:`device.folder_source.write_frame_folder` (JPEG, quality 95);
* ``OUT/ground_truth.jsonl``: the events a perfect tracker would emit, in the JSON of
  :mod:`vision.events` with a ``seq`` (as :class:`vision.events.EventLog` writes them): ``play``
  (seat, the record's cards, ``t_landed`` = the first frame in which the cards rest on the
  table, ``t_stable`` null — settling belongs to the real tracker), ``trick_cleared`` (the first
  frame in which no card of the trick lies in a seat zone), ``kitty``, and for a record with
  ``takebacks`` or ``exposed`` a ``takeback`` (the first frame in which the lifted cards are out
  of the seat's zone; their landing is a ``play`` before it) and an ``exposed_card`` (the
  first frame in which the card lies face up outside every zone, with its place in table cm);
  for a record with ``before_play`` (the draw phase, played before the first trick) a
  ``declaration`` for each declaration and 炒 (the first frame in which its cards lie face up
  at the seat's edge) and a ``kitty_move`` for each take and bury (seat, ``take`` / ``bury``,
  the number of cards; the first frame in which the kitty is off the table / in the centre
  again);
* ``OUT/record.json`` (the source record) and ``OUT/render.json`` (the parameters, the camera's
  homography image px → table cm that calibration should find, fps, size, design, seed, and each
  play's record and video time).

For ``OUT`` ending in ``.avi`` (MJPG) or ``.mp4`` (mp4v) the frames go to one video file instead
and the other files sit beside it as ``<stem>.truth.jsonl``, ``<stem>.record.json`` and
``<stem>.render.json``; their ``frames`` fields then hold frame indices.

The default card design is ``adrian_kennard``: the detector is trained on ``procedural`` and
``byron_knoll`` faces only, so footage in this deck tests it on a design it never saw.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from device.folder_source import TIMESTAMPS_CSV, list_images, write_frame_folder
from device.picamera_source import DEFAULT_SIZE
from device.source import Frame
from engine.record import load_record
from vision.events import EventLog, PlayEvent
from vision.synth.render_plan import (
    LEAD_IN_S,
    PILE_IN_CM,
    PILE_RIGHT_CM,
    Timeline,
    build_timeline,
    edge_point,
)
from vision.synth.render_scene import (
    Camera,
    Deck,
    HandLook,
    Photometric,
    draw_cards,
    draw_hand,
    draw_pile,
    make_camera,
    random_look,
    render_base,
)
from vision.table_geometry import TableGeometry, ZoneConfig
from vision.zones import SEATS

HELD_OUT_DESIGN = "adrian_kennard"
"""The deck design kept out of detector training (training uses procedural + byron_knoll)."""
CAMERA_SIZE = DEFAULT_SIZE
"""Footage size by default: the Pi camera's default mode (4608 × 2592, the full sensor,
``device.picamera_source``); the table then spans ≈ 27 px a cm, a camera ≈ 1.3 m above it (a
corner index ≈ 48 px tall; ≈ 13.5 px a cm and 24 px in the binned 2304 × 1296 mode)."""

VIDEO_CODECS = {".avi": "MJPG", ".mp4": "mp4v"}
FRAME_EXT = ".jpg"
VIDEO_QUALITY = 90  # MJPG quality (frame folders: OpenCV's JPEG default, 95)
RENDER_FORMAT = "chaodipi-render/1"


class RenderError(ValueError):
    """The render cannot start with this input; the message is one line naming the fix."""


CAMERA_SIZE_TEXT = "x".join(map(str, CAMERA_SIZE))
"""The default footage size as ``--size`` takes it (what :func:`parse_size` reads)."""


def parse_size(text: str) -> tuple[int, int]:
    """``"1280x960"`` → ``(1280, 960)``; a one-line :class:`RenderError` otherwise."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        w, h = (int(v) for v in parts)
    except ValueError:
        raise RenderError(f"--size {text!r} must be WIDTHxHEIGHT, e.g. 1280x960") from None
    return w, h


@dataclass(frozen=True)
class RenderResult:
    """What :func:`render_hand` wrote."""

    out: Path  # the frame folder or the video file
    frames: int
    fps: float
    size: tuple[int, int]
    duration_s: float
    truth_path: Path
    record_path: Path
    render_path: Path
    ms_per_frame: float  # drawing only (not encoding or writing)
    events: list[dict[str, Any]] = field(default_factory=list)


def _paths(out: Path) -> tuple[bool, Path, Path, Path]:
    """(is_video, truth, record, render) paths for an output."""
    if out.suffix.lower() in VIDEO_CODECS:
        stem = out.with_suffix("")
        return (
            True,
            stem.with_name(stem.name + ".truth.jsonl"),
            stem.with_name(stem.name + ".record.json"),
            stem.with_name(stem.name + ".render.json"),
        )
    return False, out / "ground_truth.jsonl", out / "record.json", out / "render.json"


def _check(
    out: Path,
    fps: float,
    size: tuple[int, int],
    time_scale: float,
    max_seconds: float | None,
) -> None:
    if not fps > 0:
        raise RenderError(f"fps must be positive (got {fps}): use e.g. --fps 10")
    if not time_scale > 0:
        raise RenderError(f"time scale must be positive (got {time_scale}): use e.g. 1 or 4")
    if max_seconds is not None and not max_seconds > 0:
        raise RenderError(f"max seconds must be positive (got {max_seconds})")
    w, h = size
    if w < 64 or h < 48 or w > 8192 or h > 8192:
        raise RenderError(f"frame size {w}x{h} is out of range: use e.g. 4608x2592")
    video, truth, _, _ = _paths(out)
    if video:
        if out.exists():
            raise RenderError(f"{out} already exists: remove it or choose another name")
    elif out.exists() and (
        not out.is_dir() or list_images(out) or (out / TIMESTAMPS_CSV).exists() or truth.exists()
    ):
        raise RenderError(f"{out} already holds a render: write to an empty or new folder")


class _Painter:
    """Draws the frames of a timeline (resting cards cached in a layer)."""

    def __init__(
        self, tl: Timeline, camera: Camera, base: np.ndarray, deck: Deck, seed: int
    ) -> None:
        self.tl, self.camera, self.base, self.deck, self.seed = tl, camera, base, deck, seed
        looks_rng = np.random.default_rng([seed, 5])
        self.looks: dict[str, HandLook] = {s: random_look(looks_rng) for s in SEATS}
        self.photo = Photometric(np.random.default_rng([seed, 6]), camera, tl.duration)
        self._key: tuple[Any, ...] | None = None
        self._layer = base

    def _resting_layer(self, t: float) -> np.ndarray:
        resting = tuple(i for i, g in enumerate(self.tl.groups) if g.resting(t))
        piles = self.tl.piles(t)
        key = (resting, tuple(piles.values()))
        if key != self._key:
            layer = self.base.copy()
            for seat, n in piles.items():
                if n:
                    centre = edge_point(self.tl.geometry, seat, PILE_IN_CM, PILE_RIGHT_CM)
                    rng = np.random.default_rng([self.seed, 7, SEATS.index(seat), n])
                    draw_pile(layer, self.camera, self.deck, centre, seat, n, rng)
            for i in resting:
                draw_cards(layer, self.camera, self.deck, self.tl.groups[i].cards)
            self._key, self._layer = key, layer
        return self._layer

    def frame(self, t: float) -> np.ndarray:
        img = self._resting_layer(t).copy()
        for g in self.tl.groups:
            if not g.resting(t):
                cards = g.at(t)
                if cards is not None:
                    draw_cards(img, self.camera, self.deck, cards)
        for hand, pos in self.tl.hands_at(t):
            draw_hand(img, self.camera, hand.seat, pos, self.looks[hand.seat])
        return self.photo.apply(img, t)


def _truth_json(events: list[Any]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        body: dict[str, Any] = e.to_json()
        if isinstance(e, PlayEvent):
            body["t_stable"] = None
            body["frames"]["stable"] = ""
        out.append(body)
    return out


def render_hand(
    record: Mapping[str, Any],
    out: Path | str,
    *,
    fps: float = 10,
    size: tuple[int, int] = CAMERA_SIZE,
    design: str = HELD_OUT_DESIGN,
    seed: int = 0,
    time_scale: float = 1.0,
    max_seconds: float | None = None,
    geometry: TableGeometry | None = None,
    zone_config: ZoneConfig | None = None,
) -> RenderResult:
    """Render a hand record as overhead-camera footage plus its ground truth.

    ``out`` is a folder (JPEG frames + ``timestamps.csv``) or a ``.avi``/``.mp4`` file; see the
    module docstring for what is written beside. ``design`` defaults to ``adrian_kennard``,
    the deck held out of detector training, so the footage is an honest test. ``seed`` fixes the
    table, camera pose, layout, hands and lighting; ``time_scale`` > 1 plays the hand faster
    (record gaps are divided by it); ``max_seconds`` cuts the footage (and the truth) short.
    A malformed record raises :class:`engine.record.RecordError`, other bad input
    :class:`RenderError` (both ``ValueError``).
    """
    out = Path(out)
    load_record(record)  # validate: RecordError with a one-line message
    size = (int(size[0]), int(size[1]))
    _check(out, fps, size, time_scale, max_seconds)
    geometry = geometry or TableGeometry()
    zone_config = zone_config or ZoneConfig()
    camera = make_camera(np.random.default_rng([seed, 1]), size, geometry)
    deck = Deck(design, np.random.default_rng([seed, 3]), 8.8 * camera.px_per_cm)
    tl = build_timeline(
        record,
        np.random.default_rng([seed, 4]),
        fps=fps,
        time_scale=time_scale,
        geometry=geometry,
        zone_config=zone_config,
    )
    base = render_base(np.random.default_rng([seed, 2]), camera, geometry)
    painter = _Painter(tl, camera, base, deck, seed)
    n = int(tl.duration * fps) + 1
    if max_seconds is not None:
        n = min(n, int(max_seconds * fps + 1e-9) + 1)
    video, truth_path, record_path, render_path = _paths(out)
    name: Callable[[int], str] = (
        (lambda i: str(i)) if video else (lambda i: f"frame_{i:06d}{FRAME_EXT}")
    )
    spent = [0.0]

    def frames() -> Iterator[Frame]:
        for i in range(n):
            t = i / fps
            start = time.perf_counter()
            img = painter.frame(t)
            spent[0] += time.perf_counter() - start
            yield Frame(img, t, i, f"render {out.name}")

    if video:
        out.parent.mkdir(parents=True, exist_ok=True)
        fourcc = cv2.VideoWriter.fourcc(*VIDEO_CODECS[out.suffix.lower()])
        writer = cv2.VideoWriter(str(out), fourcc, float(fps), size)
        if not writer.isOpened():
            raise RenderError(f"cannot open a video writer for {out}: write a frame folder")
        writer.set(cv2.VIDEOWRITER_PROP_QUALITY, VIDEO_QUALITY)
        count = 0
        try:
            for frame in frames():
                writer.write(frame.image)
                count = frame.index + 1
        finally:
            writer.release()
    else:
        count = write_frame_folder(frames(), out, ext=FRAME_EXT)
    events = _truth_json(tl.truth(count, fps, name))
    truth_path.parent.mkdir(parents=True, exist_ok=True)
    with EventLog(truth_path) as log:
        written = [log.append(e) for e in events]
    record_path.write_text(json.dumps(record, ensure_ascii=False, indent=1) + "\n", "utf-8")
    ms = 1000 * spent[0] / max(1, count)
    info = {
        "format": RENDER_FORMAT,
        "output": {"path": out.name, "kind": "video" if video else "frames"},
        "frame_ext": None if video else FRAME_EXT,
        "fps": fps,
        "size": list(size),
        "frames": count,
        "duration_s": round((count - 1) / fps, 6),
        "design": design,
        "design_held_out_of_training": design == HELD_OUT_DESIGN,
        "seed": seed,
        "time_scale": time_scale,
        "max_seconds": max_seconds,
        "lead_in_s": LEAD_IN_S,
        "px_per_cm": round(camera.px_per_cm, 4),
        "homography_image_to_table_cm": camera.image_to_table.tolist(),
        "homography_table_cm_to_image": camera.table_to_image.tolist(),
        "table": asdict(geometry),
        "zones": asdict(zone_config),
        "plays": tl.schedule(),
        "ms_per_frame": round(ms, 2),
    }
    render_path.write_text(json.dumps(info, indent=1) + "\n", "utf-8")
    return RenderResult(
        out,
        count,
        fps,
        size,
        (count - 1) / fps,
        truth_path,
        record_path,
        render_path,
        ms,
        written,
    )
