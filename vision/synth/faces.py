"""Card faces for synthetic data: one card identity drawn in one design, with its index boxes.

This module owns what one card looks like before it is put on a table: a :class:`CardFace` is
an RGBA image of one card identity (a class name of :mod:`vision.classes`) plus the
quadrilaterals, in face pixels, of its corner indices (the rank + small suit printed at the top
left and, rotated 180°, at the bottom right). Those quads become the detector's boxes.

Designs (:func:`designs`):

* artwork decks (:mod:`vision.synth.decks`): the built-in ``byron_knoll`` (public domain) and
  ``adrian_kennard`` (CC0) decks vendored with the project, or any deck folder named by its
  path. Their index boxes are found automatically per card by grouping the ink components
  nearest to the top-left corner (the suit under the rank within 3 % of the face's height, or
  within 30 % of a large rank's own) and, on the card turned 180°, the bottom-right one. Cards
  a deck lists as ``whole_face`` (the adrian_kennard jesters have no corner index) are
  labelled as a whole.
* ``procedural``: decks drawn with OpenCV and Pillow (:mod:`vision.synth.procedural`, with
  the lettering and suit shapes of :mod:`vision.synth.lettering`), so that the detector does
  not learn one deck's look; :func:`vision.synth.procedural.make_face` draws any design.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.synth.decks import (
    BUILT_IN_DECKS,
    DeckError,
    find_corner_indices,
    load_deck,
    read_rgba,
)

FACE_H = 350
"""Height in pixels of cached faces (a 110%-of-frame card at 320 px is ~350 px tall)."""

CARD_ASPECT = 0.7
"""Width / height of a procedural card (poker size 63 × 88 mm is 0.716)."""

PROCEDURAL = "procedural"

Quad = np.ndarray
"""A (4, 2) float32 array of corner points (top-left, top-right, bottom-right, bottom-left)."""


@dataclass(frozen=True)
class CardFace:
    """One card identity drawn in one design, with its corner-index quads in face pixels."""

    identity: str
    design: str
    image: np.ndarray = field(repr=False)  # H × W × 4 uint8, RGBA, straight alpha
    corners: tuple[Quad, ...] = field(repr=False)
    whole_face: bool = False  # no corner index: the whole visible face is the label

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return self.image.shape[1], self.image.shape[0]

    def scaled(self, height: int) -> CardFace:
        """The same face resized to ``height`` pixels (area-averaged when shrinking)."""
        h, w = self.image.shape[:2]
        if height == h:
            return self
        s = height / h
        new_w = max(2, round(w * s))
        interp = cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR
        img = cv2.resize(self.image, (new_w, height), interpolation=interp)
        sx, sy = new_w / w, height / h
        quads = tuple(
            (q * np.array([sx, sy], dtype=np.float32)).astype(np.float32) for q in self.corners
        )
        return CardFace(self.identity, self.design, img, quads, self.whole_face)


def designs() -> list[str]:
    """Names of the built-in deck designs (any deck folder's path is a design too)."""
    return [*BUILT_IN_DECKS, PROCEDURAL]


def check_design(design: str) -> None:
    """A one-line :class:`DeckError` unless ``design`` is ``procedural``, a built-in deck or a
    usable deck folder."""
    if design != PROCEDURAL:
        load_deck(design)


def rect_quad(x0: float, y0: float, x1: float, y1: float) -> Quad:
    """The quad of an axis-aligned rectangle."""
    return np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], dtype=np.float32)


def rot180(q: Quad, w: int, h: int) -> Quad:
    """A quad turned 180° about the centre of a ``w`` × ``h`` face."""
    turned: Quad = (np.array([w, h], dtype=np.float32) - q)[[2, 3, 0, 1]].astype(np.float32)
    return turned


# --------------------------------------------------------------------------- artwork decks


def pad_box(box: tuple[float, float, float, float], w: int, h: int) -> Quad:
    """The quad of an index box with the standard padding (6% of its height, at least 1 px)."""
    x0, y0, x1, y1 = box
    p = max(1.0, 0.06 * (y1 - y0))
    return rect_quad(max(0.0, x0 - p), max(0.0, y0 - p), min(w, x1 + p), min(h, y1 + p))


@functools.lru_cache(maxsize=1024)
def load_art_face(design: str, identity: str) -> CardFace:
    """An artwork deck's face at :data:`FACE_H`, with its corner-index quads (``deck.toml``'s
    box where it gives one, else found on the face)."""
    deck = load_deck(design)
    if identity not in deck.faces:
        raise DeckError(f"deck {deck.folder} has no {identity} face")
    rgba = read_rgba(deck.faces[identity])
    h, w = rgba.shape[:2]
    quads: list[Quad] = []
    whole = identity in deck.whole_face
    if identity in deck.index_boxes:
        box = pad_box(deck.index_boxes[identity], w, h)
        quads += [box, rot180(box, w, h)]
    elif not whole:
        quads += [pad_box(box, w, h) for box in find_corner_indices(rgba)]
    face = CardFace(identity, design, rgba, tuple(quads), whole)
    return face.scaled(FACE_H)


@functools.lru_cache(maxsize=8)
def load_art_backs(design: str) -> tuple[np.ndarray, ...]:
    """An artwork deck's card backs as RGBA at :data:`FACE_H` (none when it has none)."""
    backs = []
    for path in load_deck(design).backs:
        rgba = read_rgba(path)
        w = round(FACE_H * rgba.shape[1] / rgba.shape[0])
        backs.append(
            rgba
            if rgba.shape[0] == FACE_H
            else cv2.resize(rgba, (w, FACE_H), interpolation=cv2.INTER_AREA)
        )
    return tuple(backs)
