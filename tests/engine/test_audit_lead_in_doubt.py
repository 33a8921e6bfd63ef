"""What a finding rests on besides its own cards: the reads that made a play the lead, and a
play nobody saw.

Default record (tests/builders): rules XX (clockwise: S leads, then W, N, E), level 2, trump ♥.
In each record W's AS wins trick 1 by the reads, so W leads trick 2; when S's card touched the
table first there, the table behaved as if S had won. Every follow, throw or count judged
against W's lead then rests on the trick-1 reads that made W the winner. When no play of W was
seen in trick 2 (a camera that missed it), whether N played before W, and who won trick 2 (and
so who leads trick 3), rest on a play nobody saw: the out-of-turn findings they give are put to
the referee; W's missing play itself is still a card-count finding of its own. A hand's card
count rests on every play of that seat: one read unsurely may have hidden a card.
"""

from __future__ import annotations

from engine.audit import AuditReport, Infraction, audit
from engine.record import load_record
from tests.builders import record

# W's AS wins trick 1; S plays first in trick 2, W's 3C is the lead by the reads, S answers
# with a diamond and shows a club the next trick: a revoke proven one trick later.
TABLE_STARTED_ELSEWHERE = ["S:KS W:AS N:3S E:4S", "S:5D W:3C N:4C E:6C", "E:7C S:8C W:9C N:10C"]
# The same cards with W, the leader by the reads, playing first in trick 2.
TABLE_AGREES = ["S:KS W:AS N:3S E:4S", "W:3C N:4C E:6C S:5D", "E:7C S:8C W:9C N:10C"]


def _audit(tricks: list[str], unsure: dict[tuple[int, str], list[str]]) -> AuditReport:
    rec = record(tricks)
    for (number, seat), cards in unsure.items():
        for play in rec["tricks"][number - 1]["plays"]:
            if play["seat"] == seat:
                play["unsure"] = cards
    return audit(load_record(rec))


def _finding(report: AuditReport, kind: str, seat: str, trick: int) -> Infraction:
    found = [i for i in report.infractions if (i.kind, i.seat, i.trick) == (kind, seat, trick)]
    assert len(found) == 1, [(i.kind, i.seat, i.trick) for i in report.infractions]
    return found[0]


def test_a_follow_judged_against_a_lead_an_earlier_misread_may_have_moved_is_to_check() -> None:
    report = _audit(TABLE_STARTED_ELSEWHERE, {(1, "W"): ["AS"]})
    revoke = _finding(report, "revoke", "S", 2)
    assert revoke.to_check
    assert [(r.trick, r.seat, r.card) for r in revoke.unsure_reads] == [(1, "W", "AS")]
    assert "AS (W, trick 1)" in revoke.proof


def test_the_same_follow_with_every_read_sure_is_asserted() -> None:
    report = _audit(TABLE_STARTED_ELSEWHERE, {})
    assert not _finding(report, "revoke", "S", 2).to_check


def test_when_the_leader_by_the_reads_started_the_trick_an_earlier_doubt_stays_out() -> None:
    # the table's own order agrees with the reads: the lead is W's whoever won trick 1
    report = _audit(TABLE_AGREES, {(1, "W"): ["AS"], (1, "E"): ["4S"]})
    revoke = _finding(report, "revoke", "S", 2)
    assert not revoke.to_check


def test_a_doubt_unrelated_to_the_lead_leaves_the_follow_asserted() -> None:
    # a later read of another seat decides neither the lead nor the proof
    report = _audit(TABLE_STARTED_ELSEWHERE, {(3, "N"): ["10C"]})
    assert not _finding(report, "revoke", "S", 2).to_check


def test_a_mixed_lead_that_a_misread_may_have_made_the_lead_is_to_check() -> None:
    tricks = ["S:KS W:AS N:3S E:4S", "S:5D W:3C,3D N:4C,6C E:7C,8C"]
    assert not _finding(_audit(tricks, {}), "failed_throw", "W", 2).to_check
    throw = _finding(_audit(tricks, {(1, "W"): ["AS"]}), "failed_throw", "W", 2)
    assert throw.to_check


def test_the_doubt_carries_down_a_chain_of_leads_the_table_did_not_follow() -> None:
    # trick 2's winner (E by the reads) rests on its lead, W's, so on trick 1; in trick 3 S
    # again plays before E, the leader by the reads, and revokes against E's lead
    tricks = [
        "S:KS W:AS N:3S E:4S",
        "S:5D W:3C N:4C E:6C",
        "S:2S E:7C W:9C N:10C",
        "N:QC E:JC S:8C W:KC",
    ]
    report = _audit(tricks, {(1, "W"): ["AS"]})
    revoke = _finding(report, "revoke", "S", 3)
    assert [(r.trick, r.seat, r.card) for r in revoke.unsure_reads] == [(1, "W", "AS")]
    assert not _finding(_audit(tricks, {}), "revoke", "S", 3).to_check


# ----- a play nobody saw -----------------------------------------------------------------------

W_UNSEEN = ["S:KS W:AS N:3S E:4S", "N:5S E:6S S:7S", "W:8S N:9S E:10S S:JS"]
# The same with W's play seen, after N's: N played out of turn, for sure.
W_SEEN_LATE = ["S:KS W:AS N:3S E:4S", "N:5S W:QS E:6S S:7S", "W:8S N:9S E:10S S:JS"]


def test_a_seat_playing_before_a_play_nobody_saw_is_asked_not_asserted() -> None:
    early = _finding(_audit(W_UNSEEN, {}), "out_of_turn", "N", 2)
    assert early.to_check
    assert [(r.trick, r.seat, r.card) for r in early.unsure_reads] == [(2, "W", None)]


def test_the_next_lead_after_a_trick_missing_a_play_rests_on_that_play() -> None:
    # by the reads S's 7S won trick 2; W's unseen card may have won it, and W leads trick 3
    lead = _finding(_audit(W_UNSEEN, {}), "out_of_turn", "W", 3)
    assert lead.to_check and "cards unread (W, trick 2)" in lead.proof


def test_the_missing_play_itself_and_a_play_seen_out_of_turn_stay_asserted() -> None:
    assert not _finding(_audit(W_UNSEEN, {}), "card_count", "W", 2).to_check
    assert not _finding(_audit(W_SEEN_LATE, {}), "out_of_turn", "N", 2).to_check


def test_a_hand_count_resting_on_a_play_read_unsurely_is_asked() -> None:
    # The hand ends after one trick: every seat played 1 card of its 25.
    rec = record(["S:AS W:3S N:4S E:5S"], finished=True)
    rec["tricks"][0]["plays"][0]["unsure"] = ["AS"]
    report = audit(load_record(rec))
    assert _finding(report, "card_count", "S", 1).to_check
    assert not _finding(report, "card_count", "W", 1).to_check


# W leads trick 2 by the reads but no play of W was seen there (a lone joker the camera
# missed): N's 5S is taken for the lead, and E's diamond, with E showing a spade the next
# trick, looks like a revoke against it.
LEADER_UNSEEN = ["S:KS W:AS N:3S E:4S", "N:5S E:6D S:7S", "W:8S N:9S E:10S S:JS"]
# The same with W's lead seen: the revoke stands on sure reads.
LEADER_SEEN = ["S:KS W:AS N:3S E:4S", "W:QS N:5S E:6D S:7S", "W:8S N:9S E:10S S:JS"]


def test_a_follow_judged_against_a_lead_taken_for_an_unseen_leaders_play_is_asked() -> None:
    revoke = _finding(_audit(LEADER_UNSEEN, {}), "revoke", "E", 2)
    assert revoke.to_check
    assert (2, "W", None) in [(r.trick, r.seat, r.card) for r in revoke.unsure_reads]
    assert "cards unread (W, trick 2)" in revoke.proof


def test_the_same_follow_after_the_leaders_play_was_seen_is_asserted() -> None:
    assert not _finding(_audit(LEADER_SEEN, {}), "revoke", "E", 2).to_check
