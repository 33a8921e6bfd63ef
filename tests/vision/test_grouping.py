"""Grouping corner-index boxes into physical cards, on synthetic box layouts."""

from __future__ import annotations

import pytest

from vision.detector import Detection
from vision.grouping import CardSighting, corner_fit, group_cards, summarize
from vision.zone_reads import one_joker_each

Box = tuple[float, float, float, float]


def corners(x: float, y: float, height: float = 200, rotated: bool = False) -> tuple[Box, Box]:
    """The two corner-index boxes of an upright card (or one turned 90°) at (x, y).

    Card 0.7 as wide as high; index 0.10 × 0.16 of the card height, inset 0.03 / 0.04.
    """
    w_card, iw, ih, ix, iy = (
        0.7 * height,
        0.10 * height,
        0.16 * height,
        0.03 * height,
        0.04 * height,
    )
    top_left = (x + ix, y + iy, x + ix + iw, y + iy + ih)
    bottom_right = (x + w_card - ix - iw, y + height - iy - ih, x + w_card - ix, y + height - iy)
    if rotated:  # swap the axes about (x, y)
        top_left = (x + iy, y + ix, x + iy + ih, y + ix + iw)
        bottom_right = (
            x + height - iy - ih,
            y + w_card - ix - iw,
            x + height - iy,
            y + w_card - ix,
        )
    return top_left, bottom_right


def det(identity: str, box: Box, confidence: float = 0.9) -> Detection:
    return Detection(identity, box, confidence, confidence)


def shapes(cards: list[CardSighting]) -> list[tuple[str, int]]:
    return [(c.identity, len(c.boxes)) for c in cards]


def test_both_corners_of_one_card_are_one_card() -> None:
    a, b = corners(100, 100)
    cards = group_cards([det("AS", a, 0.8), det("AS", b, 0.95)])
    assert shapes(cards) == [("AS", 2)]
    assert cards[0].confidence == pytest.approx(0.95)
    assert not cards[0].ambiguous


def test_a_single_corner_is_one_card() -> None:
    a, _ = corners(100, 100)
    assert shapes(group_cards([det("10H", a)])) == [("10H", 1)]


def test_rotated_card_pairs_too() -> None:
    a, b = corners(100, 100, rotated=True)
    assert shapes(group_cards([det("KD", a), det("KD", b)])) == [("KD", 2)]


@pytest.mark.parametrize("height", [60, 200, 600])
def test_pairing_is_scale_free(height: float) -> None:
    a, b = corners(10, 10, height)
    assert shapes(group_cards([det("QS", a), det("QS", b)])) == [("QS", 2)]


def test_two_copies_far_apart_are_two_cards() -> None:
    boxes = [*corners(0, 0), *corners(1000, 600)]
    assert shapes(group_cards([det("AS", b) for b in boxes])) == [("AS", 2), ("AS", 2)]


def test_single_corners_of_two_far_copies_are_two_cards() -> None:
    a, _ = corners(0, 0)
    _, b = corners(1500, 900)
    assert shapes(group_cards([det("AS", a), det("AS", b)])) == [("AS", 1), ("AS", 1)]


def test_fanned_copies_side_by_side_are_two_cards() -> None:
    # Two AS in a fanned hand: top-left indices 1.5 index heights apart.
    a, _ = corners(0, 0)
    b, _ = corners(48, 0)
    assert shapes(group_cards([det("AS", a), det("AS", b)])) == [("AS", 1), ("AS", 1)]


def test_near_duplicates_fold_into_one_box() -> None:
    a, b = corners(100, 100)
    dup = (a[0] + 2, a[1] + 1, a[2] + 2, a[3] + 1)
    cards = group_cards([det("7C", a, 0.9), det("7C", dup, 0.6), det("7C", b, 0.8)])
    assert shapes(cards) == [("7C", 2)]
    assert a in cards[0].boxes and dup not in cards[0].boxes


def test_a_cards_runner_up_is_its_other_corners_read_else_its_surest_second_reading() -> None:
    a, b = corners(100, 100)
    second = [
        Detection("QC", a, 0.6, 0.6, runner_up="10C", runner_up_confidence=0.3),
        Detection("QC", b, 0.7, 0.7, runner_up="JC", runner_up_confidence=0.2),
    ]
    (card,) = group_cards(second)
    assert (card.identity, card.runner_up) == ("QC", "10C")
    assert card.to_json()["runner_up"] == "10C"
    (card,) = group_cards([det("2S", a, 0.9), det("2C", b, 0.6)])
    assert card.runner_up == "2C"  # the other corner's read says more than any second reading
    (card,) = group_cards([det("AS", a)])
    assert card.runner_up == "" and "runner_up" not in card.to_json()


def test_identities_two_parts_apart_never_mix() -> None:
    a, b = corners(100, 100)
    cards = group_cards([det("AS", a), det("KH", b)])
    assert shapes(cards) == [("KH", 1), ("AS", 1)]


def test_one_card_whose_corners_are_read_one_part_apart_is_one_card_with_the_surer_read() -> None:
    """2♠ at one corner and 2♣ at the other is one misread card, not a two-card play."""
    a, b = corners(100, 100)
    cards = group_cards([det("2S", a, 0.9), det("2C", b, 0.6)])
    assert shapes(cards) == [("2S", 2)]
    assert cards[0].also_read == "2C" and cards[0].to_json()["also_read"] == "2C"
    a, b = corners(100, 100, rotated=True)
    assert shapes(group_cards([det("10D", a, 0.5), det("6D", b, 0.7)])) == [("6D", 2)]
    assert shapes(group_cards([det("BJ", a, 0.8), det("SJ", b, 0.7)])) == [("BJ", 2)]


def test_two_ranks_each_read_surely_at_one_cards_corner_distance_are_two_cards() -> None:
    """A KD over a 5D: the under card's top corner lies one card's diagonal from the top
    card's bottom corner; each read surely, they are two cards. A suit read two ways is still
    one card's misread corner, however surely."""
    a, b = corners(100, 100)
    assert shapes(group_cards([det("KD", a, 0.99), det("5D", b, 1.0)])) == [("5D", 1), ("KD", 1)]
    assert shapes(group_cards([det("KD", a, 0.9), det("5D", b, 1.0)])) == [("5D", 2)]
    assert shapes(group_cards([det("4S", a, 0.99), det("4D", b, 1.0)])) == [("4D", 2)]


def test_the_two_jokers_each_read_surely_are_two_cards_like_two_sure_ranks() -> None:
    """Validation hand 9090 at 12 px a cm (atlasnye's own pair): an SJ fanned over a BJ. The
    BJ's "JOKER" column (boxed whole and by its upper half, read 0.88 and 0.96) lay one card's
    diagonal from the SJ's far column (0.97) and the two were joined as one SJ, which then
    swallowed the SJ's near column (0.99) as a misread of its face: one SJ for BJ SJ. A joker
    read two ways less surely is still one joker (above)."""
    a, b = corners(100, 100)
    assert shapes(group_cards([det("BJ", a, 0.96), det("SJ", b, 0.97)])) == [("BJ", 1), ("SJ", 1)]
    fan = [
        det("SJ", (365, 199, 389, 260), 0.99),
        det("SJ", (416, 241, 436, 308), 0.97),
        det("BJ", (349, 198, 363, 232), 0.96),
        det("BJ", (347, 201, 365, 256), 0.88),
        det("SJ", (421, 273, 435, 307), 0.63),
    ]
    cards = one_joker_each(group_cards(fan, px_per_cm=12.0), 12.0)
    assert sorted(card.identity for card in cards) == ["BJ", "SJ"]


def test_a_fanned_under_card_is_not_joined_to_the_top_card_read_one_part_apart() -> None:
    """A fan of 7♠ under 7♣: the top card shows both corners (paired), the under card one."""
    under, _ = corners(0, 0)
    top_left, bottom_right = corners(48, 0)
    cards = group_cards([det("7S", under), det("7C", top_left), det("7C", bottom_right)])
    assert shapes(cards) == [("7S", 1), ("7C", 2)]


def test_a_column_of_fanned_indices_is_no_cards_two_corners() -> None:
    # A tight fan (a shown kitty) lines its cards' corner indices up along the cards' long
    # side; two of them at a card's corner distance are still two cards, not one card's
    # opposite corners (nor one card and the pips its "face" would hide).
    index = (100.0, 100.0, 110.0, 116.0)  # an upright card's index: higher than wide
    below = (100.0, 180.0, 110.0, 196.0)  # the same index 5 heights further down the column
    assert corner_fit(index, below) is None
    a, b = corners(100, 100)
    assert corner_fit(a, b) is not None  # the card's own opposite corners
    column = [det("10D", index), det("7H", (100, 140, 110, 156)), det("7D", below)]
    assert shapes(group_cards(column)) == [("7H", 1), ("7D", 1), ("10D", 1)]


def test_one_corner_boxed_twice_and_read_two_ways_is_the_surer_read() -> None:
    index = (150.0, 234.0, 170.0, 245.0)
    again = (140.0, 238.0, 167.0, 250.0)  # the same corner, boxed a little wider
    cards = group_cards([det("JD", index, 0.98), det("BJ", again, 0.43)])
    assert shapes(cards) == [("JD", 1)]
    beside = (150.0, 250.0, 170.0, 261.0)  # the next card's index in a fan: another card
    assert shapes(group_cards([det("JD", index), det("9D", beside)])) == [("9D", 1), ("JD", 1)]


def test_three_boxes_on_two_fanned_copies_are_two_copies() -> None:
    # A card turned sideways (index box wider than high) fanned on its copy 1.4 cm further:
    # the localiser boxed both indices and once between them; the middle box is a duplicate
    # of one, never a reason to fold the two copies into one.
    boxes = [
        (171.0, 235.0, 193.0, 247.0),
        (170.0, 241.0, 194.0, 252.0),
        (169.0, 249.0, 191.0, 262.0),
    ]
    cards = group_cards([det("7C", b, c) for b, c in zip(boxes, (0.91, 0.94, 0.91), strict=True)])
    assert shapes(cards) == [("7C", 1), ("7C", 1)]


def test_mismatched_index_sizes_do_not_pair() -> None:
    a, _ = corners(0, 0, height=100)
    _, b = corners(0, 0, height=100)
    big = (b[0], b[1], b[0] + 3 * (b[2] - b[0]), b[1] + 3 * (b[3] - b[1]))
    assert corner_fit(a, b) is not None
    assert corner_fit(a, big) is None


def test_overlapping_copies_pair_by_best_fit() -> None:
    # Two copies of one identity, the second shifted a little: cross pairs are also within the
    # plausible range, but the true pairs fit the expected distance best.
    a1, a2 = corners(0, 0)
    b1, b2 = corners(60, 20)
    cards = group_cards([det("9D", b) for b in (a1, b2, a2, b1)])
    assert sorted(sorted(c.boxes) for c in cards) == sorted([sorted([a1, a2]), sorted([b1, b2])])


def test_more_than_two_copies_is_merged_and_flagged() -> None:
    boxes = [corners(0, 0)[0], corners(800, 0)[0], corners(0, 800)[0], corners(800, 800)[1]]
    cards = group_cards([det("JS", b) for b in boxes])
    assert len(cards) == 2
    assert all(c.ambiguous for c in cards)
    assert sum(len(c.boxes) for c in cards) == 4
    assert summarize(cards) == "JS ×2?"


def test_whole_joker_boxes_side_by_side_are_two_cards() -> None:
    jokers = [(0, 0, 140, 200), (150, 0, 290, 200)]
    assert shapes(group_cards([det("BJ", b) for b in jokers])) == [("BJ", 1), ("BJ", 1)]


def test_sorted_in_class_order_and_summarized() -> None:
    a, b = corners(0, 0)
    dets = [
        det("BJ", (900, 900, 1000, 1050)),
        det("AS", a),
        det("10H", corners(400, 0)[0]),
        det("AS", corners(1500, 0)[0]),
        det("AS", b),
    ]
    cards = group_cards(dets)
    assert [c.identity for c in cards] == ["10H", "AS", "AS", "BJ"]
    assert summarize(cards) == "10H, AS ×2, BJ"
    assert summarize([]) == "(none)"
    assert cards[1].to_json()["boxes"][0] == [round(v, 1) for v in a]


def test_a_read_on_the_face_of_a_card_seen_whole_is_its_pip_not_a_card() -> None:
    # An ace of spades seen whole: its big central spade read as a black joker, and a 7.
    a, b = corners(100, 100)
    pip = (150, 170, 190, 230)  # the middle of the 140 × 200 card
    upper = (125, 150, 155, 180)  # a quarter of the way from a corner, still on the face
    cards = group_cards([det("AS", a), det("AS", b), det("SJ", pip), det("7S", upper)])
    assert shapes(cards) == [("AS", 2)]


def test_a_fanned_card_beside_a_card_seen_whole_stays() -> None:
    # A fan: the top card whole, the card under it shows its corner strip to the left.
    a, b = corners(100, 100)
    strip = (100 - 26 + 6, 108, 100 - 26 + 26, 140)
    cards = group_cards([det("AS", a), det("AS", b), det("KS", strip)])
    assert shapes(cards) == [("KS", 1), ("AS", 2)]


def test_a_court_cards_picture_boxed_beside_its_index_and_read_in_doubt_is_no_second_copy() -> None:
    # A QH seen whole at 12 px a cm (validation hand 9078): the queen's head beside the top
    # index boxed 3 px off, 19 × 30 px against the index's 11 × 17, and read QH at 0.50.
    top_left, bottom_right = corners(100, 100, height=106)
    head = (top_left[2] + 3, top_left[1], top_left[2] + 22, top_left[1] + 30)
    reads = [det("QH", top_left, 0.97), det("QH", bottom_right, 0.92), det("QH", head, 0.50)]
    assert shapes(group_cards(reads, px_per_cm=12.0)) == [("QH", 2)]


def test_a_court_cards_picture_beside_its_lone_index_is_no_second_copy() -> None:
    # A KC seen at one corner (validation hand 9071, 12 px a cm): its index boxed twice and
    # read 1.00, the king's picture right beside it, 15 px across to its 9, read KC at 0.86.
    reads = [
        det("KC", (363.0, 216.0, 373.0, 237.0), 1.0),
        det("KC", (360.0, 216.0, 369.0, 237.0), 1.0),
        det("KC", (370.0, 219.0, 385.0, 237.0), 0.86),
    ]
    assert shapes(group_cards(reads, px_per_cm=12.0)) == [("KC", 1)]


def test_a_bigger_box_read_more_surely_than_the_index_or_clear_of_it_stays_a_card() -> None:
    top_left, bottom_right = corners(100, 100, height=106)
    head = (top_left[2] + 3, top_left[1], top_left[2] + 22, top_left[1] + 30)
    surer = [det("QH", top_left, 0.9), det("QH", bottom_right, 0.92), det("QH", head, 0.97)]
    assert sorted(len(c.boxes) for c in group_cards(surer, px_per_cm=12.0)) == [1, 2]
    clear = (top_left[2] + 8, top_left[1], top_left[2] + 27, top_left[1] + 30)
    apart = [det("QH", top_left, 0.97), det("QH", bottom_right, 0.92), det("QH", clear, 0.5)]
    assert sorted(len(c.boxes) for c in group_cards(apart, px_per_cm=12.0)) == [1, 2]


def test_a_fanned_copys_index_read_in_doubt_beside_the_top_cards_corner_stays() -> None:
    top_left, bottom_right = corners(100, 100)
    x1, y1, x2, y2 = bottom_right
    under = (x1 - 28, y1, x2 - 28, y2)
    reads = [det("AH", top_left), det("AH", bottom_right), det("AH", under, 0.5)]
    assert sorted(len(c.boxes) for c in group_cards(reads)) == [1, 2]


def test_a_picture_joker_boxed_whole_and_by_halves_is_one_joker() -> None:
    whole = (95.0, 311.0, 170.0, 377.0)
    left, right = (102.0, 313.0, 131.0, 372.0), (152.0, 320.0, 182.0, 381.0)
    cards = group_cards([det("SJ", left, 1.0), det("SJ", right, 0.99), det("SJ", whole, 0.99)])
    assert shapes(cards) == [("SJ", 1)]
    assert cards[0].boxes == [(95.0, 311.0, 182.0, 381.0)]


def test_a_fanned_pair_keeps_both_copies_beside_the_top_cards_corner() -> None:
    # Two copies fanned 1.4 cm apart: the top card shows both corners, the one under it the
    # bottom corner only, right beside the top card's — near a corner, not on the face.
    top_left, bottom_right = corners(100, 100)
    x1, y1, x2, y2 = bottom_right
    under = (x1 - 28, y1, x2 - 28, y2)
    cards = group_cards([det("AH", top_left), det("AH", bottom_right), det("AH", under)])
    assert sorted(len(c.boxes) for c in cards) == [1, 2]


def test_corners_read_one_part_apart_are_settled_by_all_their_reads_when_pooled() -> None:
    # One corner read QC (0.93) now, but its card's two corners have read 10C more over the
    # reads before (vision.index_tracks pools them): the card is 10C.
    a, b = corners(0, 0)
    pooled = {a: {"QC": 0.93 * 3, "10C": 0.8 * 2}, b: {"10C": 0.8 * 5}}
    cards = group_cards([det("QC", a, 0.93), det("10C", b, 0.8)], pooled=pooled)
    assert [(c.identity, c.also_read) for c in cards] == [("10C", "QC")]
    unpooled = group_cards([det("QC", a, 0.93), det("10C", b, 0.8)])
    assert [(c.identity, c.also_read) for c in unpooled] == [("QC", "10C")]


def test_a_narrow_box_straddling_an_index_and_its_neighbours_edge_repeats_that_index() -> None:
    # Replay footage (hand 1007): a 5C at the right of a fan boxed whole (1.0 cm) and again by
    # a 0.8 cm box overlapping it and the KC beside it, 0.7 cm away: one 5C, not a pair.
    kc = det("KC", (299.0, 156.0, 311.0, 176.0), 0.99)
    five = det("5C", (316.0, 155.0, 326.0, 175.0), 1.0)
    straddling = det("5C", (310.0, 155.0, 318.0, 175.0), 0.72)
    assert shapes(group_cards([kc, five, straddling])) == [("5C", 1), ("KC", 1)]


def test_a_fans_next_index_read_as_another_identity_is_not_taken_for_a_duplicate() -> None:
    # Replay footage (hand 3007): QH on KH turned sideways, 0.75 cm apart. The KH index under
    # the QH is another card, not the QH's corner seen twice (only boxes read alike fold that
    # far apart); with its other corner it is the whole KH.
    qh = [
        det("QH", (163.0, 220.0, 183.0, 230.0), 0.99),
        det("QH", (164.0, 225.0, 184.0, 237.0), 0.91),
    ]
    kh = [
        det("KH", (164.0, 233.0, 183.0, 244.0), 0.6),
        det("KH", (102.0, 289.0, 121.0, 300.0), 0.97),
    ]
    cards = group_cards([*qh, *kh])
    assert sorted(c.identity for c in cards) == ["KH", "QH"]
    assert not any(c.also_read for c in cards)


def test_with_the_scale_known_two_corners_lie_a_cards_corner_distance_apart_in_cm() -> None:
    """E's fan in a zone view at 10 px a cm (cards turned 90°, a 2 × 1.1 cm index): 3S, 8S and
    QS show one corner each, the top card KS both, its far corner misread 4S. In index sizes
    the 3S's corner, 11.5 cm from the 4S — farther than a card's diagonal — fitted best, and
    the KS and QS then lay on that "card"'s face and were dropped: four cards read as two. In
    cm the KS's own corner, 8.3 cm from it, is the 4S's other corner: four cards."""
    fan = [
        det("3S", (176, 393, 196, 403), 0.83),
        det("8S", (176, 378, 197, 389), 0.99),
        det("QS", (174, 363, 194, 374), 0.75),
        det("KS", (176, 350, 196, 361), 0.5),
        det("4S", (242, 299, 262, 310), 0.42),
    ]
    assert sorted(c.identity for c in group_cards(fan)) == ["3S", "8S"]
    cards = group_cards(fan, px_per_cm=10.0)
    assert sorted((c.identity, c.also_read) for c in cards) == [
        ("3S", ""),
        ("8S", ""),
        ("KS", "4S"),
        ("QS", ""),
    ]


def test_with_the_scale_known_a_card_fits_whatever_its_index_size() -> None:
    """Scale-free pairing judges the corners' distance in index sizes; in cm it is the card's
    (6.3 × 8.8 cm, about 8 cm between index centres), whether its index is small or large."""
    for index_cm in (1.2, 2.2):
        top_left = (10.0, 10.0, 10.0 + 0.55 * index_cm * 10, 10.0 + index_cm * 10)
        x1, y1 = 10.0 + 63 - 2 * 3.0, 10.0 + 88 - 2 * 3.0  # the far index, as far in
        bottom_right = (x1 - 0.55 * index_cm * 10 + 6, y1 - index_cm * 10 + 6, x1 + 6, y1 + 6)
        assert corner_fit(top_left, bottom_right, px_per_cm=10.0) is not None
        far = tuple(v + 30 for v in bottom_right)  # 3 cm farther on: past the card's corner
        assert corner_fit(top_left, far, px_per_cm=10.0) is None  # type: ignore[arg-type]


def four_corners(x: float, y: float, height: float = 200) -> list[Box]:
    """The four corner-index boxes of an upright card of a deck that prints one in every corner."""
    top_left, bottom_right = corners(x, y, height)
    return [
        top_left,
        (bottom_right[0], top_left[1], bottom_right[2], top_left[3]),  # top right
        (top_left[0], bottom_right[1], top_left[2], bottom_right[3]),  # bottom left
        bottom_right,
    ]


def test_a_four_index_card_seen_whole_is_one_card() -> None:
    cards = group_cards([det("7H", b) for b in four_corners(100, 100)])
    assert shapes(cards) == [("7H", 4)]
    assert not cards[0].ambiguous


def test_a_square_box_below_a_sideways_fans_column_is_no_far_corner_of_a_card_in_it() -> None:
    # Validation hand 9051 (atlasnye, 12 px a cm): a throw of seven clubs turned sideways, its
    # indices a column; a poor box across the QC's index, 21 × 15 px, read 4C. Taken for the
    # far corner of the 4C straight above it, the 8C, 9C and JC lay on that "card"'s face and
    # were dropped; the 4C's index is wide, so the 4C lies sideways and its far corner lies
    # off the column, not along it.
    column = {
        "2C": (194.0, 258.0, 215.0, 269.0),
        "3C": (190.0, 279.0, 213.0, 290.0),
        "4C": (192.0, 299.0, 214.0, 309.0),
        "8C": (193.0, 319.0, 214.0, 329.0),
        "9C": (192.0, 340.0, 214.0, 351.0),
        "JC": (192.0, 363.0, 212.0, 377.0),
        "QC": (195.0, 382.0, 215.0, 395.0),
    }
    reads = [det(card, box, 1.0) for card, box in column.items()]
    reads += [det("QC", (113.0, 426.0, 135.0, 437.0), 1.0), det("4C", (193.0, 390.0, 213.6, 405.2))]
    cards = group_cards(reads, px_per_cm=12.0)
    assert set(column) <= {c.identity for c in cards}
    assert [len(c.boxes) for c in cards if c.identity == "4C"] == [1, 1]


def test_two_four_index_copies_side_by_side_are_two_cards() -> None:
    boxes = four_corners(100, 100) + four_corners(400, 120)
    cards = group_cards([det("7H", b) for b in boxes])
    assert shapes(cards) == [("7H", 4), ("7H", 4)]
    assert not any(c.ambiguous for c in cards)


def test_a_pair_shifted_off_a_card_is_a_second_copy_not_that_cards_other_diagonal() -> None:
    """N's lead of QC QC fanned, in a zone view at 12 px a cm (validation hand 9063, atlasnye's
    own pair): the top QC seen whole, its top index beside its big club pip (boxed, read QC
    unsurely), the under QC's bottom index 1.7 cm right of the top card's. Pip and under index
    are the top card's two corners moved right, not its other diagonal (which would run across
    it, each end the other way): two cards."""
    top_index, top_far = det("QC", (290, 117, 300, 138), 0.99), det("QC", (346, 192, 357, 211), 1)
    under = det("QC", (366, 190, 378, 210), 1.0)
    pip = Detection("JC", (301, 116, 315, 139), 0.5, 0.5, "QC", 0.4)
    cards = group_cards([top_index, top_far, under], px_per_cm=12.0, unsure_corners=[pip])
    assert shapes(cards) == [("QC", 2), ("QC", 2)]
    assert [top_index.box, top_far.box] in [c.boxes for c in cards]


def test_a_court_card_with_a_big_pip_beside_each_index_read_as_it_is_one_card() -> None:
    """A KC seen whole at 12 px a cm (validation hand 9067, atlasnye's own pair): its big club
    beside each index boxed index-sized and read KC. The two pips pair like the two indices,
    centred alike, but lie off the two ends the opposite ways (inward): one card."""
    indices = [(100.0, 100.0, 110.0, 121.0), (160.0, 180.0, 170.0, 201.0)]
    pips = [(111.0, 100.0, 125.0, 122.0), (145.0, 179.0, 159.0, 201.0)]
    reads = [det("KC", box, 1.0) for box in indices] + [det("KC", box, 0.7) for box in pips]
    assert shapes(group_cards(reads, px_per_cm=12.0)) == [("KC", 4)]


def test_a_fanned_pair_of_jokers_with_wide_indices_a_fan_step_apart_is_two_jokers() -> None:
    # Replay footage (hand 9021, a validation deck's pair of big jokers fanned, 12 px a cm): the
    # two vertical "JOKER" columns are 2 cm wide and lie 1.25 cm apart, the top joker's other
    # corner boxed three times over. Two jokers, not one corner seen twice.
    under = det("BJ", (273.0, 213.0, 297.0, 275.0), 0.95)
    top = det("BJ", (290.0, 214.0, 310.0, 272.0), 0.96)
    other_corner = [
        det("BJ", (353.0, 259.0, 366.0, 305.0), 1.0),
        det("BJ", (352.0, 277.0, 366.0, 316.0), 0.99),
        det("BJ", (349.0, 255.0, 368.0, 317.0), 0.77),
    ]
    cards = group_cards([under, top, *other_corner], px_per_cm=12.0)
    assert sorted(shapes(cards)) == [("BJ", 1), ("BJ", 2)]
    assert one_joker_each(cards, 12.0) == cards  # too wide together for one card's parts


def test_a_sideways_index_boxed_again_a_fan_step_off_in_another_shape_is_one_card() -> None:
    # Replay footage (hand 9019, 12 px a cm): a lone KC turned sideways boxed three times, the
    # surest boxes 11 and 14 px high, a third read 0.64 18 px high and 1.06 cm off the first.
    boxes = [
        (115.0, 368.0, 136.0, 379.0),
        (116.0, 362.0, 138.0, 376.0),
        (117.0, 352.0, 140.0, 370.0),
    ]
    reads = [det("KC", box, conf) for box, conf in zip(boxes, (1.0, 1.0, 0.64), strict=True)]
    assert shapes(group_cards(reads, px_per_cm=12.0)) == [("KC", 1)]


def test_one_corner_boxed_three_times_less_than_a_fan_step_across_is_one_corner() -> None:
    # Replay footage (hand 9038, orell, 12 px a cm): the top 5C of a fan of five, its far corner
    # boxed once and its near corner three times 4-5 px apart, all read 5C. The middle box
    # duplicates both others and goes first; the two left, 0.75 cm apart and touching, are
    # one corner too: a fanned copy's index lies a fan step off, clear of this one.
    far = det("5C", (330.0, 132.0, 340.0, 154.0), 1.0)
    near = [
        det("5C", (382.0, 210.0, 393.0, 231.0), 1.0),
        det("5C", (386.0, 209.0, 398.0, 231.0), 1.0),
        det("5C", (378.0, 210.0, 388.0, 230.0), 0.99),
    ]
    assert shapes(group_cards([far, *near], px_per_cm=12.0)) == [("5C", 2)]


def test_an_unsure_corner_naming_the_card_pairs_with_its_read_corner_and_keeps_a_fan_apart() -> (
    None
):
    """N's fanned pair of 4S in a zone view at 12 px a cm (validation hand 9036): the top card's
    far corner read 4S, its near corner read KS (runner-up 4S) under the bar, and the under
    card's index a fan step on read 4S. The two 4S, 9.2 cm apart, fit as one card's corners
    (one 4S for a pair); the unsure corner, 7.9 cm from the far one, fits better: two cards."""
    far, under = det("4S", (296, 111, 308, 135), 0.55), det("4S", (371, 193, 382, 217), 0.5)
    near = Detection("KS", (348, 190, 360, 214), 0.29, 0.29, "4S", 0.28)
    assert shapes(group_cards([far, under], px_per_cm=12.0)) == [("4S", 2)]
    cards = group_cards([far, under], px_per_cm=12.0, unsure_corners=[near])
    assert sorted(c.boxes for c in cards) == [[far.box, near.box], [under.box]]
    assert [c.confidence for c in cards] == [0.55, 0.5]  # an unsure corner adds no confidence
    # One naming another card is no corner of a 4S; nor is one alone a card.
    other = Detection("KS", near.box, 0.29, 0.29, "KD", 0.2)
    assert shapes(group_cards([far, under], px_per_cm=12.0, unsure_corners=[other])) == [("4S", 2)]
    assert group_cards([], px_per_cm=12.0, unsure_corners=[near]) == []
