"""The auditor, trick by trick (VARIANTS.md §1, §4, §6, §7, §10, §11).

Default record: rules XX (clockwise, so S leads and W, N, E follow), level 2, trump ♥.
"""

from __future__ import annotations

import json

import pytest

from engine.audit import CardCheck, audit, rescore
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


def test_out_of_turn_is_to_check_when_the_upstreams_cards_were_read_unsurely() -> None:
    # W led; N's big joker, read in doubt, was read 0.7 s after E's card landed: a card read
    # unsurely may have lain unread before its read, so who played first is for the referee
    tricks = ["W:5D E:SJ N:BJ S:5S"]
    assert kinds(run(tricks, declarer="W")) == [("out_of_turn", "E", 1)]
    assert not run(tricks, declarer="W").infractions[0].to_check
    report = audit(load_record(_unsure(record(tricks, declarer="W"), 1, "N", "BJ")))
    assert kinds(report) == [("out_of_turn", "E", 1)] and report.infractions[0].to_check
    report = audit(load_record(_unsure(record(tricks, declarer="W"), 1, "E", "SJ")))
    assert not report.infractions[0].to_check  # the early play's own doubt makes it no later


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


# ----------------------------------------------------------------- §4 card order in a trick


def test_nt_red_five_star_trumps_the_big_joker_and_every_heart() -> None:
    # VARIANTS.md §4 trump_order: NT 「大王小王連對、紅五星、大王、小王」 000 L37 (NT clockwise)
    assert run(["S:BJ W:5H N:3S E:4S"], rules="NT", trump="S").tricks[0].winner == "W"
    assert run(["S:AH W:5H N:3H E:4H"], rules="NT", trump="S").tricks[0].winner == "W"
    # XX has the standard ladder: ♥5 is a heart, the big joker wins
    assert run(["S:BJ W:5H N:3S E:4S"], trump="S").tricks[0].winner == "S"


def test_nt_a_red_five_lead_is_a_trump_lead_the_followers_must_answer_with_trumps() -> None:
    # 000 L37: the 紅五星 is a trump, so a heart played to it while holding trumps is 吃蒼蠅
    plays = ["S:5H W:3H N:3S E:4S", "N:AS W:BJ E:5S S:6S"]
    report = run(plays, rules="NT", trump="S")
    assert ("revoke", "W", 1) in kinds(report)


def test_offsuit_level_cards_tie_and_the_first_played_wins_unless_ranked_by_suit() -> None:
    # VARIANTS.md §4 offsuit_level_equal: HF 「除主花色外，其他花色級牌、副牌之間無大小區別」
    # 004 L25 (HF counter-clockwise: S, E, N, W); level 8, trump ♠
    plays = ["S:8D E:8H N:3S W:4S"]
    levels = {"NS": "8", "EW": "8"}
    assert run(plays, rules="HF", trump="S", levels=levels).tricks[0].winner == "S"
    ranked = run(
        plays,
        rules="HF",
        trump="S",
        levels=levels,
        rule_overrides={"offsuit_level_equal": False},
    )
    assert ranked.tricks[0].winner == "E"  # ♥8 over ♦8 by NT's suit order (000 L37)


def test_hf_equal_cards_of_a_suit_go_to_the_first_played() -> None:
    # VARIANTS.md §4 tie_rule: HF 「每輪中相同花色，相同大小的牌以先出為大」 004 L26,
    # 「同等大小的牌以先出為大」 004 L41 (HF counter-clockwise: S, E, N, W)
    assert run(["S:3S E:AS N:AS W:4S"], rules="HF").tricks[0].winner == "E"
    ruffs = run(["S:3S E:6H N:6H W:4S"], rules="HF")  # two equal trumps on a spade lead
    assert ruffs.tricks[0].winner == "E"
    assert ruffs.tricks[0].points == 0


def test_ly_a_trump_tractor_beats_two_higher_loose_pairs_against_a_throw_of_pairs() -> None:
    # VARIANTS.md §4 「連對子大於兩個不連的對子」 LY 000 L90 (LY counter-clockwise: S, E, N, W);
    # level 8, trump ♠: S throws ♥A♥A ♥Q♥Q, E ruffs with ♠3♠3♠4♠4, N with ♠K♠K♠J♠J
    plays = ["S:AH,AH,QH,QH E:3S,3S,4S,4S N:KS,KS,JS,JS W:3C,4C,5C,6C"]
    levels = {"NS": "8", "EW": "8"}
    ly = run(plays, rules="LY", trump="S", levels=levels)
    assert ly.tricks[0].winner == "E"
    assert kinds(ly) == []
    # HF 「單張、對子、連對三種牌型之間不能比較大小」 004 L37: the higher pairs win
    assert run(plays, rules="HF", trump="S", levels=levels).tricks[0].winner == "N"


def test_a_side_suit_tractor_with_a_trump_pair_inside_is_a_mixed_lead_in_every_profile() -> None:
    # VARIANTS.md §5 trump cards inside side-suit tractors: NT 「主牌不得參加副牌姊妹對」 000 L40,
    # XX 「主牌不得下放在副牌中使用」 002 L48, B 「花色是同類，主牌是同類」 001 L10–11,
    # HF 「花色相同」 004 L30; level 8, trump ♠: the ♥8 pair is a trump — 10 a card
    # (「每張牌罰10分」 000 L12)
    plays = ["S:7H,7H,8H,8H,9H,9H W:3C,4C,5C,6C,7C,9C N:3D,4D,5D,6D,7D,9D E:3H,4H,5H,6H,10H,JH"]
    for rules in ("NT", "XX", "B", "HF"):
        report = run(plays, rules=rules, trump="S", levels={"NS": "8", "EW": "8"})
        throws = [i for i in report.infractions if i.kind == "failed_throw"]
        assert [(i.seat, i.penalty, i.proof_data["kind"]) for i in throws] == [
            ("S", 60, "mixed_lead")
        ], rules


# ----------------------------------------------------------------- §7 throws


THROW_OF_A_TRACTOR = "S:QH,QH,JH,JH,AH W:KH,KH,3H,4H,5H N:6H,7H,8H,9H,10H E:3C,4C,5C,6C,7C"


def test_xx_and_b_judge_a_thrown_tractor_pair_by_pair() -> None:
    # VARIANTS.md §7 throw_legal: XX 「甩牌中只要有一张牌或一对牌比其他人手中牌小」 002 L58,
    # B 001 L24; level 2, trump ♠: W's ♥K♥K pair is bigger than the pairs of the ♥Q♥Q♥J♥J tractor
    for rules in ("XX", "B"):
        report = run([THROW_OF_A_TRACTOR], rules=rules, trump="S")
        ((inf),) = [i for i in report.infractions if i.kind == "failed_throw"]
        assert (inf.seat, inf.proof_data["by"], inf.proof_data["beaten_by"]) == (
            "S",
            "W",
            ["KH", "KH"],
        ), rules


def test_hf_judges_each_unit_of_a_throw_a_tractor_only_by_a_tractor() -> None:
    # VARIANTS.md §7 throw_legal: HF 「同時有當前最大單張和最大對子（包括連對）時，也可一起打出」
    # 004 L35, 「單張、對子、連對三種牌型之間不能比較大小」 004 L37
    hf_order = "S:QH,QH,JH,JH,AH E:3C,4C,5C,6C,7C N:6H,7H,8H,9H,10H W:KH,KH,3H,4H,5H"
    assert kinds(run([hf_order], rules="HF", trump="S")) == []  # HF: S, E, N, W
    over = run(
        [THROW_OF_A_TRACTOR], rules="XX", trump="S", rule_overrides={"throw_legal": "each_unit"}
    )
    assert kinds(over) == []


def test_hf_a_throw_is_judged_on_what_the_others_still_hold_played_cards_out() -> None:
    # 004 L34–35: 「玩家手中牌為梅花k一張、梅花對j，此時外面已打出梅花對a、梅花對q，該玩家即可
    # 將梅花k與梅花對j同時打出」 — N's ♣A♣A ♣Q♣Q went in trick 1, so ♣K + ♣J♣J is good in
    # trick 2 although W holds the other ♣K (equal, not bigger); HF: N, W, S, E; trump ♥
    plays = [
        "N:AC,AC,QC,QC W:3C,4C,5C,6C S:7C,8C,9C,10C E:3C,4C,5C,6C",
        "N:KC,JC,JC W:KC,7C,8C S:3D,4D,5D E:9C,10C,3D",
    ]
    report = run(plays, rules="HF", declarer="N")
    assert kinds(report) == []
    assert [t.winner for t in report.tricks] == ["N", "N"]


def test_xx_leaves_the_unit_the_first_seat_able_to_beat_one_beats() -> None:
    # VARIANTS.md §7 throw_fail_forced: XX 「其余均为“苍蝇”…且出“苍蝇”牌」 002 L58. Trump ♠; S
    # throws ♥K + ♥9♥9; W (first after S, clockwise) beats the pair, E beats the single.
    plays = ["S:KH,9H,9H W:10H,10H,3H N:4H,5H,6H E:AH,7H,8H"]
    (inf,) = run(plays, trump="S").infractions
    assert (inf.proof_data["forced"], inf.proof_data["by"]) == (["9H", "9H"], "W")
    assert inf.penalty == 30  # 「一张牌罚10分，甩几张罚几十」 002 L58
    assert "9H 9H stays on the table" in inf.proof


def test_b_leaves_the_smallest_beaten_unit_on_the_table() -> None:
    # VARIANTS.md §7 throw_fail_forced, §11.6: B 「其餘為出錯牌…且出最小牌（如所出牌均比其他人小，
    # 全部視為出錯牌，出幾張罰幾十）」 001 L24; both units are beaten, so all three cards are fined
    b_order = ["S:KH,9H,9H E:AH,7H,8H N:4H,5H,6H W:10H,10H,3H"]  # B: S, E, N, W
    (inf,) = run(b_order, rules="B", trump="S").infractions
    assert (inf.proof_data["forced"], inf.proof_data["by"]) == (["KH"], "E")
    assert inf.penalty == 30
    plays = ["S:KH,9H,9H W:10H,10H,3H N:4H,5H,6H E:AH,7H,8H"]
    xx = run(plays, trump="S", rule_overrides={"throw_fail_forced": "smallest_beaten"})
    assert xx.infractions[0].proof_data["forced"] == ["KH"]


def test_hf_a_partner_who_held_a_beater_and_let_the_throw_stand_loses_the_game() -> None:
    # VARIANTS.md §7 partner hides a beating card: HF 「如甩牌人的對家有大於所甩的牌而故意隱瞞
    # 不說的，一經發現，判負」 004 L44 (HF: S, E, N, W; N is S's partner and holds ♠K over the
    # thrown ♠Q)
    kitty = ["3C", "3C", "4C", "4C", "6C", "6C", "7C", "7C"]
    plays = ["S:AS,QS E:6S,7S N:KS,5S W:3S,4S"]
    report = run(plays, rules="HF", finished=True, kitty=kitty)
    ((inf),) = [i for i in report.infractions if i.kind == "failed_throw"]
    assert (inf.proof_data["concealed_by"], inf.proof_data["concealed_cards"]) == ("N", ["KS"])
    assert "判负" in inf.proof
    assert report.result is not None and report.result.game_winner == "EW"
    assert {"kind": "forfeit", "side": "NS"} in report.result.steps
    # a referee who dismisses the failed throw dismisses the forfeit with it
    kept = rescore(report, [i for i, x in enumerate(report.infractions) if x is not inf])
    assert kept.result is not None and kept.result.game_winner is None
    # XX has no such rule: the failed throw alone
    xx = run(plays, finished=True, kitty=kitty)
    ((xinf),) = [i for i in xx.infractions if i.kind == "failed_throw"]
    assert xinf.proof_data["concealed_by"] is None
    assert xx.result is not None and xx.result.game_winner is None


def test_hf_a_throw_the_table_already_cut_short_hides_nothing() -> None:
    # 004 L44 「故意隱瞞不說」: when the others answered fewer cards the throw did not stand
    plays = ["S:AS,QS E:6S N:KS W:3S"]
    report = run(plays, rules="HF")
    throws = [i for i in report.infractions if i.kind == "failed_throw"]
    assert throws and throws[0].proof_data["concealed_by"] is None


# ----------------------------------------------------------------- §10 查牌, NT's withheld cards


def test_an_unfounded_card_check_is_free_the_first_time_then_ten_each() -> None:
    # VARIANTS.md §10 查牌: 「經檢查對方無誤，第一次不判罰，從第二次開始，查一次扣（或加對方）10分」
    # A 000 L21, XX 002 L63, B 001 L31
    clockwise = ["S:AS W:3S N:4S E:5S", "S:KS W:6S N:7S E:8S"]
    counter = ["S:AS E:5S N:4S W:3S", "S:KS E:8S N:7S W:6S"]  # B: S, E, N, W
    checks = [CardCheck("W", "S", 1), CardCheck("E", "N", 2), CardCheck("W", "S", 2)]
    for rules, plays in (("A", clockwise), ("XX", clockwise), ("B", counter)):
        report = audit(load_record(record(plays, rules=rules)), checks)
        found = [(i.kind, i.seat, i.trick, i.penalty) for i in report.infractions]
        assert found == [
            ("card_check", "W", 1, 0),
            ("card_check", "E", 2, 10),
            ("card_check", "W", 2, 10),
        ], rules
        assert report.penalties["against_defenders"] == 20


def test_a_founded_card_check_costs_nothing_the_infraction_is_scored() -> None:
    # 「經檢查對方存在錯誤，按違例處理」 000 L21: W checks S's trick 1, where S revoked
    rec = load_record(record(["W:AS N:5S E:4S S:3D", "W:KS N:8S E:7S S:6S"], declarer="W"))
    report = audit(rec, [CardCheck("W", "S", 1), CardCheck("W", "S", 2)])
    assert [(i.kind, i.seat, i.trick, i.penalty) for i in report.infractions] == [
        ("revoke", "S", 1, 10),
        ("card_check", "W", 2, 0),
    ]


def test_a_card_check_names_a_trick_and_seats_of_the_record() -> None:
    rec = load_record(record(["S:AS W:3S N:4S E:5S"]))
    with pytest.raises(RecordError, match="card check 1: trick 2 is not a trick of the record"):
        audit(rec, [CardCheck("W", "S", 2)])
    with pytest.raises(RecordError, match="card check 1: seats are N, E, S, W"):
        audit(rec, [CardCheck("X", "S", 1)])


def test_nt_a_withheld_card_costs_ten_a_card_whenever_it_is_proven() -> None:
    # NT has no 藏牌 rule: 「吃「蒼蠅」、出錯牌每張罰10分…以證據為準，當局結清」 000 L42 (XX: 80)
    plays = ["S:AS W:3D N:4S E:5S", "S:KC W:3C N:4C E:5C", "S:KS W:6S N:7S E:8S"]
    nt = run(plays, rules="NT")
    assert [(i.kind, i.penalty) for i in nt.infractions] == [("hidden_cards", 10)]
    # a withheld pair: 2 wrong cards, 20
    pair = [
        "S:AS,AS W:3D,4D N:4S,5S E:6S,7S",
        "S:KC W:3C N:5C E:6C",
        "S:KS,QS W:8S,8S N:9S,JS E:10S,2S",
    ]
    assert [(i.kind, i.penalty) for i in run(pair, rules="NT").infractions] == [
        ("hidden_cards", 20)
    ]
    assert [(i.kind, i.penalty) for i in run(plays).infractions] == [("hidden_cards", 80)]


def test_hf_the_partner_hid_a_beater_even_when_an_opponent_beats_the_throw_first() -> None:
    # 004 L44: E, first after S, holds ♠K♠K; N, S's partner, holds ♠K too and did not say
    plays = ["S:AS,QS E:KS,KS N:KS,5S W:3S,4S"]
    report = run(plays, rules="HF")
    ((inf),) = [i for i in report.infractions if i.kind == "failed_throw"]
    assert inf.proof_data["by"] == "E"
    assert inf.proof_data["concealed_by"] == "N"


def test_a_card_check_finding_only_a_slow_play_is_unfounded() -> None:
    # 「對對方前面出牌表示疑問…經檢查對方存在錯誤」 000 L20–21: a check looks at the cards played
    plays = [trick("S:AS W:3S N:4S E:5S", [50.0, 70.0, 71.0, 72.0])]
    rec = load_record(record(plays, kitty_buried_t=41.0))
    report = audit(rec, [CardCheck("S", "W", 1), CardCheck("S", "W", 1)])
    assert [(i.kind, i.seat, i.penalty) for i in report.infractions] == [
        ("card_check", "S", 0),
        ("card_check", "S", 10),
        ("overtime", "W", 0),
    ]
