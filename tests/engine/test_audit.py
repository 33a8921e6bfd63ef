"""The auditor, trick by trick (VARIANTS.md §1, §4, §6, §7, §10, §11).

Default record: rules XX (clockwise, so S leads and W, N, E follow), level 2, trump ♥.
"""

from __future__ import annotations

import json

import pytest

from engine.audit import audit
from engine.record import RecordError, load_record
from tests.builders import kinds, record, run, trick


def test_trick_winner_highest_of_the_led_suit_and_points_go_to_the_winner() -> None:
    report = run(["S:KS W:AS N:10S E:5S"])
    assert report.tricks[0].winner == "W"
    assert report.tricks[0].points == 25
    assert report.defender_points == 25  # W is a defender (declarer S)


def test_a_trump_beats_any_card_of_a_side_suit_the_trumper_is_void_in() -> None:
    report = run(["S:AS W:3H N:KS E:QS"])
    assert report.tricks[0].winner == "W"
    assert kinds(report) == []


def test_equal_cards_first_played_wins() -> None:
    # VARIANTS.md L67 tie_rule: 「每輪中相同花色，相同大小的牌以先出為大」 004 L26
    report = run(["S:AS W:AS N:3S E:4S"])
    assert report.tricks[0].winner == "S"
    report = run(["S:3C W:2S N:2D E:4C"])  # level 2, trump ♥: 2S and 2D are equal trumps
    assert report.tricks[0].winner == "W"


def test_a_pair_lead_is_beaten_only_by_a_higher_pair() -> None:
    report = run(["S:KS,KS W:AS,QS N:3S,3S E:4S,5S"])
    assert report.tricks[0].winner == "S"
    assert run(["S:KS,KS W:AS,AS N:3S,3S E:4S,5S"]).tricks[0].winner == "W"


def test_a_side_suit_throw_can_only_be_beaten_by_trumps_of_the_same_shape() -> None:
    report = run(["S:AS,KS,KS W:3H,4H,4H N:3S,4S,5S E:3H,5H,6H"])
    assert report.tricks[0].winner == "W"


def test_play_order_follows_the_profile_direction() -> None:
    # VARIANTS.md L32 play_direction: B counter-clockwise, XX clockwise (002 L37)
    assert kinds(run(["S:AS E:3S N:4S W:5S"], rules="B")) == []
    assert kinds(run(["S:AS W:3S N:4S E:5S"], rules="XX")) == []


def test_a_play_before_ones_turn_is_out_of_turn_ten_a_card() -> None:
    # VARIANTS.md L137 penalty_out_of_turn: 「越序出牌每張罰10分」 002 L54
    report = run(["S:KS,KS N:3S,4S W:5S,5S E:6S,7S"])
    assert kinds(report) == [("out_of_turn", "N", 1)]
    assert report.infractions[0].penalty == 20
    assert report.penalties["against_declarers"] == 20


def test_the_next_trick_is_led_by_the_winner_of_the_last() -> None:
    report = run(["S:KS W:AS N:3S E:4S", "S:5D W:3D N:4D E:6D"])
    assert kinds(report) == [("out_of_turn", "S", 2)]


def test_a_lead_out_of_turn_that_the_table_follows_is_one_infraction_and_leads_the_trick() -> None:
    # 「非本輪首先出牌方在上家牌未著桌前搶先出牌為越序出牌」 000 L15: only the seat that played
    # before its 上家. W won trick 1, but N led trick 2 and E, S followed in turn: N alone is out
    # of turn, N's 5D is the lead, and W's club (last) was a follow, not a lead.
    report = run(["S:KS W:AS N:3S E:4S", "N:5D E:3D S:4D W:3C"])
    assert kinds(report) == [("out_of_turn", "N", 2)]
    assert report.tricks[1].winner == "N"
    assert report.tricks[1].lead.cards == ("5D",)


def test_only_the_seat_that_played_before_its_upstream_is_out_of_turn() -> None:
    # 「在上家牌未著桌前搶先出牌」 000 L15: N played before W (its 上家, whose turn it was); E
    # played after N, its own 上家, so E is not out of turn, and W's late card is not early.
    report = run(["S:KS N:3S E:4S W:5S"])
    assert kinds(report) == [("out_of_turn", "N", 1)]


def test_a_seat_jumping_the_gun_is_out_of_turn_and_the_leader_still_leads() -> None:
    # W won trick 1 and leads trick 2; E's card touched the table first. W's 5D is the lead.
    report = run(["S:KS W:AS N:3S E:4S", "E:6D W:5D N:7D S:4D"])
    assert kinds(report) == [("out_of_turn", "E", 2)]
    assert report.tricks[1].lead.cards == ("5D",)
    assert report.tricks[1].winner == "N"


def test_a_play_over_15_seconds_is_overtime() -> None:
    # VARIANTS.md L33 play_time_limit_s 15 s: 「各选手出牌时间不得超过15秒」 002 L32
    t = trick("S:KS W:AS N:3S E:4S", times=[50.0, 60.0, 76.5, 80.0])
    report = run([t], kitty_buried_t=41.0)
    assert kinds(report) == [("overtime", "N", 1)]
    assert report.infractions[0].penalty == 0  # XX: 「发现超时可要求领先方胜」 002 L59


def test_the_first_lead_is_timed_from_the_kitty_burial() -> None:
    t = trick("S:KS W:AS N:3S E:4S", times=[60.0, 61.0, 62.0, 63.0])
    assert kinds(run([t], kitty_buried_t=41.0)) == [("overtime", "S", 1)]


def test_burying_the_kitty_over_60_seconds_is_overtime() -> None:
    # VARIANTS.md L34 bury_time_limit_s: 「扣底牌不得超过60秒」 002 L32
    report = run([], kitty_taken_t=10.0, kitty_buried_t=75.0)
    assert kinds(report) == [("overtime", "S", None)]


def test_b_escalates_overtime_warning_then_10_then_20() -> None:
    # VARIANTS.md L35 overtime_penalty: 「第一次警告，第二次判罰10分，第三次判罰20分」 001 L25
    plays = [
        trick("S:KS E:AS N:3S W:4S", times=[0.0, 20.0, 21.0, 22.0]),
        trick("E:KD N:3D W:4D S:5D", times=[40.0, 41.0, 42.0, 43.0]),
        trick("E:QD N:6D W:7D S:8D", times=[60.0, 61.0, 62.0, 63.0]),
    ]
    report = run(plays, rules="B", kitty_buried_t=0.0, rule_overrides={"play_time_limit_s": 15})
    assert [(i.kind, i.seat, i.penalty) for i in report.infractions] == [
        ("overtime", "E", 0),
        ("overtime", "E", 10),
        ("overtime", "E", 20),
    ]


def test_a_revoke_proven_by_the_next_trick_is_a_revoke_ten_a_card() -> None:
    # VARIANTS.md L138 penalty_revoke: 「凡跟错牌（吃“苍蝇”），在该轮发现，则判每张罚10分」 002 L55
    report = run(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"])
    assert kinds(report) == [("revoke", "W", 1)]
    inf = report.infractions[0]
    assert inf.penalty == 10 and inf.found_at == 2
    assert "6S" in inf.proof


def test_a_revoke_proven_two_tricks_later_is_hidden_cards_eighty() -> None:
    # VARIANTS.md L139 / §11.1: 「一圈后（不包括当圈，即第三圈）发现视为藏牌成立，判罚80分」 002 L56
    report = run(["S:AS W:3D N:4S E:5S", "S:KC W:3C N:4C E:5C", "S:KS W:6S N:7S E:8S"])
    assert kinds(report) == [("hidden_cards", "W", 1)]
    assert report.infractions[0].penalty == 80
    assert report.infractions[0].found_at == 3


def test_hidden_card_timing_is_a_knob() -> None:
    plays = ["S:AS W:3D N:4S E:5S", "S:KC W:3C N:4C E:5C", "S:KS W:6S N:7S E:8S"]
    report = run(plays, rule_overrides={"hidden_card_after_tricks": 3})
    assert kinds(report) == [("revoke", "W", 1)]


def test_hf_punishes_hidden_cards_twenty_per_occurrence() -> None:
    # VARIANTS.md L91: 「故意出錯牌，如有對不出對、同一花式不出的，一經發現一次罰20分」 004 L46
    plays = ["S:AS E:3D N:4S W:5S", "S:KC E:3C N:4C W:5C", "S:KS E:6S N:7S W:8S"]
    report = run(plays, rules="HF")
    assert [(i.kind, i.penalty) for i in report.infractions] == [("hidden_cards", 20)]


def test_withholding_a_pair_is_proven_when_both_copies_appear_later() -> None:
    # VARIANTS.md L89 follow_pair: 「其余各家在同花色（或主牌）中有对必须跟出」 002 L49
    plays = ["S:KS,KS W:3S,4S N:5S,6S E:7S,8S", "S:AD,AD W:9S,9S N:3D,3D E:4D,5D"]
    report = run(plays)
    assert kinds(report) == [("revoke", "W", 1)]
    assert report.infractions[0].penalty == 20


def test_a_pair_split_over_two_later_tricks_still_proves_the_pair() -> None:
    plays = [
        "S:KS,KS W:3S,4S N:5S,6S E:7S,8S",
        "S:AD W:9S N:3D E:4D",
        "S:AC W:9S N:3C E:4C",
    ]
    report = run(plays)
    assert kinds(report) == [("hidden_cards", "W", 1)]


def test_without_the_pair_rule_a_withheld_pair_is_legal() -> None:
    plays = ["S:KS,KS W:3S,4S N:5S,6S E:7S,8S", "S:AD,AD W:9S,9S N:3D,3D E:4D,5D"]
    report = run(plays, rule_overrides={"follow_pair": False})
    assert [k for k in kinds(report) if k[1] == "W" and k[2] == 1] == []


def test_withholding_a_tractor_is_a_violation_where_tractors_must_be_followed() -> None:
    # VARIANTS.md L90 follow_tractor: 「有對或拖拉機必須跟對或拖拉機」 001 L12–13
    plays = [
        "S:KS,KS,QS,QS E:3S,3S,6S,7S N:5S,5S,9S,10S W:8S,8S,JS,JS",
        "S:AD,AD E:4S,4S N:3D,3D W:4D,5D",
    ]
    report = run(plays, rules="B", rule_overrides={"follow_pair": False})
    assert kinds(report) == [("revoke", "E", 1)]
    report = run(plays, rules="B", rule_overrides={"follow_pair": False, "follow_tractor": False})
    assert kinds(report) == []


def test_with_recorded_hands_a_revoke_is_flagged_at_once() -> None:
    hands = {
        "S": ["AS"],
        "W": ["3D", "6S"],
        "N": ["4S"],
        "E": ["5S"],
    }
    rec = record(["S:AS W:3D N:4S E:5S"], hands=hands, finished=False)
    report = audit(load_record(rec))
    assert kinds(report) == [("revoke", "W", 1)]
    assert report.infractions[0].found_at == 1


def test_a_throw_that_an_opponent_could_beat_fails_ten_a_card() -> None:
    # VARIANTS.md L99 throw_fail_penalty: 「一张牌罚10分，甩几张罚几十」 002 L58
    plays = ["S:AS,QS W:KS,3S N:4S,5S E:6S,7S"]
    report = run(plays)
    assert kinds(report) == [("failed_throw", "S", 1)]
    assert report.infractions[0].penalty == 20
    assert "KS" in report.infractions[0].proof


def test_a_throw_beaten_only_by_the_partner_fails_only_where_partners_count() -> None:
    # VARIANTS.md L98 / §11.5 throw_checked_against: HF 「其餘三人有一人」 004 L44
    plays = ["S:AS,QS W:3S,4S N:KS,5S E:6S,7S"]
    assert kinds(run(plays)) == [("failed_throw", "S", 1)]
    assert kinds(run(plays, rule_overrides={"throw_partner_can_defeat": False})) == []


def test_b_fines_a_failed_throw_for_the_cards_other_than_the_forced_one() -> None:
    # VARIANTS.md L99: 「其餘為出錯牌，出錯牌一張罰10分」 001 L24
    plays = ["S:KS,QS,QS E:AS,3S,4S N:5S,6S,7S W:8S,9S,10S"]
    report = run(plays, rules="B")
    assert kinds(report) == [("failed_throw", "S", 1)]
    assert report.infractions[0].penalty == 20  # the beaten single KS is forced; QS QS are wrong
    report = run(plays, rules="XX")
    assert report.infractions[0].penalty == 30


def test_a_lead_mixing_suits_is_a_failed_throw() -> None:
    report = run(["S:AS,AD W:3S,3D N:4S,4D E:5S,5D"])
    assert kinds(report) == [("failed_throw", "S", 1)]


def test_a_kitty_that_is_not_eight_cards_costs_the_burying_side_eighty() -> None:
    # VARIANTS.md L108 wrong_kitty_penalty: 「扣下的底牌张数多于或少于8张，均罚80分」 002 L52
    report = run([], kitty=["3C"] * 2 + ["4C", "5C", "6C", "7C", "8C"])
    assert kinds(report) == [("kitty_count", "S", None)]
    assert report.penalties["to_defenders"] == 80


def test_playing_fewer_cards_than_the_lead_is_a_card_count_infraction() -> None:
    # VARIANTS.md L140 penalty_hand_count: XX 80 (002 L53), HF 20 (004 L50)
    report = run(["S:KS,KS W:3S N:5S,6S E:7S,8S"])
    assert kinds(report) == [("card_count", "W", 1)]
    assert report.infractions[0].penalty == 80
    assert run(["S:KS,KS W:3S N:5S,6S E:7S,8S"], rules="HF").infractions[0].penalty == 20


def test_the_seat_whose_count_differs_from_the_three_others_is_the_one_flagged() -> None:
    # 「任何一名選手手中牌比其他人多或少」 000 L14: more or fewer than *the others*. S led one
    # card and the three others answered with two each: S's hand is the one out of line.
    report = run(["S:KS W:3S,4S N:5S,6S E:7S,8S"])
    assert kinds(report) == [("card_count", "S", 1)]
    # No three agree: the lead's count is the trick's.
    assert sorted(kinds(run(["S:KS,KS W:3S N:5S,6S,9S E:7S,8S"]))) == [
        ("card_count", "N", 1),
        ("card_count", "W", 1),
    ]


def test_a_third_copy_of_a_card_is_flagged_never_a_crash() -> None:
    report = run(["S:AS W:3S N:4S E:5S", "S:AS W:3S N:6S E:7S", "S:8S W:3S N:9S E:10S"])
    assert ("duplicate_card", "W", 3) in kinds(report)


def test_revoking_play_cannot_win_in_hf() -> None:
    # VARIANTS.md L138: HF 「跟錯牌，每張罰10分，並且不能為大」 004 L46
    plays = ["S:KS E:3H N:QS W:10S", "E:5S N:4S W:3S S:6S"]
    report = run(plays, rules="HF")
    assert kinds(report) == [("revoke", "E", 1)]
    assert report.tricks[0].winner == "E"
    assert report.tricks[0].points_to == "S"
    assert report.defender_points == 0
    assert run(plays, rules="XX", trump="H").tricks[0].points_to is not None


def test_a_hand_in_progress_audits_with_no_result() -> None:
    report = run(["S:AS W:3S N:4S E:5S", "S:KS W:6S"])
    assert report.finished is False
    assert report.result is None
    assert report.tricks[-1].complete is False


@pytest.mark.parametrize(
    ("mutate", "message"),
    [
        (lambda r: r.update(format="other"), "format"),
        (lambda r: r.update(rules="ZZ"), "rules"),
        (lambda r: r.update(declarer="X"), "declarer"),
        (lambda r: r.update(trump="Z"), "trump"),
        (lambda r: r["tricks"][0]["plays"][0].update(cards=["1Z"]), "unknown card"),
        (lambda r: r["tricks"][0]["plays"][0].update(seat="Q"), "seat"),
        (lambda r: r.update(rule_overrides={"no_such_knob": 1}), "unknown rule knob"),
    ],
)
def test_malformed_records_raise_one_line_errors(mutate: object, message: str) -> None:
    rec = json.loads(json.dumps(record(["S:AS W:3S N:4S E:5S"])))
    mutate(rec)  # type: ignore[operator]
    with pytest.raises((RecordError, ValueError), match=message) as err:
        audit(load_record(rec))
    assert "\n" not in str(err.value)


def test_a_seat_missing_from_a_finished_trick_is_a_card_count_infraction() -> None:
    report = run(["S:AS W:3S N:4S", "S:KS W:6S N:7S E:8S"])
    assert kinds(report) == [("card_count", "E", 1)]
    assert report.tricks[0].winner == "S"


def _unsure(rec: dict[str, object], trick_no: int, seat: str, *cards: str) -> dict[str, object]:
    """Mark ``cards`` of ``seat``'s play in trick ``trick_no`` as read unsurely."""
    tricks = rec["tricks"]
    assert isinstance(tricks, list)
    for play in tricks[trick_no - 1]["plays"]:
        if play["seat"] == seat:
            play["unsure"] = list(cards)
    return rec


def test_a_revoke_whose_proof_rests_on_an_unsure_read_is_for_the_referee_to_check() -> None:
    # W's 3D might be a misread 3S: the revoke is put as a question, with the read it rests on
    rec = _unsure(record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]), 1, "W", "3D")
    inf = audit(load_record(rec)).infractions[0]
    assert (inf.kind, inf.seat, inf.trick, inf.to_check) == ("revoke", "W", 1, True)
    assert inf.to_json()["unsure_reads"] == [{"trick": 1, "seat": "W", "card": "3D", "maybe": None}]
    assert "识别存疑" in inf.proof and "3D (W, trick 1)" in inf.proof
    # the later card that proves it counts as much as the revoking one
    rec = _unsure(record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]), 2, "W", "6S")
    assert audit(load_record(rec)).infractions[0].to_check


def test_an_unsure_read_the_proof_does_not_need_leaves_the_infraction_asserted() -> None:
    # E's 5S and W's later 6C have nothing to do with W's revoke; the overtime rests on times
    rec = _unsure(record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]), 1, "E", "5S")
    rec = _unsure(rec, 2, "N", "7S")
    report = audit(load_record(rec))
    assert kinds(report) == [("revoke", "W", 1)]
    assert not report.infractions[0].to_check
    assert report.infractions[0].to_json()["unsure_reads"] == []
    timed = record([trick("S:AS W:3S N:4S E:5S", [1.0, 2.0, 3.0, 30.0])])  # E over time
    report = audit(load_record(_unsure(timed, 1, "E", "5S")))
    assert kinds(report) == [("overtime", "E", 1)] and not report.infractions[0].to_check


def test_a_third_copy_is_to_check_when_any_of_the_three_was_read_unsurely() -> None:
    tricks = ["S:AS W:3S N:4S E:5S", "S:AS W:6S N:7S E:8S", "S:AS W:9S N:10S E:JS"]
    assert not audit(load_record(record(tricks))).infractions[-1].to_check
    for number in (1, 2, 3):
        report = audit(load_record(_unsure(record(tricks), number, "S", "AS")))
        dup = [i for i in report.infractions if i.kind == "duplicate_card"]
        assert [r.trick for r in dup[0].unsure_reads] == [number]


def test_a_third_copy_proven_by_a_kitty_card_read_in_doubt_is_to_check() -> None:
    """The kitty names its cards in doubt as a play does (``kitty_unsure``, ``kitty_maybe``):
    a third copy that a doubtful kitty card proves is put to the referee, naming the kitty;
    a kitty read surely leaves it asserted."""
    from engine.record import record_to_json

    tricks = ["S:AS W:3S N:4S E:5S", "S:AS W:6S N:7S E:8S"]
    rec = record(tricks)
    rec["kitty"] = ["AS", "2H", "3H", "4H", "6H", "7H", "8H", "9H"]  # AS read for a 4S?
    dup = [i for i in audit(load_record(rec)).infractions if i.kind == "duplicate_card"]
    assert len(dup) == 1 and not dup[0].to_check
    rec |= {"kitty_unsure": ["AS"], "kitty_maybe": {"AS": "4S"}}
    dup = [i for i in audit(load_record(rec)).infractions if i.kind == "duplicate_card"]
    assert dup[0].to_check and "AS (the kitty; maybe 4S)" in dup[0].proof
    assert [r.to_json() for r in dup[0].unsure_reads] == [
        {"trick": 0, "seat": rec["declarer"], "card": "AS", "maybe": "4S"}
    ]
    kept = record_to_json(load_record(rec))
    assert (kept["kitty_unsure"], kept["kitty_maybe"]) == (["AS"], {"AS": "4S"})
    with pytest.raises(RecordError, match="kitty unsure names KS, which the kitty does not"):
        load_record(rec | {"kitty_unsure": ["KS"]})


def test_a_record_names_only_cards_of_the_play_as_unsure_and_keeps_them() -> None:
    from engine.record import record_to_json

    rec = _unsure(record(["S:AS W:3D N:4S E:5S"]), 1, "W", "3D")
    assert record_to_json(load_record(rec))["tricks"][0]["plays"][1]["unsure"] == ["3D"]
    with pytest.raises(RecordError, match="trick 1 play 2 unsure names 3S, which the play"):
        load_record(_unsure(record(["S:AS W:3D N:4S E:5S"]), 1, "W", "3S"))


def test_an_unsure_read_names_what_the_camera_read_as_its_runner_up() -> None:
    # the camera's second reading of W's 3D was 3S: the referee is told what to look for
    rec = _unsure(record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]), 1, "W", "3D")
    rec["tricks"][0]["plays"][1]["maybe"] = {"3D": "3S"}  # type: ignore[index]
    inf = audit(load_record(rec)).infractions[0]
    assert [r.to_json() for r in inf.unsure_reads] == [
        {"trick": 1, "seat": "W", "card": "3D", "maybe": "3S"}
    ]
    assert "3D (W, trick 1; maybe 3S)" in inf.proof


def test_a_record_gives_a_runner_up_only_for_an_unsure_card_and_keeps_it() -> None:
    from engine.record import record_to_json

    def with_maybe(maybe: object) -> dict[str, object]:
        rec = _unsure(record(["S:AS W:3D N:4S E:5S"]), 1, "W", "3D")
        rec["tricks"][0]["plays"][1]["maybe"] = maybe  # type: ignore[index]
        return rec

    kept = record_to_json(load_record(with_maybe({"3D": "3S"})))
    assert kept["tricks"][0]["plays"][1]["maybe"] == {"3D": "3S"}
    with pytest.raises(RecordError, match="maybe names AS, not an unsure card of the play"):
        load_record(with_maybe({"AS": "3S"}))
    with pytest.raises(RecordError, match="maybe gives 3D as itself"):
        load_record(with_maybe({"3D": "3D"}))
    with pytest.raises(RecordError, match="maybe: "):
        load_record(with_maybe({"3D": "3X"}))
    with pytest.raises(RecordError, match="maybe must map unsure cards to other cards"):
        load_record(with_maybe(["3S"]))


def test_an_out_of_turn_lead_is_to_check_when_the_trick_before_was_read_unsurely() -> None:
    # who was to lead trick 2 is who won trick 1: W's "3S" might be a trump that won it
    tricks = ["S:AS W:3S N:4S E:5S", "W:KS N:7S E:8S S:6S"]
    assert kinds(run(tricks)) == [("out_of_turn", "W", 2)]
    assert not run(tricks).infractions[0].to_check
    report = audit(load_record(_unsure(record(tricks), 1, "W", "3S")))
    assert report.infractions[0].to_check


def test_a_play_of_the_wrong_count_is_to_check_when_its_cards_were_read_unsurely() -> None:
    # two fanned 10Cs, one read unsurely: the camera may have missed the one under it
    tricks = ["S:AS,AS W:10C N:4S,4S E:5S,6S"]
    assert not run(tricks).infractions[0].to_check
    report = audit(load_record(_unsure(record(tricks), 1, "W", "10C")))
    assert kinds(report) == [("card_count", "W", 1)] and report.infractions[0].to_check


def test_a_seat_seen_but_unread_makes_its_missing_play_a_question_and_the_record_keeps_it() -> None:
    from engine.record import record_to_json

    tricks: list[dict[str, object]] = [trick("S:AS W:3S N:4S"), trick("S:KS W:6S N:7S E:8S")]
    report = run(tricks)
    assert kinds(report) == [("card_count", "E", 1)] and not report.infractions[0].to_check
    tricks[0]["unread"] = ["E"]
    rec = load_record(record(tricks))
    (inf,) = audit(rec).infractions
    assert inf.to_check and "cards unread (E, trick 1)" in inf.proof
    assert record_to_json(rec)["tricks"][0]["unread"] == ["E"]
    tricks[0]["unread"] = ["W"]
    with pytest.raises(RecordError, match="trick 1 unread names W, which played there"):
        load_record(record(tricks))


def test_a_question_carries_no_penalty_until_a_referee_confirms_it() -> None:
    from engine.audit import rescore

    plays = ["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]
    assert run(plays).penalties["against_defenders"] == 10  # W's revoke, read surely
    report = audit(load_record(_unsure(record(plays), 1, "W", "3D")))
    assert report.infractions[0].to_check and report.penalties["against_defenders"] == 0
    assert rescore(report, [0]).penalties["against_defenders"] == 10  # confirmed: it counts


def test_a_revoke_in_question_leaves_the_trick_to_its_winner_until_confirmed() -> None:
    from engine.audit import rescore

    # under revoke_cannot_win, W's 3H trump won the trick it revoked in
    knob = {"rule_overrides": {"revoke_cannot_win": True}}
    plays = ["S:AS W:3H N:4S E:5S", "W:KS N:6S E:7S S:8S"]
    assert run(plays, **knob).tricks[0].points_to == "S"
    report = audit(load_record(_unsure(record(plays, **knob), 1, "W", "3H")))
    assert report.infractions[0].to_check and report.tricks[0].points_to == "W"
    assert rescore(report, [0]).tricks[0].points_to == "S"
