"""Table calibration: the printable marker page, finding the corner markers, the homography
from image pixels to table cm, drift checks, and mapping points and images between the two.

This module owns the geometry between the camera and the table top. Four ArUco markers
(``DICT_4X4_50``) lie at the table's corners NW, NE, SE, SW (``TableGeometry`` in
``chaodipi.config`` says where, in cm); :func:`calibrate` finds them with OpenCV's
``ArucoDetector`` and fits the homography to all sixteen marker corners (each marker may lie in
any rotation), :func:`calibrate_manual` fits it to four clicked points instead, and
:func:`check_drift` says when a marker has moved or vanished since. Table coordinates have
their origin at the table's NW corner, x toward E (image right), y toward S (image down).
Bad input raises :class:`CalibrationError` (a ``ValueError``) with a one-line message.
"""

from __future__ import annotations

import os
import shutil
import struct
import tempfile
import zlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

import cv2
import numpy as np
import numpy.typing as npt

from vision.table_geometry import CORNERS, Calibration, TableGeometry

ARUCO_DICT = cv2.aruco.DICT_4X4_50
ARUCO_DICT_NAME = "DICT_4X4_50"
MARKER_BITS = 4 + 2  # a 4×4 code inside a one-module black border
PAPERS_CM: dict[str, tuple[float, float]] = {
    "A4": (21.0, 29.7),
    "A3": (29.7, 42.0),
    "Letter": (21.59, 27.94),
}
PAGE_MARGIN_CM = 0.5
TITLE_CM = 1.5
BOTTOM_CM = 4.5  # scale bar and footer below the markers

FloatArray = npt.NDArray[np.float64]
ManualAt = Literal["table", "markers"]


class CalibrationError(ValueError):
    """Calibration is impossible with this input; the message is one line naming the fix."""


# ---------------------------------------------------------------- table geometry


def marker_squares_cm(geometry: TableGeometry) -> dict[int, FloatArray]:
    """Each marker's black square in table cm: corners clockwise from its top-left (4×2)."""
    w, h = geometry.width_cm, geometry.height_cm
    s, i = geometry.marker_size_cm, geometry.marker_inset_cm
    origins = [(i, i), (w - i - s, i), (w - i - s, h - i - s), (i, h - i - s)]  # NW NE SE SW
    square = np.array([[0, 0], [s, 0], [s, s], [0, s]], dtype=np.float64)
    return {mid: square + np.array(o) for mid, o in zip(geometry.marker_ids, origins, strict=True)}


def marker_centres_cm(geometry: TableGeometry) -> FloatArray:
    """The marker centres NW, NE, SE, SW in table cm (4×2)."""
    squares = marker_squares_cm(geometry)
    return np.array([squares[m].mean(axis=0) for m in geometry.marker_ids])


def table_corners_cm(geometry: TableGeometry) -> FloatArray:
    """The table top's corners NW, NE, SE, SW in cm (4×2)."""
    w, h = geometry.width_cm, geometry.height_cm
    return np.array([[0, 0], [w, 0], [w, h], [0, h]], dtype=np.float64)


def _name(geometry: TableGeometry, marker_id: int) -> str:
    return f"{marker_id} ({geometry.corner_name(marker_id)})"


# ---------------------------------------------------------------- the printable page


def marker_image(marker_id: int, size_px: int, quiet_px: int = 0) -> npt.NDArray[np.uint8]:
    """One marker as a grayscale image: the black square ``size_px`` wide inside a white
    quiet zone of ``quiet_px`` on every side."""
    if not 0 <= marker_id < 50:
        raise CalibrationError(f"marker id {marker_id} is not in {ARUCO_DICT_NAME}: use 0–49")
    dictionary = cv2.aruco.getPredefinedDictionary(ARUCO_DICT)
    code = cv2.aruco.generateImageMarker(dictionary, marker_id, MARKER_BITS, borderBits=1)
    square = cv2.resize(code, (size_px, size_px), interpolation=cv2.INTER_NEAREST)
    tile = cv2.copyMakeBorder(
        square, quiet_px, quiet_px, quiet_px, quiet_px, cv2.BORDER_CONSTANT, value=255
    )
    return np.asarray(tile, dtype=np.uint8)


def _text(
    img: np.ndarray, text: str, org: tuple[int, int], height_px: float, grey: int = 0
) -> None:
    """Draw ASCII text whose capital letters are about ``height_px`` tall; ``org`` is the
    baseline's left end."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (_, cap), _ = cv2.getTextSize("H", font, 1.0, 1)
    scale = height_px / cap
    thickness = max(1, round(height_px / 12))
    cv2.putText(img, text, org, font, scale, grey, thickness, cv2.LINE_AA)


def render_marker_page(
    dpi: int = 300,
    marker_size_cm: float = 8.0,
    ids: Sequence[int] = (0, 1, 2, 3),
    paper: str = "A4",
) -> npt.NDArray[np.uint8]:
    """The marker page as a grayscale image at ``dpi`` (see :func:`marker_page`)."""
    if paper not in PAPERS_CM:
        raise CalibrationError(f"unknown paper {paper!r}: use one of {', '.join(PAPERS_CM)}")
    if not 72 <= dpi <= 1200:
        raise CalibrationError(f"dpi {dpi} is out of range: use 72–1200 (300 is usual)")
    if len(ids) != 4 or len(set(ids)) != 4:
        raise CalibrationError(f"need 4 different marker ids for NW, NE, SE, SW (got {ids})")
    pw, ph = PAPERS_CM[paper]
    quiet = marker_size_cm / 8
    cell = marker_size_cm + 2 * quiet
    largest_cell = min(
        (pw - 2 * PAGE_MARGIN_CM) / 2, (ph - 2 * PAGE_MARGIN_CM - TITLE_CM - BOTTOM_CM) / 2
    )
    largest = largest_cell / (1 + 2 / 8)
    if not 0 < marker_size_cm <= largest + 1e-9:
        raise CalibrationError(
            f"markers of {marker_size_cm} cm do not fit four to a {paper} page: "
            f"use a size up to {largest:.1f} cm or a larger paper"
        )
    ppcm = dpi / 2.54

    def px(cm: float) -> int:
        return round(cm * ppcm)

    page = np.full((px(ph), px(pw)), 255, dtype=np.uint8)
    _text(page, "chaodipi table markers", (px(PAGE_MARGIN_CM), px(1.2)), px(0.5))
    _text(
        page,
        f"ArUco {ARUCO_DICT_NAME}; cut along the grey lines; any rotation is fine",
        (px(PAGE_MARGIN_CM), px(1.75)),
        px(0.28),
        80,
    )
    left = (pw - 2 * cell) / 2
    top = PAGE_MARGIN_CM + TITLE_CM
    size_px, quiet_px = px(marker_size_cm), px(quiet)
    layout = {"NW": (0, 0), "NE": (1, 0), "SE": (1, 1), "SW": (0, 1)}
    for corner, marker_id in zip(CORNERS, ids, strict=True):
        col, row = layout[corner]
        x0, y0 = px(left + col * cell), px(top + row * cell)
        tile = marker_image(marker_id, size_px, quiet_px)
        page[y0 : y0 + tile.shape[0], x0 : x0 + tile.shape[1]] = tile
        cv2.rectangle(page, (x0, y0), (x0 + tile.shape[1], y0 + tile.shape[0]), 170, 1)
        label_h = quiet * 0.4
        _text(
            page,
            f"{corner}  id {marker_id}",
            (x0 + quiet_px, y0 + quiet_px + size_px + px(quiet * 0.3 + label_h)),
            px(label_h),
            110,
        )
    # A 10 cm scale bar with 1 cm ticks, to check the print.
    bar_cm = min(10.0, pw - 2 * PAGE_MARGIN_CM)
    bx, by = px(PAGE_MARGIN_CM + 0.5), px(top + 2 * cell + 1.2)
    cv2.rectangle(page, (bx, by), (bx + px(bar_cm), by + px(0.15)), 0, -1)
    for k in range(int(bar_cm) + 1):
        tick = px(0.5 if k % 5 == 0 else 0.3)
        cv2.line(page, (bx + px(k), by), (bx + px(k), by - tick), 0, max(1, px(0.03)))
    _text(
        page,
        f"{bar_cm:g} cm: measure it after printing",
        (bx + px(bar_cm + 0.4), by + px(0.1)),
        px(0.3),
    )
    footer = [
        f"{dpi} dpi on {paper}: print at 100% / actual size, never fit to page.",
        f"Black squares are {marker_size_cm:g} cm; measure one and set [table] marker_size_cm.",
        "Lay each marker at the table corner it names (NW = top-left in the camera image),",
        "with its black square marker_inset_cm from both table edges.",
    ]
    for k, line in enumerate(footer):
        _text(page, line, (px(PAGE_MARGIN_CM + 0.5), by + px(1.2 + 0.55 * k)), px(0.28), 60)
    return page


def png_with_dpi(png: bytes, dpi: int) -> bytes:
    """``png`` with a pHYs chunk stating ``dpi`` inserted after its header chunk."""
    ppm = round(dpi / 0.0254)
    body = b"pHYs" + struct.pack(">IIB", ppm, ppm, 1)
    chunk = struct.pack(">I", 9) + body + struct.pack(">I", zlib.crc32(body))
    ihdr_end = 8 + 4 + 4 + 13 + 4
    return png[:ihdr_end] + chunk + png[ihdr_end:]


def pdf_bytes(gray: npt.NDArray[np.uint8], width_pt: float, height_pt: float) -> bytes:
    """A one-page PDF showing a grayscale image over the whole page (exact physical size)."""
    h, w = gray.shape
    data = zlib.compress(np.ascontiguousarray(gray).tobytes(), 9)
    content = f"q {width_pt:.2f} 0 0 {height_pt:.2f} 0 0 cm /Im0 Do Q".encode()
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 {width_pt:.2f} {height_pt:.2f}] "
        "/Resources << /XObject << /Im0 5 0 R >> >> /Contents 4 0 R >>".encode(),
        b"<< /Length %d >>\nstream\n" % len(content) + content + b"\nendstream",
        b"<< /Type /XObject /Subtype /Image /Width %d /Height %d /ColorSpace /DeviceGray "
        b"/BitsPerComponent 8 /Filter /FlateDecode /Length %d >>\nstream\n"
        % (w, h, len(data))
        + data
        + b"\nendstream",
    ]
    out = bytearray(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
    offsets = []
    for n, obj in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % n + obj + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1,
        xref,
    )
    return bytes(out)


def write_bytes_atomic(path: Path, data: bytes) -> None:
    """Write a file atomically: a temporary file beside it, then ``os.replace``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        # mkstemp makes the file private; keep the old file's mode, or use rw-r--r--.
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_folder_atomic(target: Path, fill: Callable[[Path], None]) -> None:
    """Build a folder with ``fill(folder)`` beside ``target`` and rename it into place whole:
    an earlier ``target`` is replaced and removed, and a build that fails leaves it as it was."""
    prefix, beside = f".{target.name}.", target.parent
    beside.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(".tmp", prefix, beside))
    old: Path | None = None
    try:
        fill(tmp)
        os.chmod(tmp, 0o755)  # mkdtemp's folder is private
        if target.exists():
            old = Path(
                tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent)
            )
            os.replace(target, old / target.name)
        os.replace(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def marker_page(
    out: Path,
    dpi: int = 300,
    marker_size_cm: float = 8.0,
    ids: Sequence[int] = (0, 1, 2, 3),
    paper: str = "A4",
) -> Path:
    """Write the printable page of the four corner markers to ``out`` (``.png`` or ``.pdf``).

    Each marker is labelled with its corner (NW, NE, SE, SW) and id; a 10 cm scale bar and a
    footer stating the DPI let the print be checked. A PNG carries the DPI in its pHYs chunk;
    a PDF has the paper's exact size, so it prints to scale by default.
    """
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise CalibrationError(f"cannot write {out}: name it .png or .pdf")
    page = render_marker_page(dpi, marker_size_cm, ids, paper)
    if suffix == ".pdf":
        pw, ph = PAPERS_CM[paper]
        data = pdf_bytes(page, pw / 2.54 * 72, ph / 2.54 * 72)
    else:
        ok, buf = cv2.imencode(".png", page)
        if not ok:
            raise CalibrationError(f"cannot encode {out} as PNG: try a .pdf name")
        data = png_with_dpi(buf.tobytes(), dpi)
    write_bytes_atomic(out, data)
    return out


# ---------------------------------------------------------------- finding markers


def find_markers(image: np.ndarray) -> dict[int, FloatArray]:
    """The ArUco markers in an image: id → its four image corners (4×2, the marker's own
    top-left first, clockwise). Of two markers with one id the larger is kept."""
    gray = image if image.ndim == 2 else cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    params = cv2.aruco.DetectorParameters()
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
    detector = cv2.aruco.ArucoDetector(cv2.aruco.getPredefinedDictionary(ARUCO_DICT), params)
    corners, ids, _ = detector.detectMarkers(gray)
    found: dict[int, FloatArray] = {}
    if ids is None:
        return found
    for quad, mid in zip(corners, ids.ravel(), strict=True):
        pts = np.asarray(quad, dtype=np.float64).reshape(4, 2)
        key = int(mid)
        if key not in found or cv2.contourArea(pts.astype(np.float32)) > cv2.contourArea(
            found[key].astype(np.float32)
        ):
            found[key] = pts
    return found


def _missing_error(geometry: TableGeometry, missing: Sequence[int]) -> CalibrationError:
    names = ", ".join(_name(geometry, m) for m in missing)
    return CalibrationError(
        f"marker{'s' if len(missing) > 1 else ''} {names} not found in the image: make sure "
        "all four are visible, flat and lit, or calibrate by hand with --manual"
    )


def _check_clockwise(points_px: FloatArray, what: str) -> None:
    """The four points NW, NE, SE, SW must form a convex quadrilateral, clockwise on screen."""
    p = np.asarray(points_px, dtype=np.float64)
    for k in range(4):
        a, b, c = p[k], p[(k + 1) % 4], p[(k + 2) % 4]
        (ux, uy), (vx, vy) = b - a, c - b
        if float(ux * vy - uy * vx) <= 0:
            raise CalibrationError(
                f"the {what} NW, NE, SE, SW do not go clockwise around the table in the image: "
                "give them in that order (and check the camera image is not mirrored)"
            )


def _now() -> str:
    return datetime.now(UTC).replace(microsecond=0).isoformat()


def _fit(px: FloatArray, cm: FloatArray) -> tuple[FloatArray, float]:
    """Least-squares homography px → cm and its RMS error in cm."""
    found, _ = cv2.findHomography(px.astype(np.float64), cm.astype(np.float64), 0)
    if found is None:
        raise CalibrationError("the marker positions give no homography: recalibrate")
    h = np.asarray(found, dtype=np.float64)
    err = _apply(h, px) - cm
    return h, float(np.sqrt(np.mean(np.sum(err**2, axis=1))))


def _apply(h: FloatArray, points: npt.ArrayLike) -> FloatArray:
    pts = np.asarray(points, dtype=np.float64)
    shape = pts.shape
    out = cv2.perspectiveTransform(pts.reshape(-1, 1, 2), h)
    return np.asarray(out, dtype=np.float64).reshape(shape)


def _image_size(image: np.ndarray) -> tuple[int, int]:
    return int(image.shape[1]), int(image.shape[0])


def _calibration(
    h: FloatArray,
    image_size: tuple[int, int],
    geometry: TableGeometry,
    points_px: FloatArray,
    method: str,
    residual: float | None,
    markers: dict[int, FloatArray] | None = None,
) -> Calibration:
    h = h / h[2, 2]
    return Calibration(
        homography=tuple((float(r[0]), float(r[1]), float(r[2])) for r in h),
        image_size=image_size,
        table_size_cm=(geometry.width_cm, geometry.height_cm),
        points_px=tuple((float(x), float(y)) for x, y in points_px),
        when=_now(),
        method=method,
        residual_cm=None if residual is None else round(residual, 4),
        markers={m: tuple((float(x), float(y)) for x, y in c) for m, c in (markers or {}).items()},
    )


def calibrate(image: np.ndarray, geometry: TableGeometry) -> Calibration:
    """Calibrate from the four corner markers in ``image``.

    A first homography from the four marker centres tells which detected corner of each
    marker is which (so markers may lie in any rotation); the result is the least-squares fit
    to all sixteen corners, and ``residual_cm`` its RMS error.
    """
    found = find_markers(image)
    missing = [m for m in geometry.marker_ids if m not in found]
    if missing:
        raise _missing_error(geometry, missing)
    centres_px = np.array([found[m].mean(axis=0) for m in geometry.marker_ids])
    _check_clockwise(centres_px, "markers")
    h0 = np.asarray(
        cv2.getPerspectiveTransform(
            centres_px.astype(np.float32), marker_centres_cm(geometry).astype(np.float32)
        ),
        dtype=np.float64,
    )
    squares = marker_squares_cm(geometry)
    px_pts, cm_pts = [], []
    for m in geometry.marker_ids:
        seen_cm = _apply(h0, found[m])
        shifts = [np.roll(squares[m], -k, axis=0) for k in range(4)]
        best = min(shifts, key=lambda s: float(np.sum((s - seen_cm) ** 2)))
        px_pts.append(found[m])
        cm_pts.append(best)
    h, rms = _fit(np.concatenate(px_pts), np.concatenate(cm_pts))
    markers = {m: found[m] for m in geometry.marker_ids}
    return _calibration(h, _image_size(image), geometry, centres_px, "aruco", rms, markers)


def calibrate_manual(
    corners_px: npt.ArrayLike,
    geometry: TableGeometry,
    *,
    image_size: tuple[int, int],
    at: ManualAt = "table",
) -> Calibration:
    """Calibrate from four points clicked in the image, in the order NW, NE, SE, SW.

    ``at="table"``: the points are the table top's corners; ``at="markers"``: the marker
    centres. Four points fit exactly, so there is no residual.
    """
    pts = np.asarray(corners_px, dtype=np.float64)
    if pts.shape != (4, 2) or not np.all(np.isfinite(pts)):
        raise CalibrationError(
            f"manual calibration needs 4 points x,y (NW NE SE SW), got shape {pts.shape}"
        )
    _check_clockwise(pts, "points")
    target = table_corners_cm(geometry) if at == "table" else marker_centres_cm(geometry)
    h = cv2.getPerspectiveTransform(pts.astype(np.float32), target.astype(np.float32))
    return _calibration(np.asarray(h, np.float64), image_size, geometry, pts, "manual", None)


# ---------------------------------------------------------------- using a calibration


def marker_errors_cm(calibration: Calibration, geometry: TableGeometry) -> dict[int, float]:
    """For each marker stored in an ``aruco`` calibration, the largest distance in cm between
    one of its detected corners, mapped to the table, and the nearest corner of its square."""
    squares = marker_squares_cm(geometry)
    out: dict[int, float] = {}
    for m, corners in calibration.markers.items():
        if m in squares:
            seen = to_table(np.array(corners), calibration)
            dists = np.linalg.norm(seen[:, None, :] - squares[m][None, :, :], axis=2)
            out[m] = float(dists.min(axis=1).max())
    return out


def to_table(points_px: npt.ArrayLike, calibration: Calibration) -> FloatArray:
    """Image pixel points (…×2, or one point) → table cm, same shape."""
    return _apply(calibration.matrix, points_px)


def to_image(points_cm: npt.ArrayLike, calibration: Calibration) -> FloatArray:
    """Table cm points (…×2, or one point) → image pixels, same shape."""
    return _apply(np.linalg.inv(calibration.matrix), points_cm)


SHRINK_FROM = 2.0
"""Source pixels a view pixel from which :func:`warp_view` area-halves the source first (the
halved source still has a pixel a view pixel, so nothing is upsampled). A warp samples
(bilinear: four source pixels a view pixel); from the full sensor (25–28 px a cm over the table)
into a 12 px a cm zone view it would skip most pixels, so the view would keep every pixel's
noise and alias thin lines (a line-art joker's strokes, which the fan-strip reader looks for).
Halved, the source has the binned mode's scale and noise. The binned mode's 12 px a cm views
(1.1 source px a view px) are warped as before. (The zone reader's change-test thumbnails do
their own averaging and skip this: taken of every zone on every decision frame, they cost 8 ms
a decision here at full resolution through it, `bench/pipeline_bench.py`.)"""


def warp_view(image: np.ndarray, to_view: np.ndarray, size: tuple[int, int]) -> np.ndarray:
    """``cv2.warpPerspective(image, to_view, size)`` (bilinear) that averages instead of skipping
    pixels when the source is much finer than the view: the part of ``image`` the view covers
    is area-halved until under :data:`SHRINK_FROM` source pixels a view pixel, then warped."""
    w, h = size
    # the view's centre and its two neighbours, then its corners, in source pixels
    probe = [[w / 2, h / 2], [w / 2 + 1, h / 2], [w / 2, h / 2 + 1], [0, 0], [w, 0], [w, h], [0, h]]
    points = np.array(probe, dtype=np.float64).reshape(-1, 1, 2)
    src = cv2.perspectiveTransform(points, np.linalg.inv(to_view)).reshape(-1, 2)
    ratio = float(min(np.linalg.norm(src[1] - src[0]), np.linalg.norm(src[2] - src[0])))
    if ratio < SHRINK_FROM:
        return cv2.warpPerspective(image, to_view, size, flags=cv2.INTER_LINEAR)
    src = src[3:]
    k = 1
    while ratio / k >= SHRINK_FROM:
        k *= 2
    ih, iw = image.shape[:2]
    x0 = max(0, int(np.floor(src[:, 0].min())) - k)
    y0 = max(0, int(np.floor(src[:, 1].min())) - k)
    x1 = min(iw, int(np.ceil(src[:, 0].max())) + k)
    y1 = min(ih, int(np.ceil(src[:, 1].max())) + k)
    if x1 - x0 < 2 * k or y1 - y0 < 2 * k:  # the view lies (almost) off the image
        return cv2.warpPerspective(image, to_view, size, flags=cv2.INTER_LINEAR)
    x1, y1 = x0 + (x1 - x0) // k * k, y0 + (y1 - y0) // k * k
    small = cv2.resize(
        image[y0:y1, x0:x1], ((x1 - x0) // k, (y1 - y0) // k), interpolation=cv2.INTER_AREA
    )
    # small pixel j averages source pixels x0 + k·j … x0 + k·j + k − 1: its centre is at
    # x0 + k·j + (k − 1) / 2 (pixel centres at integers).
    from_small = np.array([[k, 0.0, x0 + (k - 1) / 2], [0.0, k, y0 + (k - 1) / 2], [0, 0, 1]])
    return cv2.warpPerspective(small, to_view @ from_small, size, flags=cv2.INTER_LINEAR)


def warp_table(
    image: np.ndarray,
    calibration: Calibration,
    px_per_cm: float = 4.0,
    region_cm: tuple[float, float, float, float] | None = None,
) -> np.ndarray:
    """The table top seen from straight above: ``px_per_cm`` pixels per cm, NW at top-left.

    ``region_cm`` (x0, y0, x1, y1) warps only that part of the table; its top-left corner is
    then the image's origin.
    """
    matrix, size = top_down_view(calibration, px_per_cm, region_cm)
    return warp_view(image, matrix, size)


def top_down_view(
    calibration: Calibration,
    px_per_cm: float = 4.0,
    region_cm: tuple[float, float, float, float] | None = None,
) -> tuple[np.ndarray, tuple[int, int]]:
    """The homography from camera pixels to :func:`warp_table`'s image, and that image's size."""
    if px_per_cm <= 0:
        raise CalibrationError(f"px_per_cm must be > 0 (got {px_per_cm})")
    w_cm, h_cm = calibration.table_size_cm
    x0, y0, x1, y1 = region_cm or (0.0, 0.0, w_cm, h_cm)
    if not (x1 > x0 and y1 > y0):
        raise CalibrationError(f"region {region_cm} cm is empty: give (x0, y0, x1, y1), x1 > x0")
    to_pixels = np.array(
        [[px_per_cm, 0.0, -x0 * px_per_cm], [0.0, px_per_cm, -y0 * px_per_cm], [0.0, 0.0, 1.0]]
    )
    size = (round((x1 - x0) * px_per_cm), round((y1 - y0) * px_per_cm))
    return to_pixels @ calibration.matrix, size


@dataclass(frozen=True)
class DriftReport:
    """Whether the markers still lie where the calibration put them.

    ``offsets_cm``: every visible marker's distance from its calibrated place; ``moved``: those
    beyond the tolerance; ``missing``: markers not seen (covered, moved off, or gone).
    ``checked`` is False for a manual calibration with no markers in view (nothing to check).
    """

    ok: bool
    moved: dict[int, float] = field(default_factory=dict)
    missing: list[int] = field(default_factory=list)
    offsets_cm: dict[int, float] = field(default_factory=dict)
    checked: bool = True
    corner_names: dict[int, str] = field(default_factory=dict)

    def message(self) -> str:
        """One line for the operator."""
        if not self.checked:
            return "no markers in view to check (manual calibration)"
        if self.ok:
            worst = max(self.offsets_cm.values(), default=0.0)
            return f"markers in place (largest offset {worst:.1f} cm)"
        parts = [
            f"marker {m} ({self.corner_names.get(m, '?')}) moved {d:.1f} cm"
            for m, d in self.moved.items()
        ]
        parts += [f"marker {m} ({self.corner_names.get(m, '?')}) missing" for m in self.missing]
        return "; ".join(parts) + ": put it back, or run chaodipi calibrate again"


def check_drift(
    image: np.ndarray,
    calibration: Calibration,
    geometry: TableGeometry,
    tol_cm: float = 1.0,
) -> DriftReport:
    """Compare the markers in ``image`` with the calibration: moved (by more than ``tol_cm``)
    or missing markers make the report not ``ok``. A frame of another size than the
    calibration's raises :class:`CalibrationError`."""
    if _image_size(image) != tuple(calibration.image_size) and calibration.image_size != (0, 0):
        w, h = _image_size(image)
        cw, ch = calibration.image_size
        raise CalibrationError(
            f"frame is {w}x{h} but the calibration was made at {cw}x{ch}: "
            "set the camera to that size or run chaodipi calibrate again"
        )
    found = find_markers(image)
    names = {m: geometry.corner_name(m) for m in geometry.marker_ids}
    if calibration.method == "manual" and not any(m in found for m in geometry.marker_ids):
        return DriftReport(ok=True, checked=False, corner_names=names)
    expected = dict(zip(geometry.marker_ids, marker_centres_cm(geometry), strict=True))
    offsets: dict[int, float] = {}
    missing: list[int] = []
    for m in geometry.marker_ids:
        if m not in found:
            missing.append(m)
            continue
        centre_cm = to_table(found[m].mean(axis=0), calibration)
        offsets[m] = round(float(np.linalg.norm(centre_cm - expected[m])), 3)
    moved = {m: d for m, d in offsets.items() if d > tol_cm}
    return DriftReport(
        ok=not moved and not missing,
        moved=moved,
        missing=missing,
        offsets_cm=offsets,
        corner_names=names,
    )
