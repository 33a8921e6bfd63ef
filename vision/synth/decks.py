"""Artwork decks: a deck is a folder of card faces named by card, and nothing else is needed.

A deck folder holds 52 or 54 face images named by card (``AS.png``, ``10H.png``, ``BJ.png``,
``SJ.png``; PNG, JPEG or WebP, RGBA or RGB), optionally a card back (``back.png``, more backs as
``back_2.png`` …), the ``model/`` folder ``chaodipi deck adapt`` writes, and optionally a
``deck.toml``::

    name = "Byron Knoll's vector playing cards"
    licence = "public domain"
    whole_face = ["BJ", "SJ"]          # cards without a corner index: the whole face is the label
    [index_boxes]                      # x0, y0, x1, y1 in face pixels, only where finding fails
    BJ = [1.0, 4.8, 44.3, 174.5]

Licence and readme files may lie beside. Corner-index boxes are found automatically on each face
(:func:`find_corner_indices`: the ink nearest the top-left corner, on the face turned 180° the
bottom-right one, and the other two corners' where they print the same index, as four-index
decks do), so adding a deck never needs a code change. Anything else in the folder,
a missing or misnamed face, or a lone joker is refused with a one-line :class:`DeckError`.

A design is named either by a built-in deck (:data:`BUILT_IN_DECKS`, vendored in ``decks/``
beside this module with their licences) or by the path of a deck folder.
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import cv2
import numpy as np

from vision.classes import CLASS_NAMES, JOKERS

DECKS_DIR = Path(__file__).resolve().parent / "decks"
BUILT_IN_DECKS: tuple[str, ...] = ("byron_knoll", "adrian_kennard")
"""Decks that ship with the project (``vision/synth/decks/<name>/``)."""

FACE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp")
MODEL_FOLDER = "model"
"""The one folder a deck folder may hold: its adapted card reader (``chaodipi deck adapt``,
:mod:`vision.enrolment.deck_model`); hidden entries (``.adapt/``) are passed over too."""
INDEX_FIND_H = 700
"""Faces are brought to this height before their index is looked for: the finder's pixel
sizes (the outline it ignores, the smallest ink it keeps) were set on faces this tall."""

_BACK = re.compile(r"^back(_\d+)?$")
_BESIDE = re.compile(r"^(deck\.toml|LICEN[CS]E.*|COPYING.*|README.*|SOURCE.*)$", re.IGNORECASE)
CARDS_52 = tuple(name for name in CLASS_NAMES if name not in JOKERS)

Box = tuple[float, float, float, float]


class DeckError(ValueError):
    """A deck folder that cannot be used; the message is one line naming what to fix."""


@dataclass(frozen=True)
class DeckInfo:
    """One artwork deck: its folder, the faces it has, and what ``deck.toml`` says of it."""

    design: str  # how it was named: a built-in name or the folder's path as given
    folder: Path
    name: str
    licence: str
    faces: dict[str, Path] = field(repr=False)
    backs: tuple[Path, ...] = ()
    index_boxes: dict[str, Box] = field(default_factory=dict)
    whole_face: frozenset[str] = frozenset()

    @property
    def has_jokers(self) -> bool:
        return all(j in self.faces for j in JOKERS)


def deck_folder(design: str) -> Path:
    """The folder of a built-in deck or of a deck named by path."""
    return DECKS_DIR / design if design in BUILT_IN_DECKS else Path(design).expanduser()


def _box(folder: Path, card: str, value: object) -> Box:
    if (
        not isinstance(value, list)
        or len(value) != 4
        or not all(isinstance(v, int | float) for v in value)
    ):
        raise DeckError(
            f"{folder / 'deck.toml'}: index_boxes.{card} must be [x0, y0, x1, y1] in face pixels"
        )
    x0, y0, x1, y1 = (float(v) for v in value)
    if not (x1 > x0 and y1 > y0):
        raise DeckError(f"{folder / 'deck.toml'}: index_boxes.{card} must have x1 > x0, y1 > y0")
    return x0, y0, x1, y1


def _read_toml(folder: Path) -> dict[str, object]:
    path = folder / "deck.toml"
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise DeckError(f"{path} is not valid TOML ({e}): fix or delete it") from None
    allowed = {"name", "licence", "license", "source", "whole_face", "index_boxes"}
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise DeckError(f"{path}: unknown key {unknown[0]!r}; known: {', '.join(sorted(allowed))}")
    return data


@functools.lru_cache(maxsize=64)
def load_deck(design: str) -> DeckInfo:
    """The deck ``design`` names, checked: one-line :class:`DeckError` for anything amiss."""
    folder = deck_folder(design)
    if not folder.is_dir():
        if design in BUILT_IN_DECKS or "/" in design or "\\" in design:  # meant as a folder
            raise DeckError(f"deck folder {folder} does not exist: give a folder of card faces")
        raise DeckError(
            f"unknown card design {design!r}: use procedural, "
            f"{', '.join(BUILT_IN_DECKS)} or the path of a deck folder"
        )
    faces: dict[str, Path] = {}
    backs: list[Path] = []
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or _BESIDE.match(path.name):
            continue
        if path.is_dir() and path.name == MODEL_FOLDER:
            continue  # the deck's adapted card reader (``chaodipi deck adapt``)
        if path.is_dir():
            raise DeckError(f"{path} is a folder inside the deck {folder}: move it out")
        if path.suffix.lower() not in FACE_SUFFIXES:
            raise DeckError(
                f"{path} is not a card face: a deck folder holds only faces named by card "
                "(AS.png, 10H.png, BJ.png), back.png and deck.toml"
            )
        if _BACK.match(path.stem):
            backs.append(path)
        elif path.stem in CLASS_NAMES:
            if path.stem in faces:
                raise DeckError(f"{folder} has two faces of {path.stem}: keep one")
            faces[path.stem] = path
        else:
            raise DeckError(
                f"{path.name} in {folder} is no card name: name faces by rank and suit "
                "(2…10, J, Q, K, A + S H D C, e.g. 10H.png) or BJ / SJ for the jokers"
            )
    missing = [c for c in CARDS_52 if c not in faces]
    if missing:
        shown = ", ".join(missing[:6]) + (" …" if len(missing) > 6 else "")
        raise DeckError(f"deck {folder} lacks {len(missing)} faces ({shown}): add them")
    jokers = [j for j in JOKERS if j in faces]
    if len(jokers) == 1:
        other = next(j for j in JOKERS if j not in faces)
        raise DeckError(f"deck {folder} has {jokers[0]} but no {other}: add it or remove both")
    meta = _read_toml(folder)
    boxes_raw = meta.get("index_boxes", {})
    if not isinstance(boxes_raw, dict):
        raise DeckError(f"{folder / 'deck.toml'}: index_boxes must be a table of card = [box]")
    boxes = {}
    for card, value in boxes_raw.items():
        if card not in faces:
            raise DeckError(f"{folder / 'deck.toml'}: index_boxes names {card!r}, not a face here")
        boxes[card] = _box(folder, card, value)
    whole = meta.get("whole_face", [])
    if not isinstance(whole, list) or not all(c in faces for c in whole):
        raise DeckError(f"{folder / 'deck.toml'}: whole_face must list faces of this deck")
    return DeckInfo(
        design=design,
        folder=folder,
        name=str(meta.get("name", folder.name)),
        licence=str(meta.get("licence", meta.get("license", ""))),
        faces=faces,
        backs=tuple(backs),
        index_boxes=boxes,
        whole_face=frozenset(str(c) for c in whole),
    )


def read_rgba(path: Path) -> np.ndarray:
    """A face image as RGBA (opaque where the file has no alpha); a DeckError if unreadable."""
    image = cv2.imread(str(path), cv2.IMREAD_UNCHANGED)
    if image is None or image.ndim not in (2, 3):
        raise DeckError(f"{path} is not a readable image: save it as PNG or JPEG")
    if image.ndim == 2:
        image = cv2.cvtColor(image, cv2.COLOR_GRAY2BGR)
    if image.shape[2] == 3:
        image = cv2.cvtColor(image, cv2.COLOR_BGR2BGRA)
    rgba: np.ndarray = cv2.cvtColor(image, cv2.COLOR_BGRA2RGBA)
    return rgba


# --------------------------------------------------------------------------- finding the index


def _ink_mask(rgba: np.ndarray) -> np.ndarray:
    """Printed pixels of a face, excluding the outline at the card's edge."""
    rgb = rgba[..., :3].astype(np.int16)
    dark = rgb.min(axis=2) < 170
    sat = (rgb.max(axis=2) - rgb.min(axis=2)) > 70
    opaque = (rgba[..., 3] > 200).astype(np.uint8)
    inside: np.ndarray = (
        cv2.erode(
            opaque, np.ones((15, 15), np.uint8), borderType=cv2.BORDER_CONSTANT, borderValue=0
        )
        > 0
    )
    ink: np.ndarray = (dark | sat) & inside
    return ink


STACK_GAP_OF_RANK = 0.3
"""The widest gap between the rank and the suit under it, as a share of the rank's height, when
more than 3 % of the face's (large indices stand further apart)."""


def _find_at_scale(rgba: np.ndarray) -> Box | None:
    h, w = rgba.shape[:2]
    ink = _ink_mask(rgba)[: int(0.55 * h), : int(0.3 * w)].astype(np.uint8)
    n, _, stats, _ = cv2.connectedComponentsWithStats(ink, connectivity=8)
    comps = []
    for i in range(1, n):
        x, y, cw, ch, area = (int(v) for v in stats[i])
        if area < 12 or ch > 0.16 * h or cw > 0.2 * w:
            continue
        comps.append((x, y, x + cw, y + ch))
    seeds = [c for c in comps if c[0] < 0.12 * w and c[1] < 0.15 * h]
    if not seeds:
        return None
    seed = min(seeds, key=lambda c: c[1])
    group = list(seed)
    row_h = seed[3] - seed[1]
    gap_x = 0.03 * w
    # A large rank's suit may sit further under it (kde_standard: a quarter of the rank's height).
    gap_y = max(0.03 * h, STACK_GAP_OF_RANK * row_h)
    used = {seed}
    grown = True
    while grown:
        grown = False
        for c in comps:
            if c in used:
                continue
            dx = max(group[0] - c[2], c[0] - group[2], 0)
            dy = max(group[1] - c[3], c[1] - group[3], 0)
            overlap_x = min(group[2], c[2]) - max(group[0], c[0])
            overlap_row = min(seed[3], c[3]) - max(seed[1], c[1])
            stacked = overlap_x > 0 and dy <= gap_y  # suit under the rank, joker letters
            beside = (
                dx <= gap_x and overlap_row >= 0.6 * (c[3] - c[1]) and c[3] - c[1] <= 1.3 * row_h
            )  # the "0" of "10"
            if stacked or beside:
                used.add(c)
                group = [
                    min(group[0], c[0]),
                    min(group[1], c[1]),
                    max(group[2], c[2]),
                    max(group[3], c[3]),
                ]
                grown = True
    return float(group[0]), float(group[1]), float(group[2]), float(group[3])


def find_corner_index(rgba: np.ndarray) -> Box | None:
    """Bounds ``(x0, y0, x1, y1)`` of the top-left corner index of an artwork face.

    Ink components in the top-left region are grouped, starting from the topmost small one
    near the left edge and adding small components within a short gap (the suit under the
    rank, the "0" of "10", the letters of a vertical "Joker"). Large components (the court
    art's frame) are never added. The face is looked at :data:`INDEX_FIND_H` pixels tall
    whatever its size, so the same deck gives the same box at any resolution.
    """
    h, w = rgba.shape[:2]
    s = INDEX_FIND_H / h
    if abs(s - 1) < 0.05:
        return _find_at_scale(rgba)
    interp = cv2.INTER_AREA if s < 1 else cv2.INTER_CUBIC
    big = cv2.resize(rgba, (max(2, round(w * s)), INDEX_FIND_H), interpolation=interp)
    box = _find_at_scale(big)
    if box is None:
        return None
    sx, sy = w / big.shape[1], h / big.shape[0]
    return box[0] * sx, box[1] * sy, box[2] * sx, box[3] * sy


SAME_INDEX_NCC = 0.6
"""How alike (normalised cross-correlation of the blurred ink, best of the index as printed,
mirrored or turned) another corner's ink must be to the top-left index to be an index too. On
the four-index Dondorf faces it is 0.92–1.0; on two-index decks that corner holds nothing the
finder keeps, or pips and lettering at 0.0–0.3."""


def _ink_patch(ink: np.ndarray, box: Box) -> np.ndarray:
    x0, y0, x1, y1 = (round(v) for v in box)
    small = cv2.resize(ink[y0 : y1 + 1, x0 : x1 + 1], (24, 36), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (0, 0), 1.0)


def _ncc(a: np.ndarray, b: np.ndarray) -> float:
    a, b = a - a.mean(), b - b.mean()
    norm = float(np.sqrt((a * a).sum() * (b * b).sum()))
    return float((a * b).sum()) / norm if norm > 0 else 0.0


def _same_index(ink: np.ndarray, index: Box, other: Box) -> bool:
    """Whether ``other`` holds the same printed index as ``index``, as printed, mirrored or
    turned, at about its size (``ink``: the face's :func:`_ink_mask` as float)."""
    h, w = index[3] - index[1], index[2] - index[0]
    oh, ow = other[3] - other[1], other[2] - other[0]
    if not (0.7 * h <= oh <= 1.4 * h and 0.6 * w <= ow <= 1.6 * w):
        return False
    p, q = _ink_patch(ink, index), _ink_patch(ink, other)
    return max(_ncc(p, v) for v in (q, q[:, ::-1], q[::-1, :], q[::-1, ::-1])) >= SAME_INDEX_NCC


def _index_in_corner(rgba: np.ndarray, right: bool, bottom: bool) -> Box | None:
    """:func:`find_corner_index` on the face mirrored so that this corner is its top-left one,
    the box mapped back onto the face."""
    h, w = rgba.shape[:2]
    box = find_corner_index(rgba[:: -1 if bottom else 1, :: -1 if right else 1].copy())
    if box is None:
        return None
    x0, x1 = (w - box[2], w - box[0]) if right else (box[0], box[2])
    y0, y1 = (h - box[3], h - box[1]) if bottom else (box[1], box[3])
    return x0, y0, x1, y1


def find_corner_indices(rgba: np.ndarray) -> list[Box]:
    """The corner indices of an artwork face: the top-left one and the bottom-right one
    (:func:`find_corner_index` on the face and on it turned 180°; where only one is found, the
    other is its turned box if the ink there is the same index, :data:`SAME_INDEX_NCC`), then
    the top-right and bottom-left ones where the ink there is the same index: a four-index
    deck's. An index left out of the labels is one the localiser learns not to
    box."""
    h, w = rgba.shape[:2]
    ink = _ink_mask(rgba).astype(np.float32)

    def turned(b: Box) -> Box:
        return w - b[2], h - b[3], w - b[0], h - b[1]

    tl = _index_in_corner(rgba, right=False, bottom=False)
    br = _index_in_corner(rgba, right=True, bottom=True)
    # One found, the other not (art touching it): the found one turned, where the ink matches.
    if tl is None and br is not None and _same_index(ink, br, turned(br)):
        tl = turned(br)
    if br is None and tl is not None and _same_index(ink, tl, turned(tl)):
        br = turned(tl)
    found = [b for b in (tl, br) if b is not None]
    if tl is None:
        return found
    for right, bottom in ((True, False), (False, True)):
        other = _index_in_corner(rgba, right, bottom)
        if other is not None and _same_index(ink, tl, other):
            found.append(other)
    return found
