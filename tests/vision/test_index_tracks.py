"""Index tracks: one corner index read again and again at one place is read as its reads agree."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.detector import Detection
from vision.index_tracks import IndexTracks

PX_PER_CM = 10.0
BOX = (40.0, 40.0, 52.0, 58.0)


def view_with(text: str) -> np.ndarray:
    """A 100 × 100 px zone view: white paper with ``text`` printed in BOX."""
    view = np.full((100, 100, 3), 255, np.uint8)
    cv2.putText(view, text, (41, 55), cv2.FONT_HERSHEY_SIMPLEX, 0.45, (0, 0, 0), 1)
    return view


def read(tracks: IndexTracks, view: np.ndarray, identity: str, confidence: float) -> str:
    detections, _ = tracks.pool(view, [Detection(identity, BOX, confidence)])
    return detections[0].identity


def test_an_index_that_wavers_is_read_as_most_of_its_reads() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    assert read(tracks, view, "10C", 0.8) == "10C"
    assert read(tracks, view, "10C", 0.8) == "10C"
    assert read(tracks, view, "QC", 0.93) == "10C"  # 1.6 of 10C against 0.93 of QC


def test_pooled_votes_are_summed_confidences_per_identity() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    read(tracks, view, "10C", 0.8)
    detections, pooled = tracks.pool(view, [Detection("QC", BOX, 0.9)])
    assert dict(pooled[BOX]) == {"10C": 0.8, "QC": 0.9}
    assert detections[0].identity == "QC" and detections[0].confidence == 0.45


def test_a_card_that_looks_different_at_the_same_place_starts_afresh() -> None:
    tracks = IndexTracks(PX_PER_CM)
    read(tracks, view_with("10"), "10C", 0.9)
    read(tracks, view_with("10"), "10C", 0.9)
    assert read(tracks, view_with("K"), "KC", 0.6) == "KC"


def test_a_track_ends_when_a_read_does_not_find_its_index() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    read(tracks, view, "10C", 0.9)
    tracks.pool(view, [])  # swept, or covered
    assert read(tracks, view, "QC", 0.6) == "QC"


def test_an_index_that_moved_more_than_a_few_millimetres_is_another() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    read(tracks, view, "10C", 0.9)
    moved = (BOX[0] + 5, BOX[1], BOX[2] + 5, BOX[3])
    detections, _ = tracks.pool(view, [Detection("QC", moved, 0.6)])
    assert detections[0].identity == "QC"


def test_a_tracks_runner_up_is_the_other_identity_with_most_confidence_first_or_second() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    tracks.pool(view, [Detection("QC", BOX, 0.6, runner_up="10C", runner_up_confidence=0.3)])
    detections, _ = tracks.pool(
        view, [Detection("QC", BOX, 0.7, runner_up="JC", runner_up_confidence=0.2)]
    )
    (pooled,) = detections
    assert (pooled.identity, pooled.runner_up) == ("QC", "10C")
    assert pooled.runner_up_confidence == 0.15  # 0.3 over two reads
    # a read of the runner-up as first choice counts for it too
    (pooled,), _ = tracks.pool(view, [Detection("JC", BOX, 0.5)])
    assert (pooled.identity, pooled.runner_up) == ("QC", "JC")  # JC: 0.2 + 0.5 > 10C: 0.3


def test_a_weak_read_keeps_its_index_track_and_is_read_as_the_track_reads() -> None:
    """An index read QD surely, then 10D under the bar: still one card, read as the track's
    best, its pooled confidence low (so the referee is asked), its runner-up the weak read."""
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    read(tracks, view, "QD", 0.56)
    (pooled,), votes = tracks.pool(view, [], weak=[Detection("10D", BOX, 0.45)])
    assert (pooled.identity, pooled.runner_up) == ("QD", "10D")
    assert pooled.confidence == pytest.approx(0.28)  # 0.56 over two reads
    assert votes[BOX] == {"QD": 0.56, "10D": 0.45}
    assert read(tracks, view, "10D", 0.55) == "10D"  # 1.0 of 10D against 0.56 of QD


def weak_ten(confidence: float = 0.35, runner_up: str = "QC") -> Detection:
    return Detection("10C", BOX, confidence, runner_up=runner_up, runner_up_confidence=0.3)


def test_weak_reads_alone_make_a_card_once_three_of_them_agree() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    for _ in range(2):
        assert tracks.pool(view, [], weak=[weak_ten()])[0] == []
    (pooled,), _ = tracks.pool(view, [], weak=[weak_ten(0.36)])
    assert (pooled.identity, pooled.runner_up) == ("10C", "QC")
    assert pooled.confidence == pytest.approx(0.353, abs=1e-3)


def test_the_kitty_zone_takes_no_weak_reads() -> None:
    """A kitty read short goes to the referee; a weak read must not complete it."""
    tracks, view = IndexTracks(PX_PER_CM, weak_reads=False), view_with("10")
    for _ in range(5):
        assert tracks.pool(view, [], weak=[weak_ten()])[0] == []
    read(tracks, view, "QC", 0.6)
    assert tracks.pool(view, [], weak=[weak_ten()])[0] == []  # nor keeps a sure read's card


def test_weak_reads_alone_are_a_card_only_when_wavering_between_look_alikes() -> None:
    """10C or QC: one suit, a card either way. A weak read with no runner-up, or a joker for
    one, may be no index at all (a stroke of a jester read as QS)."""
    view = view_with("10")
    for weak, card in (
        (weak_ten(runner_up="10S"), ["10C"]),  # one rank
        (weak_ten(runner_up=""), []),
        (weak_ten(runner_up="SJ"), []),
        (Detection("BJ", BOX, 0.44, runner_up="JD", runner_up_confidence=0.4), []),
    ):
        tracks = IndexTracks(PX_PER_CM)
        for _ in range(4):
            found, _ = tracks.pool(view, [], weak=[weak])
        assert [d.identity for d in found] == card


def test_a_joker_mark_read_weakly_read_after_read_is_that_joker_in_doubt() -> None:
    """An unseen deck's joker mark (a ringed star, a "JOKER" column) read about 0.5, under the
    joker bar, every time: the joker, its pooled confidence low (the referee is asked), rather
    than a play read a card short. Its runner-up may be the other joker, or nothing."""
    view = view_with("*")
    for runner_up in ("SJ", ""):
        weak = Detection("BJ", BOX, 0.52, runner_up=runner_up, runner_up_confidence=0.2)
        tracks = IndexTracks(PX_PER_CM)
        for _ in range(2):
            assert tracks.pool(view, [], weak=[weak])[0] == []
        (pooled,), _ = tracks.pool(view, [], weak=[weak])
        assert (pooled.identity, pooled.confidence) == ("BJ", pytest.approx(0.52))


def test_a_joker_read_weakly_from_weak_reads_alone_is_a_card_only_where_cards_are_played() -> None:
    """A player's hand of cards face down at its edge of the table, a back read weakly as SJ
    read after read, is no exposed joker; a look-alike read weakly there still is a card."""
    view = view_with("*")
    back = Detection("SJ", BOX, 0.55, runner_up="BJ", runner_up_confidence=0.2)
    look_alike = Detection("10C", BOX, 0.55, runner_up="QC", runner_up_confidence=0.3)
    for weak, card in ((back, []), (look_alike, ["10C"])):
        tracks = IndexTracks(PX_PER_CM)
        for _ in range(3):
            found, _ = tracks.pool(view, [], weak=[weak], in_play=lambda _box: False)
        assert [d.identity for d in found] == card


def test_a_joker_read_weakly_beside_the_same_joker_read_surely_is_its_other_corner() -> None:
    view = view_with("*")
    other_corner = (70.0, 70.0, 82.0, 88.0)
    tracks = IndexTracks(PX_PER_CM)
    for _ in range(4):
        found, _ = tracks.pool(
            view, [Detection("BJ", other_corner, 0.95)], weak=[Detection("BJ", BOX, 0.5)]
        )
    assert [d.identity for d in found] == ["BJ"]


def test_weak_reads_alone_never_make_a_look_alike_of_a_card_read_surely() -> None:
    """A card's other corner read weakly as a look-alike (5D's as 3D, runner-up 5D) is that
    card, not another."""
    view = view_with("5")
    other_corner = (70.0, 70.0, 82.0, 88.0)
    for weak in (
        Detection("3D", BOX, 0.44, runner_up="5D", runner_up_confidence=0.38),
        Detection("5D", BOX, 0.44, runner_up="3D", runner_up_confidence=0.38),
    ):
        tracks = IndexTracks(PX_PER_CM)
        for _ in range(4):
            found, _ = tracks.pool(view, [Detection("5D", other_corner, 0.9)], weak=[weak])
        assert [d.identity for d in found] == ["5D"]


def test_a_track_of_weak_reads_alone_is_unsettled_until_it_has_enough_reads() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("10")
    assert not tracks.unsettled
    for _ in range(2):
        tracks.pool(view, [], weak=[weak_ten()])
        assert tracks.unsettled
    tracks.pool(view, [], weak=[weak_ten()])
    assert not tracks.unsettled
    sure = IndexTracks(PX_PER_CM)
    sure.pool(view, [Detection("10C", BOX, 0.9)])
    assert not sure.unsettled  # a sure read judges its track at once


def test_an_index_read_as_nothing_keeps_a_track_of_weak_reads_alive_as_a_read_of_nothing() -> None:
    """A big joker's mark read BJ at 0.5 and ``none`` in turn: one track, its mean over every
    read; a read of nothing starts no track of its own, and a sure track is not kept by one."""
    view = view_with("*")
    mark = Detection("BJ", BOX, 0.5)
    tracks = IndexTracks(PX_PER_CM)
    tracks.pool(view, [], weak=[mark])
    tracks.pool(view, [], unread=[BOX])
    (joker,), _ = tracks.pool(view, [], weak=[mark])
    assert (joker.identity, joker.confidence) == ("BJ", pytest.approx(1.0 / 3))
    (joker,), _ = tracks.pool(view, [], unread=[BOX])
    assert joker.confidence == pytest.approx(0.25)

    nothing = IndexTracks(PX_PER_CM)
    for _ in range(4):
        assert nothing.pool(view, [], unread=[BOX])[0] == []
    sure = IndexTracks(PX_PER_CM)
    sure.pool(view, [Detection("BJ", BOX, 0.95)])
    assert sure.pool(view, [], unread=[BOX])[0] == []
    assert sure.pool(view, [], weak=[mark])[0] == []  # the track ended at the read of nothing


def test_a_boxs_reading_is_its_tracks_however_few_weak_reads_voted() -> None:
    tracks, view = IndexTracks(PX_PER_CM), view_with("3")
    weak_three = Detection("3S", BOX, 0.4, runner_up="3D", runner_up_confidence=0.3)
    assert tracks.pool(view, [], weak=[weak_three])[0] == []  # too few weak reads to be a card
    reading = tracks.reading(BOX)
    assert reading is not None
    assert (reading.identity, reading.confidence, reading.runner_up) == ("3S", 0.4, "3D")
    assert tracks.reading((0.0, 0.0, 9.0, 9.0)) is None  # no track there
