"""Fans against scale: how many plays one still frame reads exactly, at each localiser scale.

    .venv/bin/python bench/fan_scale.py HAND_FOLDER... [--model models/card_detector.onnx]
        [--scales 6.4,8,10,12] [--json]

Each HAND_FOLDER is one of ``chaodipi replay-eval``'s hands (its ``frames/`` with
``render.json`` and ``ground_truth.jsonl``). For every trick, the frame 1.5 s after its last
card landed (and at least 1 s before the sweep) is read the way the pipeline read it before
``vision.zone_reads``: the zones' whole reading region warped top-down and localised in one
pass, here at each of ``--scales`` pixels a cm (the view is warped at 10 px a cm, or at the
scale itself above 10, and fitted into the model's input: 6.4 px a cm is the 800 px view in
512); each index is read from the camera frame. A seat's play is exactly right when its cards
in that frame are the play's multiset. No tracking, no motion: this isolates what the
localiser's scale does to fanned cards, whose index shows as a 1.3 cm strip.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.calibration import top_down_view, warp_view
from vision.crops import ReadingSource
from vision.detector import DEFAULT_MODEL, CardDetector
from vision.grouping import group_cards
from vision.table_geometry import Calibration, TableGeometry, ZoneConfig
from vision.zones import Zones


def still_frames(hand: Path) -> list[tuple[int, dict[str, list[str]]]]:
    """(frame index, each seat's cards on the table) for one still frame a trick."""
    frames = hand / "frames"
    fps = float(json.loads((frames / "render.json").read_text("utf-8"))["fps"])
    out: list[tuple[int, dict[str, list[str]]]] = []
    plays: list[dict[str, object]] = []
    for line in (frames / "ground_truth.jsonl").read_text("utf-8").splitlines():
        event = json.loads(line)
        if event["type"] == "play":
            plays.append(event)
        elif event["type"] == "trick_cleared" and plays:
            t = min(float(str(plays[-1]["t_landed"])) + 1.5, float(event["t"]) - 1.0)
            table: dict[str, list[str]] = collections.defaultdict(list)
            for p in plays:
                table[str(p["seat"])] += list(p["cards"])  # type: ignore[call-overload]
            out.append((round(t * fps), dict(table)))
            plays = []
    return out


def read_plays(
    detector: CardDetector, image: np.ndarray, calibration: Calibration, scale: float
) -> dict[str, list[str]]:
    """Each seat's cards in one camera frame, localised at ``scale`` px a cm."""
    zones = Zones.from_config(TableGeometry(), ZoneConfig())
    region = zones.reading_region_cm()
    warp_ppc = max(10.0, scale)
    to_top, size = top_down_view(calibration, warp_ppc, region)
    top = warp_view(image, to_top, size)
    detector.size = int(round(max(size) * scale / warp_ppc / 32) * 32)
    dets = detector.detect(top, tiles=1, source=ReadingSource(image, np.linalg.inv(to_top)))
    by_seat: dict[str, list[str]] = collections.defaultdict(list)
    for card in group_cards(dets):
        x = np.mean([(b[0] + b[2]) / 2 for b in card.boxes]) / warp_ppc + region[0]
        y = np.mean([(b[1] + b[3]) / 2 for b in card.boxes]) / warp_ppc + region[1]
        seat = zones.seat_of((x, y))
        if seat:
            by_seat[seat].append(card.identity)
    return by_seat


def main() -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("hands", nargs="+", type=Path)
    ap.add_argument("--model", type=Path, default=DEFAULT_MODEL)
    ap.add_argument("--scales", default="6.4,8,10,12")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    cv2.setNumThreads(1)
    detector = CardDetector(args.model, conf=0.5)
    scales = [float(s) for s in args.scales.split(",")]
    cases = []
    for hand in args.hands:
        info = json.loads((hand / "frames" / "render.json").read_text("utf-8"))
        calibration = Calibration(
            homography=tuple(tuple(r) for r in info["homography_image_to_table_cm"]),
            image_size=tuple(info["size"]),
            table_size_cm=(TableGeometry().width_cm, TableGeometry().height_cm),
            points_px=((0, 0),) * 4,
            when="render.json",
            method="manual",
        )
        cases += [(hand, i, truth, calibration) for i, truth in still_frames(hand)]
    result: dict[str, dict[str, float]] = {}  # scale → plays, exact, fraction
    for scale in scales:
        exact = total = 0
        for n, (hand, i, truth, calibration) in enumerate(cases, 1):
            image = cv2.imread(str(hand / "frames" / f"frame_{i:06d}.jpg"))
            if image is None:
                raise SystemExit(f"fan_scale: cannot read frame {i} of {hand}: render it again")
            seen = read_plays(detector, image, calibration, scale)
            for seat, cards in truth.items():
                total += 1
                exact += sorted(seen.get(seat, [])) == sorted(cards)
            sys.stderr.write(f"\r{scale:g} px/cm: frame {n}/{len(cases)}")
        sys.stderr.write("\n")
        result[f"{scale:g}"] = {"plays": total, "exact": exact, "fraction": exact / max(1, total)}
    if args.json:
        print(json.dumps(result))
    else:
        for key, r in result.items():
            print(f"{key:>5} px a cm: {r['exact']}/{r['plays']} plays exactly right "
                  f"({r['fraction']:.1%})")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main())
