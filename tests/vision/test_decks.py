"""A deck is a folder of faces named by card: the built-in decks ship with the project, any other
folder works by its path, and a folder that is not a deck is refused in one line."""

from __future__ import annotations

import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.classes import CLASS_NAMES
from vision.synth.decks import (
    BUILT_IN_DECKS,
    DECKS_DIR,
    DeckError,
    find_corner_index,
    load_deck,
    read_rgba,
)
from vision.synth.faces import FACE_H, load_art_face
from vision.synth.procedural import make_face
from vision.synth.scenes import render_scene


def copy_of(deck: str, to: Path) -> Path:
    folder = to / "my deck"
    shutil.copytree(DECKS_DIR / deck, folder)
    load_deck.cache_clear()
    return folder


def test_the_built_in_decks_ship_every_face_and_their_licence() -> None:
    for name in BUILT_IN_DECKS:
        deck = load_deck(name)
        assert sorted(deck.faces) == sorted(CLASS_NAMES)
        assert deck.licence and any(deck.folder.glob("LICENSE*"))


def test_every_face_of_a_built_in_deck_has_two_index_boxes_or_is_labelled_whole() -> None:
    for name in BUILT_IN_DECKS:
        for identity in CLASS_NAMES:
            face = load_art_face(name, identity)
            assert face.image.shape[0] == FACE_H
            assert face.whole_face or len(face.corners) == 2, (name, identity)


def test_a_deck_folder_named_by_its_path_is_a_design(tmp_path: Path) -> None:
    folder = copy_of("byron_knoll", tmp_path)
    face = make_face(str(folder), "QH", np.random.default_rng(0))
    assert face.identity == "QH" and len(face.corners) == 2
    image, boxes = render_scene(np.random.default_rng(1), [str(folder)], 160, seed=1)
    assert image.shape[:2] == (160, 160) and boxes


def test_a_deck_without_jokers_is_a_deck(tmp_path: Path) -> None:
    folder = copy_of("adrian_kennard", tmp_path)
    (folder / "BJ.png").unlink()
    (folder / "SJ.png").unlink()
    (folder / "deck.toml").unlink()
    deck = load_deck(str(folder))
    assert not deck.has_jokers and len(deck.faces) == 52


@pytest.mark.parametrize(
    ("spoil", "message"),
    [
        (lambda f: (f / "7C.png").unlink(), "lacks 1 faces (7C)"),
        (lambda f: (f / "7C.png").rename(f / "7c.png"), "7c.png in"),
        (lambda f: (f / "SJ.png").unlink(), "has BJ but no SJ"),
        (lambda f: (f / "notes.txt").write_text("x"), "notes.txt is not a card face"),
        (lambda f: (f / "deck.toml").write_text('colour = "red"\n'), "unknown key 'colour'"),
        (lambda f: (f / "deck.toml").write_text("[index_boxes]\nAS = [1, 2]\n"), "index_boxes.AS"),
    ],
)
def test_a_folder_that_is_not_a_deck_is_refused_naming_what_to_fix(
    tmp_path: Path, spoil: object, message: str
) -> None:
    folder = copy_of("adrian_kennard", tmp_path)
    spoil(folder)  # type: ignore[operator]
    with pytest.raises(DeckError, match=None) as raised:
        load_deck(str(folder))
    assert message in str(raised.value)
    assert "\n" not in str(raised.value)


def test_an_unknown_design_name_lists_what_is_known() -> None:
    with pytest.raises(DeckError, match="procedural, byron_knoll, adrian_kennard"):
        load_deck("no_such_deck")


def test_a_four_index_deck_labels_all_four_corners(tmp_path: Path) -> None:
    """Some decks print the index in every corner: an index left unlabelled would teach the
    localiser that an index is background."""
    folder = copy_of("byron_knoll", tmp_path)
    for card in ("AS", "7H", "10D"):
        rgba = read_rgba(folder / f"{card}.png")
        h, w = rgba.shape[:2]
        x0, y0, x1, y1 = (round(v) for v in find_corner_index(rgba) or (0, 0, 0, 0))
        index = rgba[y0:y1, x0:x1].copy()
        rgba[y0:y1, w - x1 : w - x0] = index  # the same index at the top right
        rgba[h - y1 : h - y0, x0:x1] = index[::-1, ::-1]  # and turned at the bottom left
        cv2.imwrite(str(folder / f"{card}.png"), cv2.cvtColor(rgba, cv2.COLOR_RGBA2BGRA))
    load_art_face.cache_clear()
    for card in ("AS", "7H", "10D"):
        assert len(load_art_face(str(folder), card).corners) == 4, card
    assert len(load_art_face(str(folder), "QC").corners) == 2  # the faces left as printed


def test_a_large_rank_and_the_suit_a_quarter_of_its_height_under_it_are_one_index() -> None:
    """kde_standard prints a tall rank with its suit well under it: an index boxed as its
    rank alone would be labelled and read without the suit that names the card."""
    h, w = 700, 500
    rgba = np.full((h, w, 4), 255, np.uint8)
    rank = (30, 30, 75, 118)  # 88 px tall, 12.6 % of the face
    cv2.rectangle(rgba, rank[:2], rank[2:], (0, 0, 0, 255), 6)
    suit_top = rank[3] + 22  # 3.1 % of the face, a quarter of the rank's height
    cv2.circle(rgba, (52, suit_top + 25), 25, (0, 0, 0, 255), -1)
    _, y0, _, y1 = find_corner_index(rgba) or (0, 0, 0, 0)
    assert y0 <= rank[1] and y1 >= suit_top + 48  # the suit is in
    # A small rank keeps the face's 3 % gap: a pip further under it is not its suit.
    small = np.full((h, w, 4), 255, np.uint8)
    cv2.rectangle(small, (30, 30), (60, 80), (0, 0, 0, 255), 4)
    cv2.circle(small, (45, 80 + 30 + 15), 15, (0, 0, 0, 255), -1)
    assert (find_corner_index(small) or (0, 0, 0, 0))[3] <= 85
