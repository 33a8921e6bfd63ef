"""Index tracks: one corner index read again and again at one place is read as its reads agree."""

from __future__ import annotations

import cv2
import numpy as np

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
