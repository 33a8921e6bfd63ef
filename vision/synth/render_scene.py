"""The pixels of a rendered hand: camera, table, markers, cards, hands and camera effects.

This module owns how ``chaodipi render`` draws one frame of a ``vision.synth.render_plan`` timeline.
The camera (:func:`make_camera`) looks down at the table with a slight tilt and roll, fixed per
render: a homography from table cm to image pixels, the table filling about 94% of the
frame's shorter side (≈ 27 px/cm at the Pi camera's 4608×2592, so a corner index of 1.8 cm is
≈ 48 px tall; ≈ 13.5 px/cm at its binned 2304×1296, ≈ 10 px/cm at 1280×960). The
static scene (:func:`render_base`: floor, table rim, felt or wood top, the four ArUco markers of
:func:`vision.calibration.marker_image` on white paper exactly where ``TableGeometry`` puts them)
is drawn once. Cards are face images from :mod:`vision.synth.faces`, shrunk once per identity to the
camera's scale and warped into small regions of interest; resting cards are kept in a cached
layer that is redrawn only when something lands or leaves. Hands are a skin-tone palm and
fingers with a sleeve, drawn over everything. :class:`Photometric` adds slow lighting drift
(two light fields cross-fading, a global gain), occasional fading glare blobs, sensor noise from
a precomputed bank and a mild blur. Images are BGR ``uint8`` (OpenCV order).

Table textures reuse the smooth noise of :mod:`vision.synth.scenes` and the card-to-table placement
its
``card_affine``; scene-level randomness of the detector's training data (random hands, clutter,
per-image photometry) is not reused, because a clip needs one consistent table and camera.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import cv2
import numpy as np

from vision.calibration import marker_image, marker_squares_cm
from vision.synth.faces import FACE_H, PROCEDURAL, CardFace, check_design, load_art_face
from vision.synth.procedural import make_back, random_style, render_procedural
from vision.synth.render_plan import Placement
from vision.synth.scenes import card_affine, smooth_noise
from vision.table_geometry import TableGeometry
from vision.zones import CARD_H_CM, CARD_W_CM, inward, right_of

BINNED_WIDTH = 2304  # the Camera Module 3's 2 × 2-binned mode (device.picamera_source)
FILL = 0.94  # table side / shorter image side
RIM_CM = 3.0  # wooden rim drawn around the marked table top


# --------------------------------------------------------------------------- camera


@dataclass(frozen=True)
class Camera:
    """A fixed camera: image ``size`` (w, h) and the homography table cm → image px."""

    size: tuple[int, int]
    table_to_image: np.ndarray  # 3 × 3 float64
    px_per_cm: float

    @property
    def image_to_table(self) -> np.ndarray:
        """The homography image px → table cm (what calibration should find), normalised."""
        inv = np.linalg.inv(self.table_to_image)
        return np.asarray(inv / inv[2, 2], dtype=np.float64)

    def project(self, points_cm: np.ndarray | Sequence[Sequence[float]]) -> np.ndarray:
        """Table cm points (N×2) → image px (N×2, float32)."""
        pts = np.asarray(points_cm, dtype=np.float64).reshape(-1, 1, 2)
        out = cv2.perspectiveTransform(pts, self.table_to_image)
        return np.asarray(out.reshape(-1, 2), dtype=np.float32)


def make_camera(rng: np.random.Generator, size: tuple[int, int], geometry: TableGeometry) -> Camera:
    """A camera looking down at the table with a slight tilt (one edge a few % shorter), a roll of
    up to 3° and a small offset; the table stays wholly in view."""
    w, h = size
    tw, th = geometry.width_cm, geometry.height_cm
    corners_cm = np.array([[0, 0], [tw, 0], [tw, th], [0, th]], dtype=np.float32)
    fill = FILL
    for _ in range(20):
        s = fill * min(w, h) / max(tw, th)
        half = np.array([tw * s / 2, th * s / 2])
        pts = np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]], dtype=np.float64) * half
        side = int(rng.integers(4))  # this edge is farther from the camera: shorter
        squeeze = rng.uniform(0.02, 0.06)
        a, b = side, (side + 1) % 4
        mid = (pts[a] + pts[b]) / 2
        pts[a] = mid + (pts[a] - mid) * (1 - squeeze)
        pts[b] = mid + (pts[b] - mid) * (1 - squeeze)
        roll = math.radians(rng.uniform(-3, 3))
        rot = np.array([[math.cos(roll), -math.sin(roll)], [math.sin(roll), math.cos(roll)]])
        pts = pts @ rot.T + np.array([w / 2, h / 2]) + rng.uniform(-0.015, 0.015, 2) * min(w, h)
        margin = 0.01 * min(w, h)
        inside = pts.min(axis=0).min() >= margin
        if inside and pts[:, 0].max() <= w - margin and pts[:, 1].max() <= h - margin:
            hom = cv2.getPerspectiveTransform(corners_cm, pts.astype(np.float32))
            return Camera(size, np.asarray(hom, dtype=np.float64), s)
        fill *= 0.98
    raise ValueError(f"image size {w}x{h} cannot hold the table: use a larger --size")


# --------------------------------------------------------------------------- static scene


def _noise(rng: np.random.Generator, h: int, w: int, cells: int) -> np.ndarray:
    """Smooth noise in [-1, 1] of shape h × w (from :func:`vision.synth.scenes.smooth_noise`)."""
    side = max(h, w)
    return smooth_noise(rng, side, cells)[:h, :w]


def _table_top(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """A felt (green, blue, red) or wood table top, BGR float32."""
    if rng.random() < 0.6:
        palette = [(50, 105, 35), (120, 70, 30), (40, 40, 120), (60, 90, 70)]  # BGR
        base = np.array(palette[int(rng.integers(len(palette)))], np.float32)
        base += rng.uniform(-12, 12, 3).astype(np.float32)
        img = np.empty((h, w, 3), np.float32)
        img[:] = base
        img += _noise(rng, h, w, 8)[..., None] * 10
        img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
        return img
    # Wood: streaks along x (a random profile across the rows, bent by smooth noise), planks.
    side = max(h, w)
    yy = np.repeat(np.arange(side, dtype=np.float32)[:, None], side, axis=1)
    warp = smooth_noise(rng, side, 4) * side * rng.uniform(0.01, 0.03)
    profile = cv2.GaussianBlur(rng.normal(0, 1, (side * 2, 1)).astype(np.float32), (1, 0), 2.0)
    rows = np.clip(yy + warp + side // 2, 0, 2 * side - 1).astype(np.int32)
    streaks = profile[rows, 0]
    streaks = streaks / (np.abs(streaks).max() + 1e-6)
    plank = side / rng.uniform(3, 6)
    seams = (np.abs(((yy + warp * 0.2) % plank) - plank / 2) > plank / 2 - 1.2).astype(np.float32)
    tone = float(rng.uniform(0.8, 1.15))
    base = np.array([45, 85, 135], np.float32) * tone  # BGR brown
    img = base + streaks[..., None] * 22 + smooth_noise(rng, side, 6)[..., None] * 12
    img *= (1 - 0.35 * seams)[..., None]
    if rng.random() < 0.5:
        img = np.ascontiguousarray(np.transpose(img, (1, 0, 2)))
    return np.asarray(img[:h, :w], dtype=np.float32)


def render_base(rng: np.random.Generator, camera: Camera, geometry: TableGeometry) -> np.ndarray:
    """The empty table as the camera sees it (BGR uint8): floor, rim, top and markers."""
    w, h = camera.size
    s = camera.px_per_cm
    floor = np.empty((h, w, 3), np.float32)
    floor[:] = np.array([40, 45, 55], np.float32) + rng.uniform(-15, 15, 3).astype(np.float32)
    floor += _noise(rng, h, w, 6)[..., None] * 12
    # The table in its own frame: s px per cm, RIM_CM of rim on each side.
    tw, th = geometry.width_cm, geometry.height_cm
    cw, ch = round((tw + 2 * RIM_CM) * s), round((th + 2 * RIM_CM) * s)
    canvas = np.empty((ch, cw, 3), np.float32)
    canvas[:] = np.array([30, 45, 70], np.float32)  # dark wood rim
    canvas += _noise(rng, ch, cw, 20)[..., None] * 8
    r = round(RIM_CM * s)
    top = _table_top(rng, ch - 2 * r, cw - 2 * r)
    canvas[r : ch - r, r : cw - r] = top
    vignette = 1 - 0.08 * _noise(rng, ch, cw, 3)[..., None] ** 2
    canvas *= vignette
    _markers(rng, canvas, geometry, s)
    to_cm = np.array([[1 / s, 0, -RIM_CM], [0, 1 / s, -RIM_CM], [0, 0, 1]], dtype=np.float64)
    m = camera.table_to_image @ to_cm
    out = cv2.warpPerspective(
        np.clip(canvas, 0, 255),
        m,
        (w, h),
        dst=floor,
        flags=cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_TRANSPARENT,
    )
    return np.asarray(np.clip(out, 0, 255).astype(np.uint8))


def _markers(
    rng: np.random.Generator, canvas: np.ndarray, geometry: TableGeometry, s: float
) -> None:
    """Paint the four markers on white paper squares into the table canvas (s px/cm)."""
    quiet_cm = min(1.0, geometry.marker_inset_cm)
    paper = float(rng.uniform(232, 250))
    ink = float(rng.uniform(20, 40))
    for mid, square in marker_squares_cm(geometry).items():
        size_px = round(geometry.marker_size_cm * s)
        quiet_px = max(1, round(quiet_cm * s))
        tile = marker_image(mid, size_px, quiet_px).astype(np.float32) / 255.0
        x0 = round((square[0, 0] + RIM_CM) * s) - quiet_px
        y0 = round((square[0, 1] + RIM_CM) * s) - quiet_px
        th, tw = tile.shape
        # a faint shadow of the paper, then the paper
        d = max(1, round(0.15 * s))
        sy, sx = slice(y0 + d, y0 + d + th), slice(x0 + d, x0 + d + tw)
        canvas[sy, sx] *= 0.8
        shade = np.array([paper, paper, paper - rng.uniform(0, 6)], np.float32)
        canvas[y0 : y0 + th, x0 : x0 + tw] = ink + tile[..., None] * (shade - ink)


# --------------------------------------------------------------------------- cards


class Deck:
    """The faces of one design at the camera's scale (BGRA, pre-shrunk), and a card back."""

    def __init__(self, design: str, rng: np.random.Generator, card_px: float) -> None:
        check_design(design)
        self.design = design
        self.card_px = card_px
        self._style = random_style(rng) if design == PROCEDURAL else None
        self._seed = int(rng.integers(2**31))
        self._cache: dict[str, np.ndarray] = {}
        back = make_back(rng)
        self.back = self._shrink(cv2.cvtColor(back, cv2.COLOR_RGBA2BGRA))

    def _shrink(self, bgra: np.ndarray) -> np.ndarray:
        target = max(8, round(self.card_px * 1.25))
        h, w = bgra.shape[:2]
        if target >= h:
            return bgra
        f = target / h
        return cv2.resize(bgra, (max(4, round(w * f)), target), interpolation=cv2.INTER_AREA)

    def face(self, identity: str) -> np.ndarray:
        """The BGRA face of ``identity``."""
        img = self._cache.get(identity)
        if img is None:
            if self._style is not None:
                face: CardFace = render_procedural(self._style, identity, FACE_H, self._seed)
            else:
                face = load_art_face(self.design, identity)
            img = self._shrink(cv2.cvtColor(face.image, cv2.COLOR_RGBA2BGRA))
            self._cache[identity] = img
        return img


def card_homography(
    camera: Camera, image: np.ndarray, x: float, y: float, angle: float
) -> np.ndarray:
    """Face pixels of ``image`` → image px for a card centred at (x, y) cm, rotated ``angle``°.

    The card is drawn 6.3 × 8.8 cm whatever the face's aspect (width follows the face)."""
    fh, fw = image.shape[:2]
    a = card_affine(fw, fh, x, y, angle, CARD_H_CM / fh)
    return np.asarray(camera.table_to_image @ np.vstack([a, [0, 0, 1]]), dtype=np.float64)


def draw_card(img: np.ndarray, face: np.ndarray, hom: np.ndarray, shadow: float = 0.3) -> None:
    """Warp a BGRA face through ``hom`` (face px → image px) into ``img``, with a soft shadow."""
    fh, fw = face.shape[:2]
    quad = np.array([[[0, 0], [fw, 0], [fw, fh], [0, fh]]], dtype=np.float64)
    pts = cv2.perspectiveTransform(quad, hom)[0]
    pad = 3
    x0, y0 = np.floor(pts.min(0)).astype(int) - pad
    x1, y1 = np.ceil(pts.max(0)).astype(int) + pad
    H, W = img.shape[:2]
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(W, x1), min(H, y1)
    if x0 >= x1 or y0 >= y1:
        return
    m = np.array([[1, 0, -x0], [0, 1, -y0], [0, 0, 1]], dtype=np.float64) @ hom
    warped = cv2.warpPerspective(
        face, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_CONSTANT
    )
    a = warped[..., 3].astype(np.float32) * np.float32(1 / 255)
    roi = img[y0:y1, x0:x1].astype(np.float32)
    if shadow > 0:
        sh = np.zeros_like(a)
        sh[2:, 1:] = a[:-2, :-1]
        sh = cv2.GaussianBlur(sh, (5, 5), 1.5)
        roi *= (1 - shadow * sh)[..., None]
    a3 = a[..., None]
    roi = roi * (1 - a3) + warped[..., :3].astype(np.float32) * a3
    img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def draw_cards(img: np.ndarray, camera: Camera, deck: Deck, cards: Iterable[Placement]) -> None:
    """Draw cards in order (later ones on top), a face-down one's back."""
    for c in cards:
        face = deck.back if c.face_down else deck.face(c.identity)
        draw_card(img, face, card_homography(camera, face, c.x, c.y, c.angle))


def draw_pile(
    img: np.ndarray,
    camera: Camera,
    deck: Deck,
    centre: tuple[float, float],
    seat: str,
    count: int,
    rng: np.random.Generator,
) -> None:
    """A face-down pile of won tricks (up to three backs, a little messy), lying sideways."""
    base = math.degrees(math.atan2(*inward(seat))) + 90.0
    for _ in range(min(3, count)):
        dx, dy = rng.normal(0, 0.5, 2)
        hom = card_homography(
            camera, deck.back, centre[0] + dx, centre[1] + dy, base + rng.normal(0, 6)
        )
        draw_card(img, deck.back, hom, 0.35)


# --------------------------------------------------------------------------- hands


@dataclass(frozen=True)
class HandLook:
    """One player's skin and sleeve colours (BGR)."""

    skin: tuple[int, int, int]
    sleeve: tuple[int, int, int]


def random_look(rng: np.random.Generator) -> HandLook:
    r = rng.uniform(120, 235)
    g = r * rng.uniform(0.62, 0.8)
    b = g * rng.uniform(0.72, 0.9)
    sleeve = tuple(int(v) for v in rng.uniform(20, 230, 3))
    return HandLook((int(b), int(g), int(r)), (sleeve[0], sleeve[1], sleeve[2]))


def _shade(colour: Sequence[int], f: float) -> tuple[int, int, int]:
    return (
        int(min(255, colour[0] * f)),
        int(min(255, colour[1] * f)),
        int(min(255, colour[2] * f)),
    )


def draw_hand(
    img: np.ndarray, camera: Camera, seat: str, pos: tuple[float, float], look: HandLook
) -> None:
    """A hand at ``pos`` (cm) reaching in from ``seat``'s side: sleeve, palm, four fingers and a
    thumb, all projected through the camera."""
    ux, uy = inward(seat)
    rx, ry = right_of(seat)
    px, py = pos

    def at(along: float, side: float) -> tuple[float, float]:
        return (px + ux * along + rx * side, py + uy * along + ry * side)

    def poly(points: Sequence[tuple[float, float]]) -> np.ndarray:
        return np.round(camera.project(np.array(points)) * 16).astype(np.int32)

    shift = 4  # fixed-point sub-pixel drawing
    s = camera.px_per_cm
    sleeve = [at(-6, -5.0), at(-6, 5.0), at(-60, 7.0), at(-60, -7.0)]
    cv2.fillPoly(img, [poly(sleeve)], _shade(look.sleeve, 0.8), cv2.LINE_AA, shift)
    inner = [at(-6.5, -3.8), at(-6.5, 3.8), at(-60, 5.0), at(-60, -5.0)]
    cv2.fillPoly(img, [poly(inner)], look.sleeve, cv2.LINE_AA, shift)
    # palm: an ellipse 9 cm long, 8 cm wide
    t = np.linspace(0, 2 * np.pi, 28, endpoint=False)
    palm = [at(-1.0 + 4.5 * math.cos(a), 4.0 * math.sin(a)) for a in t]
    dark = _shade(look.skin, 0.9)
    cv2.fillPoly(img, [poly(palm)], dark, cv2.LINE_AA, shift)
    fingers = [(-2.7, 4.2), (-0.9, 4.8), (0.9, 4.6), (2.6, 3.8)]
    for side, length in fingers:
        p0, p1 = camera.project(np.array([at(2.0, side * 0.8), at(2.0 + length, side)]))
        cv2.line(
            img,
            (int(p0[0] * 16), int(p0[1] * 16)),
            (int(p1[0] * 16), int(p1[1] * 16)),
            dark,
            max(2, round(1.6 * s)),
            cv2.LINE_AA,
            shift,
        )
    t0, t1 = camera.project(np.array([at(-1.0, -3.5), at(2.5, -6.5)]))
    cv2.line(
        img,
        (int(t0[0] * 16), int(t0[1] * 16)),
        (int(t1[0] * 16), int(t1[1] * 16)),
        dark,
        max(2, round(1.8 * s)),
        cv2.LINE_AA,
        shift,
    )
    highlight = [at(-0.5 + 3.2 * math.cos(a), 2.8 * math.sin(a) + 0.4) for a in t]
    cv2.fillPoly(img, [poly(highlight)], look.skin, cv2.LINE_AA, shift)


# --------------------------------------------------------------------------- camera effects


@dataclass(frozen=True)
class Glare:
    """A glare blob: centre (px), radii (px), peak brightness, and its time window (s)."""

    x: float
    y: float
    rx: float
    ry: float
    angle: float
    peak: float
    t0: float
    t1: float
    fade: float = 1.0

    def strength(self, t: float) -> float:
        if t <= self.t0 or t >= self.t1:
            return 0.0
        return self.peak * min(1.0, (t - self.t0) / self.fade, (self.t1 - t) / self.fade)


class Photometric:
    """Per-frame lighting drift, glare, blur and sensor noise (deterministic per seed).

    Noise (σ 3–5 grey levels) and blur (σ 0.5–0.8 px) are those of the Camera Module 3's
    2×2-binned 2304 × 1296 mode; a wider frame comes from the full sensor, whose pixels sum no
    neighbours, so they scale with the width: at 4608 × 2592, σ 6–10 grey levels and 1.0–1.6 px
    (shot noise per pixel doubles when four pixels are no longer summed; the lens's blur spans
    twice the pixels). Narrower frames keep the binned mode's figures."""

    def __init__(self, rng: np.random.Generator, camera: Camera, duration: float) -> None:
        w, h = camera.size
        self.size = (w, h)
        self.fields = [self._field(rng, w, h) for _ in range(2)]
        self.period = float(rng.uniform(20, 60))
        self.gain_period = float(rng.uniform(8, 25))
        self.gain_amp = float(rng.uniform(0.03, 0.07))
        self.phase = rng.uniform(0, 2 * np.pi, 2)
        # Noise and softness are drawn for the binned 2304 px wide mode; a wider frame's pixel
        # is a smaller patch of sensor: noisier (no 2 × 2 sum) and softer in pixels (same lens).
        sensor = max(1.0, w / BINNED_WIDTH)
        self.blur = float(rng.uniform(0.5, 0.8)) * sensor
        self.blur_kernel = (3, 3) if sensor == 1.0 else (0, 0)
        sigma = float(rng.uniform(3.0, 5.0)) * sensor
        pad = 16
        self.pad = pad
        noise = rng.normal(0, sigma, (h + pad, w + pad, 3)).astype(np.float32)
        self.noise_pos = np.clip(noise, 0, 255).astype(np.uint8)
        self.noise_neg = np.clip(-noise, 0, 255).astype(np.uint8)
        self.rng = np.random.default_rng(rng.integers(2**31))
        self.glares: list[Glare] = []
        t = float(rng.uniform(3, 15))
        s = camera.px_per_cm
        while t < duration:
            length = float(rng.uniform(2, 6))
            cx, cy = camera.project(np.array([rng.uniform(10, 80, 2)]))[0]
            self.glares.append(
                Glare(
                    float(cx),
                    float(cy),
                    float(rng.uniform(3, 8) * s),
                    float(rng.uniform(2, 5) * s),
                    float(rng.uniform(0, 180)),
                    float(rng.uniform(50, 120)),
                    t,
                    t + length,
                )
            )
            t += length + float(rng.uniform(10, 40))

    @staticmethod
    def _field(rng: np.random.Generator, w: int, h: int) -> np.ndarray:
        """A smooth light field (×128 in uint8): vignette, a light pool and a colour tint."""
        gw, gh = 32, 24
        yy, xx = np.mgrid[0:gh, 0:gw].astype(np.float32)
        xx, yy = xx / (gw - 1) - 0.5, yy / (gh - 1) - 0.5
        vignette = 1 - rng.uniform(0.1, 0.25) * (xx**2 + yy**2) * 2
        cx, cy = rng.uniform(-0.3, 0.3, 2)
        pool = 1 + rng.uniform(0.0, 0.15) * np.exp(-((xx - cx) ** 2 + (yy - cy) ** 2) / 0.08)
        tint = 1 + rng.uniform(-0.05, 0.05, 3).astype(np.float32)
        small = (vignette * pool)[..., None] * tint * rng.uniform(0.92, 1.05)
        big = cv2.resize(small.astype(np.float32), (w, h), interpolation=cv2.INTER_CUBIC)
        return np.asarray(np.clip(big * 128, 0, 255).astype(np.uint8))

    def apply(self, img: np.ndarray, t: float) -> np.ndarray:
        """The frame at time ``t`` as the camera delivers it (a new array)."""
        wgt = 0.5 + 0.5 * math.sin(2 * math.pi * t / self.period + self.phase[0])
        gain = 1 + self.gain_amp * math.sin(2 * math.pi * t / self.gain_period + self.phase[1])
        a, b = self.fields
        light = cv2.addWeighted(a, (1 - wgt) * gain, b, wgt * gain, 0)
        out = cv2.multiply(img, light, scale=1 / 128)
        for g in self.glares:
            k = g.strength(t)
            if k > 0:
                self._glare(out, g, k)
        w, h = self.size
        dx, dy = (int(v) for v in self.rng.integers(0, self.pad, 2))
        cv2.add(out, self.noise_pos[dy : dy + h, dx : dx + w], dst=out)
        cv2.subtract(out, self.noise_neg[dy : dy + h, dx : dx + w], dst=out)
        # the lens and the camera's processing soften sensor noise and edges alike
        return np.asarray(cv2.GaussianBlur(out, self.blur_kernel, self.blur))

    @staticmethod
    def _glare(img: np.ndarray, g: Glare, k: float) -> None:
        r = int(max(g.rx, g.ry) * 2)
        H, W = img.shape[:2]
        x0, y0 = max(0, int(g.x) - r), max(0, int(g.y) - r)
        x1, y1 = min(W, int(g.x) + r), min(H, int(g.y) + r)
        if x0 >= x1 or y0 >= y1:
            return
        yy, xx = np.mgrid[y0:y1, x0:x1].astype(np.float32)
        c, s = math.cos(math.radians(g.angle)), math.sin(math.radians(g.angle))
        u = ((xx - g.x) * c + (yy - g.y) * s) / g.rx
        v = (-(xx - g.x) * s + (yy - g.y) * c) / g.ry
        blob = np.exp(-(u * u + v * v) * 1.5) * k
        roi = img[y0:y1, x0:x1].astype(np.float32) + blob[..., None]
        img[y0:y1, x0:x1] = np.clip(roi, 0, 255).astype(np.uint8)


def card_size_px(camera: Camera) -> tuple[float, float]:
    """A card's width and height in image px at the table's centre (for scale checks)."""
    return CARD_W_CM * camera.px_per_cm, CARD_H_CM * camera.px_per_cm
