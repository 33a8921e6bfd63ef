"""The table as the camera pipeline knows it: its size and corner markers, the play zones, and
the camera-to-table calibration. These are plain values; the table config file
(:mod:`chaodipi.config`) reads and writes them.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

CORNERS: tuple[str, ...] = ("NW", "NE", "SE", "SW")


@dataclass(frozen=True)
class TableGeometry:
    """The table top in cm and the four corner markers on it.

    Table coordinates: origin at the NW corner of the table top, x toward E (right in the
    image), y toward S (down in the image). ``marker_ids`` are the ArUco ids at the corners
    NW, NE, SE, SW; each marker's black square is ``marker_size_cm`` wide and its two outer
    edges lie ``marker_inset_cm`` from the table's edges.
    """

    width_cm: float = 90.0
    height_cm: float = 90.0
    marker_ids: tuple[int, int, int, int] = (0, 1, 2, 3)
    marker_size_cm: float = 8.0
    marker_inset_cm: float = 1.0

    def corner_name(self, marker_id: int) -> str:
        """``NW``/``NE``/``SE``/``SW`` for one of this table's marker ids."""
        return CORNERS[self.marker_ids.index(marker_id)]


@dataclass(frozen=True)
class ZoneConfig:
    """Where played cards count for a seat, in cm (see ``vision.zones``).

    Each seat's play area starts ``edge_margin_cm`` in from its table edge, reaches
    ``play_depth_cm`` toward the centre and is ``play_width_cm`` wide, centred on the seat; it
    never crosses into a neighbour's quarter of the table. The centre is a circle of
    ``centre_radius_cm`` around the table's middle, and wins over the play areas.
    """

    edge_margin_cm: float = 10.0
    play_depth_cm: float = 25.0
    play_width_cm: float = 50.0
    centre_radius_cm: float = 10.0


@dataclass(frozen=True)
class Calibration:
    """The camera-to-table mapping found by ``chaodipi calibrate``.

    ``homography`` maps image pixels (x, y) to table cm. ``points_px`` are the four reference
    points NW, NE, SE, SW in the image (marker centres for ``aruco``, the clicked points for
    ``manual``); ``markers`` holds each detected marker's four image corners (``aruco`` only).
    ``residual_cm`` is the RMS fit error over all marker corners (None for a four-point fit).
    """

    homography: tuple[tuple[float, float, float], ...]
    image_size: tuple[int, int]  # width, height in pixels
    table_size_cm: tuple[float, float]
    points_px: tuple[tuple[float, float], ...]
    when: str
    method: str = "aruco"
    residual_cm: float | None = None
    markers: dict[int, tuple[tuple[float, float], ...]] = field(default_factory=dict)

    @property
    def matrix(self) -> np.ndarray:
        """The homography as a 3×3 float64 array (image px → table cm)."""
        return np.array(self.homography, dtype=np.float64)
