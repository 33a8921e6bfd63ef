"""Detector benchmark: milliseconds per decision frame with onnxruntime on one thread.

    .venv/bin/python bench/vision_bench.py [--model models/card_detector.onnx] [--runs 30]
        [--threads 1] [--json]

Frames drawn here (cards as white rectangles with corner indices on green felt): (a) 320×320,
one letterboxed pass; (b) 800×800, the table pipeline's decision frame (the part of the default
90 cm table its zones cover, 80 × 80 cm, warped top-down at 10 px/cm, so a card index is
≈ 18–25 px); (c) 1280×960, a raw camera-sized frame, tiled automatically; (d) a real decision
frame: the bundled demo clip at 30 s (rendered cards of the held-out design, a trick on the
table) calibrated and warped the way the pipeline does it; (e) one seat zone's read, 600×350
(``vision.zone_reads``: the zone and its margin at 10 px/cm, one pass at that scale when the
model takes any input size), drawn and (f) from the demo clip — the pipeline reads only the
zones whose pixels changed, at most two a decision frame. Each timing covers
the whole decision path: letterbox/tiling, inference, decode, NMS, tile merge and grouping into
cards. Median (and p90) of ``--runs`` runs after 3 warm-ups, in this one process.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.detector import DEFAULT_MODEL, CardDetector
from vision.grouping import group_cards
from vision.table_geometry import TableGeometry, ZoneConfig
from vision.zones import Zones

CARDS = ["AS", "10H", "KD", "7C", "BJ", "QS", "2H", "9D"]


def synthetic_frame(width: int, height: int, seed: int = 0) -> np.ndarray:
    """A table-like frame: felt with noise and a few upright cards showing two corner indices."""
    rng = np.random.default_rng(seed)
    felt = np.zeros((height, width, 3), np.uint8)
    felt[:] = (40, 110, 30)
    frame: np.ndarray = cv2.add(felt, rng.integers(0, 25, felt.shape, dtype=np.uint8))
    card_h = max(60, height // 4)
    card_w = int(card_h * 0.7)
    for i, name in enumerate(CARDS):
        x = int(rng.integers(0, max(1, width - card_w)))
        y = int(rng.integers(0, max(1, height - card_h)))
        cv2.rectangle(frame, (x, y), (x + card_w, y + card_h), (245, 245, 245), -1)
        colour = (20, 20, 200) if name[-1] in "HD" or name == "BJ" else (20, 20, 20)
        scale = card_h / 220
        cv2.putText(frame, name, (x + 3, y + int(card_h * 0.14)), 0, scale, colour, 2)
        cv2.putText(
            frame, name, (x + card_w - int(card_w * 0.35), y + card_h - 6), 0, scale, colour, 2
        )
        if i >= 2 + width // 320:
            break
    return frame


def demo_decision_frame(second: float = 30.0, zone: str | None = None) -> np.ndarray | None:
    """A real decision frame: the bundled demo clip at ``second`` s, calibrated on its markers
    and its zones' region (or one ``zone``'s reading rectangle) warped top-down at 10 px/cm, as
    the pipeline reads it; None without the clip."""
    from vision.calibration import calibrate, warp_table
    from vision.zone_reads import zone_rects

    clip = Path(__file__).resolve().parent.parent / "chaodipi" / "demo" / "demo.mp4"
    cap = cv2.VideoCapture(str(clip))
    try:
        cap.set(cv2.CAP_PROP_POS_MSEC, second * 1000)
        ok, frame = cap.read()
    finally:
        cap.release()
    if not ok:
        return None
    zones = _default_zones()
    region = zone_rects(zones)[zone] if zone else zones.reading_region_cm()
    warped: np.ndarray = warp_table(frame, calibrate(frame, TableGeometry()), 10.0, region)
    return warped


def _default_zones() -> Zones:
    return Zones.from_config(TableGeometry(), ZoneConfig())


def decision_frame_size(px_per_cm: float = 10.0) -> tuple[int, int]:
    """The pipeline's decision frame in pixels: the default zones' reading region."""
    x0, y0, x1, y1 = _default_zones().reading_region_cm()
    return round((x1 - x0) * px_per_cm), round((y1 - y0) * px_per_cm)


def time_frame(
    detector: CardDetector, frame: np.ndarray, runs: int, native: bool = False
) -> dict[str, float]:
    for _ in range(3):  # warm-ups; the last also says how many cards the frame holds
        cards = group_cards(detector.detect(frame, native=native))
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        group_cards(detector.detect(frame, native=native))
        times.append((time.perf_counter() - start) * 1000)
    times.sort()
    return {
        "median_ms": round(statistics.median(times), 2),
        "p90_ms": round(times[min(len(times) - 1, int(0.9 * len(times)))], 2),
        "tiles": 1 if native else len(detector.plan(frame.shape[1], frame.shape[0])),
        "cards": len(cards),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--model", default=str(DEFAULT_MODEL))
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    try:
        detector = CardDetector(Path(args.model), threads=args.threads)
    except ValueError as e:
        print(f"vision_bench: {e}", file=sys.stderr)
        return 2
    result = {
        "model": args.model,
        "model_size": detector.size,
        "batched_tiles": detector.dynamic_batch,
        "threads": args.threads,
        "runs": args.runs,
        "frame_320x320": time_frame(detector, synthetic_frame(320, 320), args.runs),
        "frame_1280x960": time_frame(detector, synthetic_frame(1280, 960), args.runs),
        # the pipeline's decision frame: the zones' region warped top-down at 10 px/cm
        "frame_decision": time_frame(detector, synthetic_frame(*decision_frame_size()), args.runs),
    }
    native = detector.reads_native
    result["frame_zone"] = time_frame(detector, synthetic_frame(600, 350), args.runs, native)
    demo = demo_decision_frame()
    if demo is not None:
        result["frame_demo_decision"] = time_frame(detector, demo, args.runs)
    demo_zone = demo_decision_frame(zone="S")
    if demo_zone is not None:
        result["frame_demo_zone"] = time_frame(detector, demo_zone, args.runs, native)
    result |= {
        "machine": f"{platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
        f"{platform.system()} {platform.release()}, Python {platform.python_version()}",
    }
    if args.json:
        print(json.dumps(result))
        return 0
    print(
        f"model {args.model} ({detector.size} px, "
        f"{'batched' if detector.dynamic_batch else 'sequential'} tiles), "
        f"{args.threads} thread(s), median of {args.runs} runs"
    )
    keys = ("frame_320x320", "frame_decision", "frame_demo_decision", "frame_1280x960")
    for key in (*keys, "frame_zone", "frame_demo_zone"):
        r = result.get(key)
        if r is None:
            continue
        assert isinstance(r, dict)
        print(
            f"  {key[6:]:>14}: {r['median_ms']:.1f} ms (p90 {r['p90_ms']:.1f}), "
            f"{r['tiles']} pass(es), {r['cards']} cards read"
        )
    print(f"  machine: {result['machine']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
