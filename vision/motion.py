"""Motion gate: is the table still enough to trust this frame's card readings?

This module owns the NVR-style motion test the play tracker gates on. Frames are reduced to a
small blurred grey image (320×240 by default); a running background (exponential average,
``alpha`` per frame) is compared with each frame, and the fraction of pixels that changed by more
than ``pixel_threshold`` grey levels is measured over the table region and over each zone mask
(the seat zones, the kitty zone). A table fraction above ``moving_fraction`` is *moving*; a zone
whose fraction is above ``occluded_fraction`` is *occluded* (a hand or an arm over it), and a
table fraction that high occludes every zone. A frame is *settled* once nothing has moved for
``settle_s``. Decisions skip moving and occluded frames; timing may still use them.

A hand held perfectly still is learnt into the background within about ``1/alpha`` frames; the
tracker's rules (cards leave a zone only when the trick is collected, reappearing cards are not a
new play) make that harmless. Cost: a resize, a blur, a weighted accumulate and a few counts —
well under 2 ms a frame at 320×240 on one core.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

import cv2
import numpy as np
import numpy.typing as npt

Mask = npt.NDArray[np.bool_] | npt.NDArray[np.uint8]

SIZE = (320, 240)  # working width, height
ALPHA = 0.2  # background learning rate per frame
PIXEL_THRESHOLD = 25  # grey levels a pixel must change by to count
MOVING_FRACTION = 0.01  # changed share of the table region that is motion
OCCLUDED_FRACTION = 0.25  # changed share of a zone (or the table) that is occlusion
SETTLE_S = 0.5  # still this long → settled
BLUR = 5  # Gaussian kernel (odd) against sensor noise


@dataclass(frozen=True)
class MotionState:
    """The gate's reading of one frame."""

    moving: bool
    fraction: float  # changed share of the table region
    occluded_zones: frozenset[str] = frozenset()
    occluded: bool = False  # the whole table is covered: every zone occluded
    settled: bool = False  # no motion for settle_s
    zone_fractions: Mapping[str, float] = field(default_factory=dict)

    @property
    def usable(self) -> bool:
        """Neither moving nor occluded as a whole (zones may still be occluded)."""
        return not self.moving and not self.occluded

    def blocks(self, zone: str) -> bool:
        """Whether decisions about ``zone`` must skip this frame."""
        return self.moving or self.occluded or zone in self.occluded_zones


STILL = MotionState(moving=False, fraction=0.0, settled=True)


class MotionGate:
    """Running-background motion and occlusion test (see the module docstring).

    ``table_mask`` and the ``zones`` masks are boolean or 0/255 arrays of any size (resized to the
    working size, nearest neighbour); without a table mask the whole frame is the table.
    """

    def __init__(
        self,
        *,
        size: tuple[int, int] = SIZE,
        alpha: float = ALPHA,
        pixel_threshold: int = PIXEL_THRESHOLD,
        moving_fraction: float = MOVING_FRACTION,
        occluded_fraction: float = OCCLUDED_FRACTION,
        settle_s: float = SETTLE_S,
        table_mask: Mask | None = None,
        zones: Mapping[str, Mask] | None = None,
        blur: int = BLUR,
    ) -> None:
        self.size = size
        self.alpha = alpha
        self.pixel_threshold = pixel_threshold
        self.moving_fraction = moving_fraction
        self.occluded_fraction = occluded_fraction
        self.settle_s = settle_s
        self.blur = blur
        w, h = size
        self._table = self._fit(table_mask) if table_mask is not None else None
        self._zones = {name: self._fit(m) for name, m in (zones or {}).items()}
        self._table_px = max(
            1, int(np.count_nonzero(self._table)) if self._table is not None else w * h
        )
        self._zone_px = {n: max(1, int(np.count_nonzero(m))) for n, m in self._zones.items()}
        self._bg: npt.NDArray[np.float32] | None = None
        self._still_since: float | None = None

    def _fit(self, mask: Mask) -> npt.NDArray[np.uint8]:
        m: npt.NDArray[np.uint8] = np.where(np.asarray(mask) != 0, 255, 0).astype(np.uint8)
        w, h = self.size
        if m.shape[:2] != (h, w):
            m = np.asarray(cv2.resize(m, (w, h), interpolation=cv2.INTER_NEAREST), np.uint8)
        return m

    def reset(self) -> None:
        """Forget the background (e.g. after the camera moved)."""
        self._bg = None
        self._still_since = None

    def _prepare(self, frame: npt.NDArray[np.generic]) -> npt.NDArray[np.uint8]:
        img = np.asarray(frame)
        w, h = self.size
        if img.shape[1] > 2 * w and img.shape[0] > 2 * h:
            # A big camera frame: sample it down to twice the working size first (nearest
            # pixels; the area resize below still averages 2 × 2), or the grey conversion and
            # resize of all of it cost more than the rest of the gate (measured here, one
            # thread: 1280 × 960 1.0 → 0.4 ms, 2028 × 1520 5.1 → 0.45 ms).
            img = cv2.resize(img, (2 * w, 2 * h), interpolation=cv2.INTER_NEAREST)
        if img.ndim == 3:
            img = cv2.cvtColor(
                img, cv2.COLOR_BGR2GRAY if img.shape[2] == 3 else cv2.COLOR_BGRA2GRAY
            )
        if img.dtype != np.uint8:
            img = np.clip(img, 0, 255).astype(np.uint8)
        if img.shape[:2] != (h, w):
            img = cv2.resize(img, (w, h), interpolation=cv2.INTER_AREA)
        if self.blur > 1:
            img = cv2.GaussianBlur(img, (self.blur, self.blur), 0)
        return img

    def update(self, frame_gray: npt.NDArray[np.generic], t: float) -> MotionState:
        """Read one frame (grey or BGR, any size) taken at ``t`` seconds."""
        img = self._prepare(frame_gray)
        if self._bg is None:
            self._bg = img.astype(np.float32)
            self._still_since = t
            return MotionState(moving=False, fraction=0.0, settled=self.settle_s <= 0)
        diff = cv2.absdiff(img, cv2.convertScaleAbs(self._bg))
        _, changed = cv2.threshold(diff, self.pixel_threshold, 255, cv2.THRESH_BINARY)
        cv2.accumulateWeighted(img, self._bg, self.alpha)
        if self._table is not None:
            changed = cv2.bitwise_and(changed, self._table)
        fraction = cv2.countNonZero(changed) / self._table_px
        zone_fractions = {
            name: cv2.countNonZero(cv2.bitwise_and(changed, m)) / self._zone_px[name]
            for name, m in self._zones.items()
        }
        moving = fraction > self.moving_fraction
        occluded = fraction > self.occluded_fraction
        if occluded:
            occluded_zones = frozenset(self._zones)
        else:
            occluded_zones = frozenset(
                n for n, f in zone_fractions.items() if f > self.occluded_fraction
            )
        if moving or occluded:
            self._still_since = None
        elif self._still_since is None:
            self._still_since = t
        settled = self._still_since is not None and t - self._still_since >= self.settle_s
        return MotionState(
            moving=moving,
            fraction=fraction,
            occluded_zones=occluded_zones,
            occluded=occluded,
            settled=settled,
            zone_fractions=zone_fractions,
        )
