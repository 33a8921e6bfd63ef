"""The ``chaodipi render`` command: its argparse builder and runner (``vision.synth.render``).

This module owns the command's arguments, reading the record file and the summary it prints;
the rendering is :mod:`vision.synth.render`'s. ``chaodipi.cli.main`` wires it in with
:func:`add_render_parser`, which sets ``func(args) -> int``. Bad input raises a ``ValueError``
with a one-line message (a missing or unreadable record: :class:`vision.synth.render.RenderError`; a
malformed one: :class:`engine.record.RecordError`), which the CLI prints with exit status 2.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from engine.record import RecordError, parse_record_text
from vision.synth.render import (
    CAMERA_SIZE_TEXT,
    HELD_OUT_DESIGN,
    RenderError,
    parse_size,
    render_hand,
)


def add_render_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``render RECORD.json OUT``: a hand record → camera footage + ground truth."""
    p: argparse.ArgumentParser = sub.add_parser(
        "render",
        help="render a hand record as overhead-camera footage with its ground-truth events",
    )
    p.add_argument("record", type=Path, help="hand record (chaodipi-hand/1 JSON)")
    p.add_argument("out", type=Path, help="frame folder, or a .avi / .mp4 video file")
    p.add_argument("--fps", type=float, default=10.0, help="frames per second (default 10)")
    p.add_argument(
        "--size",
        default=CAMERA_SIZE_TEXT,
        help=f"frame size WxH (default {CAMERA_SIZE_TEXT}, the Pi's)",
    )
    p.add_argument(
        "--design",
        default=HELD_OUT_DESIGN,
        help=f"card design (default {HELD_OUT_DESIGN}, held out of detector training)",
    )
    p.add_argument("--seed", type=int, default=0, help="table, camera, layout and lighting")
    p.add_argument(
        "--time-scale", type=float, default=1.0, help="play the hand this many times faster"
    )
    p.add_argument("--max-seconds", type=float, help="stop the footage after this many seconds")
    p.set_defaults(func=cmd_render)
    return p


def read_record(path: Path) -> Any:
    """The parsed JSON of a record file (validated later by ``engine.record.load_record``)."""
    if not path.is_file():
        raise RenderError(f"record {path} does not exist: give a hand record JSON file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise RecordError(f"{path} is not UTF-8 text: save it as UTF-8") from None
    return parse_record_text(text, str(path))


def cmd_render(args: argparse.Namespace) -> int:
    """Run ``render`` and print what was written."""
    record = read_record(args.record)
    result = render_hand(
        record,
        args.out,
        fps=args.fps,
        size=parse_size(args.size),
        design=args.design,
        seed=args.seed,
        time_scale=args.time_scale,
        max_seconds=args.max_seconds,
    )
    kinds: dict[str, int] = {}
    for e in result.events:
        kinds[e["type"]] = kinds.get(e["type"], 0) + 1
    counts = ", ".join(f"{n} {k}" for k, n in kinds.items()) or "no events"
    print(
        f"wrote {result.out}: {result.frames} frames at {result.fps:g} fps "
        f"({result.duration_s:.1f} s, {result.size[0]}x{result.size[1]}, "
        f"{result.ms_per_frame:.1f} ms/frame to draw)"
    )
    print(f"ground truth {result.truth_path}: {counts}")
    print(f"parameters and camera homography {result.render_path}")
    return 0
