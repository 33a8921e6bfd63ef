"""The ``chaodipi markers`` and ``chaodipi calibrate`` commands (argparse builders).

This module owns those commands' arguments and printing; the work is in
``vision.calibration`` (marker page, calibration) and ``vision.zones`` (the zone overlay), and
the config file is ``chaodipi.config``'s. ``chaodipi.cli.main`` wires them in with
:func:`add_markers_parser` and :func:`add_calibrate_parser`; each sets ``func(args) -> int``.
Bad input raises a ``ValueError`` subclass with a one-line message (the CLI prints it, exit 2).
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import cv2
import numpy as np

from chaodipi.cli.detect_eval import read_image
from chaodipi.config import load_config, save_calibration
from vision.calibration import (
    PAPERS_CM,
    CalibrationError,
    calibrate,
    calibrate_manual,
    find_markers,
    marker_errors_cm,
    marker_page,
    warp_table,
    write_bytes_atomic,
)
from vision.zones import Zones

LARGE_RESIDUAL_CM = 1.0  # above this RMS the geometry in the config is probably wrong
WARMUP_FRAMES = 10  # frames dropped from a live camera while its exposure settles


def add_markers_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``markers``: write the printable page of the four corner markers."""
    p: argparse.ArgumentParser = sub.add_parser(
        "markers", help="write a printable page of the four table-corner markers (PNG or PDF)"
    )
    p.add_argument("--out", type=Path, required=True, help="page.png or page.pdf")
    p.add_argument("--dpi", type=int, default=300, help="print resolution (default 300)")
    p.add_argument("--size-cm", type=float, default=8.0, help="black square side in cm (default 8)")
    p.add_argument("--ids", default="0,1,2,3", help="marker ids for NW,NE,SE,SW (default 0,1,2,3)")
    p.add_argument("--paper", choices=sorted(PAPERS_CM), default="A4")
    p.set_defaults(func=cmd_markers)
    return p


def _ids(text: str) -> tuple[int, ...]:
    try:
        ids = tuple(int(v) for v in text.split(","))
    except ValueError:
        ids = ()
    if len(ids) != 4:
        raise CalibrationError(f"--ids {text!r} must be 4 comma-separated ids, e.g. 0,1,2,3")
    return ids


def cmd_markers(args: argparse.Namespace) -> int:
    """Write the marker page and say how to print it."""
    ids = _ids(args.ids)
    out = marker_page(args.out, args.dpi, args.size_cm, ids, args.paper)
    print(
        f"wrote {out}: markers {', '.join(map(str, ids))} (NW, NE, SE, SW), "
        f"{args.size_cm:g} cm, {args.dpi} dpi on {args.paper}; print at 100% and check the "
        "10 cm scale bar"
    )
    return 0


def add_calibrate_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``calibrate``: find the markers (or take four points) and store the calibration."""
    p: argparse.ArgumentParser = sub.add_parser(
        "calibrate", help="calibrate the camera to the table and store it in the config"
    )
    p.add_argument("--config", type=Path, required=True, help="the table's config (TOML)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--image", type=Path, help="a frame from the camera (JPG or PNG)")
    where.add_argument("--source", help="camera spec to grab a frame from (default: config's)")
    p.add_argument(
        "--manual",
        metavar="POINTS",
        help='four image points "x1,y1 x2,y2 x3,y3 x4,y4" in the order NW NE SE SW',
    )
    p.add_argument(
        "--manual-at",
        choices=("table", "markers"),
        default="table",
        help="what the --manual points are: the table's corners (default) or marker centres",
    )
    p.add_argument("--draw", type=Path, help="write the frame with the zones drawn over it")
    p.add_argument("--warp", type=Path, help="write the table seen from above (10 px per cm)")
    p.add_argument("--dry-run", action="store_true", help="do not write the config")
    p.set_defaults(func=cmd_calibrate)
    return p


def parse_points(text: str) -> np.ndarray:
    """``"x1,y1 x2,y2 x3,y3 x4,y4"`` → a 4×2 array; one-line error otherwise."""
    try:
        pts = [tuple(float(v) for v in pair.split(",")) for pair in text.split()]
    except ValueError:
        pts = []
    if len(pts) != 4 or any(len(p) != 2 or not all(map(math.isfinite, p)) for p in pts):
        raise CalibrationError(
            f'--manual {text!r} must be four points "x1,y1 x2,y2 x3,y3 x4,y4" (NW NE SE SW)'
        )
    return np.array(pts, dtype=np.float64)


def grab_frame(spec: str) -> np.ndarray:
    """One frame from a camera spec (after a short warm-up for live cameras)."""
    from device import SourceError, open_source

    try:
        with open_source(spec) as source:
            frame = source.read()
            for _ in range(WARMUP_FRAMES if source.live else 0):
                frame = source.read() or frame
    except SourceError as e:
        raise CalibrationError(str(e)) from None
    if frame is None:
        raise CalibrationError(f"camera source {spec!r} gave no frame: check it has images")
    return frame.image


def _write_image(path: Path, image: np.ndarray) -> None:
    try:
        ok, buf = cv2.imencode(path.suffix or ".png", image)
    except cv2.error:
        ok = False
    if not ok:
        raise CalibrationError(f"cannot write {path}: use a .png or .jpg name")
    write_bytes_atomic(path, buf.tobytes())


def cmd_calibrate(args: argparse.Namespace) -> int:
    """Calibrate, store the result in the config, print the fit, draw the zones."""
    cfg = load_config(args.config)
    image = read_image(args.image) if args.image else grab_frame(args.source or cfg.source)
    geo = cfg.table
    size = (int(image.shape[1]), int(image.shape[0]))
    if args.manual:
        cal = calibrate_manual(parse_points(args.manual), geo, image_size=size, at=args.manual_at)
        fit = "four points fit exactly (no residual)"
    else:
        cal = calibrate(image, geo)
        worst = max(marker_errors_cm(cal, geo).values())
        fit = (
            f"residual {cal.residual_cm or 0.0:.2f} cm RMS, {worst:.2f} cm worst "
            "over the 16 marker corners"
        )
    if not args.dry_run:
        save_calibration(args.config, cal)
    if args.draw:
        drawn = Zones.from_config(geo, cfg.zones).draw(image, cal)
        for corners in find_markers(image).values():
            cv2.polylines(drawn, [np.round(corners).astype(np.int32)], True, (0, 255, 255), 2)
        _write_image(args.draw, drawn)
    if args.warp:
        _write_image(args.warp, warp_table(image, cal, px_per_cm=10.0))
    stored = "not stored (--dry-run)" if args.dry_run else f"stored in {args.config}"
    print(f"{cfg.table_id}: calibrated ({cal.method}, {size[0]}x{size[1]}): {fit}; {stored}")
    if cal.residual_cm is not None and cal.residual_cm > LARGE_RESIDUAL_CM:
        print(
            f"warning: residual {cal.residual_cm:.2f} cm is large: check [table] marker_size_cm "
            "and marker_inset_cm against the markers on the table"
        )
    return 0
