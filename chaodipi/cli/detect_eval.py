"""The ``chaodipi vision detect`` and ``chaodipi vision eval`` commands (wired in by the CLI).

This module owns the argument parsers and the printing of those two commands; the work is in
``vision.detector``, ``vision.grouping`` and ``vision.training.evaluate``. Bad input raises a
``ValueError`` subclass whose message is one line (the CLI prints it and exits 2).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.detector import (
    CONF,
    DEFAULT_MODEL,
    JOKER_LOC_CONF,
    JOKER_SIZE_RATIO,
    MAX_TILES,
    WEAK_INDEX_LOC_CONF,
    Calibration,
    CardDetector,
)
from vision.grouping import group_cards, summarize
from vision.onnx_model import ModelError
from vision.training.evaluate import DatasetError, draw_detections, evaluate

MIN_CALIBRATION_DETECTIONS = 20


class ImageError(ValueError):
    """An image given on the command line cannot be read or written; one line."""


def read_image(path: Path) -> np.ndarray:
    """A BGR image from a JPG/PNG file; :class:`ImageError` (one line) if missing or unreadable."""
    if not path.is_file():
        raise ImageError(f"image {path} does not exist: give a JPG or PNG file")
    data = np.fromfile(str(path), dtype=np.uint8)
    image = cv2.imdecode(data, cv2.IMREAD_COLOR) if data.size else None
    if image is None:
        raise ImageError(f"cannot decode image {path}: give a JPG or PNG file")
    return image


def _write_image(path: Path, image: np.ndarray) -> None:
    try:
        ok, data = cv2.imencode(path.suffix or ".png", image)
    except cv2.error:
        ok = False
    if not ok:
        raise ImageError(f"cannot write {path}: use a .png or .jpg name")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data.tobytes())


def _detector(args: argparse.Namespace) -> CardDetector:
    tiles = getattr(args, "tiles", None)
    if tiles is not None and tiles < 1:
        raise ValueError(f"--tiles must be 1 or more (got {tiles}): e.g. --tiles 1")
    return CardDetector(
        Path(args.model) if args.model else DEFAULT_MODEL,
        threads=args.threads,
        conf=getattr(args, "conf", CONF),
        joker_conf=getattr(args, "joker_conf", None),
        joker_loc_conf=getattr(args, "joker_loc_conf", JOKER_LOC_CONF),
        weak_index_loc_conf=getattr(args, "weak_index_loc_conf", WEAK_INDEX_LOC_CONF),
        joker_size_ratio=getattr(args, "joker_size_ratio", None),
        classifier_path=_classifier_choice(getattr(args, "classifier", "auto")),
        max_tiles=tiles or MAX_TILES,
    )


def _classifier_choice(value: str) -> Path | str | None:
    if value == "auto":
        return "auto"
    return None if value.lower() == "none" else Path(value)


def cmd_detect(args: argparse.Namespace) -> int:
    """Detect the cards in one image; print them grouped into physical cards."""
    image_path = Path(args.image)
    image = read_image(image_path)
    detector = _detector(args)
    detections = detector.detect(image, tiles=args.tiles)
    cards = group_cards(detections)
    if args.draw:
        _write_image(Path(args.draw), draw_detections(image, detections))
    if args.json:
        out: dict[str, Any] = {
            "image": str(image_path),
            "cards": [c.to_json() for c in cards],
            "detections": [d.to_json() for d in detections],
        }
        print(json.dumps(out, ensure_ascii=False, indent=1))
        return 0
    n = len(cards)
    print(f"{image_path}: {n} card{'s' if n != 1 else ''}: {summarize(cards)}")
    for d in detections:
        x1, y1, x2, y2 = d.box
        print(
            f"  {d.identity:<3} {d.confidence:.2f} (raw {d.score:.2f})  "
            f"box {x1:.0f},{y1:.0f}–{x2:.0f},{y2:.0f}"
        )
    if args.draw:
        print(f"drawn to {args.draw}")
    return 0


def _fmt(x: float | None) -> str:
    return "—" if x is None else f"{x:.3f}"


def cmd_eval(args: argparse.Namespace) -> int:
    """Score the detector on a YOLO-format dataset by the identities read per image."""
    dataset = Path(args.dataset)
    if not dataset.is_dir():
        raise DatasetError(f"dataset folder {dataset} does not exist: give a YOLO-format folder")
    mistakes: Path | None = None
    if not args.no_mistakes:
        mistakes = Path(args.mistakes or Path("out/eval_mistakes") / dataset.resolve().name)
    detector = _detector(args)
    result = evaluate(dataset, detector, mistakes)
    calibration_note = ""
    if args.calibrate:
        scores = [s for s, _ in result.scored]
        correct = [c for _, c in result.scored]
        calibration = Calibration.fit(scores, correct)
        path = Calibration.path_for(detector.model_path)
        if len(scores) < MIN_CALIBRATION_DETECTIONS or calibration.is_identity:
            calibration_note = (
                f"calibration not written: {len(scores)} detections, "
                f"{sum(correct)} correct, give a set with right and wrong detections"
            )
        else:
            calibration.save(path, fitted_on=str(dataset), detections=len(scores))
            calibration_note = (
                f"calibration a={calibration.a:.3f} b={calibration.b:.3f} written to {path}"
            )
    summary = result.to_json()
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
        if calibration_note:
            print(calibration_note, file=sys.stderr)
        return 0
    perfect = sum(r.perfect for r in result.images)
    print(f"{dataset}: {summary['images']} images")
    print(
        f"identity precision {_fmt(result.identity_precision)}  "
        f"recall {_fmt(result.identity_recall)}  "
        f"perfect images {_fmt(result.perfect_images)} ({perfect}/{len(result.images)})"
    )
    away = summary["away_from_border"]
    aside = away["set_aside"]
    print(
        f"away from the image border ({aside} {'identity' if aside == 1 else 'identities'} read "
        f"or labelled only within {away['border_px']} px of it set aside): identity precision "
        f"{_fmt(away['identity_precision'])}  recall {_fmt(away['identity_recall'])}  "
        f"perfect images {_fmt(away['perfect_images'])}"
    )
    legible = summary["legible"]
    if legible["set_aside"]:
        print(
            f"legible indices only ({legible['set_aside']} labelled identities whose every "
            "index shows less than 60 % of its rank or its suit set aside, read or not): "
            f"identity precision {_fmt(legible['identity_precision'])}  "
            f"recall {_fmt(legible['identity_recall'])}  "
            f"perfect images {_fmt(legible['perfect_images'])}"
        )
    for kind, label in (("missed", "missed"), ("false", "read falsely")):
        row = summary["mistakes"][kind]
        print(
            f"{label}: cards {row['cards']}, jokers {row['jokers']} "
            f"({row['at_border']} of them only at the image border)"
        )
    if getattr(detector, "reads_source", False):  # a two-stage pair knows its unread boxes
        boxed = summary["mistakes"]["missed"]["localised"]
        print(
            f"of the missed, {boxed} boxed by the localiser but not read as that card "
            "(the classifier's misses), the rest never boxed (the localiser's)"
        )
    print(f"{'class':<6}{'tp':>5}{'fp':>5}{'fn':>5}{'precision':>11}{'recall':>8}")
    for name, row in summary["per_class"].items():
        print(
            f"{name:<6}{row['tp']:>5}{row['fp']:>5}{row['fn']:>5}"
            f"{_fmt(row['precision']):>11}{_fmt(row['recall']):>8}"
        )
    if mistakes is not None:
        print(f"mistakes drawn to {mistakes}/ ({len(result.images) - perfect} images)")
    if calibration_note:
        print(calibration_note)
    return 0


def _common(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--model", metavar="FILE.onnx", help="detector model (default models/card_detector.onnx)"
    )
    p.add_argument(
        "--classifier",
        metavar="FILE.onnx|none",
        default="auto",
        help="corner-index classifier (default: card_classifier.onnx beside the model, if any)",
    )
    p.add_argument("--threads", type=int, default=1, help="onnxruntime threads (default 1)")
    p.add_argument(
        "--conf", type=float, default=CONF, help=f"a read's confidence threshold ({CONF})"
    )
    p.add_argument(
        "--joker-conf",
        type=float,
        default=None,
        help="how sure a joker read must be (default: the bar the pair carries, else --conf)",
    )
    p.add_argument(
        "--joker-loc-conf",
        type=float,
        default=JOKER_LOC_CONF,
        help=f"the least localiser score a whole-card box is read at, as a joker only "
        f"(default {JOKER_LOC_CONF}; 1 turns it off)",
    )
    p.add_argument(
        "--weak-index-loc-conf",
        type=float,
        default=WEAK_INDEX_LOC_CONF,
        help="the least localiser score a box is read at as a card, kept only when read surely "
        f"(default {WEAK_INDEX_LOC_CONF}; 1 turns it off)",
    )
    p.add_argument(
        "--joker-size-ratio",
        type=float,
        default=None,
        help="how many times the median index's side a weakly localised box must be to be read "
        "as a picture joker (default: the ratio the pair carries, else "
        f"{JOKER_SIZE_RATIO})",
    )
    p.add_argument("--json", action="store_true", help="machine-readable output")


def _tiles(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--tiles",
        type=int,
        help="1 = one letterboxed pass at any image size (as the table reads its zone views), "
        "N = up to N overlapping tiles (default: automatic by image size)",
    )


def add_detect_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``detect IMAGE`` to an argparse subparsers object; sets ``func=cmd_detect``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "detect", help="detect the cards in one image (grouped into physical cards)"
    )
    p.add_argument("image", help="a JPG/PNG image")
    _common(p)
    p.add_argument("--draw", metavar="OUT.png", help="write the image with boxes and labels")
    _tiles(p)
    p.set_defaults(func=cmd_detect)
    return p


def add_eval_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``eval DATASET`` to an argparse subparsers object; sets ``func=cmd_eval``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "eval", help="score the detector on a YOLO-format dataset (identities per image)"
    )
    p.add_argument("dataset", help="folder with images/, labels/ and data.yaml or classes.txt")
    _common(p)
    p.add_argument(
        "--mistakes", metavar="DIR", help="where to draw imperfect images (out/eval_mistakes/NAME)"
    )
    p.add_argument("--no-mistakes", action="store_true", help="draw nothing")
    _tiles(p)
    p.add_argument(
        "--calibrate",
        action="store_true",
        help="fit the confidence calibration on this dataset, saved beside the model",
    )
    p.set_defaults(func=cmd_eval)
    return p


def add_eval_crops_parser(sub: Any) -> argparse.ArgumentParser:
    """Add ``eval-crops DIR``: the classifier alone on a crops folder
    (:mod:`vision.training.crop_eval`)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "eval-crops", help="score the card classifier alone on a crops folder"
    )
    p.add_argument("folder", type=Path, help="crops folder: <class>/*.png (vision crops layout)")
    p.add_argument("--split", help="read FOLDER/SPLIT (e.g. test, val)")
    p.add_argument(
        "--classifier",
        type=Path,
        default=None,
        help="classifier ONNX (default: models/card_classifier.onnx)",
    )
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.set_defaults(func=cmd_eval_crops)
    return p


def cmd_eval_crops(args: argparse.Namespace) -> int:
    """Run ``vision eval-crops``."""
    from vision.classifier import DEFAULT_CLASSIFIER, CardClassifier
    from vision.synth.scenes import progress as scene_progress
    from vision.training.crop_eval import CropsError, evaluate_crops, summary_text

    folder = args.folder / args.split if args.split else args.folder
    try:
        classifier = CardClassifier(args.classifier or DEFAULT_CLASSIFIER)
        result = evaluate_crops(folder, classifier, progress=scene_progress)
    except (CropsError, ModelError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    print(json.dumps(result, indent=1) if args.json else summary_text(result))
    return 0
