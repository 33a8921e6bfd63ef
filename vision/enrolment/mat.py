"""The enrolment mat: where each card's slot lies on the table, and the printable sheet.

This module owns the mat's layout, the one geometry both ``chaodipi deck sheet`` (which prints
it) and ``chaodipi deck capture`` (which reads cards off a photograph of it) use. The mat is
the table top itself, in table cm (origin NW, x toward E, y toward S, as in
:mod:`vision.calibration`): 54 slots in the card order of :data:`vision.classes.CLASS_NAMES`
(``2S 2H 2D 2C 3S … AC BJ SJ``), numbered 1–54, in a grid centred on the table that keeps clear
of the four corner markers and of the title between the two northern ones. Each slot is a dark
pad :data:`PAD_CM` wider than a poker card on every side, so a white card stands out on it and
may lie a little off; the card's place is ticked at the pad's corners, its name printed faintly
in the pad and, with its number, on the paper under it. A table too small for 54 slots takes two
half-mats (slots 1–27 and 28–54, laid out alike), printed and photographed one after the other.

:func:`write_mat` writes the sheet as PNG (with its DPI) or PDF (the table's exact size, to
print at 100%); bad input raises :class:`EnrolmentError` (a ``ValueError``) with one line.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import cv2
import numpy as np
import numpy.typing as npt

from vision.calibration import marker_squares_cm, pdf_bytes, png_with_dpi, write_bytes_atomic
from vision.classes import CLASS_NAMES
from vision.table_geometry import CORNERS, TableGeometry
from vision.zones import CARD_H_CM, CARD_W_CM

Rect = tuple[float, float, float, float]
"""x0, y0, x1, y1 in table cm."""

SLOT_COUNT = len(CLASS_NAMES)
HALF_COUNT = SLOT_COUNT // 2
PAD_CM = 0.8  # dark pad beyond the card on each side: room to lie a little off
GAP_CM = 0.5  # paper between two pads side by side
LABEL_CM = 1.0  # the number and name under each pad
ROW_GAP_CM = 0.4  # paper between a label and the next row's pad
EDGE_CM = 1.0  # paper at the table's edge
MARKER_CLEAR_CM = 0.5  # beyond a marker's white quiet zone
TITLE_CM = 1.6  # the title band between the NW and NE markers
DEFAULT_DPI = 150
DPI_RANGE = (72, 300)  # the sheet is table-sized: 90 cm at 300 dpi is already 10 630 px a side

PAPER = 255
PAD_GREY = 60  # dark enough for a white card, lighter than solid black ink on a large sheet
PAD_TEXT_GREY = 100  # the name in the pad: readable when placing, far below a card's white
TICK_GREY = 120
GUIDE_GREY = 150


class EnrolmentError(ValueError):
    """Enrolment is impossible with this input; the message is one line naming the fix."""


@dataclass(frozen=True)
class Slot:
    """One card's place on the mat: the card's own rectangle, the dark pad around it and the
    label under it, all in table cm. ``number`` counts 1–54 over the whole mat, also on a
    half-mat."""

    number: int
    card: str
    card_cm: Rect
    pad_cm: Rect
    label_cm: Rect

    def name(self) -> str:
        """``slot 12 (4C)``: how reports name it."""
        return f"slot {self.number} ({self.card})"


@dataclass(frozen=True)
class MatLayout:
    """The slots of the whole mat (``half`` None) or of half-mat 1 or 2 on one table, with the
    marker keep-outs and the title band they avoid."""

    table: TableGeometry
    half: int | None
    columns: int
    slots: tuple[Slot, ...]
    keep_out_cm: tuple[Rect, ...]  # each marker with its quiet zone and a clearance
    title_cm: Rect

    def title(self) -> str:
        first, last = self.slots[0].number, self.slots[-1].number
        which = "whole mat" if self.half is None else f"half-mat {self.half} of 2"
        return f"chaodipi deck enrolment: {which}, slots {first}-{last}"


def half_cards(half: int | None) -> tuple[str, ...]:
    """The cards of the whole mat (``None``) or of half-mat 1 or 2, in slot order."""
    if half is None:
        return CLASS_NAMES
    if half not in (1, 2):
        raise EnrolmentError(f"half {half} does not exist: use 1 or 2")
    return CLASS_NAMES[(half - 1) * HALF_COUNT : half * HALF_COUNT]


def _overlap(a: Rect, b: Rect) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _keep_outs(geometry: TableGeometry) -> tuple[Rect, ...]:
    quiet = geometry.marker_size_cm / 8 + MARKER_CLEAR_CM  # the printed page's quiet zone
    out = []
    for square in marker_squares_cm(geometry).values():
        (x0, y0), (x1, y1) = square.min(axis=0), square.max(axis=0)
        out.append(
            (
                max(0.0, float(x0) - quiet),
                max(0.0, float(y0) - quiet),
                min(geometry.width_cm, float(x1) + quiet),
                min(geometry.height_cm, float(y1) + quiet),
            )
        )
    return tuple(out)


def _grid(
    geometry: TableGeometry, cards: tuple[str, ...], first: int, columns: int
) -> tuple[Slot, ...]:
    pad_w, pad_h = CARD_W_CM + 2 * PAD_CM, CARD_H_CM + 2 * PAD_CM
    pitch_x, pitch_y = pad_w + GAP_CM, pad_h + LABEL_CM + ROW_GAP_CM
    rows = math.ceil(len(cards) / columns)
    x0 = (geometry.width_cm - (columns * pitch_x - GAP_CM)) / 2
    y0 = (geometry.height_cm - (rows * pitch_y - ROW_GAP_CM)) / 2
    slots = []
    for k, card in enumerate(cards):
        px, py = x0 + (k % columns) * pitch_x, y0 + (k // columns) * pitch_y
        pad = (px, py, px + pad_w, py + pad_h)
        slots.append(
            Slot(
                number=first + k,
                card=card,
                card_cm=(
                    px + PAD_CM,
                    py + PAD_CM,
                    px + PAD_CM + CARD_W_CM,
                    py + PAD_CM + CARD_H_CM,
                ),
                pad_cm=pad,
                label_cm=(px, py + pad_h, px + pad_w, py + pad_h + LABEL_CM),
            )
        )
    return tuple(slots)


def mat_layout(geometry: TableGeometry, half: int | None = None) -> MatLayout:
    """The slots of the whole mat or of one half-mat on this table.

    Of the grids that fit inside the table (:data:`EDGE_CM` from its edges) clear of the
    markers and the title, the most compact is taken, preferring whole ranks to a row (a
    multiple of four columns). A table too small raises :class:`EnrolmentError`.
    """
    cards = half_cards(half)
    first = 1 if half is None else (half - 1) * HALF_COUNT + 1
    keep_out = _keep_outs(geometry)
    w, h = geometry.width_cm, geometry.height_cm
    title: Rect = (keep_out[0][2], EDGE_CM / 2, keep_out[1][0], EDGE_CM / 2 + TITLE_CM)
    best: tuple[tuple[bool, float], int, tuple[Slot, ...]] | None = None
    for columns in range(1, len(cards) + 1):
        slots = _grid(geometry, cards, first, columns)
        x0, y0 = slots[0].pad_cm[:2]
        x1 = max(s.pad_cm[2] for s in slots)
        y1 = slots[-1].label_cm[3]
        if x0 < EDGE_CM or y0 < EDGE_CM or x1 > w - EDGE_CM or y1 > h - EDGE_CM:
            continue
        cells = [(s.pad_cm[0], s.pad_cm[1], s.pad_cm[2], s.label_cm[3]) for s in slots]
        if any(_overlap(c, k) for c in cells for k in (*keep_out, title)):
            continue
        key = (columns % 4 != 0, (x1 - x0) * (y1 - y0))
        if best is None or key < best[0]:
            best = (key, columns, slots)
    if best is None:
        size = f"{w:g} x {h:g} cm"
        if half is None:
            raise EnrolmentError(
                f"a table of {size} cannot hold 54 card slots clear of the markers: "
                "use two half-mats (--halves)"
            )
        raise EnrolmentError(
            f"a table of {size} cannot hold even a half-mat of 27 card slots clear of the "
            "markers: enrol the deck on a larger table"
        )
    return MatLayout(geometry, half, best[1], best[2], keep_out, title)


# ---------------------------------------------------------------- the printable sheet


def _text(
    img: np.ndarray,
    text: str,
    centre: tuple[float, float],
    height_px: float,
    grey: int,
    max_width_px: float | None = None,
) -> None:
    """ASCII text centred on ``centre``, capitals ``height_px`` tall (narrowed to fit
    ``max_width_px``)."""
    font = cv2.FONT_HERSHEY_SIMPLEX
    (_, cap), _ = cv2.getTextSize("H", font, 1.0, 1)
    scale = height_px / cap
    thickness = max(1, round(height_px / 10))
    (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    if max_width_px is not None and tw > max_width_px:
        scale *= max_width_px / tw
        thickness = max(1, round(thickness * max_width_px / tw))
        (tw, th), _ = cv2.getTextSize(text, font, scale, thickness)
    org = (round(centre[0] - tw / 2), round(centre[1] + th / 2))
    cv2.putText(img, text, org, font, scale, grey, thickness, cv2.LINE_AA)


def render_mat(layout: MatLayout, px_per_cm: float) -> npt.NDArray[np.uint8]:
    """The mat as a grayscale image of the whole table, ``px_per_cm`` pixels a cm, NW at the
    top-left (pixel ``(i, j)`` covers table cm ``[i, i + 1) / px_per_cm``)."""
    geo = layout.table
    width, height = round(geo.width_cm * px_per_cm), round(geo.height_cm * px_per_cm)
    img = np.full((height, width), PAPER, dtype=np.uint8)

    def px(v: float) -> int:
        return round(v * px_per_cm)

    def box(r: Rect, grey: int, thickness: int) -> None:
        cv2.rectangle(img, (px(r[0]), px(r[1])), (px(r[2]) - 1, px(r[3]) - 1), grey, thickness)

    line = max(1, px(0.05))
    box((0.0, 0.0, geo.width_cm, geo.height_cm), GUIDE_GREY, line)
    squares = marker_squares_cm(geo)
    for corner, marker_id in zip(CORNERS, geo.marker_ids, strict=True):
        sq = squares[marker_id]
        (x0, y0), (x1, y1) = sq.min(axis=0), sq.max(axis=0)
        box((float(x0), float(y0), float(x1), float(y1)), GUIDE_GREY, line)
        middle = ((x0 + x1) / 2 * px_per_cm, (y0 + y1) / 2 * px_per_cm)
        label = f"{corner} marker {marker_id}"
        _text(img, label, middle, 0.5 * px_per_cm, GUIDE_GREY, 0.8 * (x1 - x0) * px_per_cm)
    t = layout.title_cm
    _text(
        img,
        f"{layout.title()}: cards face up and upright, one to a slot",
        ((t[0] + t[2]) / 2 * px_per_cm, (t[1] + 0.45) * px_per_cm),
        0.45 * px_per_cm,
        0,
        (t[2] - t[0]) * px_per_cm,
    )
    _text(
        img,
        f"table {geo.width_cm:g} x {geo.height_cm:g} cm: print at 100%, lay it square between "
        "the corner markers, keep the markers uncovered",
        ((t[0] + t[2]) / 2 * px_per_cm, (t[1] + 1.15) * px_per_cm),
        0.3 * px_per_cm,
        GUIDE_GREY - 40,
        (t[2] - t[0]) * px_per_cm,
    )
    tick, tick_w = 0.8, max(1, px(0.06))
    for slot in layout.slots:
        p, c, lab = slot.pad_cm, slot.card_cm, slot.label_cm
        cv2.rectangle(img, (px(p[0]), px(p[1])), (px(p[2]) - 1, px(p[3]) - 1), PAD_GREY, -1)
        ticks = ((c[0], c[1], 1, 1), (c[2], c[1], -1, 1), (c[2], c[3], -1, -1), (c[0], c[3], 1, -1))
        for cx, cy, dx, dy in ticks:
            at = (px(cx), px(cy))
            cv2.line(img, at, (px(cx + dx * tick), px(cy)), TICK_GREY, tick_w)
            cv2.line(img, at, (px(cx), px(cy + dy * tick)), TICK_GREY, tick_w)
        middle = ((c[0] + c[2]) / 2 * px_per_cm, (c[1] + c[3]) / 2 * px_per_cm)
        _text(img, slot.card, middle, 1.4 * px_per_cm, PAD_TEXT_GREY)
        label_middle = ((lab[0] + lab[2]) / 2 * px_per_cm, (lab[1] + lab[3]) / 2 * px_per_cm)
        _text(img, f"{slot.number}  {slot.card}", label_middle, 0.5 * px_per_cm, 0)
    return img


def sheet_paths(out: Path, halves: bool) -> list[Path]:
    """Where :func:`write_mat` writes: ``out``, or ``NAME-1.EXT`` and ``NAME-2.EXT`` beside it."""
    if not halves:
        return [out]
    return [out.with_name(f"{out.stem}-{k}{out.suffix}") for k in (1, 2)]


def write_mat(
    out: Path, geometry: TableGeometry, *, halves: bool = False, dpi: int = DEFAULT_DPI
) -> list[Path]:
    """Write the mat (or its two half-mats) for this table as ``.png`` or ``.pdf`` sheets the
    size of the table; returns the paths written. A PNG states its DPI; a PDF page is the
    table's exact size."""
    out = Path(out)
    suffix = out.suffix.lower()
    if suffix not in (".png", ".pdf"):
        raise EnrolmentError(f"cannot write {out}: name it .png or .pdf")
    if not DPI_RANGE[0] <= dpi <= DPI_RANGE[1]:
        low, high = DPI_RANGE
        raise EnrolmentError(f"dpi {dpi} is out of range: use {low}-{high} (150 is usual)")
    layouts = [mat_layout(geometry, k) for k in (1, 2)] if halves else [mat_layout(geometry)]
    paths = sheet_paths(out, halves)
    for layout, path in zip(layouts, paths, strict=True):
        sheet = render_mat(layout, dpi / 2.54)
        if suffix == ".pdf":
            points_a_cm = 72 / 2.54
            size_pt = (geometry.width_cm * points_a_cm, geometry.height_cm * points_a_cm)
            data = pdf_bytes(sheet, *size_pt)
        else:
            ok, buf = cv2.imencode(".png", sheet)
            if not ok:
                raise EnrolmentError(f"cannot encode {path} as PNG: try a .pdf name")
            data = png_with_dpi(buf.tobytes(), dpi)
        write_bytes_atomic(path, data)
    return paths
