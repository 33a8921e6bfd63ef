"""``vision.fan_strips``: a fan's strips no card read explains, and the jokers among them.

Drawn views at 10 px a cm (real pixels, real OpenCV): a grey cloth, white 6.3 × 8.8 cm cards
fanned 1.5 cm apart toward the player's right (South's player: toward +x), each on top of the
one before. The reads handed in stand for the localiser's corner boxes of the index cards.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.fan_strips import hidden_jokers, unexplained_strips
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
    """A fan of ``faces`` (``index``, ``coloured``, ``collar``, ``ring``, ``lines``, ``ball``,
    ``pips``, ``hat_edge``, ``blank``), bottom first, ``steps`` px apart (default ``STEP``);
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
        elif face == "ring":  # a bell's thin light-blue ring: a hue, but little saturation
            cv2.circle(view, (left + 8, TOP + 20), 4, (235, 200, 185), 1, cv2.LINE_AA)
            cv2.circle(view, (left + 8, TOP + 60), 4, (235, 200, 185), 1, cv2.LINE_AA)
        elif face == "hat_edge":  # colour up to where the next card covers it (step 18 px)
            cv2.rectangle(view, (left + 12, TOP + 20), (left + 17, TOP + 70), (40, 40, 220), -1)
        elif face == "lines":  # the same jester, drawn in thin lines
            cv2.circle(view, (left + 9, TOP + 25), 5, (120, 120, 120), 1)
            cv2.circle(view, (left + 14, TOP + 45), 8, (120, 120, 120), 1)
            cv2.line(view, (left + 3, TOP + 62), (left + 13, TOP + 78), (120, 120, 120), 1)
        elif face == "ball":  # all a jester under a tight fan shows: one ball of its hat
            cv2.circle(view, (left + 8, TOP + 60), 3, (120, 120, 120), 1)
        elif face == "ball_and_tint":  # the same ball beside a faint trace of colour
            cv2.circle(view, (left + 8, TOP + 60), 3, (120, 120, 120), 1)
            cv2.line(view, (left + 6, TOP + 20), (left + 6, TOP + 28), (235, 200, 185), 1)
        elif face == "pips":  # a column of solid black clubs, its index unseen
            for y in (25, 45, 65):
                cv2.circle(view, (left + 9, TOP + y), 5, (10, 10, 10), cv2.FILLED)
    return view, lefts


def paper_of(view: np.ndarray) -> np.ndarray:
    grey = cv2.cvtColor(view, cv2.COLOR_BGR2GRAY)
    return ((grey.astype(int) - CLOTH) > 25).astype(np.uint8) * 255


def index_card(name: str, left: int, top_card: bool = False) -> CardSighting:
    boxes = [left_index(left), right_index(left)] if top_card else [left_index(left)]
    return CardSighting(name, boxes, 0.95)


def jokers(view: np.ndarray, cards: list[CardSighting], unread: tuple[Box, ...] = ()) -> list[str]:
    found = hidden_jokers(paper_of(view), view, cards, list(unread), SOUTH_RIGHT, PX)
    return [card.identity for card in found.jokers]


def unnamed(view: np.ndarray, cards: list[CardSighting], unread: tuple[Box, ...] = ()) -> int:
    return hidden_jokers(paper_of(view), view, cards, list(unread), SOUTH_RIGHT, PX).unnamed


def test_a_fan_whose_every_card_was_read_has_no_unexplained_strip() -> None:
    view, (a, b, c) = draw_fan(["index", "index", "index"])
    cards = [index_card("2S", a), index_card("3S", b), index_card("4S", c, top_card=True)]
    assert unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX) == []


def test_a_strip_of_coloured_picture_under_a_fan_is_the_big_joker() -> None:
    view, (_, top) = draw_fan(["coloured", "index"])
    found = hidden_jokers(
        paper_of(view), view, [index_card("4C", top, True)], [], SOUTH_RIGHT, PX
    ).jokers
    assert [card.identity for card in found] == ["BJ"]
    x0, _, x1, _ = found[0].boxes[0]
    assert x0 >= 115 and x1 <= top + 5  # the strip: from the fan's left end to the 4C's edge


def test_a_strip_showing_only_a_thin_pale_coloured_ring_is_the_big_joker() -> None:
    # The BJ under a 7C (hand 3002): a bell's blue ring, its saturation lost at 10 px a cm.
    view, (_, top) = draw_fan(["ring", "index"])
    cards = [index_card("7C", top, True)]
    strips = unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX)
    assert len(strips) == 1 and strips[0].coloured < 0.012 < strips[0].tinted
    assert jokers(view, cards) == ["BJ"]


def test_a_strip_of_line_drawing_is_the_small_joker() -> None:
    view, (_, top) = draw_fan(["lines", "index"])
    assert jokers(view, [index_card("4H", top, True)]) == ["SJ"]


def test_a_strip_showing_one_small_ball_of_line_drawing_is_the_small_joker() -> None:
    # Hand 5002 trick 8: a pair of small jokers fanned tightly, the under one showing a ball of
    # its hat and little else (1.4 % of the strip's paper in line work).
    view, (_, top) = draw_fan(["ball", "index"])
    assert jokers(view, [index_card("4H", top, True)]) == ["SJ"]


def test_a_little_ink_beside_a_hint_of_colour_is_no_small_joker() -> None:
    # Hand 4009 trick 3: a big joker's strip under a 2D showed faint colour and a little ink;
    # only a strip with no colour at all is read the small joker from so little line work.
    view, (_, top) = draw_fan(["ball_and_tint", "index"])
    strips = unexplained_strips(
        paper_of(view), view, [index_card("4H", top, True)], SOUTH_RIGHT, PX
    )
    assert len(strips) == 1 and strips[0].inked < 0.02 and strips[0].tinted > 0.002
    assert jokers(view, [index_card("4H", top, True)]) == []


def test_a_strip_of_solid_black_pips_is_no_small_joker() -> None:
    # A club card whose index nobody saw (a hand over it): its pips are ink, but not line work.
    view, (_, top) = draw_fan(["pips", "index"])
    assert jokers(view, [index_card("4H", top, True)]) == []


def test_two_strips_are_two_jokers_in_the_fans_order() -> None:
    view, (_, _, top) = draw_fan(["coloured", "lines", "index"])
    assert jokers(view, [index_card("4H", top, True)]) == ["BJ", "SJ"]


def test_a_joker_picture_past_a_guessed_cut_is_the_left_cards_not_the_next_strips() -> None:
    # Hand 1002: BJ SJ 4H fanned unevenly; the gap before the 4H is cut into two strips by the
    # fan step, the cut falls short of the SJ's edge and the BJ's picture, which reaches the
    # SJ's edge, showed past it on the SJ's strip: read BJ BJ.
    view, (_, _, top) = draw_fan(["hat_edge", "lines", "index"], steps=[18, 12])
    assert jokers(view, [index_card("4H", top, True)]) == ["BJ", "SJ"]


def test_a_strip_between_two_read_cards_is_the_under_cards_own() -> None:
    # A card read by its left index may lie under everything to its right: a wide gap before
    # the next card is a wider fan step as likely as a card missed there, so it is not guessed.
    view, (a, _, c) = draw_fan(["index", "lines", "index"])
    assert jokers(view, [index_card("AS", a), index_card("10H", c, True)]) == []


def test_a_strip_where_the_localiser_was_sure_of_an_index_is_no_joker() -> None:
    view, (under, top) = draw_fan(["index", "index"])
    # The under card's index was boxed but not read surely: a card is there, which is unknown.
    assert jokers(view, [index_card("9H", top, True)], unread=(left_index(under),)) == []


def test_a_blank_strip_is_no_joker_but_a_card_no_read_names() -> None:
    view, (_, top) = draw_fan(["blank", "index"])
    cards = [index_card("4C", top, True)]
    strips = unexplained_strips(paper_of(view), view, cards, SOUTH_RIGHT, PX)
    assert len(strips) == 1 and strips[0].identity is None
    assert jokers(view, cards) == [] and unnamed(view, cards) == 1


def lay_turned_card_edge(view: np.ndarray, left: int, degrees: float, shadow_px: int) -> None:
    """The left edge of a card laid on the fan ``degrees`` off square: a grey line (its edge
    and shadow, ``shadow_px`` thick) running down the strip of the card under it."""
    dx = round(H * np.tan(np.radians(degrees)))
    cv2.line(view, (left + 3, TOP + 2), (left + 3 + dx, TOP + H - 2), (190, 190, 190), shadow_px)


def test_the_edge_of_a_card_turned_on_the_fan_is_no_line_work_of_the_card_under_it() -> None:
    # The top card lies 3° off the fan, so its shadowed edge runs inside the under card's
    # strip, not along its end: that straight line across the strip is no jester's drawing.
    view, (_, top) = draw_fan(["blank", "index"], steps=[18])
    lay_turned_card_edge(view, top - 8, 3.0, 1)
    cards = [index_card("4C", top, True)]
    assert jokers(view, cards) == [] and unnamed(view, cards) == 1
    # … and under a thick shadow a line-drawn jester is still the small joker (hand 5002
    # trick 8: a pair of SJs, the under one read unnamed: the shadow's ink looked solid).
    view, (_, top) = draw_fan(["lines", "index"], steps=[18])
    lay_turned_card_edge(view, top - 8, 3.0, 4)
    assert jokers(view, [index_card("4H", top, True)]) == ["SJ"]


def test_an_index_strip_the_classifier_could_not_read_is_a_card_no_read_names() -> None:
    view, (under, top) = draw_fan(["index", "index"])
    assert unnamed(view, [index_card("9H", top, True)], unread=(left_index(under),)) == 1


def test_a_fan_read_whole_or_its_jokers_leave_no_card_unnamed() -> None:
    view, (a, b, c) = draw_fan(["index", "index", "index"])
    cards = [index_card("2S", a), index_card("3S", b), index_card("4S", c, top_card=True)]
    assert unnamed(view, cards) == 0
    view, (_, _, top) = draw_fan(["coloured", "lines", "index"])
    assert unnamed(view, [index_card("4H", top, True)]) == 0


def test_a_joker_read_by_a_part_of_its_picture_explains_every_place_it_could_lie() -> None:
    view, (left,) = draw_fan(["coloured"])
    part = (left + 30.0, TOP + 30.0, left + 50.0, TOP + 50.0)  # the jester's face, say
    assert jokers(view, [CardSighting("BJ", [part], 0.95)]) == []


def test_a_lone_joker_read_by_a_part_on_a_fan_longer_than_a_card_is_its_top_card() -> None:
    # Two line-art jesters fanned 1.5 cm apart, the top one boxed by its face: one card cannot
    # fill the fan, the part's card lies at the fan's right end, and the strip left of it is the
    # second jester.
    view, (_, top) = draw_fan(["lines", "lines"])
    face = (top + 20.0, TOP + 30.0, top + 45.0, TOP + 50.0)
    assert jokers(view, [CardSighting("SJ", [face], 0.95)]) == ["SJ"]
    # Read beside an index card, the part may be either card's: nothing is guessed.
    view, (under, _, top) = draw_fan(["index", "lines", "lines"])
    face = (top + 20.0, TOP + 30.0, top + 45.0, TOP + 50.0)
    assert jokers(view, [index_card("4H", under), CardSighting("SJ", [face], 0.95)]) == []


def test_a_joker_read_whole_from_a_fans_blob_is_its_top_card_only() -> None:
    # A pair of small jokers read whole from the paper's blob: the box holds both cards, and
    # the strip of the one under it is the second joker.
    view, (under, top) = draw_fan(["lines", "lines"])
    fan_box = (float(under), float(TOP), float(top + W), float(TOP + H))
    assert jokers(view, [CardSighting("SJ", [fan_box], 0.95)]) == ["SJ"]


def test_a_lone_tilted_joker_read_whole_leaves_no_strip_of_itself() -> None:
    # A big joker laid 10° off square, read whole from its blob: the blob's upright box is
    # 1.5 cm wider than the card, and reaches past the fan's right end; the card still fills
    # the whole fan, so its own coloured left edge is no second joker (hand 5007 trick 7).
    view = np.full((300, 400, 3), CLOTH, np.uint8)
    corners = cv2.boxPoints(((200.0, 150.0), (float(W), float(H)), 10.0)).astype(np.int32)
    cv2.fillPoly(view, [corners], (245, 245, 245))
    for dx, dy in ((-22, -30), (-20, 0), (-18, 30), (10, -20), (15, 25)):
        cv2.circle(view, (200 + dx, 150 + dy), 6, (40, 40, 220), cv2.FILLED)
    (x0, y0), (x1, y1) = corners.min(axis=0), corners.max(axis=0)
    blob_box = (float(x0), float(y0), float(x1), float(y1))
    assert jokers(view, [CardSighting("BJ", [blob_box], 0.89)]) == []
    assert unnamed(view, [CardSighting("BJ", [blob_box], 0.89)]) == 0


def test_a_blob_that_is_not_one_card_high_is_no_fan() -> None:
    view = np.full((300, 400, 3), CLOTH, np.uint8)
    cv2.rectangle(view, (50, 100), (350, 130), (245, 245, 245), cv2.FILLED)  # a white sleeve
    assert jokers(view, [CardSighting("AS", [(60.0, 103.0, 69.0, 121.0)], 0.9)]) == []


def test_a_court_card_read_in_doubt_on_a_strip_of_picture_gives_way_to_the_jokers() -> None:
    # Hand 4009: two BJs under a 2D, the second one's collar read JD 0.6 (runner-up QD). Read
    # so, a card's width from it is explained and the blank margin left of it is a card no
    # read names; without the JD the fan's two strips are both BJ.
    view, (a, _, top) = draw_fan(["collar", "collar", "index"])
    collar = CardSighting("JD", [(a + 13.0, TOP + 30.0, a + 21.0, TOP + 50.0)], 0.6, runner_up="QD")
    cards = [collar, index_card("2D", top, True)]
    assert hidden_jokers(paper_of(view), view, cards, [], SOUTH_RIGHT, PX).unnamed == 1
    read, strips = read_fan(paper_of(view), view, cards, [], SOUTH_RIGHT, PX)
    assert [c.identity for c in read] == ["2D"] and strips.unnamed == 0
    assert [card.identity for card in strips.jokers] == ["BJ", "BJ"]


def test_a_court_card_read_surely_keeps_its_place_in_the_fan() -> None:
    view, (_, b, top) = draw_fan(["coloured", "index", "index"])
    jack = CardSighting("JD", [left_index(b)], 0.95, runner_up="QD")
    cards = [jack, index_card("2D", top, True)]
    read, strips = read_fan(paper_of(view), view, cards, [], SOUTH_RIGHT, PX)
    assert [c.identity for c in read] == ["JD", "2D"]
    assert [card.identity for card in strips.jokers] == ["BJ"]
