"""Tracking detections into plays: the motion gate, temporal consensus, the event log and the
game feed, on synthetic sequences (tiny arrays for the motion gate, no images)."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Mapping, Sequence
from pathlib import Path

import numpy as np
import pytest

from engine.cards import full_deck
from vision.events import (
    DeclarationEvent,
    Event,
    EventLog,
    ExposedCardEvent,
    KittyEvent,
    KittyMoveEvent,
    PlayEvent,
    RecognitionConflictEvent,
    TakebackEvent,
    TrickClearedEvent,
    event_from_json,
    load_events,
    read_events,
)
from vision.game_feed import SAME_MOMENT_S, GameFeed
from vision.motion import STILL, MotionGate, MotionState
from vision.tracking import TAKEBACK_S, ExposedCardWatcher, PlayTracker, multiset

FPS = 10
DT = 1 / FPS
MOVING = MotionState(moving=True, fraction=0.3)
OCCLUDED = MotionState(moving=True, fraction=0.6, occluded=True)

Zones = Mapping[str, Sequence[str]]


class Table:
    """Drives a tracker frame by frame at 10 fps, collecting its events."""

    def __init__(self, tracker: PlayTracker | None = None) -> None:
        self.tracker = tracker or PlayTracker()
        self.t = 0.0
        self.frame = 0
        self.events: list[Event] = []

    def run(
        self, zones: Zones, frames: int, motion: MotionState = STILL, glimpsed: Sequence[str] = ()
    ) -> None:
        for _ in range(frames):
            ref = f"f{self.frame:05d}"
            self.events += self.tracker.observe(self.t, zones, motion, ref, glimpsed)
            self.t = round(self.t + DT, 6)
            self.frame += 1

    def plays(self) -> list[PlayEvent]:
        return [e for e in self.events if isinstance(e, PlayEvent)]


TRICK = [("S", ["AS"]), ("W", ["3S"]), ("N", ["4S"]), ("E", ["5S"])]


def play_trick(table: Table, trick: list[tuple[str, list[str]]]) -> list[float]:
    """Each seat lands its cards (one moving frame with the cards visible) then ~10 still
    frames; returns the landing times."""
    zones: dict[str, list[str]] = {}
    landed = []
    for seat, cards in trick:
        zones = {**zones, seat: cards}
        landed.append(table.t)
        table.run(zones, 1, MOVING)
        table.run(zones, 10)
    return landed


# ----- tracker ---------------------------------------------------------------------------


def test_clean_sequence_gives_four_plays() -> None:
    table = Table()
    table.run({}, 5)
    landed = play_trick(table, TRICK)
    plays = table.plays()
    assert [(p.seat, p.cards) for p in plays] == [(s, tuple(c)) for s, c in TRICK]
    for p, t in zip(plays, landed, strict=True):
        assert abs(p.t_landed - t) <= DT + 1e-9
        assert p.t_stable >= p.t_landed + 0.6 - 1e-9
        assert p.frame_landed and p.frame_stable
    assert len(table.events) == 4


def test_t_landed_comes_from_the_first_frame_even_while_moving() -> None:
    table = Table()
    table.run({}, 3)
    t0 = table.t
    table.run({"S": ["KH"]}, 3, MOVING)  # seen while the hand is still moving away
    table.run({"S": ["KH"]}, 10)
    (play,) = table.plays()
    assert play.t_landed == pytest.approx(t0)
    assert play.frame_landed == "f00003"


def test_hand_reaching_in_creates_and_drops_nothing() -> None:
    table = Table()
    play_trick(table, TRICK[:2])
    before = list(table.events)
    # A hand reaches over the table for a second: readings are garbage, flagged occluded.
    table.run({"W": [], "S": ["QD", "QD"], "N": ["7C"]}, FPS, OCCLUDED)
    table.run({"S": ["AS"], "W": ["3S"]}, 15)
    assert table.events == before
    assert table.tracker.stable["S"] == ("AS",)


def test_occluded_zone_alone_is_skipped() -> None:
    table = Table()
    play_trick(table, TRICK[:1])
    covered = MotionState(moving=False, fraction=0.005, occluded_zones=frozenset({"W"}))
    table.run({"S": ["AS"], "W": ["9D"]}, 15, covered)
    assert len(table.plays()) == 1


def test_one_frame_dropout_creates_nothing() -> None:
    table = Table()
    play_trick(table, TRICK[:2])
    n = len(table.events)
    table.run({"S": ["AS"]}, 1)  # W's card missed for one frame
    table.run({"S": ["AS"], "W": ["3S"]}, 10)
    table.run({"S": ["AS"], "W": ["3S"], "N": ["JC"]}, 1)  # a one-frame false card
    table.run({"S": ["AS"], "W": ["3S"]}, 10)
    assert len(table.events) == n


def test_hand_resting_over_a_play_then_lifting_is_no_new_play() -> None:
    table = Table()
    play_trick(table, TRICK[:2])
    table.run({"S": ["AS"]}, 12)  # W's card covered long enough to be accepted as gone
    table.run({"S": ["AS"], "W": ["3S"]}, 12)
    assert len(table.plays()) == 2 and not table.events[2:]


def test_pair_is_one_play_of_two_cards() -> None:
    table = Table()
    play_trick(table, [("S", ["8H", "8H"])])
    (play,) = table.plays()
    assert play.cards == ("8H", "8H")


def test_trick_collected_gives_trick_cleared_and_next_trick_plays() -> None:
    table = Table()
    play_trick(table, TRICK)
    t_clear = table.t
    table.run({}, 1, MOVING)
    table.run({}, 10)
    cleared = [e for e in table.events if isinstance(e, TrickClearedEvent)]
    assert len(cleared) == 1 and cleared[0].t >= t_clear + 0.6 - 1e-9
    play_trick(table, [("S", ["2H"])])  # S leads again: a new play, not a repeat
    assert [p.cards for p in table.plays()][-1] == ("2H",)
    assert len(table.plays()) == 5


def test_a_seat_whose_cards_never_read_steadily_is_named_unread_when_the_trick_is_cleared() -> None:
    table = Table()
    play_trick(table, TRICK[:3])  # S, W, N play; E's pair reads differently frame after frame
    flicker = [["10D", "2D"], ["QD", "2D"], ["2D"]]
    zones = {seat: cards for seat, cards in TRICK[:3]}
    for k in range(12):
        table.run({**zones, "E": flicker[k % 3]}, 1)
    assert [p.seat for p in table.plays()] == ["S", "W", "N"]
    table.run({}, 1, MOVING)
    table.run({}, 10)
    cleared = [e for e in table.events if isinstance(e, TrickClearedEvent)]
    assert [c.unread for c in cleared] == [("E",)]
    assert cleared[0].to_json()["unread"] == ["E"]
    assert event_from_json(cleared[0].to_json()) == cleared[0]
    # a trick whose four plays were all read names none, and its JSON has no "unread"
    play_trick(table, TRICK)
    table.run({}, 11)
    last = [e for e in table.events if isinstance(e, TrickClearedEvent)][-1]
    assert last.unread == () and "unread" not in last.to_json()


def test_a_card_its_zone_reads_as_another_while_it_lies_there_is_named_when_cleared() -> None:
    # S's lone 4D is accepted as KD; the frames after read it 4D as often as KD, never long
    # enough in a row to change the play: the sweep names it, with the other read
    table = Table()
    play_trick(table, [("S", ["KD"])])
    followers = {"W": ["3D"], "N": ["5D"], "E": ["6D"]}
    for k in range(16):
        table.run({"S": ["KD"] if k % 2 else ["4D"], **followers}, 1)
    table.run({}, 11)
    assert {p.seat: p.cards for p in table.plays()} == {
        "S": ("KD",), "W": ("3D",), "N": ("5D",), "E": ("6D",)
    }  # fmt: skip
    (cleared,) = [e for e in table.events if isinstance(e, TrickClearedEvent)]
    assert cleared.read_otherwise == (("S", "KD", "4D"),)
    assert cleared.to_json()["read_otherwise"] == {"S": {"KD": "4D"}}
    assert event_from_json(cleared.to_json()) == cleared


def test_a_read_that_flickers_a_frame_or_two_while_a_play_lies_there_is_no_doubt() -> None:
    table = Table()
    play_trick(table, [("S", ["KD"])])
    followers = {"W": ["3D"], "N": ["5D"], "E": ["6D"]}
    for cards, frames in ((["4D"], 1), (["KD"], 5), (["4D"], 1), (["KD"], 10)):
        table.run({"S": cards, **followers}, frames)
    table.run({}, 11)
    (cleared,) = [e for e in table.events if isinstance(e, TrickClearedEvent)]
    assert cleared.read_otherwise == () and "read_otherwise" not in cleared.to_json()


def test_a_seat_whose_zone_held_a_card_no_read_named_is_named_unread_when_cleared() -> None:
    # E's lone picture joker read whole below the joker bar: its zone showed card paper that
    # no read named (the zone reader's "glimpsed"), so E's play was there, unread.
    table = Table()
    play_trick(table, TRICK[:3])
    zones = {seat: cards for seat, cards in TRICK[:3]}
    table.run(zones, 12, glimpsed=["E"])
    table.run({}, 1, MOVING)
    table.run({}, 10)
    cleared = [e for e in table.events if isinstance(e, TrickClearedEvent)]
    assert [c.unread for c in cleared] == [("E",)]
    # a glimpse too brief to be a play (a hand's edge, one frame) names no one
    play_trick(table, TRICK[:3])
    table.run(zones, 12, glimpsed=[])
    table.run(zones, 1, glimpsed=["E"])
    table.run({}, 1, MOVING)
    table.run({}, 10)
    assert [e for e in table.events if isinstance(e, TrickClearedEvent)][-1].unread == ()


def test_a_play_lying_unread_before_it_is_read_is_dated_from_its_first_glimpse() -> None:
    """Validation hand 9101 (a deck's own pair): N's small joker lay in its zone 6 s unread —
    card paper there that no read named — and was read only after E, S and W had played; dated
    from its read, N's lead came last and E's was called out of turn. Paper glimpsed through the
    sweep, before the zone was once seen bare, dates nothing: it is the trick's cards or the pile
    left beside the zone (the rendering deck's end-to-end clip)."""
    table = Table()
    table.run({}, 5)
    t_glimpsed = table.t
    table.run({}, 20, glimpsed=["N"])
    table.run({"N": ["SJ"]}, 10)
    (lead,) = table.plays()
    assert lead.t_landed == pytest.approx(t_glimpsed)
    swept = Table()
    swept.run({}, 5, glimpsed=["N"])  # from the first frame on: never seen bare
    t_read = swept.t
    swept.run({"N": ["SJ"]}, 10)
    assert swept.plays()[0].t_landed == pytest.approx(t_read)


def test_a_lead_landing_before_its_zone_was_seen_empty_after_the_sweep_starts_the_next_trick() -> (
    None
):
    """The winner sweeps the trick (its hand covers its own zone all the while) and leads at
    once: its zone goes from its old play to its new lead without a still empty frame."""
    table = Table()
    play_trick(table, TRICK)
    covered = MotionState(moving=False, fraction=0.01, occluded_zones=frozenset({"S"}))
    table.run({"S": ["AS"]}, 10, covered)  # the other three zones swept, S's still covered
    table.run({}, 1)  # S's zone seen empty once: too short to count as the sweep
    t_lead = table.t
    table.run({"S": ["2H"]}, 10)  # S's old play gone, its new lead there
    assert [type(e).__name__ for e in table.events[-2:]] == ["TrickClearedEvent", "PlayEvent"]
    lead = table.plays()[-1]
    assert (lead.seat, lead.cards, lead.t_landed) == ("S", ("2H",), t_lead)
    play_trick(table, [("W", ["3H"])])
    assert table.plays()[-1].cards == ("3H",)
    assert not any(isinstance(e, RecognitionConflictEvent) for e in table.events)


def test_added_and_changed_cards() -> None:
    table = Table()
    play_trick(table, [("S", ["AS"])])
    table.run({"S": ["AS", "KS"]}, 10)
    table.run({"S": ["QS", "KS"]}, 10)
    assert [type(e).__name__ for e in table.events] == [
        "PlayEvent",
        "PlayEvent",
        "RecognitionConflictEvent",
    ]
    assert table.plays()[1].cards == ("KS",)
    conflict = table.events[2]
    assert isinstance(conflict, RecognitionConflictEvent) and conflict.kind == "cards_changed"


def test_kitty_shown_in_the_centre() -> None:
    table = Table()
    kitty = ["3C", "4C", "5D", "6D", "7S", "8S", "9H", "10H"]
    table.run({"centre": kitty[:5]}, 10)
    table.run({"centre": kitty}, 10)
    kitties = [e for e in table.events if isinstance(e, KittyEvent)]
    assert len(kitties) == 1 and kitties[0].cards == multiset(kitty)
    assert not table.plays()
    table.run({}, 10)  # taken away: laid out card by card, then read whole — nothing to report
    assert [type(e).__name__ for e in table.events] == ["KittyEvent"]


def test_a_kitty_shown_and_taken_away_never_read_whole_is_the_referees_to_enter() -> None:
    table = Table()
    kitty = ["3C", "4C", "5D", "6D", "7S", "8S", "9H", "10H"]
    table.run({"centre": kitty[:6]}, 10)
    table.run({"centre": kitty[1:]}, 10)  # seven read: a card of the tight fan never is
    table.run({"centre": kitty[2:]}, 10)  # a hand takes it away, card by card
    assert table.events == []
    table.run({}, 10)
    (conflict,) = table.events
    assert isinstance(conflict, RecognitionConflictEvent) and conflict.kind == "kitty_incomplete"
    assert conflict.cards == multiset(kitty[1:])  # the most of it read
    assert conflict.detail.startswith("底牌只认出 7/8 张")
    table.run({"centre": kitty[:2]}, 10)  # two cards lying there are no kitty
    table.run({}, 10)
    assert len(table.events) == 1


# ----- event log -------------------------------------------------------------------------


def test_event_log_round_trip_with_a_torn_last_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = tmp_path / "events.jsonl"
    events: list[Event] = [
        PlayEvent("S", ("8H", "8H"), 1.0, 1.7, "f1", "f8"),
        TrickClearedEvent(9.0, "f90"),
        KittyEvent(("3C",) * 8, 99.0),
        RecognitionConflictEvent("third_copy", "W", ("AS",), "a third AS", 5.0),
    ]
    with EventLog(path) as log:
        log.extend(events[:2])
    with path.open("a", encoding="utf-8") as fh:
        fh.write('{"seq": 3, "type": "play", "se')  # a crash mid-write
    with caplog.at_level(logging.WARNING):
        assert [e["seq"] for e in read_events(path)] == [1, 2]
    assert "torn" in caplog.text
    with EventLog(path) as log:  # reopened: continues after the torn fragment
        assert log.seq == 2
        log.extend(events[2:])
    rows = read_events(path)
    assert [r["seq"] for r in rows] == [1, 2, 3, 4]
    assert [event_from_json(r) for r in rows] == events
    assert load_events(path) == events
    assert json.loads(path.read_text().splitlines()[0])["type"] == "play"


def test_a_play_names_its_unsure_reads_in_json_only_when_it_has_some() -> None:
    play = PlayEvent("W", ("QC", "KC"), 1.0, 1.5, unsure=(("QC", 0.55),))
    assert play.to_json()["unsure"] == {"QC": 0.55}
    assert event_from_json(play.to_json()) == play
    assert "unsure" not in PlayEvent("W", ("KC",), 1.0, 1.5).to_json()


# ----- game feed -------------------------------------------------------------------------


def feed_plays(feed: GameFeed, text: str, t0: float = 0.0) -> list[RecognitionConflictEvent]:
    """``"S:AS W:3S,3S …"`` as play events, then the trick cleared."""
    out = []
    t = t0
    for part in text.split():
        seat, cards = part.split(":")
        out += feed.apply(PlayEvent(seat, tuple(cards.split(",")), t, t + 0.7))
        t += 2.0
    out += feed.apply(TrickClearedEvent(t))
    return out


def test_game_feed_builds_the_record_and_audits_live() -> None:
    log: list[RecognitionConflictEvent] = []
    feed = GameFeed("XX", {"NS": "2", "EW": "2"}, "S", "H", emit=log.append)
    assert feed_plays(feed, "S:AS W:3S N:4S E:5S") == []
    report = feed.audit()
    assert [t.winner for t in report.tricks] == ["S"]
    feed_plays(feed, "S:KS W:2H N:6S E:7S", t0=10.0)  # W trumps with the level card
    report = feed.audit()
    assert [t.winner for t in report.tricks] == ["S", "W"]
    assert report.defender_points == 10  # the K of trick 2 (the 5 of trick 1 went to S)
    record = feed.record
    assert record["tricks"][1]["plays"][1] == {"seat": "W", "cards": ["2H"], "t": 12.0}
    assert log == [] and not report.infractions


def test_game_feed_third_copy_is_a_conflict_recorded_and_put_as_a_question() -> None:
    emitted: list[dict[str, object]] = []
    feed = GameFeed(declarer="S", trump="H", emit=lambda e: emitted.append(e.to_json()))
    feed_plays(feed, "S:AS,AS W:3S,3S N:4S,4S E:5S,5S")
    conflicts = feed.apply(PlayEvent("W", ("AS",), 30.0, 30.7))
    assert [c.kind for c in conflicts] == ["third_copy"]
    assert emitted[-1]["type"] == "recognition_conflict" and emitted[-1]["cards"] == ["AS"]
    assert feed.record["tricks"][1]["plays"] == [
        {"seat": "W", "cards": ["AS"], "t": 30.0, "unsure": ["AS"]}
    ]
    # two decks hold two: a third copy is likelier misread than played, so the referee is asked
    (duplicate,) = [i for i in feed.audit().infractions if i.kind == "duplicate_card"]
    assert duplicate.to_check


def test_game_feed_a_third_copy_takes_the_runner_up_of_the_one_copy_read_in_doubt() -> None:
    # N's 2S 2D read 2D 2D, one of them in doubt (maybe 2S); a third 2D shows later: the deck
    # allows the runner-up, so N's play is recorded 2S 2D, still in doubt (maybe 2D), and no
    # duplicate is claimed — the trick's winner and every lead after it follow the right cards
    feed = GameFeed(declarer="S", trump="H")
    feed_plays(feed, "S:3C,3C W:4C,4C N:5C,5C E:6C,6C")
    feed.apply(PlayEvent("S", ("AS", "AS"), 10.0, 10.7))
    feed.apply(PlayEvent("W", ("3S", "4S"), 12.0, 12.7))
    feed.apply(
        PlayEvent("N", ("2D", "2D"), 14.0, 14.7, unsure=(("2D", 0.54),), maybe=(("2D", "2S"),))
    )
    feed_plays(feed, "E:5S,6S", t0=16.0)
    conflicts = feed.apply(PlayEvent("S", ("2D",), 30.0, 30.7))
    assert [c.kind for c in conflicts] == ["third_copy"]
    assert conflicts[0].seat == "N" and "runner-up 2S" in conflicts[0].detail
    n_play = feed.record["tricks"][1]["plays"][2]
    assert n_play["cards"] == ["2S", "2D"]
    assert n_play["unsure"] == ["2S"] and n_play["maybe"] == {"2S": "2D"}
    assert feed.record["tricks"][2]["plays"] == [{"seat": "S", "cards": ["2D"], "t": 30.0}]
    assert not [i for i in feed.audit().infractions if i.kind == "duplicate_card"]


def test_game_feed_a_third_copy_read_in_doubt_itself_takes_its_runner_up() -> None:
    feed = GameFeed(declarer="S", trump="H")
    feed_plays(feed, "S:AS,AS W:3S,3S N:4S,4S E:5S,5S")
    conflicts = feed.apply(
        PlayEvent("W", ("AS",), 30.0, 30.7, unsure=(("AS", 0.6),), maybe=(("AS", "AC"),))
    )
    assert [c.kind for c in conflicts] == ["third_copy"] and conflicts[0].cards == ("AC",)
    assert feed.record["tricks"][1]["plays"] == [
        {"seat": "W", "cards": ["AC"], "t": 30.0, "unsure": ["AC"], "maybe": {"AC": "AS"}}
    ]
    assert not [i for i in feed.audit().infractions if i.kind == "duplicate_card"]


def test_game_feed_a_third_copy_takes_the_one_runner_up_the_deck_allows_among_copies_in_doubt() -> (
    None
):
    # validation hand 9027: S's BJ SJ read BJ BJ, the second in doubt (maybe SJ); N's BJ,
    # read later, is in doubt with no runner-up: only S's copy can be the other card
    feed = GameFeed(declarer="S", trump="H")
    feed_plays(feed, "S:3C,3C W:4C,4C N:5C,5C E:6C,6C")
    feed.apply(
        PlayEvent("S", ("BJ", "BJ"), 10.0, 10.7, unsure=(("BJ", 0.6),), maybe=(("BJ", "SJ"),))
    )
    feed_plays(feed, "W:3S,4S N:5S,6S E:7S,8S", t0=12.0)
    conflicts = feed.apply(PlayEvent("S", ("BJ",), 30.0, 30.7, unsure=(("BJ", 0.53),)))
    assert [(c.kind, c.seat) for c in conflicts] == [("third_copy", "S")]
    assert "runner-up SJ" in conflicts[0].detail
    s_play = feed.record["tricks"][1]["plays"][0]
    assert s_play["cards"] == ["SJ", "BJ"] and s_play["maybe"] == {"SJ": "BJ"}
    assert feed.record["tricks"][2]["plays"][0]["cards"] == ["BJ"]
    assert not [i for i in feed.audit().infractions if i.kind == "duplicate_card"]


def n_reads_kd_kd_3d_after_s_played_kd_twice(
    feed: GameFeed, e_second: str
) -> list[RecognitionConflictEvent]:
    """Two tricks led with KD by S (E's card of the second: ``e_second``), then N's 4D 4D 3D
    read KD KD 3D, KD in doubt (maybe 4D); returns the conflicts N's play raised."""
    feed_plays(feed, "S:KD W:3S N:4S E:5S")
    feed_plays(feed, f"S:KD W:6S N:7S E:{e_second}", t0=10.0)
    return feed.apply(
        PlayEvent(
            "N", ("KD", "KD", "3D"), 20.0, 20.7, unsure=(("KD", 0.27),), maybe=(("KD", "4D"),)
        )
    )


def test_game_feed_a_play_holding_both_copies_too_many_in_doubt_takes_its_runner_up_for_each() -> (
    None
):
    # validation hands 9045 and 9052 (the 4-colour deck's open-top 4 read K): S played KD
    # twice; N's 4D 4D 3D read KD KD 3D, KD in doubt (maybe 4D). Doubt is read per identity,
    # so both copies too many are N's: both are taken as 4D, still in doubt
    feed = GameFeed(declarer="S", trump="H")
    conflicts = n_reads_kd_kd_3d_after_s_played_kd_twice(feed, e_second="8S")
    assert [c.kind for c in conflicts] == ["third_copy"]
    assert "runner-up 4D" in conflicts[0].detail
    n_play = feed.record["tricks"][2]["plays"][0]
    assert n_play["cards"] == ["4D", "4D", "3D"]
    assert n_play["unsure"] == ["4D"] and n_play["maybe"] == {"4D": "KD"}
    assert not [i for i in feed.audit().infractions if i.kind == "duplicate_card"]


def test_game_feed_a_card_still_a_third_copy_after_its_runner_up_is_taken_stays_in_doubt() -> None:
    # as above with one 4D already played: the deck has room for one runner-up, so one KD is
    # taken as 4D and the other, still a third copy, is as likely misread: it is marked
    # unsure, so neither a duplicate nor what rests on it is asserted
    feed = GameFeed(declarer="S", trump="H")
    conflicts = n_reads_kd_kd_3d_after_s_played_kd_twice(feed, e_second="4D")
    assert sorted(c.kind for c in conflicts) == ["third_copy", "third_copy"]
    n_play = feed.record["tricks"][2]["plays"][0]
    assert n_play["cards"] == ["4D", "KD", "3D"]
    assert set(n_play["unsure"]) == {"4D", "KD"}
    (duplicate,) = [i for i in feed.audit().infractions if i.kind == "duplicate_card"]
    assert duplicate.to_check


def test_game_feed_a_lead_one_card_short_of_all_three_followers_takes_its_runner_up_too() -> None:
    # validation hand 9046: W led 10C + QC, the QC lying 0.9 cm over the 10C; the two indices
    # were joined as one card's corners, read 10C in doubt (maybe QC), and all three followers
    # played two cards: the lead is recorded 10C QC, both in doubt, and nothing is asserted
    feed = GameFeed(declarer="W", trump="H")
    feed.apply(PlayEvent("W", ("10C",), 0.0, 0.7, unsure=(("10C", 0.94),), maybe=(("10C", "QC"),)))
    conflicts = feed_plays(feed, "N:8H,9C E:4S,6H S:2D,4D", t0=2.0)
    assert [c.kind for c in conflicts] == ["count_mismatch"] * 4
    assert conflicts[-1].seat == "W" and conflicts[-1].cards == ("QC",)
    lead = feed.record["tricks"][0]["plays"][0]
    assert lead["cards"] == ["10C", "QC"] and set(lead["unsure"]) == {"10C", "QC"}
    assert "maybe" not in lead
    assert not [i for i in feed.audit().infractions if not i.to_check]


def test_game_feed_a_short_lead_or_follower_is_completed_only_as_the_deck_and_trick_allow() -> None:
    def lead_10c(feed: GameFeed, t: float) -> None:
        feed.apply(
            PlayEvent("W", ("10C",), t, t + 0.7, unsure=(("10C", 0.94),), maybe=(("10C", "QC"),))
        )

    # the runner-up is already two copies: the lead stays one card, in doubt
    feed = GameFeed(declarer="W", trump="H")
    feed_plays(feed, "W:QC,QC N:3C,3C E:4C,4C S:5C,5C")
    lead_10c(feed, 10.0)
    feed_plays(feed, "N:8H,9C E:4S,6H S:2D,4D", t0=12.0)
    assert feed.record["tricks"][1]["plays"][0]["cards"] == ["10C"]
    # a follower one card short is a short follow to find, not a reading to complete
    feed = GameFeed(declarer="W", trump="H")
    feed.apply(PlayEvent("W", ("8H", "9H"), 0.0, 0.7))
    feed.apply(PlayEvent("N", ("2S", "3S"), 2.0, 2.7))
    feed.apply(PlayEvent("E", ("10C",), 4.0, 4.7, unsure=(("10C", 0.94),), maybe=(("10C", "QC"),)))
    feed_plays(feed, "S:4S,5S", t0=6.0)
    assert feed.record["tricks"][0]["plays"][2]["cards"] == ["10C"]
    assert [i for i in feed.audit().infractions if i.kind == "card_count"]


def test_game_feed_a_third_copy_keeps_its_reads_when_the_deck_does_not_single_one_out() -> None:
    # two copies in doubt, each with a runner-up: either may be the misread one
    def as_in_doubt(t: float) -> PlayEvent:
        return PlayEvent("S", ("AS",), t, t + 0.7, unsure=(("AS", 0.6),), maybe=(("AS", "AC"),))

    feed = GameFeed(declarer="S", trump="H")
    feed.apply(as_in_doubt(0.0))
    feed_plays(feed, "W:3S N:4S E:5S", t0=2.0)
    feed.apply(as_in_doubt(10.0))
    feed_plays(feed, "W:6S N:7S E:8S", t0=12.0)
    conflicts = feed.apply(PlayEvent("S", ("AS",), 20.0, 20.7))
    assert [c.detail for c in conflicts] == [
        "trick 3: S showed AS, a third copy of AS (two decks hold two)"
    ]
    # the runner-up is already two copies: the deck does not allow it either
    feed = GameFeed(declarer="S", trump="H")
    feed_plays(feed, "S:AC,AC W:3C,3C N:4C,4C E:5C,5C")
    feed_plays(feed, "S:AS,AS W:3S,3S N:4S,4S E:5S,5S", t0=10.0)
    feed.apply(as_in_doubt(20.0))
    assert feed.record["tricks"][2]["plays"][0]["cards"] == ["AS"]
    (duplicate,) = [i for i in feed.audit().infractions if i.kind == "duplicate_card"]
    assert duplicate.to_check


def test_game_feed_a_kitty_card_read_in_doubt_that_would_be_a_third_copy_takes_its_runner_up() -> (
    None
):
    feed = GameFeed(declarer="S", trump="H")
    feed_plays(feed, "S:3H W:4S N:5S E:6S")
    feed_plays(feed, "S:3H W:4D N:5D E:6D")
    kitty = ("3H", "2C", "2C", "4C", "5C", "6C", "7C", "8C")
    conflicts = feed.apply(KittyEvent(kitty, 99.0, unsure=(("3H", 0.6),), maybe=(("3H", "3D"),)))
    assert [(c.kind, c.cards) for c in conflicts] == [("third_copy", ("3D",))]
    assert "the kitty's 3H, read in doubt, is taken as its runner-up 3D" in conflicts[0].detail
    record = feed.record
    assert record["kitty"][0] == "3D"
    assert record["kitty_unsure"] == ["3D"] and record["kitty_maybe"] == {"3D": "3H"}
    assert not [i for i in feed.audit().infractions if i.kind == "duplicate_card"]


def test_game_feed_a_kitty_read_last_that_makes_a_third_copy_puts_the_duplicate_as_a_question() -> (
    None
):
    # the kitty shows 3H after two 3H were played: one of the three is misread, none proven
    feed = GameFeed(declarer="S", trump="H")
    feed_plays(feed, "S:3H W:4S N:5S E:6S")
    feed_plays(feed, "S:3H W:4D N:5D E:6D")
    conflicts = feed.apply(KittyEvent(("3H", "2C", "2C", "4C", "5C", "6C", "7C", "8C"), 99.0))
    assert [c.kind for c in conflicts] == ["third_copy"]
    assert feed.record["kitty_unsure"] == ["3H"]
    (duplicate,) = [i for i in feed.audit().infractions if i.kind == "duplicate_card"]
    assert duplicate.to_check


def feed_a_whole_hand_with_an_unread_play(feed: GameFeed, misread: bool = False) -> None:
    """Two decks in 25 tricks of one card a seat and a kitty of eight, W's card of trick 1
    (the JOKER, small) on the table but never read; ``misread`` reads N's 3S of trick 2 as 4S."""
    cards = full_deck()
    cards.remove("SJ")
    cards.insert(1, "SJ")
    for number in range(25):
        t = 10.0 * number
        for i, seat in enumerate(("S", "W", "N", "E")):
            card = cards[4 * number + i]
            if (number, seat) == (0, "W"):
                continue
            if misread and card == "3S":
                card, misread = "4S", False
            feed.apply(PlayEvent(seat, (card,), t + i, t + i + 0.5))
        feed.apply(TrickClearedEvent(t + 8.0, unread=("W",) if number == 0 else ()))
    feed.apply(KittyEvent(tuple(cards[100:]), 260.0))


def test_game_feed_the_one_unread_play_is_the_card_the_whole_deck_is_short_of() -> None:
    # validation hand 9054: E's small joker, of a deck never trained on, was never read;
    # once the kitty shows, every other card of the two decks is accounted for
    feed = GameFeed(declarer="S", trump="H")
    feed_a_whole_hand_with_an_unread_play(feed)
    first = feed.record["tricks"][0]
    assert "unread" not in first
    assert [p["seat"] for p in first["plays"]] == ["S", "W", "N", "E"]
    assert first["plays"][1] == {"seat": "W", "cards": ["SJ"], "unsure": ["SJ"]}
    (census,) = [c for c in feed.conflicts if c.kind == "deck_census"]
    assert (census.seat, census.cards) == ("W", ("SJ",))
    # a card read as another too: the deck is short of two cards for one unread, no answer
    feed = GameFeed(declarer="S", trump="H")
    feed_a_whole_hand_with_an_unread_play(feed, misread=True)
    assert feed.record["tricks"][0]["unread"] == ["W"]
    assert not [c for c in feed.conflicts if c.kind == "deck_census"]


def test_game_feed_seat_twice_and_count_mismatch() -> None:
    feed = GameFeed(declarer="S", trump="H")
    feed.apply(PlayEvent("S", ("AS", "AS"), 0.0, 0.7))
    assert [c.kind for c in feed.apply(PlayEvent("W", ("3S",), 2.0, 2.7))] == ["count_mismatch"]
    assert [c.kind for c in feed.apply(PlayEvent("W", ("4S",), 3.0, 3.7))] == ["seat_played_twice"]
    assert feed.record["tricks"][0]["plays"][1]["cards"] == ["3S", "4S"]
    feed.audit()  # still a valid record
    assert [c.kind for c in feed.apply(TrickClearedEvent(5.0))] == ["incomplete_trick"]


def test_game_feed_a_seat_seen_but_unread_is_a_question_not_a_seat_that_played_nothing() -> None:
    feed = GameFeed(declarer="S", trump="H")
    for seat, card, t in (("S", "AS", 0.0), ("W", "3S", 2.0), ("N", "4S", 4.0)):
        feed.apply(PlayEvent(seat, (card,), t, t + 0.5))
    (conflict,) = feed.apply(TrickClearedEvent(7.0, unread=("E",)))
    assert conflict.kind == "incomplete_trick" and "never read steadily" in conflict.detail
    assert feed.record["tricks"][0]["unread"] == ["E"]
    feed.apply(PlayEvent("S", ("KS",), 8.0, 8.5))
    (inf,) = feed.audit().infractions
    assert (inf.kind, inf.seat, inf.trick, inf.to_check) == ("card_count", "E", 1, True)
    assert inf.to_json()["unsure_reads"] == [{"trick": 1, "seat": "E", "card": None, "maybe": None}]
    assert "cards unread (E, trick 1)" in inf.proof


def test_game_feed_keeps_the_cameras_runner_up_read_of_an_unsure_card_in_the_record() -> None:
    feed = GameFeed(declarer="S", trump="H")
    feed.apply(PlayEvent("S", ("AS",), 0.0, 0.5))
    unsure = PlayEvent("W", ("QC",), 2.0, 2.5, unsure=(("QC", 0.63),), maybe=(("QC", "10C"),))
    assert event_from_json(unsure.to_json()) == unsure
    feed.apply(unsure)
    assert feed.record["tricks"][0]["plays"][1] == {
        "seat": "W", "cards": ["QC"], "t": 2.0, "unsure": ["QC"], "maybe": {"QC": "10C"}
    }  # fmt: skip


def test_game_feed_keeps_the_kittys_cards_read_in_doubt_in_the_record() -> None:
    """A kitty card read in doubt is marked in the record (``kitty_unsure``, its runner-up in
    ``kitty_maybe``): a third copy it proves is the referee's question, not an assertion; a
    kitty shown again read surely drops the marks."""
    feed = GameFeed(declarer="S", trump="H")
    cards = ("2D", "4D", "4S", "5D", "9S", "10D", "QD", "KD")
    doubtful = KittyEvent(cards, 150.0, "1500", unsure=(("QD", 0.55),), maybe=(("QD", "10D"),))
    assert event_from_json(doubtful.to_json()) == doubtful
    feed.apply(doubtful)
    assert feed.record["kitty_unsure"] == ["QD"] and feed.record["kitty_maybe"] == {"QD": "10D"}
    feed.audit()  # a valid record
    feed.apply(KittyEvent(cards[::-1], 151.0))
    assert "kitty_unsure" not in feed.record and "kitty_maybe" not in feed.record


def test_game_feed_keeps_only_the_doubt_a_record_can_hold() -> None:
    # an event naming an unsure card the play lacks, or a runner-up that is no other card,
    # must not stop the hand auditing: the feed keeps what the record can hold
    feed = GameFeed(declarer="S", trump="H")
    feed.apply(PlayEvent("S", ("AS",), 0.0, 0.5))
    odd = PlayEvent(
        "W",
        ("QC",),
        2.0,
        2.5,
        unsure=(("QC", 0.63), ("KC", 0.5)),
        maybe=(("QC", "QC"), ("KC", "10C")),
    )
    feed.apply(odd)
    assert feed.record["tricks"][0]["plays"][1]["unsure"] == ["QC"]
    assert "maybe" not in feed.record["tricks"][0]["plays"][1]
    feed.audit()  # a valid record


def test_game_feed_a_late_card_before_the_sweep_joins_its_seats_play_and_reads_json() -> None:
    """Only the sweep ends a trick: a card read late in a seat's fan after all four played (the
    tracker reports it as an added play) is that seat's, flagged, not the next trick's lead."""
    feed = GameFeed(declarer="S", trump="H")
    for seat, cards in TRICK:
        feed.apply(PlayEvent(seat, tuple(cards), 0.0, 0.5).to_json())
    late = feed.apply(PlayEvent("S", ("KD",), 1.0, 1.5).to_json())
    assert [c.kind for c in late] == ["seat_played_twice"]
    feed.apply(TrickClearedEvent(2.0).to_json())
    feed.apply(PlayEvent("N", ("3D",), 3.0, 3.5).to_json())
    feed.apply(KittyEvent(("3C", "4C", "5D", "6D", "7S", "8S", "9H", "10H"), 50.0).to_json())
    record = feed.record
    assert len(record["tricks"]) == 2 and record["kitty"][0] == "3C"
    assert "KD" in next(p for p in record["tricks"][0]["plays"] if p["seat"] == "S")["cards"]
    assert record["tricks"][1]["plays"][0]["cards"] == ["3D"]


def test_game_feed_takes_plays_landing_at_the_same_moment_in_turn_order() -> None:
    """Two landings within SAME_MOMENT_S are in turn order whatever the camera dated first;
    one clearly before its turn is out of turn."""
    feed = GameFeed(declarer="S", trump="H")  # XX: clockwise, S leads W N E
    feed.apply(PlayEvent("W", ("3S",), 10.0, 10.5))
    feed.apply(PlayEvent("S", ("AS",), 10.0 + SAME_MOMENT_S, 10.9))
    feed.apply(PlayEvent("E", ("5S",), 12.0, 12.5))
    feed.apply(PlayEvent("N", ("4S",), 12.3, 12.8))
    assert [p["seat"] for p in feed.record["tricks"][0]["plays"]] == ["S", "W", "N", "E"]
    assert feed.audit().infractions == []

    late = GameFeed(declarer="S", trump="H")
    late.apply(PlayEvent("W", ("3S",), 10.0, 10.5))
    late.apply(PlayEvent("S", ("AS",), 10.0 + SAME_MOMENT_S + 0.1, 11.1))
    assert [(i.kind, i.seat) for i in late.audit().infractions] == [("out_of_turn", "W")]


# ----- motion gate -----------------------------------------------------------------------


def noisy_table(rng: np.random.Generator) -> np.ndarray:
    base = np.full((240, 320), 90, np.uint8)
    base[60:180, 80:240] = 120  # the cloth
    noise = rng.normal(0, 4, base.shape)
    return np.clip(base + noise, 0, 255).astype(np.uint8)


def zones() -> dict[str, np.ndarray]:
    out = {}
    for name, (y, x) in {"N": (0, 110), "S": (160, 110), "W": (80, 0), "E": (80, 220)}.items():
        m = np.zeros((240, 320), bool)
        m[y : y + 80, x : x + 100] = True
        out[name] = m
    return out


def test_static_noisy_sequence_is_settled() -> None:
    rng = np.random.default_rng(1)
    gate = MotionGate(zones=zones(), settle_s=0.5)
    states = [gate.update(noisy_table(rng), i * DT) for i in range(12)]
    assert not any(s.moving or s.occluded_zones for s in states)
    assert states[-1].settled and states[-1].fraction < 0.001


def test_moving_blob_is_moving_and_occludes_its_zone() -> None:
    rng = np.random.default_rng(2)
    gate = MotionGate(zones=zones(), settle_s=0.5)
    for i in range(8):
        gate.update(noisy_table(rng), i * DT)
    frame = noisy_table(rng)
    frame[170:240, 110:200] = 230  # an arm over S's zone
    state = gate.update(frame, 0.8)
    assert state.moving and not state.settled
    assert "S" in state.occluded_zones and "N" not in state.occluded_zones
    assert state.blocks("S") and state.blocks("N")  # moving blocks every decision


def test_big_blob_occludes_the_table() -> None:
    rng = np.random.default_rng(3)
    gate = MotionGate(zones=zones())
    gate.update(noisy_table(rng), 0.0)
    frame = noisy_table(rng)
    frame[:, :200] = 250
    state = gate.update(frame, 0.1)
    assert state.occluded and state.occluded_zones == {"N", "E", "S", "W"}


def test_motion_gate_is_cheap() -> None:
    rng = np.random.default_rng(4)
    frames = [noisy_table(rng) for _ in range(10)]
    gate = MotionGate(zones=zones())
    gate.update(frames[0], 0.0)
    start = time.perf_counter()
    for i in range(100):
        gate.update(frames[i % 10], i * DT)
    per_frame = (time.perf_counter() - start) / 100
    assert per_frame < 0.01  # ≤ 2 ms on an idle core; loose here, CI machines are busy


def test_tracker_events_feed_the_engine_end_to_end(tmp_path: Path) -> None:
    table = Table()
    play_trick(table, TRICK)
    table.run({}, 10)
    play_trick(table, [("S", ["KS"]), ("W", ["2H"]), ("N", ["6S"]), ("E", ["7S"])])
    with EventLog(tmp_path / "events.jsonl") as log:
        feed = GameFeed(declarer="S", trump="H", emit=log.append)
        for event in table.events:
            log.append(event)
            feed.apply(event)
            feed.audit()  # the live state is always auditable
    assert [t.winner for t in feed.audit().tricks] == ["S", "W"]
    assert [e["type"] for e in read_events(tmp_path / "events.jsonl")].count("play") == 8


def test_game_feed_a_card_read_as_another_while_it_lay_there_proves_only_a_question() -> None:
    # W shows out of spades in trick 1; its lone card of trick 2, read KS when it landed, was
    # read 2H by the frames after: the revoke it would prove is the referee's question
    feed = GameFeed(declarer="S", trump="H")
    for seat, card, t in (("S", "AS", 0.0), ("W", "3C", 2.0), ("N", "4S", 4.0), ("E", "5S", 6.0)):
        feed.apply(PlayEvent(seat, (card,), t, t + 0.5))
    feed.apply(TrickClearedEvent(8.0))
    feed.apply(PlayEvent("S", ("AD",), 9.0, 9.5))
    feed.apply(PlayEvent("W", ("KS",), 11.0, 11.5))
    (asserted,) = feed.audit().infractions
    assert (asserted.kind, asserted.seat, asserted.to_check) == ("revoke", "W", False)
    for seat, card, t in (("N", "4D", 13.0), ("E", "5D", 15.0)):
        feed.apply(PlayEvent(seat, (card,), t, t + 0.5))
    feed.apply(TrickClearedEvent(17.0, read_otherwise=(("W", "KS", "2H"),)))
    assert feed.record["tricks"][1]["plays"][1] == {
        "seat": "W", "cards": ["KS"], "t": 11.0, "unsure": ["KS"], "maybe": {"KS": "2H"}
    }  # fmt: skip
    (inf,) = feed.audit().infractions
    assert (inf.kind, inf.seat, inf.trick, inf.to_check) == ("revoke", "W", 1, True)
    assert inf.to_json()["unsure_reads"] == [{"trick": 2, "seat": "W", "card": "KS", "maybe": "2H"}]


def test_game_feed_a_lead_all_three_followers_contradict_in_count_is_read_in_doubt() -> None:
    # W's pair of small jokers, laid 0.5 cm apart, read as one; the three followers played two
    feed = GameFeed(declarer="W", trump="H")
    feed.apply(PlayEvent("W", ("SJ",), 0.0, 0.5))
    for seat, cards, t in (("N", ("3S", "3S"), 2.0), ("E", ("4S", "5S"), 4.0)):
        feed.apply(PlayEvent(seat, cards, t, t + 0.5))
    assert "unsure" not in feed.record["tricks"][0]["plays"][0]  # two followers prove nothing
    feed.apply(PlayEvent("S", ("6S", "7S"), 6.0, 6.5))
    assert feed.record["tricks"][0]["plays"][0]["unsure"] == ["SJ"]
    (inf,) = feed.audit().infractions
    assert (inf.kind, inf.seat, inf.to_check) == ("card_count", "W", True)
    assert all("unsure" not in p for p in feed.record["tricks"][0]["plays"][1:])


def test_game_feed_a_follower_whose_count_disagrees_with_the_lead_is_read_in_doubt() -> None:
    # E's pair read as one card (the other hidden in the fan): asked, never asserted
    feed = GameFeed(declarer="W", trump="H")
    for seat, cards, t in (("W", ("SJ", "SJ"), 0.0), ("N", ("3S", "3S"), 2.0)):
        feed.apply(PlayEvent(seat, cards, t, t + 0.5))
    feed.apply(PlayEvent("E", ("4S",), 4.0, 4.5))
    feed.apply(PlayEvent("S", ("6S", "7S"), 6.0, 6.5))
    assert feed.record["tricks"][0]["plays"][2]["unsure"] == ["4S"]
    (inf,) = feed.audit().infractions
    assert (inf.kind, inf.seat, inf.to_check) == ("card_count", "E", True)


def test_game_feed_a_lead_only_half_the_trick_agrees_with_in_count_is_read_in_doubt() -> None:
    # W's pair read as one card, and E's too; N and S played two: which side was misread is
    # not known, so no count in this trick proves anything (a hand's count at its end included)
    feed = GameFeed(declarer="W", trump="H")
    for seat, cards, t in (("W", ("SJ",), 0.0), ("N", ("3S", "3S"), 2.0), ("E", ("4S",), 4.0)):
        feed.apply(PlayEvent(seat, cards, t, t + 0.5))
    assert "unsure" not in feed.record["tricks"][0]["plays"][0]  # the trick is not whole yet
    feed.apply(PlayEvent("S", ("6S", "7S"), 6.0, 6.5))
    plays = feed.record["tricks"][0]["plays"]
    assert [p.get("unsure") for p in plays] == [["SJ"], ["3S"], ["4S"], ["6S", "7S"]]
    assert feed.audit().infractions and all(i.to_check for i in feed.audit().infractions)


def test_game_feed_a_lead_three_plays_agree_with_stays_sure() -> None:
    feed = GameFeed(declarer="W", trump="H")
    for seat, cards, t in (
        ("W", ("SJ", "SJ"), 0.0),
        ("N", ("3S", "3S"), 2.0),
        ("E", ("4S",), 4.0),
        ("S", ("6S", "7S"), 6.0),
    ):
        feed.apply(PlayEvent(seat, cards, t, t + 0.5))
    assert [bool(p.get("unsure")) for p in feed.record["tricks"][0]["plays"]] == [
        False,
        False,
        True,
        False,
    ]


def test_game_feed_a_card_too_many_read_in_doubt_is_left_out_once_two_plays_agree() -> None:
    # W's pair of jacks, one jack's hidden corner read weakly as a queen beside them
    feed = GameFeed(declarer="S", trump="S")
    feed.apply(PlayEvent("S", ("2S", "2S"), 0.0, 0.5))
    feed.apply(PlayEvent("W", ("JH", "JH", "QH"), 1.0, 1.5, unsure=(("QH", 0.38),)))
    assert feed.record["tricks"][0]["plays"][1]["cards"] == ["JH", "JH", "QH"]  # one to go by
    (left_out,) = feed.apply(PlayEvent("N", ("3H", "3H"), 2.0, 2.5))
    assert (left_out.kind, left_out.seat, left_out.cards) == ("count_mismatch", "W", ("QH",))
    assert "QH (0.38), read in doubt, is left out" in left_out.detail
    assert feed.record["tricks"][0]["plays"][1] == {"seat": "W", "cards": ["JH", "JH"], "t": 1.0}
    feed.apply(PlayEvent("E", ("6H", "6H"), 3.0, 3.5))
    assert feed.audit().infractions == []


def after_two_queens_of_spades() -> GameFeed:
    """A hand whose first two tricks showed both QS, surely."""
    feed = GameFeed(declarer="E", trump="H")
    feed_plays(feed, "E:QS S:3S W:4S N:5S")
    feed_plays(feed, "E:QS S:6S W:7S N:8S", t0=10.0)
    return feed


def assert_trick_without_false_infractions(
    feed: GameFeed, cards: list[list[str]], trick: int = 2
) -> None:
    assert [p["cards"] for p in feed.record["tricks"][trick]["plays"]] == cards
    assert not [i for i in feed.audit().infractions if i.kind in ("duplicate_card", "card_count")]


def test_game_feed_a_card_too_many_taken_as_its_runner_up_is_still_left_out() -> None:
    # validation hand 9054 (orell's own pair): S's lone JD read JD QS, QS in doubt (maybe QC)
    # after two sure QS: the deck makes it QC, and the trick's count leaves that QC out
    feed = after_two_queens_of_spades()
    feed.apply(PlayEvent("E", ("9C",), 20.0, 20.5))
    feed.apply(
        PlayEvent("S", ("JD", "QS"), 22.0, 22.5, unsure=(("QS", 0.41),), maybe=(("QS", "QC"),))
    )
    (left_out,) = feed.apply(PlayEvent("W", ("SJ",), 24.0, 24.5))
    assert (left_out.kind, left_out.seat, left_out.cards) == ("count_mismatch", "S", ("QC",))
    feed.apply(PlayEvent("N", ("7C",), 26.0, 26.5))
    assert_trick_without_false_infractions(feed, [["9C"], ["JD"], ["SJ"], ["7C"]])


def test_game_feed_a_runner_up_taken_for_a_third_copy_of_a_pair_read_in_doubt_is_left_out() -> None:
    # validation hand 9078 (atlasnye's own pair): N's lone QH read QH QH in doubt (maybe JH)
    # after a QH: one copy becomes the JH, both identities are in doubt, the JH is the phantom
    feed = GameFeed(declarer="E", trump="H")
    feed_plays(feed, "E:QS S:3S W:4S N:5S")
    feed.apply(PlayEvent("E", ("9C",), 10.0, 10.5))
    feed.apply(
        PlayEvent("S", ("QS", "QS"), 12.0, 12.5, unsure=(("QS", 0.5),), maybe=(("QS", "QC"),))
    )
    assert sorted(feed.record["tricks"][1]["plays"][1]["cards"]) == ["QC", "QS"]
    *_, left_out = feed.apply(PlayEvent("W", ("7C",), 14.0, 14.5))
    assert (left_out.kind, left_out.seat, left_out.cards) == ("count_mismatch", "S", ("QC",))
    feed.apply(PlayEvent("N", ("8C",), 16.0, 16.5))
    assert_trick_without_false_infractions(feed, [["9C"], ["QS"], ["7C"], ["8C"]], trick=1)


def test_game_feed_a_sure_third_copy_as_many_as_the_cards_too_many_is_left_out() -> None:
    # validation hand 9070 (orell's own pair): S's lone JD read JD QS, both surely, after two
    # QS: the trick's count and the deck single the QS out, named for the referee to put back
    feed = after_two_queens_of_spades()
    feed.apply(PlayEvent("N", ("QD",), 20.0, 20.5))
    feed.apply(PlayEvent("E", ("8H",), 22.0, 22.5))
    *_, left_out = feed.apply(PlayEvent("S", ("JD", "QS"), 24.0, 24.5))
    assert (left_out.kind, left_out.seat, left_out.cards) == ("count_mismatch", "S", ("QS",))
    assert "QS, a third copy, is left out" in left_out.detail
    feed.apply(PlayEvent("W", ("8D",), 26.0, 26.5))
    assert_trick_without_false_infractions(feed, [["QD"], ["8H"], ["JD"], ["8D"]])


def test_game_feed_a_sure_card_too_many_that_the_deck_allows_stays_as_read() -> None:
    # nothing singles the card out: the count is put to the referee, the reads kept
    feed = GameFeed(declarer="E", trump="H")
    feed_plays(feed, "N:QD E:8H S:JD,QS W:8D")
    assert [p["cards"] for p in feed.record["tricks"][0]["plays"]][2] == ["JD", "QS"]


def test_game_feed_of_more_cards_in_doubt_than_too_many_the_third_copy_is_left_out() -> None:
    # validation hand 9051: S's QH read in doubt (maybe 10H), then a phantom BJ beside it, in
    # doubt too and a third copy after E's two: the deck singles the BJ out
    feed = GameFeed(declarer="E", trump="H")
    feed_plays(feed, "E:BJ S:3S W:4S N:5S")
    feed_plays(feed, "E:BJ S:6S W:7S N:8S", t0=10.0)
    feed.apply(PlayEvent("N", ("7S",), 20.0, 20.5))
    feed.apply(PlayEvent("E", ("5D",), 22.0, 22.5))
    feed.apply(PlayEvent("S", ("QH",), 24.0, 24.5, unsure=(("QH", 0.71),), maybe=(("QH", "10H"),)))
    feed.apply(PlayEvent("S", ("BJ",), 24.7, 25.2, unsure=(("BJ", 0.4),)))
    s_play = feed.record["tricks"][2]["plays"][2]
    assert s_play["cards"] == ["QH"] and s_play["unsure"] == ["QH"]
    feed.apply(PlayEvent("W", ("4S",), 26.0, 26.5))
    assert_trick_without_false_infractions(feed, [["7S"], ["5D"], ["QH"], ["4S"]])


def test_game_feed_a_card_too_many_read_in_doubt_as_a_card_held_twice_loses_one_copy() -> None:
    # validation hand 9026: W's throw of seven read with a second 5C, 5C in doubt (maybe JC)
    feed = GameFeed(declarer="S", trump="H")
    feed.apply(PlayEvent("S", ("8C", "8C", "9C", "9C", "10C", "10C", "KC"), 0.0, 0.5))
    thrown = ("2C", "4C", "4C", "5C", "5C", "7H", "7C", "JC")
    feed.apply(PlayEvent("W", thrown, 2.0, 2.5, unsure=(("5C", 0.62),), maybe=(("5C", "JC"),)))
    (left_out,) = feed.apply(PlayEvent("N", ("2D", "3C", "3C", "4H", "6C", "QC", "KC"), 4.0, 4.5))
    assert (left_out.kind, left_out.cards) == ("count_mismatch", ("5C",))
    w_play = feed.record["tricks"][0]["plays"][1]
    assert w_play["cards"] == ["2C", "4C", "4C", "5C", "7H", "7C", "JC"]
    assert w_play["unsure"] == ["5C"] and w_play["maybe"] == {"5C": "JC"}  # the copy left
    # the misread going from the table (a takeback of 5C) is the copy left out, not the other
    feed.apply(TakebackEvent("W", ("5C",), 5.0, "f50", (("5C", 0.0),)))
    assert feed.record["tricks"][0]["plays"][1]["cards"] == [
        "2C",
        "4C",
        "4C",
        "5C",
        "7H",
        "7C",
        "JC",
    ]
    # two too many, a card held twice read in doubt: one or both copies, which is not known
    feed = GameFeed(declarer="S", trump="H")
    feed.apply(PlayEvent("S", ("8C", "9C", "10C", "KC", "AC"), 0.0, 0.5))
    thrown = ("2C", "4C", "5C", "5C", "7H", "7C", "JC")
    feed.apply(PlayEvent("W", thrown, 2.0, 2.5, unsure=(("5C", 0.6), ("7H", 0.6))))
    feed.apply(PlayEvent("N", ("2D", "3C", "3C", "4H", "6C"), 4.0, 4.5))
    assert feed.record["tricks"][0]["plays"][1]["cards"] == list(thrown)


def test_game_feed_a_lead_with_a_big_pip_read_as_an_ace_in_doubt_loses_it() -> None:
    # N led 4H; its big pip read as a second card, AH, in doubt: three single followers
    feed = GameFeed(declarer="N", trump="S")
    feed.apply(PlayEvent("N", ("4H", "AH"), 0.0, 0.5, unsure=(("AH", 0.52),)))
    for seat, card, t in (("E", "AH", 2.0), ("S", "3H", 4.0), ("W", "10H", 6.0)):
        feed.apply(PlayEvent(seat, (card,), t, t + 0.5))
    assert [p["cards"] for p in feed.record["tricks"][0]["plays"]] == [
        ["4H"], ["AH"], ["3H"], ["10H"]
    ]  # fmt: skip
    assert not [i for i in feed.audit().infractions if not i.to_check]


def test_game_feed_a_surplus_not_singled_out_by_doubt_stays_as_read() -> None:
    # two cards too many, one of them read in doubt: which is which is not known
    feed = GameFeed(declarer="S", trump="S")
    feed.apply(PlayEvent("S", ("2S",), 0.0, 0.5))
    feed.apply(PlayEvent("W", ("JH", "QH", "KH"), 1.0, 1.5, unsure=(("QH", 0.4),)))
    feed.apply(PlayEvent("N", ("3H",), 2.0, 2.5))
    assert feed.record["tricks"][0]["plays"][1]["cards"] == ["JH", "QH", "KH"]
    # a card too many read surely stays too: a player may put down one card too many
    feed = GameFeed(declarer="S", trump="S")
    for seat, cards, t in (("S", ("2S",), 0.0), ("W", ("JH", "QH"), 1.0), ("N", ("3H",), 2.0)):
        feed.apply(PlayEvent(seat, cards, t, t + 0.5))
    assert feed.record["tricks"][0]["plays"][1]["cards"] == ["JH", "QH"]


# ----- out of play: a card taken back (悔牌) before the sweep, a card lying outside every zone
# (synthetic zone reads through the tracker, the exposed-card watcher and the game feed).


class TimedTable:
    """Drives a tracker at 10 fps for so many seconds a step, collecting its events."""

    def __init__(self) -> None:
        self.tracker = PlayTracker()
        self.t = 0.0
        self.events: list[Event] = []

    def run(self, zones: Mapping[str, Sequence[str]], seconds: float, hand_over: str = "") -> None:
        """``zones`` for ``seconds``; its first frame with a hand over the zones named in
        ``hand_over`` (seats' letters: the hand that lifts or sweeps their cards)."""
        for k in range(round(seconds * FPS)):
            hand = MotionState(False, 0.05, occluded_zones=frozenset(hand_over))
            self.events += self.tracker.observe(self.t, zones, hand if k == 0 else STILL)
            self.t = round(self.t + DT, 6)

    def kinds(self) -> list[tuple[str, str | None, tuple[str, ...]]]:
        out: list[tuple[str, str | None, tuple[str, ...]]] = []
        for e in self.events:
            if isinstance(e, PlayEvent | TakebackEvent):
                out.append((e.type, e.seat, e.cards))
            else:
                out.append((e.type, None, ()))
        return out


# ----- out of play: takebacks ----------------------------------------------------------------


def test_a_follower_lifting_its_card_back_before_the_sweep_is_a_takeback() -> None:
    table = TimedTable()
    table.run({"S": ["AS"]}, 1)
    table.run({"S": ["AS"], "W": ["3S"]}, 1.5)
    table.run({"S": ["AS"], "W": ["3S"]}, 0.1, hand_over="W")
    lifted_at = table.t
    table.run({"S": ["AS"]}, TAKEBACK_S + 1)
    table.run({"S": ["AS"], "W": ["3S"]}, 1.5, hand_over="W")  # played again
    assert table.kinds() == [
        ("play", "S", ("AS",)),
        ("play", "W", ("3S",)),
        ("takeback", "W", ("3S",)),
        ("play", "W", ("3S",)),
    ]
    takeback = table.events[2]
    assert isinstance(takeback, TakebackEvent)
    assert takeback.t == pytest.approx(lifted_at, abs=DT + 1e-9)


def test_the_leader_taking_its_play_back_leaves_the_trick_on_the_table() -> None:
    table = TimedTable()
    table.run({"S": ["AS"]}, 1.5)
    table.run({}, TAKEBACK_S + 1, hand_over="S")
    table.run({"S": ["KS"]}, 1.5)
    assert table.kinds() == [
        ("play", "S", ("AS",)),
        ("takeback", "S", ("AS",)),
        ("play", "S", ("KS",)),
    ]


def test_other_cards_put_in_place_of_a_lifted_play_take_it_back_at_once() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S"]}, 1.5)
    table.run({"S": ["AS"]}, 0.8, hand_over="W")  # lifted: seen gone, not yet long enough
    table.run({"S": ["AS"], "W": ["4S"]}, 1.5)
    assert table.kinds()[-2:] == [("takeback", "W", ("3S",)), ("play", "W", ("4S",))]


def test_one_card_of_a_pair_lifted_back_is_a_takeback_of_that_card() -> None:
    table = TimedTable()
    table.run({"S": ["AS", "AS"]}, 1.5)
    table.run({"S": ["AS"]}, TAKEBACK_S + 1, hand_over="S")
    assert table.kinds() == [("play", "S", ("AS", "AS")), ("takeback", "S", ("AS",))]
    assert table.tracker.played["S"] == ("AS",)


def test_a_play_covered_shorter_than_the_takeback_time_is_no_takeback() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S"]}, 1.5)
    table.run({"S": ["AS"]}, TAKEBACK_S - 0.3, hand_over="W")  # a hand resting over W's card
    table.run({"S": ["AS"], "W": ["3S"]}, 3)
    assert [k for k, _, _ in table.kinds()] == ["play", "play"]


def test_the_sweep_of_a_whole_trick_is_no_takeback() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S"], "N": ["4S"], "E": ["5S"]}, 1.5)
    table.run({"W": ["3S"], "N": ["4S"]}, 1, hand_over="SE")  # two zones emptied first
    table.run({"N": ["4S"]}, TAKEBACK_S + 1, hand_over="W")  # a third, the last long after
    table.run({}, 3, hand_over="N")
    assert [k for k, _, _ in table.kinds()][-1:] == ["trick_cleared"]
    assert not any(isinstance(e, TakebackEvent) for e in table.events)


def test_the_sweep_of_a_trick_with_a_play_unseen_is_no_takeback() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S"], "N": ["4S"]}, 1.5)
    table.run({}, 3, hand_over="SWNE")
    assert [k for k, _, _ in table.kinds()] == ["play"] * 3 + ["trick_cleared"]


# Cards leave a zone only in a hand: cards of a play no longer read while no hand was seen in
# its zone were misread (the footage of seed 8103: a fourth card read in a still fan of three,
# then lost, then read again); what rests on them is the referee's question.


def test_a_card_of_a_play_lost_with_no_hand_in_its_zone_and_read_again_is_nothing() -> None:
    table = TimedTable()
    table.run({"S": ["AS"]}, 1)
    table.run({"S": ["AS"], "W": ["JD", "JD", "AD", "BJ"]}, 2.5)
    table.run({"S": ["AS"], "W": ["JD", "JD", "AD"]}, TAKEBACK_S + 2)  # still: BJ unread
    table.run({"S": ["AS"], "W": ["JD", "JD", "AD", "BJ"]}, 1.5)
    fan = multiset(["JD", "JD", "AD", "BJ"])
    assert table.kinds() == [("play", "S", ("AS",)), ("play", "W", fan)]
    assert table.tracker.played["W"] == fan


def test_a_card_of_a_play_lost_with_no_hand_and_gone_at_the_sweep_is_a_takeback_in_doubt() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S", "BJ"]}, 1.5)
    table.run({"S": ["AS"], "W": ["3S"]}, TAKEBACK_S + 2)  # still: BJ no longer read
    assert [k for k, _, _ in table.kinds()] == ["play", "play"]
    table.run({}, 3, hand_over="SW")
    assert table.kinds()[2:] == [("takeback", "W", ("BJ",)), ("trick_cleared", None, ())]
    takeback = table.events[2]
    assert isinstance(takeback, TakebackEvent) and takeback.unsure == (("BJ", 0.0),)
    assert takeback.t == pytest.approx(1.5, abs=DT + 1e-9)


def test_a_card_lost_with_no_hand_and_read_as_another_is_a_takeback_in_doubt() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S"]}, 1.5)
    table.run({"S": ["AS"]}, 0.8)  # no hand: 3S not read
    table.run({"S": ["AS"], "W": ["3C"]}, 1.5)  # read again, as another card
    assert table.kinds()[-2:] == [("takeback", "W", ("3S",)), ("play", "W", ("3C",))]
    takeback = table.events[-2]
    assert isinstance(takeback, TakebackEvent) and takeback.unsure == (("3S", 0.0),)


def test_a_card_lifted_by_a_hand_is_an_asserted_takeback_with_no_doubt() -> None:
    table = TimedTable()
    table.run({"S": ["AS"], "W": ["3S", "4S"]}, 1.5)
    table.run({"S": ["AS"], "W": ["3S"]}, TAKEBACK_S + 1, hand_over="W")
    takeback = table.events[-1]
    assert isinstance(takeback, TakebackEvent) and takeback.cards == ("4S",)
    assert takeback.unsure == ()


def test_a_hand_is_motion_in_the_zone_when_the_gate_measures_zones() -> None:
    """With zone fractions, motion over a zone short of blocking it is still a hand there."""
    tracker = PlayTracker()
    still = MotionState(False, 0.0, zone_fractions={"S": 0.0, "W": 0.0})
    touch = MotionState(False, 0.02, zone_fractions={"S": 0.0, "W": 0.08})
    events: list[Event] = []
    for k in range(60):
        t = k * DT
        zones = {"S": ["AS"], "W": ["3S", "4S"] if k < 15 else ["3S"]}
        events += tracker.observe(t, zones, touch if k == 15 else still)
    (takeback,) = [e for e in events if isinstance(e, TakebackEvent)]
    assert takeback.cards == ("4S",) and takeback.unsure == ()


# ----- the exposed-card watcher --------------------------------------------------------------


def watch(
    watcher: ExposedCardWatcher,
    reads: Sequence[tuple[str, tuple[float, float], float, str | None]],
    seconds: float,
    start: float = 0.0,
) -> list[ExposedCardEvent]:
    out: list[ExposedCardEvent] = []
    for k in range(round(seconds * 4)):
        for event in watcher.observe(start + k / 4, reads, f"f{k}"):
            assert isinstance(event, ExposedCardEvent)  # after the draw phase: no declaration
            out.append(event)
    return out


def test_a_card_lying_still_outside_every_zone_is_exposed_once_by_the_nearest_seat() -> None:
    watcher = ExposedCardWatcher(90, 90, unsure_below=0.8)
    events = watch(watcher, [("9H", (55.0, 8.4), 0.97, None)], 5)
    assert len(events) == 1
    (event,) = events
    assert (event.card, event.seat, event.t, event.unsure) == ("9H", "N", 0.0, ())
    assert event.where == (55.0, 8.4)


def test_a_card_seen_outside_the_zones_shorter_than_the_hold_is_not_exposed() -> None:
    watcher = ExposedCardWatcher(90, 90)
    assert watch(watcher, [("9H", (8.4, 40.0), 0.97, None)], 1.5) == []
    assert watch(watcher, [], 1, start=1.5) == []
    assert watch(watcher, [("9H", (8.4, 40.0), 0.97, None)], 1.5, start=2.5) == []


def test_a_card_carried_across_the_table_is_not_exposed() -> None:
    watcher = ExposedCardWatcher(90, 90)
    events: list[ExposedCardEvent | DeclarationEvent] = []
    for k in range(20):  # 5 cm a decision frame: a hand carrying it
        events += watcher.observe(k / 4, [("9H", (5.0 + 5 * k, 8.0), 0.97, None)])
    assert events == []


def test_an_exposed_card_read_unsurely_says_so_with_its_runner_up() -> None:
    watcher = ExposedCardWatcher(90, 90, unsure_below=0.8)
    (event,) = watch(watcher, [("9H", (85.0, 45.0), 0.55, "9D")], 3)
    assert event.seat == "E"
    assert event.unsure == (("9H", 0.55),) and event.maybe == (("9H", "9D"),)


def test_an_exposed_joker_is_unsure_however_surely_it_was_read() -> None:
    # A pile of red card backs at the winner's edge read BJ at 0.97 (validation hand 9002).
    watcher = ExposedCardWatcher(90, 90, unsure_below=0.8)
    (event,) = watch(watcher, [("BJ", (59.0, 83.0), 0.97, None)], 3)
    assert event.unsure == (("BJ", 0.97),)


# ----- events and the game feed --------------------------------------------------------------


def test_takeback_and_exposed_card_events_round_trip_through_json() -> None:
    takeback = TakebackEvent("W", ("3S",), 4.5, "f45", (("3S", 0.6),), (("3S", "3C"),))
    exposed = ExposedCardEvent("9H", (55.0, 8.4), "N", 7.0, "f70")
    for event in (takeback, exposed):
        assert event_from_json(event.to_json()) == event


def feed_trick(feed: GameFeed, *, unsure_w: bool = False) -> None:
    doubt = (("3S", 0.55),) if unsure_w else ()
    maybe = (("3S", "3C"),) if unsure_w else ()
    feed.apply(PlayEvent("S", ("AS",), 1.0, 1.5))
    feed.apply(PlayEvent("W", ("3S",), 2.0, 2.5, unsure=doubt, maybe=maybe))
    feed.apply(TakebackEvent("W", ("3S",), 4.0))
    feed.apply(PlayEvent("W", ("3S",), 7.0, 7.5))
    feed.apply(PlayEvent("N", ("4S",), 8.0, 8.5))
    feed.apply(PlayEvent("E", ("5S",), 9.0, 9.5))


def test_a_takeback_leaves_the_play_as_played_again_and_the_audit_asserts_it() -> None:
    feed = GameFeed()
    feed_trick(feed)
    record = feed.record
    assert [(p["seat"], p["cards"]) for p in record["tricks"][0]["plays"]] == [
        ("S", ["AS"]),
        ("W", ["3S"]),
        ("N", ["4S"]),
        ("E", ["5S"]),
    ]
    assert record["takebacks"] == [{"seat": "W", "cards": ["3S"], "t": 4.0, "trick": 1}]
    (infraction,) = feed.audit().infractions
    assert (infraction.kind, infraction.seat, infraction.trick) == ("takeback", "W", 1)
    assert not infraction.to_check
    assert not feed.conflicts  # no seat played twice: the taken-back card left the play


def test_a_takeback_of_a_card_read_unsurely_is_put_to_the_referee_as_a_question() -> None:
    feed = GameFeed()
    feed_trick(feed, unsure_w=True)
    (item,) = feed.record["takebacks"]
    assert item["unsure"] == ["3S"] and item["maybe"] == {"3S": "3C"}
    (infraction,) = feed.audit().infractions
    assert infraction.kind == "takeback" and infraction.to_check
    assert infraction.unsure_reads[0].maybe == "3C"


def test_an_exposed_card_is_listed_for_the_trick_on_the_table_when_it_lay_there() -> None:
    feed = GameFeed()
    feed_trick(feed)
    feed.apply(TrickClearedEvent(12.0))
    # reported after the sweep (it had to lie still for a while), seen before it
    feed.apply(ExposedCardEvent("9H", (55.0, 8.4), "N", 10.0))
    feed.apply(ExposedCardEvent("KD", (8.4, 35.0), "W", 13.0, unsure=(("KD", 0.5),)))
    assert feed.record["exposed"] == [
        {"seat": "N", "cards": ["9H"], "t": 10.0, "trick": 1},
        {"seat": "W", "cards": ["KD"], "t": 13.0, "trick": 2, "unsure": ["KD"]},
    ]
    found = {(i.kind, i.seat, i.trick): i.to_check for i in feed.audit().infractions}
    assert found[("exposed_card", "N", 1)] is False
    assert found[("exposed_card", "W", 2)] is True


def test_a_card_vanishing_with_no_hand_seen_from_a_play_the_trick_agrees_with_stays() -> None:
    # validation hand 9056: W's QS QS, one QS lost as S's play landed, no hand seen near W
    feed = GameFeed(declarer="W", trump="H")
    feed_plays_in_trick = (("W", ("QS", "QS")), ("N", ("7H", "7H")), ("E", ("7D", "9D")))
    for i, (seat, cards) in enumerate(feed_plays_in_trick):
        feed.apply(PlayEvent(seat, cards, 2.0 * i, 2.0 * i + 0.5))
    feed.apply(PlayEvent("S", ("JH", "QD"), 6.0, 6.5))
    (kept,) = feed.apply(TakebackEvent("W", ("QS",), 6.0, "f60", (("QS", 0.0),)))
    assert (kept.kind, kept.seat, kept.cards) == ("count_mismatch", "W", ("QS",))
    assert "not taken as a takeback" in kept.detail
    assert feed.record["tricks"][0]["plays"][0]["cards"] == ["QS", "QS"]
    assert "takebacks" not in feed.record and not feed.audit().infractions
    # lifted by a hand, or vanished before the trick agreed on a count: a takeback as before
    for trick_so_far, takeback in (
        (feed_plays_in_trick, TakebackEvent("W", ("QS",), 6.0)),
        (feed_plays_in_trick[:1], TakebackEvent("W", ("QS",), 1.0, "f10", (("QS", 0.0),))),
    ):
        feed = GameFeed(declarer="W", trump="H")
        for i, (seat, cards) in enumerate(trick_so_far):
            feed.apply(PlayEvent(seat, cards, 2.0 * i, 2.0 * i + 0.5))
        feed.apply(takeback)
        assert feed.record["tricks"][0]["plays"][0]["cards"] == ["QS"]
        assert [t["cards"] for t in feed.record["takebacks"]] == [["QS"]]


def test_a_card_read_in_doubt_taken_back_and_never_replaced_is_put_back_at_the_sweep() -> None:
    # validation hand 9057: E's BJ BJ read in doubt, one seen lifted as S's hand came in; the
    # trick was collected with E one card short of the three others and nothing played instead
    def trick(feed: GameFeed, replaced: bool) -> None:
        feed.apply(PlayEvent("N", ("5S", "KS"), 0.0, 0.5))
        feed.apply(PlayEvent("E", ("BJ", "BJ"), 2.0, 2.5, unsure=(("BJ", 0.6),)))
        feed.apply(TakebackEvent("E", ("BJ",), 3.0))
        if replaced:
            feed.apply(PlayEvent("E", ("SJ",), 3.5, 4.0))
        feed.apply(PlayEvent("S", ("6D", "JD"), 4.0, 4.5))
        feed.apply(PlayEvent("W", ("8D", "QD"), 5.0, 5.5))

    feed = GameFeed(declarer="N", trump="H")
    trick(feed, replaced=False)
    assert feed.record["takebacks"][0]["cards"] == ["BJ"]  # until the sweep
    (kept,) = feed.apply(TrickClearedEvent(8.0))
    assert (kept.kind, kept.seat, kept.cards) == ("count_mismatch", "E", ("BJ",))
    e_play = feed.record["tricks"][0]["plays"][1]
    assert e_play["cards"] == ["BJ", "BJ"] and e_play["unsure"] == ["BJ"]
    assert "takebacks" not in feed.record
    # a card played in its place: a takeback (in doubt), as read
    feed = GameFeed(declarer="N", trump="H")
    trick(feed, replaced=True)
    assert feed.apply(TrickClearedEvent(8.0)) == []
    assert [t["cards"] for t in feed.record["takebacks"]] == [["BJ"]]


def test_a_card_left_out_as_a_misread_vanishing_is_not_a_takeback() -> None:
    # validation hand 9050: a phantom AC read in doubt beside S's 2C, left out, then gone
    feed = GameFeed(declarer="N", trump="H")
    feed.apply(PlayEvent("N", ("6C",), 0.0, 0.5))
    feed.apply(PlayEvent("E", ("3C",), 2.0, 2.5))
    feed.apply(PlayEvent("S", ("2C",), 4.0, 4.5))
    feed.apply(PlayEvent("S", ("AC",), 4.7, 5.2, unsure=(("AC", 0.5),)))
    assert feed.record["tricks"][0]["plays"][2]["cards"] == ["2C"]
    (gone,) = feed.apply(TakebackEvent("S", ("AC",), 7.0, "f70", (("AC", 0.0),)))
    assert gone.kind == "count_mismatch" and "left out of its play as a misread" in gone.detail
    assert "takebacks" not in feed.record


def test_a_takeback_of_a_card_short_of_the_leads_count_is_asserted_when_read_surely() -> None:
    """One card of a pair put down and lifted back: the play's count disagreed with the lead's
    (its cards were doubted for that), not its reading — the takeback is asserted, and the pair
    played again is no longer in doubt."""
    feed = GameFeed()
    feed.apply(PlayEvent("S", ("AS", "AS"), 1.0, 1.5))
    feed.apply(PlayEvent("W", ("3S",), 2.0, 2.5))
    assert feed.record["tricks"][0]["plays"][1]["unsure"] == ["3S"]
    feed.apply(TakebackEvent("W", ("3S",), 4.0))
    feed.apply(PlayEvent("W", ("3S", "4S"), 7.0, 7.5))
    (item,) = feed.record["takebacks"]
    assert "unsure" not in item
    assert "unsure" not in feed.record["tricks"][0]["plays"][1]
    (infraction,) = feed.audit().infractions
    assert infraction.kind == "takeback" and not infraction.to_check


def test_the_leaders_takeback_leaves_its_trick_open_for_the_card_it_leads_instead() -> None:
    feed = GameFeed()
    feed.apply(PlayEvent("S", ("AS",), 1.0, 1.5))
    feed.apply(TakebackEvent("S", ("AS",), 3.0))
    feed.apply(PlayEvent("S", ("KS",), 6.0, 6.5))
    feed.apply(PlayEvent("W", ("3S",), 7.0, 7.5))
    assert feed.record["tricks"] == [
        {
            "plays": [
                {"seat": "S", "cards": ["KS"], "t": 6.0},
                {"seat": "W", "cards": ["3S"], "t": 7.0},
            ]
        }
    ]
    assert [(i.kind, i.seat, i.trick) for i in feed.audit().infractions] == [("takeback", "S", 1)]


# ----- the draw phase: declarations and 炒 -------------------------------------------------


def show(
    watcher: ExposedCardWatcher,
    frames: Sequence[Sequence[tuple[str, tuple[float, float], float, str | None]]],
    *,
    draw_phase: bool = True,
    start: float = 0.0,
) -> list[ExposedCardEvent | DeclarationEvent]:
    """Decision frames 4 a second, each with its reads outside the zones."""
    out: list[ExposedCardEvent | DeclarationEvent] = []
    for k, reads in enumerate(frames):
        out += watcher.observe(start + k / 4, reads, f"f{k}", draw_phase=draw_phase)
    return out


PAIR_AT_W = [("6S", (8.4, 35.0), 0.97, None), ("6S", (8.4, 25.0), 0.96, None)]


def test_in_the_draw_phase_a_pair_shown_at_a_seat_is_one_declaration() -> None:
    watcher = ExposedCardWatcher(90, 90, unsure_below=0.8)
    # the second card is read a frame after the first
    frames = [PAIR_AT_W[:1], *[PAIR_AT_W] * 19]
    (event,) = show(watcher, frames)
    assert isinstance(event, DeclarationEvent)
    assert (event.seat, event.cards, event.t, event.unsure) == ("W", ("6S", "6S"), 0.0, ())


def test_a_declaration_read_unsurely_says_so_with_its_runner_up() -> None:
    watcher = ExposedCardWatcher(90, 90, unsure_below=0.8)
    (event,) = show(watcher, [[("2H", (45.0, 81.6), 0.5, "2D")]] * 16)
    assert isinstance(event, DeclarationEvent)
    assert (event.seat, event.cards) == ("S", ("2H",))
    assert event.unsure == (("2H", 0.5),) and event.maybe == (("2H", "2D"),)


def test_a_declared_pair_missed_for_a_frame_or_covered_by_a_hand_is_not_declared_again() -> None:
    watcher = ExposedCardWatcher(90, 90)
    frames = [*[PAIR_AT_W] * 12, [], [], [], *[PAIR_AT_W] * 12]
    assert len(show(watcher, frames)) == 1


def test_the_same_pair_shown_again_later_is_a_second_declaration() -> None:
    watcher = ExposedCardWatcher(90, 90)
    frames = [*[PAIR_AT_W] * 12, *[[]] * 12, *[PAIR_AT_W] * 12]
    events = show(watcher, frames)
    assert [(e.type, e.cards) for e in events] == [("declaration", ("6S", "6S"))] * 2


def test_cards_shown_after_the_first_play_are_exposed_cards_not_declarations() -> None:
    watcher = ExposedCardWatcher(90, 90)
    events = show(watcher, [PAIR_AT_W] * 16, draw_phase=False)
    assert [e.type for e in events] == ["exposed_card", "exposed_card"]


def test_a_showing_still_gathering_when_the_first_play_lands_is_declared_then() -> None:
    watcher = ExposedCardWatcher(90, 90)
    events = show(watcher, [PAIR_AT_W] * 9)  # qualified at 2.0 s, joined until 2.6 s
    assert events == []
    (event,) = show(watcher, [PAIR_AT_W], draw_phase=False, start=2.25)
    assert isinstance(event, DeclarationEvent) and event.cards == ("6S", "6S")


def test_declaration_and_kitty_move_events_round_trip_through_json() -> None:
    declaration = DeclarationEvent("W", ("6S", "6S"), 4.5, "f45", (("6S", 0.6),), (("6S", "6C"),))
    move = KittyMoveEvent("E", "bury", 8, 12.0, "f120")
    for event in (declaration, move):
        assert event_from_json(event.to_json()) == event
    assert "unsure" not in DeclarationEvent("W", ("6S",), 1.0).to_json()


def bidding_feed() -> GameFeed:
    """Level 2 for both sides, N the declarer with hearts trump."""
    return GameFeed("XX", {"NS": "2", "EW": "2"}, "N", "H")


def test_game_feed_lists_each_showing_as_a_declare_step_and_honest_bidding_audits_clean() -> None:
    feed = bidding_feed()
    feed.apply(DeclarationEvent("N", ("2S",), 3.0))
    feed.apply(DeclarationEvent("W", ("2H", "2H"), 9.0))
    assert feed.record["before_play"] == [
        {"seat": "N", "action": "declare", "cards": ["2S"], "t": 3.0},
        {"seat": "W", "action": "declare", "cards": ["2H", "2H"], "t": 9.0},
    ]
    assert not feed.audit().infractions


def test_game_feed_a_showing_of_cards_that_cannot_declare_is_a_false_declaration() -> None:
    feed = bidding_feed()
    feed.apply(DeclarationEvent("N", ("2H",), 3.0))
    feed.apply(DeclarationEvent("E", ("6D",), 5.0))
    (infraction,) = feed.audit().infractions
    assert (infraction.kind, infraction.seat, infraction.trick) == ("false_declaration", "E", None)
    assert not infraction.to_check


def test_game_feed_a_single_after_a_declaration_or_a_pair_shown_again_is_an_illegal_chao() -> None:
    for later in (
        [DeclarationEvent("W", ("2S",), 9.0)],
        [
            DeclarationEvent("W", ("2H", "2H"), 9.0),
            DeclarationEvent("W", ("2H", "2H"), 20.0),
        ],
    ):
        feed = bidding_feed()
        feed.apply_all([DeclarationEvent("N", ("2H",), 3.0), *later])
        found = [(i.kind, i.seat, i.trick, i.to_check) for i in feed.audit().infractions]
        assert found == [("illegal_chao", "W", None, False)]


def test_game_feed_a_declaration_read_in_doubt_is_a_question_not_an_infraction() -> None:
    feed = bidding_feed()
    feed.apply(DeclarationEvent("N", ("2H",), 3.0))
    feed.apply(DeclarationEvent("E", ("6D",), 5.0, unsure=(("6D", 0.5),), maybe=(("6D", "2D"),)))
    (step,) = feed.record["before_play"][1:]
    assert step["unsure"] == ["6D"] and step["maybe"] == {"6D": "2D"}
    (infraction,) = feed.audit().infractions
    assert infraction.kind == "false_declaration" and infraction.to_check
    assert [(r.card, r.maybe) for r in infraction.unsure_reads] == [("6D", "2D")]


def test_game_feed_an_illegal_chao_resting_on_an_earlier_showing_read_in_doubt_is_a_question() -> (
    None
):
    feed = bidding_feed()
    feed.apply(DeclarationEvent("N", ("2H", "2H"), 3.0, unsure=(("2H", 0.5),)))
    feed.apply(DeclarationEvent("W", ("2H", "2H"), 9.0))
    (infraction,) = feed.audit().infractions
    assert infraction.kind == "illegal_chao" and infraction.to_check


def test_game_feed_a_joker_shown_alone_is_its_pair_read_in_doubt() -> None:
    """The other joker of the pair went unread: the showing is taken as the pair, in doubt, so
    what it proves (here another trump than the referee's hearts) is a question."""
    feed = bidding_feed()
    feed.apply(DeclarationEvent("N", ("2H",), 3.0))
    feed.apply(DeclarationEvent("S", ("SJ",), 9.0))
    step = feed.record["before_play"][1]
    assert step["cards"] == ["SJ", "SJ"] and step["unsure"] == ["SJ"]
    found = [(i.kind, i.seat, i.to_check) for i in feed.audit().infractions]
    assert found == [("wrong_trump", "S", True)]


def test_game_feed_a_joker_pair_shown_again_with_one_joker_unread_is_an_illegal_chao_to_check() -> (
    None
):
    feed = GameFeed("XX", {"NS": "2", "EW": "2"}, "N", "NT")
    feed.apply(DeclarationEvent("N", ("2H",), 3.0))
    feed.apply(DeclarationEvent("S", ("BJ",), 9.0))  # BJ BJ, one of them unread
    feed.apply(DeclarationEvent("S", ("BJ", "BJ"), 20.0))  # the same pair again
    found = [(i.kind, i.seat, i.to_check) for i in feed.audit().infractions]
    assert found == [("illegal_chao", "S", True)]
