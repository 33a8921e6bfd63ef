"""Table zones in table cm: each seat's play area and the centre, and which zone holds a card.

This module owns the split of the table top (coordinates of ``chaodipi.config``: origin at
the NW corner, x toward E, y toward S, in cm) into where each seat plays its cards. A seat's
play area is the part of the band ``edge_margin_cm`` … ``edge_margin_cm + play_depth_cm`` in
from its edge, ``play_width_cm`` wide and centred on the seat, that lies in the seat's quarter
of the table (the points nearer its edge than any other edge), so neighbours' areas never
overlap. The centre is a circle of ``centre_radius_cm`` and wins over the play areas.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

import cv2
import numpy as np
import numpy.typing as npt

from vision.table_geometry import Calibration, TableGeometry, ZoneConfig

SEATS: tuple[str, ...] = ("N", "E", "S", "W")
CENTRE = "centre"
OUTSIDE = "outside"

Point = tuple[float, float]
Polygon = tuple[Point, ...]
T = TypeVar("T")

CARD_W_CM = 6.3  # a playing card (poker size), as it lies on the table
CARD_H_CM = 8.8

READING_MARGIN_CM = 5.0
"""How far past the zones a card may reach and still be read: about half a card's height."""


def inward(seat: str) -> Point:
    """Unit vector from ``seat``'s table edge toward the centre (table cm, y toward S)."""
    return {"N": (0.0, 1.0), "E": (-1.0, 0.0), "S": (0.0, -1.0), "W": (1.0, 0.0)}[seat]


def right_of(seat: str) -> Point:
    """Unit vector to the right hand of the player at ``seat`` (facing the centre)."""
    ux, uy = inward(seat)
    return (-uy, ux)


# BGR colours for the overlay.
COLOURS: dict[str, tuple[int, int, int]] = {
    "N": (60, 60, 230),
    "E": (40, 180, 40),
    "S": (230, 120, 40),
    "W": (20, 200, 220),
    CENTRE: (200, 60, 200),
    "table": (255, 255, 255),
}


def _clip(polygon: list[Point], a: Point, b: Point) -> list[Point]:
    """Sutherland–Hodgman: the part of a convex polygon left of (or on) the line a → b in a
    y-down frame, i.e. on the clockwise-inside of the edge a → b."""

    def inside(p: Point) -> bool:
        return (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) >= -1e-9

    def cross(p: Point, q: Point) -> Point:
        dx, dy = q[0] - p[0], q[1] - p[1]
        ex, ey = b[0] - a[0], b[1] - a[1]
        t = (ex * (a[1] - p[1]) - ey * (a[0] - p[0])) / (ex * dy - ey * dx)
        return (p[0] + t * dx, p[1] + t * dy)

    out: list[Point] = []
    for k, cur in enumerate(polygon):
        prev = polygon[k - 1]
        if inside(cur):
            if not inside(prev):
                out.append(cross(prev, cur))
            out.append(cur)
        elif inside(prev):
            out.append(cross(prev, cur))
    return out


def _intersect(subject: list[Point], clip: list[Point]) -> Polygon:
    """The intersection of two convex polygons given clockwise on screen (y down)."""
    out = subject
    for k in range(len(clip)):
        if not out:
            break
        out = _clip(out, clip[k], clip[(k + 1) % len(clip)])
    dedup: list[Point] = []
    for p in out:
        if not dedup or abs(p[0] - dedup[-1][0]) + abs(p[1] - dedup[-1][1]) > 1e-9:
            dedup.append(p)
    if len(dedup) > 1 and abs(dedup[0][0] - dedup[-1][0]) + abs(dedup[0][1] - dedup[-1][1]) < 1e-9:
        dedup.pop()
    return tuple(dedup)


def _rect(x0: float, y0: float, x1: float, y1: float) -> list[Point]:
    return [(x0, y0), (x1, y0), (x1, y1), (x0, y1)]


def _inside(polygon: Polygon, p: Point) -> bool:
    """Whether ``p`` lies in (or on) a convex polygon given clockwise on screen."""
    if len(polygon) < 3:
        return False
    n = len(polygon)
    for k in range(n):
        a, b = polygon[k], polygon[(k + 1) % n]
        if (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]) < -1e-9:
            return False
    return True


@dataclass(frozen=True)
class Zones:
    """The play areas (convex polygons, cm) of the seats N, E, S, W and the centre circle."""

    width_cm: float
    height_cm: float
    seats: dict[str, Polygon]
    centre: Point
    centre_radius_cm: float

    @classmethod
    def from_config(cls, geometry: TableGeometry, zone_config: ZoneConfig) -> Zones:
        """The zones of a table of ``geometry``'s size with ``zone_config``'s sizes."""
        w, h = geometry.width_cm, geometry.height_cm
        m = min(w, h) / 2
        # Each seat's quarter: the points nearer its edge than any other (clockwise).
        quarters = {
            "N": [(0.0, 0.0), (w, 0.0), (w - m, m), (m, m)],
            "E": [(w, 0.0), (w, h), (w - m, h - m), (w - m, m)],
            "S": [(w, h), (0.0, h), (m, h - m), (w - m, h - m)],
            "W": [(0.0, h), (0.0, 0.0), (m, m), (m, h - m)],
        }
        near = zone_config.edge_margin_cm
        far = near + zone_config.play_depth_cm
        half = zone_config.play_width_cm / 2
        bands = {
            "N": _rect(w / 2 - half, near, w / 2 + half, far),
            "E": _rect(w - far, h / 2 - half, w - near, h / 2 + half),
            "S": _rect(w / 2 - half, h - far, w / 2 + half, h - near),
            "W": _rect(near, h / 2 - half, far, h / 2 + half),
        }
        seats = {s: _intersect(bands[s], quarters[s]) for s in SEATS}
        return cls(w, h, seats, (w / 2, h / 2), zone_config.centre_radius_cm)

    def seat_of(self, point_cm: npt.ArrayLike) -> str | None:
        """``N``/``E``/``S``/``W`` for a point in that seat's play area, ``centre`` for the
        centre, None elsewhere."""
        x, y = (float(v) for v in np.asarray(point_cm, dtype=np.float64).reshape(2))
        cx, cy = self.centre
        if (x - cx) ** 2 + (y - cy) ** 2 <= self.centre_radius_cm**2:
            return CENTRE
        for seat in SEATS:
            if _inside(self.seats[seat], (x, y)):
                return seat
        return None

    def assign(self, items: Iterable[tuple[T, npt.ArrayLike]]) -> dict[str, list[T]]:
        """Sort ``(item, (x_cm, y_cm))`` pairs by zone: keys ``N E S W centre outside``, each
        list in the input order."""
        out: dict[str, list[T]] = {k: [] for k in (*SEATS, CENTRE, OUTSIDE)}
        for item, point in items:
            out[self.seat_of(point) or OUTSIDE].append(item)
        return out

    def reading_region_cm(
        self, margin_cm: float = READING_MARGIN_CM
    ) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` in cm: the bounds of every zone grown by ``margin_cm`` (a card
        whose centre lies on a zone's edge reaches that far out), clipped to the table. Only
        this part of the table needs reading: cards elsewhere belong to no zone."""
        points = np.concatenate([p for k, p in self.polygons_cm().items() if k != "table"])
        x0, y0 = points.min(axis=0) - margin_cm
        x1, y1 = points.max(axis=0) + margin_cm
        return (
            max(0.0, float(x0)),
            max(0.0, float(y0)),
            min(self.width_cm, float(x1)),
            min(self.height_cm, float(y1)),
        )

    def polygons_cm(self, circle_points: int = 48) -> dict[str, npt.NDArray[np.float64]]:
        """Every zone and the table outline as polygons in cm (the centre as a polygon of
        ``circle_points`` vertices)."""
        t = np.linspace(0, 2 * np.pi, circle_points, endpoint=False)
        cx, cy = self.centre
        r = self.centre_radius_cm
        out = {s: np.array(self.seats[s], dtype=np.float64) for s in SEATS}
        out[CENTRE] = np.stack([cx + r * np.cos(t), cy + r * np.sin(t)], axis=1)
        w, h = self.width_cm, self.height_cm
        out["table"] = np.array(_rect(0.0, 0.0, w, h), dtype=np.float64)
        return out

    def draw(self, image: np.ndarray, calibration: Calibration, thickness: int = 2) -> np.ndarray:
        """A copy of ``image`` with the table outline and the zones drawn over it, labelled."""
        from vision.calibration import to_image

        out = image.copy() if image.ndim == 3 else cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
        overlay = out.copy()
        for name, poly_cm in self.polygons_cm().items():
            if len(poly_cm) < 3:
                continue
            poly = np.round(to_image(poly_cm, calibration)).astype(np.int32)
            colour = COLOURS[name]
            if name != "table":
                cv2.fillPoly(overlay, [poly], colour)
            cv2.polylines(out, [poly], True, colour, thickness, cv2.LINE_AA)
        out = cv2.addWeighted(overlay, 0.25, out, 0.75, 0)
        scale = max(0.5, min(out.shape[:2]) / 900)
        for name, poly_cm in self.polygons_cm().items():
            if name == "table" or len(poly_cm) < 3:
                continue
            x, y = np.round(to_image(poly_cm.mean(axis=0), calibration)).astype(int)
            label = "C" if name == CENTRE else name
            (tw, th), _ = cv2.getTextSize(label, cv2.FONT_HERSHEY_SIMPLEX, scale, 2)
            org = (int(x) - tw // 2, int(y) + th // 2)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, (0, 0, 0), 5)
            cv2.putText(out, label, org, cv2.FONT_HERSHEY_SIMPLEX, scale, COLOURS[name], 2)
        return out
