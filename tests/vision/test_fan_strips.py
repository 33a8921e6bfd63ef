"""``vision.fan_strips``: a fan's strips no card read explains, and the jokers among them.

Drawn views at 10 px a cm (real pixels, real OpenCV): a grey cloth, white 6.3 × 8.8 cm cards
fanned 1.5 cm apart toward the player's right (South's player: toward +x), each on top of the
one before. The reads handed in stand for the localiser's corner boxes of the index cards, and
:class:`StripClassifier` for the classifier reading the strips.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import cv2
import numpy as np
import pytest

from vision.classifier import Read
from vision.detector import Detection
from vision.fan_strips import (
    STRIP_CONFIDENCE,
    StripReader,
    StripReads,
    card_corner_marks,
    hidden_jokers,
    unexplained_strips,
)
from vision.grouping import Box, CardSighting
from vision.zone_reads import read_fan
from vision.zones import right_of

PX = 10.0
CLOTH = 70
TOP = 100  # the cards' top edge, px
STEP = 15  # px between fanned cards
W, H = 63, 88  # a card, px
SOUTH_RIGHT = right_of("S")


def left_index(left: int) -> Box:
    return (left + 2.0, TOP + 3.0, left + 11.0, TOP + 21.0)


def right_index(left: int) -> Box:
    return (left + W - 11.0, TOP + H - 21.0, left + W - 2.0, TOP + H - 3.0)


def draw_fan(
    faces: list[str], first_left: int = 120, steps: list[int] | None = None
) -> tuple[np.ndarray, list[int]]:
    """A fan of ``faces`` (``index``, ``coloured``, ``collar``, ``lines``, ``corner_star``,
    ``grey_jester``, ``grey_back``, ``back``, ``blank``),
    bottom first, ``steps`` px apart (default ``STEP``);
    the view and each card's left edge."""
    view = np.full((300, 400, 3), CLOTH, np.uint8)
    steps = steps or [STEP] * (len(faces) - 1)
    lefts = [first_left + sum(steps[:i]) for i in range(len(faces))]
    for face, left in zip(faces, lefts, strict=True):
        cv2.rectangle(view, (left, TOP), (left + W, TOP + H), (245, 245, 245), cv2.FILLED)
        cv2.rectangle(view, (left, TOP), (left + W, TOP + H), (200, 200, 200), 1)
        if face == "index":
            for x0, y0, x1, y1 in (left_index(left), right_index(left)):
                cv2.rectangle(view, (int(x0) + 2, int(y0) + 2), (int(x1) - 2, int(y1) - 2), 0, 2)
        elif face == "coloured":  # a jester's hat and collar
            cv2.circle(view, (left + 9, TOP + 25), 5, (40, 40, 220), cv2.FILLED)
            cv2.circle(view, (left + 12, TOP + 45), 6, (40, 200, 240), cv2.FILLED)
            cv2.circle(view, (left + 8, TOP + 70), 5, (40, 40, 220), cv2.FILLED)
        elif face == "collar":  # colour only along the strip's right edge (a collar's points)
            cv2.rectangle(view, (left + 11, TOP + 20), (left + 14, TOP + 80), (40, 40, 220), -1)
        elif face == "corner_star":  # a small joker marked only by a star in its corners
            cv2.circle(view, (left + 7, TOP + 10), 3, (60, 60, 60), 1)
        elif face == "lines":  # the same jester, drawn in thin lines
            cv2.circle(view, (left + 9, TOP + 25), 5, (120, 120, 120), 1)
            cv2.circle(view, (left + 14, TOP + 45), 8, (120, 120, 120), 1)
            cv2.line(view, (left + 3, TOP + 62), (left + 13, TOP + 78), (120, 120, 120), 1)
        elif face in ("grey_jester", "grey_back"):  # grey ink all over, no colour
            for x, y in itertools.product(
                range(left + 4, left + W - 8, 6), range(TOP + 4, TOP + H - 8, 6)
            ):
                cv2.rectangle(view, (x, y), (x + 4, y + 4), (110, 110, 110), -1)
        elif face == "back":  # a card lying face down: its back's light blue all over
            cv2.rectangle(
                view, (left + 1, TOP + 1), (left + W - 1, TOP + H - 1), (200, 150, 90), -1
            )
    return view, lefts


def paper_of(view: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    return ((grey.astype(int) - CLOTH) > 25).astype(np.uint8) * 255


def index_card(name: str, left: int, top_card: bool = False) -> CardSighting:
    boxes = [left_index(left), right_index(left)] if top_card else [left_index(left)]
    return CardSighting(name, boxes, 0.95)


PICTURES = {
    "coloured": ("BJ", (3, 18, 20, 76)),
    "collar": ("BJ", (11, 14, 20, 80)),
    "lines": ("SJ", (3, 22, 20, 78)),
    "corner_star": ("SJ", (3, 11, 4, 16)),
    "grey_jester": ("SJ", (2, 61, 2, 86)),
}
"""The picture jokers ``draw_fan`` draws: each one's identity and where its picture lies on the
card (x0, x1, y0, y1: px from its left and top edges)."""
SEEN_SHARE = 0.1  # a picture filling less of a box than this is lost in its crop


class StripClassifier:
    """Stands in for the classifier reading strips: a box reads as the joker whose picture
    (where the next card does not cover it) fills most of it, at least ``SEEN_SHARE``, else
    ``none``, at ``sureness``; the boxes it was asked are kept."""

    def __init__(self, faces: list[str], lefts: list[int], sureness: float = 0.9) -> None:
        self.faces, self.lefts, self.sureness = faces, lefts, sureness
        self.asked: list[Box] = []

    def __call__(self, boxes: Sequence[Box]) -> list[Read]:
        self.asked += boxes
        return [Read(self.joker_in(box), self.sureness, "", 0.0) for box in boxes]

    def joker_in(self, box: Box) -> str:
        x0, y0, x1, y1 = box
        area = (x1 - x0) * (y1 - y0)
        covers = [*self.lefts[1:], 10**6]  # each card's picture shows up to the next card
        shown = {"none": SEEN_SHARE}
        for face, left, cover in zip(self.faces, self.lefts, covers, strict=True):
            if face in PICTURES:
                joker, (px0, px1, py0, py1) = PICTURES[face]
                wide = min(x1, left + px1, cover) - max(x0, left + px0)
                high = min(y1, TOP + py1) - max(y0, TOP + py0)
                share = max(wide, 0) * max(high, 0) / area
                shown[joker] = max(shown.get(joker, share), share)
        return max(shown, key=lambda joker: shown[joker])


def fan(
    faces: list[str], steps: list[int] | None = None, sureness: float = 0.9
) -> tuple[np.ndarray, list[int], StripClassifier]:
    """:func:`draw_fan` and a strip classifier that reads what was drawn."""
    view, lefts = draw_fan(faces, steps=steps)
    return view, lefts, StripClassifier(faces, lefts, sureness)


def strips_read(
    view: np.ndarray,
    cards: list[CardSighting],
    classifier: StripReader | None,
    unread: tuple[Box, ...] = (),
) -> StripReads:
    return hidden_jokers(paper_of(view), view, cards, list(unread), SOUTH_RIGHT, PX, classifier)


def jokers(
    view: np.ndarray,
    cards: list[CardSighting],
    classifier: StripReader | None,
    unread: tuple[Box, ...] = (),
) -> list[str]:
    return [card.identity for card in strips_read(view, cards, classifier, unread).jokers]


def unnamed(
    view: np.ndarray,
    cards: list[CardSighting],
    classifier: StripReader | None,
    unread: tuple[Box, ...] = (),
) -> int:
    return strips_read(view, cards, classifier, unread).unnamed


def unexplained_box(view: np.ndarray, cards: list[CardSighting]) -> Box:
    (strip,) = unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX)
    return strip.box


def reads_every_box_as(
    read: tuple[str, float], runner_up: tuple[str, float] = ("", 0.0)
) -> StripReader:
    return lambda boxes: [Read(*read, *runner_up) for _ in boxes]


def test_a_fan_whose_every_card_was_read_has_no_unexplained_strip() -> None:
    view, (a, b, c), classifier = fan(["index", "index", "index"])
    cards = [index_card("2S", a), index_card("3S", b), index_card("4S", c, top_card=True)]
    assert unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX) == []
    assert unnamed(view, cards, classifier) == 0 and classifier.asked == []


def test_a_strip_the_classifier_reads_as_a_joker_is_that_joker_in_doubt() -> None:
    view, (_, top), classifier = fan(["coloured", "index"])
    found = strips_read(view, [index_card("4C", top, True)], classifier)
    assert [card.identity for card in found.jokers] == ["BJ"] and found.unnamed == 0
    joker = found.jokers[0]
    # Evidence of a card, not of an index: below any localised read, the other joker runner-up.
    assert joker.confidence == STRIP_CONFIDENCE and joker.runner_up == "SJ"
    x0, _, x1, _ = joker.boxes[0]
    assert x0 >= 115 and x1 <= top + 5  # the strip: from the fan's left end to the 4C's edge
    # The classifier was asked that strip only: the whole of it, and where its card's corner
    # marks would be, at both ends of its left edge (which end is the card's top is unknown).
    whole, *corners = classifier.asked
    assert whole == joker.boxes[0] and len(corners) == 2
    for cx0, cy0, cx1, cy1 in corners:
        assert x0 - 1 <= cx0 < cx1 <= x1 + 1 and 10 <= cx1 - cx0 <= 15 and 20 <= cy1 - cy0 <= 26
    assert {round(c[1] - TOP) for c in corners} == {2, 62}


def test_a_strip_whose_corner_mark_reads_as_a_joker_is_that_joker() -> None:
    # A joker marked by a small star in its corners, its picture under the next card: read
    # whole, the strip shows no joker; its corner mark does.
    view, (_, top), classifier = fan(["corner_star", "index"])
    cards = [index_card("4H", top, True)]
    assert classifier([unexplained_box(view, cards)])[0][:2] == ("none", 0.9)
    assert jokers(view, cards, classifier) == ["SJ"]


def test_two_strips_are_two_jokers_in_the_fans_order() -> None:
    view, (_, _, top), classifier = fan(["coloured", "lines", "index"])
    assert jokers(view, [index_card("4H", top, True)], classifier) == ["BJ", "SJ"]
    assert unnamed(view, [index_card("4H", top, True)], classifier) == 0


def test_a_strip_read_as_a_joker_unsurely_but_as_nothing_at_its_corners_is_no_joker() -> None:
    view, (_, top), _ = fan(["lines", "index"])
    cards = [index_card("4H", top, True)]

    def whole_unsure(boxes: Sequence[Box]) -> list[Read]:
        _whole, *corners = boxes
        return [Read("SJ", 0.4, "none", 0.3), *(Read("none", 0.9, "", 0.0) for _ in corners)]

    assert jokers(view, cards, whole_unsure) == [] and unnamed(view, cards, whole_unsure) == 1


def test_a_strip_every_read_of_which_names_a_joker_if_only_second_is_that_joker_in_doubt() -> None:
    """A validation deck's BJ under a 2D: its strip read ``none`` three times, a joker second."""
    view, (_, top), _ = fan(["blank", "index"])
    cards = [index_card("2D", top, True)]
    second = reads_every_box_as(("none", 0.7), ("BJ", 0.2))
    (joker,) = strips_read(view, cards, second).jokers
    assert (joker.identity, joker.runner_up) == ("BJ", "SJ")
    assert joker.confidence == pytest.approx(0.2) and unnamed(view, cards, second) == 0
    for not_only_jokers in (
        reads_every_box_as(("none", 0.7), ("5H", 0.2)),  # an index card's strip, unread
        reads_every_box_as(("5H", 0.4), ("BJ", 0.3)),
    ):
        assert jokers(view, cards, not_only_jokers) == []
        assert unnamed(view, cards, not_only_jokers) == 1


def test_a_strip_read_as_no_joker_is_a_card_no_read_names() -> None:
    view, (_, top), classifier = fan(["blank", "index"])
    cards = [index_card("4C", top, True)]
    assert jokers(view, cards, classifier) == [] and unnamed(view, cards, classifier) == 1


def test_without_a_classifier_every_strip_of_face_is_a_card_no_read_names() -> None:
    view, (_, _, top) = draw_fan(["coloured", "lines", "index"])
    cards = [index_card("4H", top, True)]
    assert jokers(view, cards, None) == [] and unnamed(view, cards, None) == 2


def test_a_strip_of_a_card_lying_face_down_is_no_card_and_is_not_read() -> None:
    view, (_, top), classifier = fan(["back", "index"])
    cards = [index_card("4C", top, True)]
    assert len(unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX)) == 1
    assert unnamed(view, cards, classifier) == 0 and classifier.asked == []


def test_a_strip_drawn_in_grey_ink_is_a_joker_when_its_reads_find_one_else_no_card() -> None:
    """A joker drawn in grey (a validation deck's SJ) is mostly ink, as a back printed in grey
    is: read, it is a joker only when its reads find one; otherwise no card, not one unnamed."""
    view, (_, top), classifier = fan(["grey_jester", "index"])
    cards = [index_card("6C", top, True)]
    (strip,) = unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX)
    assert strip.drawn_in_ink and not strip.face
    assert jokers(view, cards, classifier) == ["SJ"] and unnamed(view, cards, classifier) == 0
    view, (_, top), classifier = fan(["grey_back", "index"])
    assert jokers(view, cards, classifier) == [] and unnamed(view, cards, classifier) == 0
    in_doubt = reads_every_box_as(("none", 0.9), ("SJ", 0.1))  # SJ second, read after read
    assert jokers(view, cards, in_doubt) == ["SJ"] and unnamed(view, cards, in_doubt) == 0


def test_a_strip_between_two_read_cards_is_the_under_cards_own() -> None:
    # A card read by its left index may lie under everything to its right: a wide gap before
    # the next card is a wider fan step as likely as a card missed there, so it is not guessed.
    view, (a, _, c), classifier = fan(["index", "lines", "index"])
    assert jokers(view, [index_card("AS", a), index_card("10H", c, True)], classifier) == []


def test_a_strip_where_the_localiser_was_sure_of_an_index_is_an_index_card_not_read() -> None:
    view, (under, top) = draw_fan(["index", "index"])
    # The under card's index was boxed but not read surely: a card is there, which is unknown;
    # even a classifier that sees a joker everywhere is not asked.
    everywhere = reads_every_box_as(("BJ", 0.99))
    cards, unread = [index_card("9H", top, True)], (left_index(under),)
    assert jokers(view, cards, everywhere, unread) == []
    assert unnamed(view, cards, everywhere, unread) == 1


def test_a_strip_whose_index_was_read_weakly_is_the_card_that_read_names_in_doubt() -> None:
    """The strip proves a card lies there; its index read under the bar says which, unsurely
    (a fanned pair whose under card's index is read weakly is two cards, not one)."""
    view, (under, top) = draw_fan(["index", "index"])
    everywhere = reads_every_box_as(("BJ", 0.99))
    cards, unread = [index_card("3S", top, True)], (left_index(under),)
    weak = [Detection("3S", left_index(under), 0.4, runner_up="3D")]
    found = hidden_jokers(
        paper_of(view), view, cards, list(unread), SOUTH_RIGHT, PX, everywhere, weak
    )
    assert found.jokers == [] and found.unnamed == 0  # the strip is named, not asked again
    (card,) = found.indices
    assert (card.identity, card.confidence, card.runner_up) == ("3S", 0.4, "3D")
    # A weak read off every strip names none of them.
    elsewhere = [Detection("3S", right_index(top), 0.4)]
    found = hidden_jokers(
        paper_of(view), view, cards, list(unread), SOUTH_RIGHT, PX, everywhere, elsewhere
    )
    assert found.indices == () and found.unnamed == 1


def test_an_index_read_weakly_a_fan_step_between_two_read_cards_is_a_card_in_doubt() -> None:
    """A card's own face prints no index a fan step past its own: an index the localiser was
    sure of there, read weakly, is a card lying between the two read ones (an unseen deck's
    4C 4C 5C 5C, the second 4C read KC 0.47, runner-up 4C, was read 4C 5C 5C)."""
    view, (a, b, c, top) = draw_fan(["index"] * 4, steps=[18, 20, 18])
    cards = [index_card("4C", a), index_card("5C", c), index_card("5C", top, True)]
    weak = [Detection("KC", left_index(b), 0.47, runner_up="4C")]
    found = hidden_jokers(paper_of(view), view, cards, [left_index(b)], SOUTH_RIGHT, PX, None, weak)
    (card,) = found.indices
    assert (card.identity, card.confidence, card.runner_up) == ("KC", 0.47, "4C")
    assert found.unnamed == 0 and found.jokers == []


def test_an_index_read_weakly_off_the_row_or_near_a_read_one_is_no_card_between() -> None:
    view, (a, b, c, top) = draw_fan(["index"] * 4, steps=[18, 20, 18])
    cards = [index_card("4C", a), index_card("5C", c), index_card("5C", top, True)]
    x0, y0, x1, y1 = left_index(b)
    pip = (x0, y0 + 15, x1, y1 + 15)  # under the index row: a pip, a court card's picture
    near = (x0 - 9, y0, x1 - 9, y1)  # under a centimetre from the 4C's index: its own
    for box in (pip, near):
        weak = [Detection("KC", box, 0.47, runner_up="4C")]
        found = hidden_jokers(paper_of(view), view, cards, [box], SOUTH_RIGHT, PX, None, weak)
        assert found.indices == ()
    # Past the fan's read cards, not between two of them: the strips' business.
    weak = [Detection("KC", left_index(b), 0.47, runner_up="4C")]
    alone = [index_card("5C", top, True)]
    found = hidden_jokers(paper_of(view), view, alone, [], SOUTH_RIGHT, PX, None, weak)
    assert found.indices == ()


def test_a_strip_whose_corner_mark_reads_an_index_card_surely_is_that_card_in_doubt() -> None:
    view, (under, top) = draw_fan(["index", "index"])
    cards = [index_card("AC", top, True)]
    (card,) = strips_read(view, cards, reads_every_box_as(("KC", 0.95), ("JC", 0.03))).indices
    assert (card.identity, card.confidence, card.runner_up) == ("KC", STRIP_CONFIDENCE, "JC")
    x0, _, x1, _ = card.boxes[0]
    assert under <= x0 and x1 <= top + 5  # a corner mark on the under card's strip
    # Read less surely it names no card: the strip is a card no read names.
    unsure = strips_read(view, cards, reads_every_box_as(("KC", 0.8)))
    assert unsure.indices == () and unsure.unnamed == 1


def test_a_joker_read_by_a_part_of_its_picture_explains_every_place_it_could_lie() -> None:
    view, (left,), classifier = fan(["coloured"])
    part = (left + 30.0, TOP + 30.0, left + 50.0, TOP + 50.0)  # the jester's face, say
    assert jokers(view, [CardSighting("BJ", [part], 0.95)], classifier) == []


def test_a_lone_joker_read_by_a_part_on_a_fan_longer_than_a_card_is_its_top_card() -> None:
    # Two line-art jesters fanned 1.5 cm apart, the top one boxed by its face: one card cannot
    # fill the fan, the part's card lies at the fan's right end, and the strip left of it is the
    # second jester.
    view, (_, top), classifier = fan(["lines", "lines"])
    face = (top + 20.0, TOP + 30.0, top + 45.0, TOP + 50.0)
    assert jokers(view, [CardSighting("SJ", [face], 0.95)], classifier) == ["SJ"]
    # Read beside an index card, the part may be either card's: nothing is guessed.
    view, (under, _, top), classifier = fan(["index", "lines", "lines"])
    face = (top + 20.0, TOP + 30.0, top + 45.0, TOP + 50.0)
    cards = [index_card("4H", under), CardSighting("SJ", [face], 0.95)]
    assert jokers(view, cards, classifier) == []


def test_a_lone_joker_boxed_at_several_parts_on_a_fan_longer_than_a_card_is_its_top_card() -> None:
    # Two big jokers fanned 1.5 cm apart; the under one's corner mark and the top one's
    # "JOKER" lettering by its right edge were grouped as one joker (validation hand 9048): the
    # joker is the fan's top card, and the strip left of it, holding that corner mark, is the
    # second joker.
    view, (under, top), classifier = fan(["coloured", "coloured"])
    corner_mark = (under + 2.0, TOP + 3.0, under + 11.0, TOP + 12.0)
    lettering = (top + W - 12.0, TOP + 30.0, top + W - 3.0, TOP + 55.0)
    assert jokers(view, [CardSighting("BJ", [corner_mark, lettering], 0.95)], classifier) == ["BJ"]


NARROW_W = 53  # px: a narrow deck's card, 5.3 cm wide (a bridge deck's, or a tall face's)


def draw_narrow_jesters(patterns: list[int]) -> tuple[np.ndarray, list[int]]:
    """Two narrow picture jokers fanned ``STEP`` apart, each drawn all over in grey blocks laid
    out by its pattern's seed (one seed, one design): the view and each card's left edge."""
    view = np.full((300, 400, 3), CLOTH, np.uint8)
    lefts = [120 + STEP * i for i in range(len(patterns))]
    for seed, left in zip(patterns, lefts, strict=True):
        cv2.rectangle(view, (left, TOP), (left + NARROW_W, TOP + H), (245, 245, 245), cv2.FILLED)
        blocks = np.random.default_rng(seed).integers(120, 245, size=(H // 4, NARROW_W // 4))
        for (row, column), level in np.ndenumerate(blocks):
            if (row + column) % 2:
                x, y = left + 2 + 4 * column, TOP + 2 + 4 * row
                cv2.rectangle(view, (x, y), (x + 3, y + 3), (int(level),) * 3, cv2.FILLED)
    return view, lefts


def read_as_nothing(boxes: Sequence[Box]) -> list[Read]:
    return [Read("none", 0.9, "", 0.0) for _ in boxes]


def test_a_strip_that_shows_what_the_joker_on_it_shows_by_its_left_edge_is_a_second_copy() -> None:
    # A narrow deck's pair of small jokers fanned 1.5 cm apart, the top one boxed by a mark at
    # its top left, every strip read as nothing (validation hand 9088, orell: cards 5.3 cm
    # wide, a grey jester the classifier never named on a strip; the pair was read as one SJ).
    view, (_, top) = draw_narrow_jesters([7, 7])
    mark = CardSighting("SJ", [(top + 2.0, TOP + 2.0, top + 10.0, TOP + 10.0)], 0.97)
    found = hidden_jokers(
        paper_of(view), view, [mark], [], SOUTH_RIGHT, PX, read_as_nothing, card_w_cm=5.3
    )
    assert [(j.identity, j.confidence, j.runner_up) for j in found.jokers] == [
        ("SJ", STRIP_CONFIDENCE, "BJ")
    ]
    assert found.unnamed == 0
    # Another design under it is no copy of it: a card no read names.
    view, (_, top) = draw_narrow_jesters([8, 7])
    found = hidden_jokers(
        paper_of(view), view, [mark], [], SOUTH_RIGHT, PX, read_as_nothing, card_w_cm=5.3
    )
    assert (found.jokers, found.unnamed) == ([], 1)
    # Taken for a poker card 6.3 cm wide, the top card would fill the fan but for 0.5 cm.
    view, _ = draw_narrow_jesters([7, 7])
    assert unexplained_strips(paper_of(view), view, [mark], SOUTH_RIGHT, PX) == []


def test_an_index_card_lying_alone_seen_whole_tells_the_decks_card_width() -> None:
    view, (left,), _ = fan(["index"])
    found = strips_read(view, [index_card("4H", left, top_card=True)], None)
    assert found.widths == pytest.approx([6.3], abs=0.2)
    view, (under, top), _ = fan(["index", "index"])  # a fan: no one card's width
    cards = [index_card("4H", under), index_card("5H", top, top_card=True)]
    assert strips_read(view, cards, None).widths == ()


def test_a_joker_read_whole_from_a_fans_blob_is_its_top_card_only() -> None:
    # A pair of small jokers read whole from the paper's blob: the box holds both cards, and
    # the strip of the one under it is the second joker.
    view, (under, top), classifier = fan(["lines", "lines"])
    fan_box = (float(under), float(TOP), float(top + W), float(TOP + H))
    assert jokers(view, [CardSighting("SJ", [fan_box], 0.95)], classifier) == ["SJ"]


def test_a_lone_tilted_joker_read_whole_leaves_no_strip_of_itself() -> None:
    # A big joker laid 10° off square, read whole from its blob: the blob's upright box is
    # 1.5 cm wider than the card, and reaches past the fan's right end; the card still fills
    # the whole fan, so its own left edge is no second joker (hand 5007 trick 7).
    view = np.full((300, 400, 3), CLOTH, np.uint8)
    corners = cv2.boxPoints(((200.0, 150.0), (float(W), float(H)), 10.0)).astype(np.int32)
    cv2.fillPoly(view, [corners], (245, 245, 245))
    for dx, dy in ((-22, -30), (-20, 0), (-18, 30), (10, -20), (15, 25)):
        cv2.circle(view, (200 + dx, 150 + dy), 6, (40, 40, 220), cv2.FILLED)
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    blob_box = (float(x0), float(y0), float(x1), float(y1))
    everywhere = reads_every_box_as(("BJ", 0.99))
    assert jokers(view, [CardSighting("BJ", [blob_box], 0.89)], everywhere) == []
    assert unnamed(view, [CardSighting("BJ", [blob_box], 0.89)], everywhere) == 0


def test_a_blob_that_is_not_one_card_high_is_no_fan() -> None:
    view = np.full((300, 400, 3), CLOTH, np.uint8)
    cv2.rectangle(view, (50, 100), (350, 130), (245, 245, 245), cv2.FILLED)  # a white sleeve
    everywhere = reads_every_box_as(("BJ", 0.99))
    assert jokers(view, [CardSighting("AS", [(60.0, 103.0, 69.0, 121.0)], 0.9)], everywhere) == []


def test_a_court_card_read_in_doubt_on_a_strip_of_picture_gives_way_to_the_jokers() -> None:
    # Hand 4009: two BJs under a 2D, the second one's collar read JD 0.6 (runner-up QD). Read
    # so, a card's width from it is explained and the blank margin left of it is a card no
    # read names; without the JD the fan's two strips are both BJ.
    view, (a, _, top), classifier = fan(["collar", "collar", "index"])
    collar = CardSighting("JD", [(a + 13.0, TOP + 30.0, a + 21.0, TOP + 50.0)], 0.6, runner_up="QD")
    cards = [collar, index_card("2D", top, True)]
    assert unnamed(view, cards, classifier) == 1
    read, strips = read_fan(paper_of(view), view, cards, [], SOUTH_RIGHT, PX, classifier)
    assert [c.identity for c in read] == ["2D"] and strips.unnamed == 0
    assert [card.identity for card in strips.jokers] == ["BJ", "BJ"]


def test_a_court_card_read_surely_keeps_its_place_in_the_fan() -> None:
    view, (_, b, top), classifier = fan(["coloured", "index", "index"])
    jack = CardSighting("JD", [left_index(b)], 0.95, runner_up="QD")
    cards = [jack, index_card("2D", top, True)]
    read, strips = read_fan(paper_of(view), view, cards, [], SOUTH_RIGHT, PX, classifier)
    assert [c.identity for c in read] == ["JD", "2D"]
    assert [card.identity for card in strips.jokers] == ["BJ"]


def test_a_lone_cards_corner_marks_lie_an_index_in_from_each_of_its_corners_however_it_lies() -> (
    None
):
    px_per_cm, centre, turned = 10.0, (100.0, 100.0), 30.0
    mask = np.zeros((200, 200), np.uint8)
    card = ((centre), (6.3 * px_per_cm, 8.8 * px_per_cm), turned)
    cv2.fillPoly(mask, [cv2.boxPoints(card).astype(np.int32)], 255)
    marks = card_corner_marks(mask > 0, px_per_cm)
    a = np.radians(turned)
    across, along = np.array([np.cos(a), np.sin(a)]), np.array([-np.sin(a), np.cos(a)])
    expected = [
        np.array(centre) + px_per_cm * (side * (3.15 - 0.7) * across + end * (4.4 - 1.4) * along)
        for side in (-1, 1)
        for end in (-1, 1)
    ]
    found = [np.array(((x0 + x1) / 2, (y0 + y1) / 2)) for x0, y0, x1, y1 in marks]
    assert len(found) == 4
    for point in expected:
        assert min(np.linalg.norm(point - f) for f in found) <= 2  # px: 0.2 cm
