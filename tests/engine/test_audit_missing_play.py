"""A trick collected without a play of one seat: what rests on that play is a question.

Default record (tests/builders): rules XX (clockwise: S leads, then W, N, E), level 2, trump ♥.
W's AS wins trick 1, so W leads trick 2. When no play of W was seen in trick 2 (a camera that
missed it), whether N played before W, and who won trick 2 (and so who leads trick 3), rest on
a play nobody saw: the out-of-turn findings they give are put to the referee. W's missing play
itself is still a card-count finding of its own.
"""

from __future__ import annotations

from engine.audit import AuditReport, Infraction, audit
from engine.record import load_record
from tests.builders import record

W_UNSEEN = ["S:KS W:AS N:3S E:4S", "N:5S E:6S S:7S", "W:8S N:9S E:10S S:JS"]
# The same with W's play seen, after N's: N played out of turn, for sure.
W_SEEN_LATE = ["S:KS W:AS N:3S E:4S", "N:5S W:QS E:6S S:7S", "W:8S N:9S E:10S S:JS"]


def _report(tricks: list[str]) -> AuditReport:
    return audit(load_record(record(tricks)))


def _finding(report: AuditReport, kind: str, seat: str, trick: int) -> Infraction:
    found = [i for i in report.infractions if (i.kind, i.seat, i.trick) == (kind, seat, trick)]
    assert len(found) == 1, [(i.kind, i.seat, i.trick) for i in report.infractions]
    return found[0]


def test_a_seat_playing_before_a_play_nobody_saw_is_asked_not_asserted() -> None:
    early = _finding(_report(W_UNSEEN), "out_of_turn", "N", 2)
    assert early.to_check
    assert [(r.trick, r.seat, r.card) for r in early.unsure_reads] == [(2, "W", None)]


def test_the_next_lead_after_a_trick_missing_a_play_rests_on_that_play() -> None:
    # by the reads S's 7S won trick 2; W's unseen card may have won it, and W leads trick 3
    lead = _finding(_report(W_UNSEEN), "out_of_turn", "W", 3)
    assert lead.to_check and "cards unread (W, trick 2)" in lead.proof


def test_the_missing_play_itself_and_a_play_seen_out_of_turn_stay_asserted() -> None:
    assert not _finding(_report(W_UNSEEN), "card_count", "W", 2).to_check
    assert not _finding(_report(W_SEEN_LATE), "out_of_turn", "N", 2).to_check
