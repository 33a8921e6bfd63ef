"""Whole-pipeline benchmark: per-stage milliseconds on one core and the Pi 5 budget they use.

    .venv/bin/python bench/pipeline_bench.py [FOOTAGE] [--model models/card_detector.onnx]
        [--size 4608x2592] [--fps 10] [--tricks 3] [--decision-fps 4] [--json]

Replays FOOTAGE (a frame folder or video, e.g. one written by ``chaodipi render``) through
``chaodipi.table.pipeline.TablePipeline`` with OpenCV and onnxruntime on one thread; without FOOTAGE
it first renders the first ``--tricks`` tricks of a simulated hand at ``--size`` (the camera
resolution) into a temporary folder. Prints, per stage (motion gate on every frame, warp,
detector, grouping + zones, tracker + game feed), ms per call, ms per decision and the share of
the decision budget: a Raspberry Pi 5 must decide 4 times a second (250 ms a decision) and is
taken as 4× slower than one core here (62.5 ms) — or, with ``--reference``, as many times slower
as ``bench/pi_reference.py`` measures against this machine (yolo11n at 640 px: ≈ 170 ms on a
Pi 5), since development VMs differ. Frame decoding is shown apart (a camera delivers decoded
frames). ``chaodipi replay-eval`` reports the same table over whole hands.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

import cv2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.pi_reference import pi_slowdown, reference_model, reference_ms
from chaodipi.replay.replay import footage_files, read_json, replay
from chaodipi.table.pipeline import PI_SLOWDOWN, TablePipeline, budget_text, contract_from_record
from engine.simulate import simulate_hand
from vision.detector import DEFAULT_MODEL, CardDetector
from vision.synth.render import CAMERA_SIZE_TEXT, parse_size, render_hand
from vision.zone_reads import PX_PER_CM


def render_clip(out: Path, size: tuple[int, int], fps: float, tricks: int) -> Path:
    """The first ``tricks`` tricks of a simulated hand, rendered 4× faster than recorded."""
    record, _ = simulate_hand("XX", 7)
    record["tricks"] = record["tricks"][:tricks]
    render_hand(record, out, fps=fps, size=size, time_scale=4.0, seed=7)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("footage", nargs="?", help="frame folder or video (default: render a clip)")
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--size", default=CAMERA_SIZE_TEXT, help="camera resolution of a rendered clip")
    ap.add_argument("--fps", type=float, default=10.0, help="frame rate of a rendered clip")
    ap.add_argument("--tricks", type=int, default=3, help="tricks in a rendered clip")
    ap.add_argument("--decision-fps", type=float, default=4.0)
    ap.add_argument("--px-per-cm", type=float, default=PX_PER_CM)
    ap.add_argument(
        "--reference",
        action="store_true",
        help="time yolo11n here first and take the Pi's slowdown from it (bench/pi_reference.py)",
    )
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    slowdown, reference = PI_SLOWDOWN, None
    if args.reference:
        reference = reference_ms(reference_model())
        slowdown = pi_slowdown(reference)
    detector = CardDetector(args.model, threads=1)
    with tempfile.TemporaryDirectory() as tmp:
        footage = args.footage or str(
            render_clip(Path(tmp) / "clip", parse_size(args.size), args.fps, args.tricks)
        )
        files = footage_files(footage)
        contract = contract_from_record(read_json(files.record, "record")) if files.record else None
        pipeline = TablePipeline(
            None,
            detector,
            decision_fps=args.decision_fps,
            px_per_cm=args.px_per_cm,
            contract=contract,
        )
        result = replay(footage, pipeline)
    if args.json:
        out = {
            "footage": args.footage or f"rendered {args.size}, {args.tricks} tricks",
            "model": str(args.model),
            "camera_fps": result.camera_fps,
            "yolo11n_640_ms": reference,
            **result.timings.to_json(),
            **result.timings.budget(slowdown=slowdown),
        }
        print(json.dumps(out, indent=1))
    else:
        if reference is not None:
            print(f"yolo11n 640 px here: {reference:.1f} ms → a Pi 5 is {slowdown:.2f}× slower")
        print(budget_text(result.timings, result.camera_fps, slowdown))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
