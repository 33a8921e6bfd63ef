"""``vision.zone_reads``: each zone read finely, and only when its pixels changed.

Real pixels and the real warps, change tests and grouping; the detector's inference is the
white-square stand-in (``tests.square_detector``), so each test can count the passes it costs.
The table is a 360 px frame that *is* the 90 cm table seen from above (4 px a cm); zone views
are ``VIEW_PX_PER_CM`` (10) px a cm, the stand-ins' sizes drawn for that scale.
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import cv2
import numpy as np
import pytest

from tests.builders import top_down_config
from tests.square_detector import square_detector
from vision.classifier import Read
from vision.detector import Detection
from vision.fan_strips import STRIP_CONFIDENCE
from vision.grouping import CardSighting
from vision.zone_reads import UNSURE_READ, ZONE_NAMES, ZoneReader, one_joker_each, zone_rects
from vision.zones import Zones, right_of

SIZE = 360
VIEW_PX_PER_CM = 10.0
CONFIG = top_down_config(SIZE)
ZONES = Zones.from_config(CONFIG.table, CONFIG.zones)
assert CONFIG.calibration is not None
CALIBRATION = CONFIG.calibration


def table(*cards_cm: tuple[float, float]) -> np.ndarray:
    """The bare table (grey) with a white 3 cm square (a "card") centred on each point."""
    image = np.full((SIZE, SIZE, 3), 60, np.uint8)
    for x, y in cards_cm:
        x0, y0 = round((x - 1.5) * 4), round((y - 1.5) * 4)
        image[y0 : y0 + 12, x0 : x0 + 12] = 255
    return image


class WholeCardReads:
    """Reads every card-sized box it is given as ``self.whole`` and the index-sized ones (corner
    marks) in turn as ``self.corners``, each with the runner-up ``second`` (none by default): a
    stand-in for the classifier."""

    def __init__(
        self,
        whole: tuple[str, float],
        *corners: tuple[str, float],
        second: tuple[str, float] = ("", 0.0),
    ) -> None:
        self.whole, self.corners, self.second = whole, corners or (("none", 0.99),), second
        self.boxes: list[tuple[float, float, float, float]] = []

    def read(self, image_bgr, boxes, source=None):  # type: ignore[no-untyped-def]
        self.boxes += boxes
        marks = itertools.cycle(self.corners)
        said = [self.whole if x1 - x0 > 40 else next(marks) for x0, _, x1, _ in boxes]
        return [Read(identity, p, *self.second) for identity, p in said]


def reader(max_reads: int = 5, whole: WholeCardReads | None = None) -> tuple[ZoneReader, list[int]]:
    det, model = square_detector(native=True)
    return ZoneReader(
        det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=max_reads, whole_card_reader=whole
    ), model.batches


def seen(reads_cards: dict[str, list]) -> dict[str, list[str]]:  # type: ignore[type-arg]
    return {zone: [c.identity for c in cards] for zone, cards in reads_cards.items() if cards}


S_PLAY = (45.0, 70.0)  # the middle of S's play area


def test_zone_rects_are_the_zones_grown_by_the_margin_and_clipped_to_the_table() -> None:
    rects = zone_rects(ZONES)
    assert rects["N"] == pytest.approx((15.0, 5.0, 75.0, 40.0))
    assert rects["W"] == pytest.approx((5.0, 15.0, 40.0, 75.0))
    assert rects["centre"] == pytest.approx((30.0, 30.0, 60.0, 60.0))
    assert zone_rects(ZONES, margin_cm=20)["N"][1] == 0.0


def settled(zr: ZoneReader) -> None:
    """Two frames of the bare table: every zone read twice, the reads agree, confirmed."""
    zr.read(table(), CALIBRATION, 0.0)
    zr.read(table(), CALIBRATION, 0.25)


def test_every_zone_is_read_until_two_reads_agree_and_then_kept() -> None:
    zr, passes = reader()
    assert zr.read(table(), CALIBRATION, 0.0).read == ZONE_NAMES
    assert zr.read(table(), CALIBRATION, 0.25).read == ZONE_NAMES  # confirming
    third = zr.read(table(), CALIBRATION, 0.5)
    assert third.read == () and third.kept == ZONE_NAMES
    assert len(passes) == 10  # and none for an unchanged table


def test_the_read_budget_takes_changed_zones_first_then_the_least_recently_read() -> None:
    zr, _ = reader(max_reads=2)
    first = zr.read(table(), CALIBRATION, 0.0)
    assert first.read == ("N", "E") and first.unread == ("S", "W", "centre")
    second = zr.read(table(), CALIBRATION, 0.25)
    assert second.read == ("S", "W") and second.unread == ("centre", "N", "E")
    third = zr.read(table(), CALIBRATION, 0.5)
    assert third.read == ("centre", "N")


def test_a_play_being_confirmed_is_read_before_zones_changed_by_light() -> None:
    # A glare fading over the other zones must not take the budget from a play that landed:
    # the sweep may come within two seconds, and a play seen once is not accepted.
    zr, _ = reader(max_reads=2)
    for t in (-1.5, -1.25, -1.0, -0.75, -0.5):  # two reads a frame: every zone read twice
        zr.read(table(), CALIBRATION, t)
    assert zr.read(table(S_PLAY), CALIBRATION, 0.5).read == ("S",)  # landed: read once
    glare = table(S_PLAY)
    for x, y in ((45, 15), (78, 45), (12, 45), (45, 45)):  # N, E, W, centre
        glare[y * 4 - 8 : y * 4 + 8, x * 4 - 8 : x * 4 + 8] = 120
    after = zr.read(glare, CALIBRATION, 0.75)
    assert after.read[0] == "S" and seen(after.cards)["S"] == ["AS"]


def test_a_card_landing_is_read_in_its_zone_only_confirmed_and_then_kept() -> None:
    zr, passes = reader()
    settled(zr)
    landed = zr.read(table(S_PLAY), CALIBRATION, 0.5)
    assert landed.read == ("S",)
    assert seen(landed.cards) == {"S": ["AS"]}
    assert zr.read(table(S_PLAY), CALIBRATION, 0.75).read == ("S",)  # confirming
    still = zr.read(table(S_PLAY), CALIBRATION, 1.0)
    assert still.read == () and seen(still.cards) == {"S": ["AS"]}
    assert len(passes) == 10 + 2


def test_a_swept_zone_is_empty_again_without_a_detector_pass() -> None:
    zr, passes = reader()
    settled(zr)
    zr.read(table(S_PLAY), CALIBRATION, 0.5)
    zr.read(table(S_PLAY), CALIBRATION, 0.75)
    swept = zr.read(table(), CALIBRATION, 1.0)
    assert swept.read == () and "S" in swept.kept and seen(swept.cards) == {}
    assert len(passes) == 10 + 2


def test_light_that_scales_a_zone_alike_has_it_read_no_more() -> None:
    # A cloud or a lamp warming up scales every pixel alike: no card came or went.
    zr, passes = reader()
    settled(zr)
    zr.read(table(S_PLAY), CALIBRATION, 0.5)
    zr.read(table(S_PLAY), CALIBRATION, 0.75)
    for t, gain in ((1.0, 1.15), (1.25, 0.85)):
        relit = zr.read(cv2.convertScaleAbs(table(S_PLAY), alpha=gain), CALIBRATION, t)
        assert relit.read == () and seen(relit.cards) == {"S": ["AS"]}
    assert len(passes) == 10 + 2


def test_light_that_changes_a_part_of_a_zone_has_it_read_again() -> None:
    zr, passes = reader()
    settled(zr)
    glare = table()
    glare[240:280, 160:200] = 120  # a 10 × 10 cm pool of light on S's play area
    assert zr.read(glare, CALIBRATION, 0.5).read == ("S",)
    assert len(passes) == 11


def picture_card(image: np.ndarray, x_cm: float, y_cm: float) -> np.ndarray:
    """A 6.3 × 8.8 cm light-grey card with no index the square model could box."""
    x0, y0 = round((x_cm - 3.15) * 4), round((y_cm - 4.4) * 4)
    image[y0 : y0 + 35, x0 : x0 + 25] = 200
    return image


def test_a_lone_card_no_index_explains_is_read_whole_and_kept_only_as_a_joker() -> None:
    joker = WholeCardReads(("BJ", 0.99))
    zr, _ = reader(whole=joker)
    settled(zr)
    reads = zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5)
    assert seen(reads.cards) == {"S": ["BJ"]}
    ((x1, y1, x2, y2),) = joker.boxes[:1]
    assert 5.0 <= (x2 - x1) / 10 <= 8.0 and 7.5 <= (y2 - y1) / 10 <= 10.5  # about the card

    other = WholeCardReads(("AS", 0.99))  # a card whose index the localiser missed
    zr, _ = reader(whole=other)
    settled(zr)
    assert seen(zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards) == {}


def test_a_lone_blob_with_no_index_on_it_is_a_joker_from_a_less_sure_read() -> None:
    """An index card lying alone shows two indices; a blob the localiser found none on is a
    joker when the whole read says so at LONE_JOKER_CONF, not only at JOKER_READ_CONF."""
    fairly_sure = WholeCardReads(("BJ", 0.7))
    zr, _ = reader(whole=fairly_sure)
    settled(zr)
    assert seen(zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards) == {"S": ["BJ"]}
    unsure = WholeCardReads(("BJ", 0.5))
    zr, _ = reader(whole=unsure)
    settled(zr)
    assert seen(zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards) == {}


def test_a_lone_blob_whose_corner_mark_reads_as_a_joker_is_that_joker_in_doubt() -> None:
    """A joker's index the localiser never boxed, its picture read ``none`` whole: the corner
    marks tell it is a joker, not surely which."""
    by_corner = WholeCardReads(("none", 0.6), ("none", 0.9), ("BJ", 0.6))
    zr, _ = reader(whole=by_corner)
    settled(zr)
    (joker,) = zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards["S"]
    assert (joker.identity, joker.runner_up) == ("BJ", "SJ")
    assert joker.confidence == STRIP_CONFIDENCE < UNSURE_READ
    (card_x0, card_y0, card_x1, card_y1), *marks = by_corner.boxes
    assert len(marks) == 4
    corners = {(x, y) for x in (card_x0, card_x1) for y in (card_y0, card_y1)}
    for x0, y0, x1, y1 in marks:  # about an index in from each corner (10 px a cm)
        near = min(corners, key=lambda c: abs(c[0] - x0) + abs(c[1] - y0))
        corners.remove(near)
        assert abs(abs((x0 + x1) / 2 - near[0]) - 7) <= 5
        assert abs(abs((y0 + y1) / 2 - near[1]) - 14) <= 5


def test_a_lone_blob_every_read_of_which_names_a_joker_second_is_that_joker_in_doubt() -> None:
    """A validation deck's lone SJ, never boxed: read ``none`` whole and at every corner, SJ
    second each time. Not where the runner-up is another card, nor where the joker is only
    the runner-up of reads sure of nothing (any card whose index went unboxed)."""
    second = WholeCardReads(("none", 0.9), ("none", 0.6), second=("SJ", 0.3))
    zr, _ = reader(whole=second)
    settled(zr)
    (joker,) = zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards["S"]
    assert (joker.identity, joker.runner_up) == ("SJ", "BJ") and joker.confidence < UNSURE_READ
    for not_a_joker in (
        WholeCardReads(("none", 0.9), ("none", 0.6), second=("5H", 0.3)),  # another card second
        WholeCardReads(("none", 0.99), ("none", 0.98), second=("SJ", 0.01)),  # a joker barely
    ):
        zr, _ = reader(whole=not_a_joker)
        settled(zr)
        assert zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards["S"] == []


def test_a_lone_blob_whose_corner_marks_read_as_no_joker_is_no_card_named() -> None:
    unsure = WholeCardReads(("none", 0.6), ("BJ", 0.4))
    zr, _ = reader(whole=unsure)
    settled(zr)
    reads = zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5)
    assert reads.cards["S"] == [] and reads.glimpsed == ("S",)


class AnUnreadIndex:
    """Boxes an index at the top left of a card lying at ``S_PLAY`` and reads nothing surely
    (the box goes to ``unread``): a localiser sure of an index the classifier was not."""

    reads_native = True
    classifier = None

    def detect(self, image, unread=None, **kwargs):  # type: ignore[no-untyped-def]
        x0, y0 = zone_rects(ZONES)["S"][:2]
        cx, cy = (S_PLAY[0] - 3.15 + 0.7 - x0) * 10, (S_PLAY[1] - 4.4 + 1.4 - y0) * 10
        if unread is not None and image[round(cy), round(cx)].mean() > 150:
            unread.append((cx - 5, cy - 10, cx + 5, cy + 10))
        return []


def test_a_lone_blob_with_an_index_on_it_is_a_joker_only_when_two_corners_read_one() -> None:
    """An index read unsurely may be an index card's: one corner read as a joker is not enough
    there (an index card's own corner), two corners read as one joker are (a joker's marks)."""
    for corners, expected in (
        ((("SJ", 0.75), ("SJ", 0.73), ("none", 0.8)), {"S": ["SJ"]}),
        ((("SJ", 0.75), ("none", 0.8), ("none", 0.8), ("none", 0.8)), {}),
    ):
        whole = WholeCardReads(("SJ", 0.5), *corners)
        zr = ZoneReader(
            AnUnreadIndex(), ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5, whole_card_reader=whole
        )
        settled(zr)
        assert seen(zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards) == expected


class AMarkBoxedEveryThirdRead:
    """Boxes a small joker mark at the top left of a card lying at ``S_PLAY``, read SJ surely,
    in one read of three and nothing at all in the others (a mark a few pixels wide)."""

    reads_native = True
    classifier = None

    def __init__(self, confidence: float = 0.96) -> None:
        self.reads, self.confidence = 0, confidence

    def detect(self, image, **kwargs):  # type: ignore[no-untyped-def]
        x0, y0 = zone_rects(ZONES)["S"][:2]
        cx, cy = (S_PLAY[0] - 3.15 + 0.7 - x0) * 10, (S_PLAY[1] - 4.4 + 1.4 - y0) * 10
        if image[round(cy), round(cx)].mean() < 150:
            return []  # no card there (another zone's view, or the card went)
        self.reads += 1
        return [Detection("SJ", (cx - 4, cy - 4, cx + 4, cy + 4), self.confidence)] * (
            self.reads % 3 == 1
        )


def test_a_card_lying_still_is_still_the_card_read_on_it_when_a_read_boxes_nothing() -> None:
    """Read SJ once, then twice nothing on the same unchanged blob: SJ every read, so the play
    settles; a changed zone (the card went) ends it, and a read in doubt is not carried on."""
    nothing = WholeCardReads(("none", 0.99))
    det = AMarkBoxedEveryThirdRead()
    zr = ZoneReader(det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5, whole_card_reader=nothing)
    settled(zr)
    card = picture_card(table(), *S_PLAY)
    for t in (0.5, 0.75, 1.0):
        assert seen(zr.read(card, CALIBRATION, t).cards) == {"S": ["SJ"]}
    assert det.reads == 2  # read twice, the reads agreed: kept since
    beside = card.copy()
    beside[272:284, 100:112] = 255  # a small card landing beside it changes the zone elsewhere
    assert seen(zr.read(beside, CALIBRATION, 1.1).cards)["S"] == ["SJ"] and det.reads == 3
    for t in (1.25, 1.5):
        gone = zr.read(table(), CALIBRATION, t)
    assert seen(gone.cards) == {}
    elsewhere = picture_card(table(), S_PLAY[0] + 4, S_PLAY[1])  # another card, boxed nowhere
    assert seen(zr.read(elsewhere, CALIBRATION, 1.75).cards) == {}

    zr = ZoneReader(
        AMarkBoxedEveryThirdRead(confidence=0.6), ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5
    )
    settled(zr)
    assert seen(zr.read(card, CALIBRATION, 0.5).cards) == {"S": ["SJ"]}
    assert seen(zr.read(card, CALIBRATION, 0.75).cards) == {}


class AJokerMarkReadWeakly:
    """Boxes a joker's mark at the top left of a card lying at ``S_PLAY`` surely and reads it
    BJ at 0.5 every time: a weak read, under the joker bar."""

    reads_native = True
    classifier = None

    def __init__(self) -> None:
        self.reads = 0

    def detect(self, image, weak=None, **kwargs):  # type: ignore[no-untyped-def]
        x0, y0 = zone_rects(ZONES)["S"][:2]
        cx, cy = (S_PLAY[0] - 3.15 + 0.7 - x0) * 10, (S_PLAY[1] - 4.4 + 1.4 - y0) * 10
        if image[round(cy) + 15, round(cx) + 15].mean() >= 150 and weak is not None:
            self.reads += 1
            weak.append(Detection("BJ", (cx - 4, cy - 6, cx + 4, cy + 6), 0.5))
        return []


def test_a_zone_is_read_again_until_a_track_of_weak_reads_is_old_enough_to_judge() -> None:
    """Two reads agreeing on nothing would keep the zone; a joker mark read weakly twice is
    not yet judged, so the zone is read a third time, and the joker is found."""
    det = AJokerMarkReadWeakly()
    zr = ZoneReader(det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5)
    settled(zr)
    card = picture_card(table(), *S_PLAY)
    card[267:270, 169:172] = 90  # the mark: ink, so its patch has a look to track
    for t in (0.5, 0.75):
        assert seen(zr.read(card, CALIBRATION, t).cards) == {}
    (joker,) = zr.read(card, CALIBRATION, 1.0).cards["S"]
    assert (joker.identity, det.reads) == ("BJ", 3) and joker.confidence < UNSURE_READ
    zr.read(card, CALIBRATION, 1.25)
    assert zr.read(card, CALIBRATION, 1.5).read == () and det.reads == 4  # settled: kept


def test_a_card_no_read_names_is_glimpsed_on_its_zone_while_it_lies_there() -> None:
    unsure = WholeCardReads(("BJ", 0.5))
    zr, _ = reader(whole=unsure)
    settled(zr)
    assert zr.read(table(), CALIBRATION, 0.5).glimpsed == ()
    first = zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.75)
    assert first.cards["S"] == [] and first.glimpsed == ("S",)
    kept = zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 1.0)  # unchanged: the read stands
    assert kept.glimpsed == ("S",)
    for t in (1.25, 1.5):  # taken away: empty again
        gone = zr.read(table(), CALIBRATION, t)
    assert gone.glimpsed == ()


def test_a_joker_read_whole_and_the_part_of_it_the_localiser_boxed_are_one_joker() -> None:
    """The part lies just off the card's blob (its centre outside it), so the blob is read
    whole as well: one joker, not two."""
    joker = WholeCardReads(("SJ", 0.99))
    det, _ = square_detector(native=True, names_by_side={10: "SJ"})
    zr = ZoneReader(det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5, whole_card_reader=joker)
    settled(zr)
    image = table()
    image[269:291, 166:196] = 200  # a 7.5 × 5.5 cm picture joker lying across S's play area
    image[278:282, 160:164] = 255  # 0.5 cm to its left: a 1 cm part of it, boxed "SJ"
    reads = zr.read(image, CALIBRATION, 0.5)
    assert joker.boxes  # the blob was read whole
    assert seen(reads.cards) == {"S": ["SJ"]}


def test_a_card_the_localiser_read_is_not_read_whole_again() -> None:
    classifier = WholeCardReads(("none", 0.99))
    zr, _ = reader(whole=classifier)
    settled(zr)
    image = picture_card(table(), *S_PLAY)
    image[280 - 6 : 280 + 6, 180 - 6 : 180 + 6] = 255  # an index the localiser boxes, at S_PLAY
    assert seen(zr.read(image, CALIBRATION, 0.5).cards) == {"S": ["AS"]}
    # Only the strip of the card that one index does not explain was asked about, not the card.
    assert all((x2 - x1) / 10 < 5.0 for x1, _, x2, _ in classifier.boxes)


def test_an_occluded_zone_is_neither_read_nor_seen() -> None:
    zr, passes = reader()
    reads = zr.read(table(S_PLAY), CALIBRATION, 0.0, skip={"S"})
    assert "S" not in reads.read and "S" in reads.unread
    assert len(passes) == 4


def test_a_card_lying_in_another_zone_counts_for_that_zone_only() -> None:
    # (70, 30) cm lies in N's rectangle but in E's play area: only E's read keeps it.
    assert ZONES.seat_of((70.0, 30.0)) == "E"
    zr, _ = reader()
    reads = zr.read(table((70.0, 30.0)), CALIBRATION, 0.0)
    assert seen(reads.cards) == {"E": ["AS"]}


def test_a_read_budget_below_one_is_refused() -> None:
    det, _ = square_detector(native=True)
    with pytest.raises(ValueError, match="max_reads"):
        ZoneReader(det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=0)


def test_a_joker_boxed_by_halves_is_one_joker_but_a_fanned_pair_stays_two() -> None:
    halves = [  # 10 px a cm: the two halves of one card turned 90°, 7.9 × 5.6 cm together
        CardSighting("SJ", [(173.0, 239.0, 199.0, 289.0)], 0.95),
        CardSighting("SJ", [(225.0, 238.0, 252.0, 294.0)], 0.99),
    ]
    (one,) = one_joker_each(halves, 10.0)
    assert one.boxes == [(173.0, 238.0, 252.0, 294.0)] and one.confidence == 0.99
    pair = [  # two upright jokers fanned 1.3 cm apart: 7.6 × 8.8 cm together
        CardSighting("BJ", [(100.0, 100.0, 163.0, 188.0)], 0.99),
        CardSighting("BJ", [(113.0, 100.0, 176.0, 188.0)], 0.99),
    ]
    assert len(one_joker_each(pair, 10.0)) == 2


def test_a_small_marked_joker_seen_by_both_corners_and_its_pair_fanned_beside_it_are_two() -> None:
    """Validation hand 9024 at 12 px a cm: the top SJ's two star corners, and the SJ under it
    boxed by one star 1.7 cm to the right of the first's lower one — 5.9 × 8.75 cm of boxes,
    within one card's span, yet the second star lies off the first card."""
    top = CardSighting("SJ", [(345.0, 120.0, 353.0, 130.0), (387.0, 210.0, 396.0, 222.0)], 1.0)
    under = CardSighting("SJ", [(407.0, 216.0, 416.0, 225.0)], 0.99)
    assert len(one_joker_each([top, under], 12.0)) == 2
    part = CardSighting("SJ", [(360.0, 150.0, 380.0, 190.0)], 0.9)  # a part of its picture
    assert len(one_joker_each([top, part], 12.0)) == 1


def test_two_joker_marks_a_fan_step_apart_on_a_seats_play_are_two_copies() -> None:
    """Validation hand 9091 at 12 px a cm: W's two big jokers fanned under a 2H, each showing
    only its star, 1.7 cm apart along W's fan — within one card's span, yet a fan shows each
    card's same corner a step further on; parts of one joker do not lie so, and one joker's
    marks at the ends of an edge lie most of a card's width or length apart."""
    stars = [
        CardSighting("BJ", [(217.0, 307.0, 228.0, 316.0)], 1.0),
        CardSighting("BJ", [(216.0, 327.0, 228.0, 336.0)], 0.97),
    ]
    assert len(one_joker_each(stars, 12.0, fan_right=right_of("W"))) == 2
    assert len(one_joker_each(stars, 12.0)) == 1  # the centre's cards fan no way
    across = [  # the same marks apart across W's fan: along a joker's index column
        CardSighting("BJ", [(217.0, 307.0, 228.0, 316.0)], 1.0),
        CardSighting("BJ", [(237.0, 307.0, 248.0, 316.0)], 0.97),
    ]
    assert len(one_joker_each(across, 12.0, fan_right=right_of("W"))) == 1
    unlike = [  # a small mark and a big part of a picture a step away: one joker's parts
        CardSighting("BJ", [(217.0, 307.0, 228.0, 316.0)], 1.0),
        CardSighting("BJ", [(210.0, 327.0, 235.0, 350.0)], 0.97),
    ]
    assert len(one_joker_each(unlike, 12.0, fan_right=right_of("W"))) == 1
    sideways = [  # validation hand 9084: an SJ lying sideways in N's view, its two end columns
        CardSighting("SJ", [(429.0, 53.0, 444.0, 76.0)], 0.99),
        CardSighting("SJ", [(517.0, 53.0, 532.0, 76.0)], 0.95),
    ]
    assert len(one_joker_each(sideways, 12.0, fan_right=right_of("N"))) == 1
    one_edge = [  # validation hand 9097: an SJ's two rings at the ends of its edge along W's fan
        CardSighting("SJ", [(221.0, 370.0, 233.0, 383.0)], 1.0),
        CardSighting("SJ", [(219.0, 318.0, 232.0, 330.0)], 1.0),
    ]
    assert len(one_joker_each(one_edge, 12.0, fan_right=right_of("W"))) == 1


def test_an_empty_look_is_learnt_only_while_nothing_moves_in_the_zone() -> None:
    """A hand carrying a joker in shows no card yet; had its paper been learnt as the cloth,
    the joker would be no brighter than the "empty" zone when it lands."""
    joker = WholeCardReads(("BJ", 0.99))
    zr, _ = reader(whole=joker)
    settled(zr)
    carried = table()
    carried[274:288, 167:192] = 200  # a band of the joker under the hand: less than a card
    busy = {"N", "E", "W", "centre"}  # motion in S only
    zr.read(carried, CALIBRATION, 0.5, still=busy)
    zr.read(carried, CALIBRATION, 0.75, still=busy)
    landed = picture_card(table(), *S_PLAY)
    assert seen(zr.read(landed, CALIBRATION, 1.0).cards) == {"S": ["BJ"]}


class DoubtfulIndices:
    """The white-square detector, but its small boxes are read ``read`` in doubt (0.55, maybe
    ``maybe``) and its big ones ``BJ`` surely: a localiser that boxed a joker whole and a part
    of a picture beside it, as the held-out deck's jester hat at a fan's strip (read JD)."""

    reads_native = True
    classifier = None

    def __init__(self, read: str, maybe: str) -> None:
        self.squares, _ = square_detector(native=True)
        self.read, self.maybe = read, maybe

    def detect(self, image, **kwargs):  # type: ignore[no-untyped-def]
        out = []
        for d in self.squares.detect(image, **kwargs):
            if d.box[2] - d.box[0] > 30:  # over 3 cm: the joker, boxed whole
                out.append(replace(d, identity="BJ", score=0.99, confidence=0.99))
            else:
                out.append(replace(d, identity=self.read, score=0.55, confidence=0.55))
                out[-1] = replace(out[-1], runner_up=self.maybe, runner_up_confidence=0.2)
        return out


def fan_of_a_joker(image: np.ndarray, part_on_the_paper: bool = True) -> np.ndarray:
    """S plays two cards fanned 1.3 cm apart; the top one a joker the localiser boxes whole
    (a 5 cm white square), the strip of the one under it shows a 1 cm white part of a picture.
    """
    x, y = S_PLAY
    picture_card(image, x - 1.3, y)
    picture_card(image, x, y)
    image[270:290, 170:190] = 255  # the joker's 5 cm box, on the top card
    if part_on_the_paper:
        image[262:266, 158:162] = 255  # a 1 cm part in the strip, at (40.5, 66) cm
    return image


def test_a_court_card_read_in_doubt_on_a_jokers_paper_is_a_part_of_a_picture() -> None:
    """A box read JD in doubt whose runner-up is a court card of another rank (QD) is not an
    index (a court card's index is read surely, at least its rank): on the paper of a fan
    that holds a sure joker it is dropped, and the fan's strip is left to the strip reader."""
    zr = ZoneReader(DoubtfulIndices("JD", maybe="QD"), ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5)
    settled(zr)
    assert seen(zr.read(fan_of_a_joker(table()), CALIBRATION, 0.5).cards) == {"S": ["BJ"]}


def test_a_card_read_in_doubt_beside_a_joker_is_kept_when_it_may_be_an_index() -> None:
    """A "10" read QD in doubt has its 10 as runner-up, a QS maybe QC has its rank read: both
    are indices, kept (the play names them unsure). Away from any joker's paper a JD maybe QD
    is kept too."""
    for read, maybe in (("QD", "10D"), ("QS", "QC")):
        zr = ZoneReader(DoubtfulIndices(read, maybe), ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5)
        settled(zr)
        cards = seen(zr.read(fan_of_a_joker(table()), CALIBRATION, 0.5).cards)
        assert sorted(cards["S"]) == sorted(["BJ", read])
    zr = ZoneReader(DoubtfulIndices("JD", maybe="QD"), ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5)
    settled(zr)
    image = fan_of_a_joker(table(), part_on_the_paper=False)
    image[250:254, 120:124] = 255  # a 1 cm index of a card of its own, at (30.5, 63) cm
    assert sorted(seen(zr.read(image, CALIBRATION, 0.5).cards)["S"]) == ["BJ", "JD"]


def joker_under_a_joker(index_side_cm: float = 1.0) -> np.ndarray:
    """A picture card at ``S_PLAY`` whose top-left index (a white square the stand-in localiser
    boxes) is all the localiser finds on it: validation hand 9028's SJ lying over a BJ, the
    BJ's ringed mark boxed and read, the SJ's black rings never boxed."""
    image = picture_card(table(), *S_PLAY)
    x0, y0 = round((S_PLAY[0] - 3.15 + 0.7) * 4), round((S_PLAY[1] - 4.4 + 1.4) * 4)
    side = round(index_side_cm * 4)
    image[y0 - side // 2 : y0 + side - side // 2, x0 - side // 2 : x0 + side - side // 2] = 255
    return image


def test_the_other_joker_on_a_jokers_paper_is_read_by_its_corner_marks() -> None:
    """Two corner marks off the read joker's index naming the other joker: that joker too, in
    doubt as to which. Not the joker already read there, not one mark, not beside another card."""
    marks_say_sj = WholeCardReads(("none", 0.9), ("SJ", 0.9))
    det, _ = square_detector(native=True, names_by_side={10: "BJ"})
    zr = ZoneReader(
        det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5, whole_card_reader=marks_say_sj
    )
    settled(zr)
    cards = zr.read(joker_under_a_joker(), CALIBRATION, 0.5).cards["S"]
    (other,) = [c for c in cards if c.identity == "SJ"]
    assert [c.identity for c in cards if c is not other] == ["BJ"]
    assert other.confidence == STRIP_CONFIDENCE and other.runner_up == "BJ"

    one_mark = [
        tuple(("SJ", 0.9) if i == at else ("none", 0.9) for i in range(4)) for at in range(4)
    ]
    for index, corners in (
        ("BJ", (("BJ", 0.9),)),  # the same joker: no telling one card from two
        *(("BJ", mark) for mark in one_mark),  # one corner, whichever
        ("BJ", (("SJ", 0.4),)),  # marks read unsurely
        ("AS", (("SJ", 0.9),)),  # no joker read there
    ):
        det, _ = square_detector(native=True, names_by_side={10: index})
        whole = WholeCardReads(("none", 0.9), *corners)
        zr = ZoneReader(det, ZONES, px_per_cm=VIEW_PX_PER_CM, max_reads=5, whole_card_reader=whole)
        settled(zr)
        assert seen(zr.read(joker_under_a_joker(), CALIBRATION, 0.5).cards) == {"S": [index]}


def test_a_lone_joker_blob_a_fan_step_wider_than_a_card_is_two_jokers_when_both_ends_say_so() -> (
    None
):
    """Validation hand 9031: S's two big jokers fanned 1.2 cm apart, neither's mark boxed,
    read as one joker by its corner marks; each end of the fan shows one card's mark."""
    fan = picture_card(picture_card(table(), *S_PLAY), S_PLAY[0] + 1.5, S_PLAY[1])
    both_ends = WholeCardReads(("none", 0.6), ("BJ", 0.8))
    zr, _ = reader(whole=both_ends)
    settled(zr)
    jokers = zr.read(fan, CALIBRATION, 0.5).cards["S"]
    assert [(j.identity, j.runner_up, j.confidence) for j in jokers] == [
        ("BJ", "SJ", STRIP_CONFIDENCE)
    ] * 2
    mixed = WholeCardReads(("none", 0.6), ("BJ", 0.8), ("BJ", 0.8), ("SJ", 0.7), ("SJ", 0.7))
    zr, _ = reader(whole=mixed)
    settled(zr)
    assert seen(zr.read(fan, CALIBRATION, 0.5).cards) == {"S": ["BJ", "SJ"]}
    one_card = WholeCardReads(("none", 0.6), ("BJ", 0.8))  # its two indices, diagonal corners
    zr, _ = reader(whole=one_card)
    settled(zr)
    assert seen(zr.read(picture_card(table(), *S_PLAY), CALIBRATION, 0.5).cards) == {"S": ["BJ"]}
