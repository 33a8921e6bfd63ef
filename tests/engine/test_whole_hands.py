"""Whole simulated hands (25 tricks) under the rules that change a hand's result: NT's
declaration jump, the 查牌 count and HF's concealed beater, with expectations from the text.

The simulator deals and plays legal hands; the test picks the first seed whose hand fits, adds
what the rule needs (a shown declaration, card checks) and audits the record as a table would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from engine.audit import AuditReport, CardCheck, audit
from engine.cards import other_side, side_of
from engine.record import load_record
from engine.simulate import simulate_hand

JOKER_TRACTOR = ["BJ", "BJ", "SJ", "SJ"]


def first_hand_where(
    rules: str, fits: Callable[[dict[str, Any], AuditReport], bool]
) -> tuple[dict[str, Any], AuditReport]:
    for seed in range(300):
        record, truth = simulate_hand(rules, seed)
        if truth:
            continue
        # the bidding left out: nobody showed a joker tractor or 紅五星 pair
        record = {k: v for k, v in record.items() if k != "before_play"}
        report = audit(load_record(record))
        if report.result is not None and not report.infractions and fits(record, report):
            return record, report
    raise AssertionError(f"no simulated {rules} hand fits")


def declarer_points(report: AuditReport) -> int:
    side = report.declarer_side
    won = sum(t.points for t in report.tricks if t.points_to and side_of(t.points_to) == side)
    return won + (report.kitty.points if report.kitty.won_by_defenders is False else 0)


def shown_by(record: dict[str, Any], seat: str) -> dict[str, Any]:
    return {**record, "before_play": [{"seat": seat, "action": "declare", "cards": JOKER_TRACTOR}]}


def test_nt_declarers_who_showed_the_joker_tractor_go_to_a_when_the_defenders_stay_under_80() -> (
    None
):
    # NT 「「大王小王連對「、「紅五星對」亮相反牌後，如果是主打方亮相對方未拿滿80分則主打方直接打a，
    # 台下方打2」 000 L45
    record, plain = first_hand_where(
        "NT",
        lambda r, rep: (
            rep.result is not None
            and rep.result.defender_total < 80
            and "A" not in rep.result.levels_before.values()
        ),
    )
    report = audit(load_record(shown_by(record, record["declarer"])))
    assert report.result is not None and plain.result is not None
    side = report.declarer_side
    assert report.result.levels_after == {side: "A", other_side(side): "2"}
    assert plain.result.levels_after[side] != "A"  # without the shown tractor: the formula


def test_nt_defenders_who_showed_it_go_to_a_when_the_declarers_take_under_80() -> None:
    # NT 「如果是台下方亮相後而主打方未拿滿80分則台下方直接打a，主打方打2」 000 L45
    record, _ = first_hand_where("NT", lambda r, rep: declarer_points(rep) < 80)
    defender = {"N": "E", "E": "S", "S": "W", "W": "N"}[record["declarer"]]
    report = audit(load_record(shown_by(record, defender)))
    assert report.result is not None
    side = side_of(defender)
    assert report.result.levels_after == {side: "A", other_side(side): "2"}
    assert report.result.next_declarer != record["declarer"]


def test_nt_a_shown_tractor_changes_nothing_when_the_other_side_reached_80() -> None:
    # 000 L45: only 「未拿滿80分」 triggers the jump
    record, plain = first_hand_where(
        "NT", lambda r, rep: rep.result is not None and rep.result.defender_total >= 80
    )
    report = audit(load_record(shown_by(record, record["declarer"])))
    assert report.result == plain.result


def test_xx_card_checks_over_a_whole_hand_cost_ten_from_the_second_unfounded_one() -> None:
    # 「經檢查對方無誤，第一次不判罰，從第二次開始，查一次扣（或加對方）10分」 XX 002 L63
    record, plain = first_hand_where("XX", lambda r, rep: True)
    declarer = record["declarer"]
    defender = {"N": "E", "E": "S", "S": "W", "W": "N"}[declarer]
    checks = [CardCheck(defender, declarer, n) for n in (2, 5, len(record["tricks"]))]
    report = audit(load_record(record), checks)
    assert [i.penalty for i in report.infractions] == [0, 10, 10]
    assert report.penalties["to_defenders"] == -20
    assert report.result is not None and plain.result is not None
    assert report.result.defender_total == max(plain.result.defender_total - 20, 0)


def test_nt_a_withheld_card_in_a_whole_hand_costs_ten_a_card_not_eighty() -> None:
    # NT 「吃「蒼蠅」、出錯牌每張罰10分…以證據為準，當局結清」 000 L42 — no 藏牌 of 80
    for seed in range(100):
        record, truth = simulate_hand("NT", seed, ["hidden_cards"])
        if [t["kind"] for t in truth] == ["hidden_cards"]:
            break
    else:
        raise AssertionError("no NT hand with a planted hidden card")
    (inf,) = audit(load_record(record)).infractions
    assert inf.kind == "hidden_cards"
    assert len(inf.proof_data["lead_cards"]) == 1  # a single withheld: one wrong card
    assert inf.penalty == 10
    others = {"penalty_hidden_card": 80, "penalty_hidden_card_per_card": False}  # XX's 藏牌
    (eighty,) = audit(load_record({**record, "rule_overrides": others})).infractions
    assert (eighty.kind, eighty.penalty) == ("hidden_cards", 80)


def test_a_zero_made_by_unfounded_checks_is_da_guang_in_a_only() -> None:
    # A 「如抓分方為0分（大光）或因罰分為負分」 000 L10; HF 「台下罰分罰至0分為止」 004 L43 and
    # 「主叫方打大光」 004 L11, L13: a 0 the penalties made follows the formula
    for rules, to_a in (("A", True), ("HF", False)):
        record, plain = first_hand_where(
            rules,
            lambda r, rep: (
                rep.result is not None
                and 0 < rep.result.defender_total <= 40
                and rep.result.levels_before[rep.declarer_side] in ("3", "4", "5")
            ),
        )
        declarer = record["declarer"]
        defender = {"N": "E", "E": "S", "S": "W", "W": "N"}[declarer]
        assert plain.result is not None
        n = plain.result.defender_total // 10 + 2  # the first is free
        report = audit(load_record(record), [CardCheck(defender, declarer, 1)] * n)
        assert report.result is not None
        assert report.result.defender_total <= 0
        after = report.result.levels_after[report.declarer_side]
        assert (after == "A") is to_a, rules
