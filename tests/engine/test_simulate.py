"""The hand simulator: deterministic, valid, conserving, legal, and truthful about what it plants.

The truth comes from the simulator; these tests check the auditor agrees with it on simulated
records (the auditor never decides the truth).
"""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from engine.audit import audit
from engine.cards import SEATS, full_deck, points
from engine.order import HandOrder
from engine.profiles import PROFILE_NAMES, get_profile
from engine.record import load_record
from engine.simulate import INJECTABLE, camera_record, off_camera, simulate_hand
from engine.tricks import read_lead
from tests.builders import all_cards

SCHEMA = Path(__file__).resolve().parents[2] / "engine" / "schema" / "hand-record.schema.json"


def found(record: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    report = audit(load_record(record))
    return sorted(((i.kind, i.seat, i.trick) for i in report.infractions), key=str)


def expected(truth: list[dict[str, Any]]) -> list[tuple[str, str, int | None]]:
    return sorted(((t["kind"], t["seat"], t["trick"]) for t in truth), key=str)


def test_the_same_seed_gives_the_same_record_and_truth() -> None:
    for kinds in ([], ["revoke", "out_of_turn"]):
        assert simulate_hand("XX", 42, kinds) == simulate_hand("XX", 42, kinds)
    assert simulate_hand("B", 7, with_hands=True) == simulate_hand("B", 7, with_hands=True)


def test_different_seeds_give_different_deals() -> None:
    records = [simulate_hand("XX", seed)[0] for seed in range(6)]
    as_text = {json.dumps(r, sort_keys=True) for r in records}
    assert len(as_text) == 6
    assert len({json.dumps(r["tricks"][0]) for r in records}) > 1


def test_every_simulated_record_loads_and_matches_the_schema() -> None:
    records = [
        simulate_hand(rules, seed, kinds, with_hands=seed % 2 == 0, with_times=seed % 3 != 0)[0]
        for seed, rules in enumerate(PROFILE_NAMES)
        for kinds in ([], list(INJECTABLE))
    ]
    for record in records:
        load_record(record)
    import jsonschema

    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    for record in records:
        jsonschema.validate(record, schema)


def test_a_clean_deal_conserves_all_108_cards_and_200_points() -> None:
    for seed in range(10):
        record, truth = simulate_hand(PROFILE_NAMES[seed % len(PROFILE_NAMES)], seed)
        assert truth == []
        assert Counter(all_cards(record)) == Counter(full_deck())
        assert points(all_cards(record)) == 200
        assert len(record["kitty"]) == 8
        assert record["finished"] is True


def test_recorded_hands_are_25_cards_after_burying_and_are_what_each_seat_plays() -> None:
    record, _ = simulate_hand("HF", 11, with_hands=True)
    for seat in SEATS:
        held = record["hands"][seat]
        played = [
            c for t in record["tricks"] for p in t["plays"] if p["seat"] == seat for c in p["cards"]
        ]
        assert len(held) == 25
        assert Counter(held) == Counter(played)


def test_times_stay_within_the_profile_limits_on_a_clean_hand() -> None:
    record, _ = simulate_hand("A", 5)
    p = get_profile("A")
    assert p.bury_time_limit_s is not None and p.play_time_limit_s is not None
    bidding = [e["t"] for e in record["before_play"]]
    assert record["draw"]["t"] == 0.0 and bidding == sorted(bidding)
    assert bidding[-1] == record["kitty_buried_t"] and record["kitty_taken_t"] in bidding
    assert 0 < record["kitty_buried_t"] - record["kitty_taken_t"] <= p.bury_time_limit_s
    prev = record["kitty_buried_t"]
    for trick in record["tricks"]:
        for play in trick["plays"]:
            assert 0 < play["t"] - prev <= p.play_time_limit_s
            prev = play["t"]
    untimed, _ = simulate_hand("A", 5, with_times=False)
    assert "kitty_taken_t" not in untimed and "t" not in untimed["draw"]
    assert all("t" not in p for t in untimed["tricks"] for p in t["plays"])
    assert all("t" not in e and "revealed_t" not in e for e in untimed["before_play"])


@pytest.mark.parametrize("rules", PROFILE_NAMES)
def test_clean_simulated_hands_audit_with_no_infraction(rules: str) -> None:
    for seed in range(4):
        for with_hands in (False, True):
            record, truth = simulate_hand(rules, seed * 101 + 3, with_hands=with_hands)
            assert truth == []
            report = audit(load_record(record))
            assert report.infractions == [], (seed, with_hands)
            assert report.finished and report.result is not None
            assert sum(t.points for t in report.tricks) + report.kitty.points == 200


def test_clean_hands_also_audit_clean_under_rule_overrides() -> None:
    overrides: list[dict[str, Any]] = [
        {"throw_partner_can_defeat": False},
        {"follow_pair": False, "follow_tractor": False},
        {"tractor_wrap_a2": True, "tractor_hollow": False},
        {"direction": "counterclockwise"},
    ]
    for i, ovr in enumerate(overrides):
        record, _ = simulate_hand("XX", 900 + i, overrides=ovr, with_hands=i % 2 == 0)
        assert record["rule_overrides"] == ovr
        assert found(record) == []


def test_simulated_hands_are_varied_with_throws_tractors_and_trumping_in() -> None:
    shapes: Counter[str] = Counter()
    for seed in range(12):
        record, _ = simulate_hand("XX", seed)
        order = HandOrder(
            record["levels"]["NS" if record["declarer"] in "NS" else "EW"],
            record["trump"],
            get_profile("XX"),
        )
        for trick in record["tricks"]:
            lead = read_lead(order, trick["plays"][0]["cards"])
            if lead.is_throw:
                shapes["throw"] += 1
            elif lead.longest_tractor:
                shapes["tractor"] += 1
            elif lead.pairs:
                shapes["pair"] += 1
            for play in trick["plays"][1:]:
                if lead.cls != "T" and all(order.is_trump(c) for c in play["cards"]):
                    shapes["trumped in"] += 1
        if points(record["kitty"]):
            shapes["points buried"] += 1
    assert set(shapes) == {"throw", "tractor", "pair", "trumped in", "points buried"}, shapes


@pytest.mark.parametrize("kind", INJECTABLE)
def test_each_planted_kind_alone_is_found_with_its_seat_and_trick_and_nothing_else(
    kind: str,
) -> None:
    for seed in range(3):
        rules = PROFILE_NAMES[(seed * 3 + INJECTABLE.index(kind)) % len(PROFILE_NAMES)]
        for with_hands in (False, True):
            record, truth = simulate_hand(rules, seed, [kind], with_hands=with_hands)
            assert found(record) == expected(truth), (rules, seed, with_hands)
            if kind == "duplicate_card" and with_hands:
                assert truth == []
                continue
            want = "revoke" if kind == "hidden_cards" and with_hands else kind
            if kind == "illegal_chao" and get_profile(rules).illegal_chao_is_false_declaration:
                want = "false_declaration"  # HF 「不具備炒底資格而假炒底的」 004 L48
            assert [t["kind"] for t in truth] == [want], (rules, seed, with_hands)


def test_all_kinds_planted_together_land_in_different_tricks_and_are_all_found() -> None:
    for seed in range(3):
        record, truth = simulate_hand("XX", seed, list(INJECTABLE))
        assert found(record) == expected(truth)
        assert {t["kind"] for t in truth} == set(INJECTABLE)
        tricks = [t["trick"] for t in truth if t["trick"] is not None]
        assert len(tricks) == len(set(tricks))


def test_the_kitty_count_fault_keeps_every_hand_consistent() -> None:
    for seed in range(3, 9):
        record, truth = simulate_hand("XX", seed, ["kitty_count"], with_hands=True)
        # the seat that buried it last, after any 炒: 「莊家（或非莊家）扣下的底牌張數多於或少於
        # 8張，均罰錯扣方80分」 001 L16
        burier = [e["seat"] for e in record["before_play"] if e["action"] == "bury"][-1]
        assert truth == [{"kind": "kitty_count", "seat": burier, "trick": None}]
        size = len(record["kitty"])
        assert size in (7, 9)
        assert len(record["hands"][burier]) == 25 + 8 - size
        assert Counter(all_cards(record)) == Counter(full_deck())
    assert Counter(all_cards(record)) == Counter(full_deck())


def test_kinds_that_cannot_be_planted_are_absent_from_the_truth() -> None:
    record, truth = simulate_hand("XX", 1, ["overtime"], with_times=False)
    assert truth == [] and found(record) == []
    record, truth = simulate_hand("XX", 1, ["overtime"], overrides={"play_time_limit_s": None})
    assert truth == [] and found(record) == []
    record, truth = simulate_hand("XX", 1, ["duplicate_card"], with_hands=True)
    assert truth == [] and found(record) == []


def test_the_proof_delay_decides_revoke_or_hidden_cards_per_profile_knob() -> None:
    ovr = {"hidden_card_after_tricks": 3}
    record, truth = simulate_hand("XX", 4, ["hidden_cards"], overrides=ovr)
    assert [t["kind"] for t in truth] == ["hidden_cards"]
    assert found(record) == expected(truth)
    record, truth = simulate_hand("XX", 4, ["revoke"], overrides={"hidden_card_after_tricks": 1})
    assert [t["kind"] for t in truth] == ["hidden_cards"]
    assert found(record) == expected(truth)


def test_an_unknown_kind_is_refused() -> None:
    with pytest.raises(ValueError, match="cannot plant"):
        simulate_hand("XX", 1, ["cheating"])


BEFORE_PLAY_KINDS = ("false_declaration", "illegal_chao", "bury_violation", "kitty_draw_error")


@pytest.mark.parametrize("rules", PROFILE_NAMES)
@pytest.mark.parametrize("kind", [*BEFORE_PLAY_KINDS, "exposed_card", "takeback"])
def test_each_fault_before_play_or_beside_the_tricks_is_found_under_every_profile(
    kind: str, rules: str
) -> None:
    for seed in range(3):
        for with_hands in (False, True):
            record, truth = simulate_hand(rules, seed, [kind], with_hands=with_hands)
            assert len(truth) == 1, (seed, with_hands)
            assert found(record) == expected(truth), (seed, with_hands)


def test_an_illegal_chao_is_planted_in_each_of_its_forms() -> None:
    # 「炒过的将牌不能重复炒」 002 L41 (reused), a single (chao_cards), out of turn (chao_order),
    # before the kitty was buried, after a no-bid flip (B 「翻底牌選主後不得炒牌」 001 L3)
    reasons: Counter[str] = Counter()
    for seed in range(40):
        for rules in ("XX", "B"):
            record, truth = simulate_hand(rules, seed, ["illegal_chao"])
            report = audit(load_record(record))
            assert found(record) == expected(truth)
            reasons.update(i.proof_data["reason"] for i in report.infractions)
    assert {"single", "reused", "before_burial", "after_flip"} <= set(reasons), reasons
    assert {"turn", "closed"} & set(reasons), reasons


def test_a_false_declaration_that_ends_the_hand_leaves_a_record_without_tricks() -> None:
    # B 「暗放主牌出錯，放錯牌方判罰80分，發現時即結束此盤比賽」 001 L23
    record, truth = simulate_hand("B", 2, ["false_declaration", "revoke"])
    assert [t["kind"] for t in truth] == ["false_declaration"] and record["tricks"] == []
    report = audit(load_record(record))
    assert [i.penalty for i in report.infractions] == [80]
    assert report.finished and report.result is not None and report.defender_points == 0
    # XX is silent: listed for the referee, and the hand is played
    record, truth = simulate_hand("XX", 2, ["false_declaration"])
    assert record["tricks"] and [i.penalty for i in audit(load_record(record)).infractions] == [0]


def test_simulated_bidding_is_varied() -> None:
    seen: Counter[str] = Counter()
    for seed in range(60):
        rules = PROFILE_NAMES[seed % len(PROFILE_NAMES)]
        record, _ = simulate_hand(rules, seed, with_hands=seed % 2 == 1)
        actions = [e["action"] for e in record["before_play"]]
        seen.update(a for a in actions if a in ("chao", "pass"))
        seen["first hand"] += bool(record.get("first_hand"))
        seen["no-bid flip"] += "no_bid_flip" in record
        seen["no-trump"] += record["trump"] == "NT"
        seen["pair declared"] += any(
            e["action"] == "declare" and len(e["cards"]) == 2 for e in record["before_play"]
        )
        seen["kitty taken again"] += actions.count("take") > 1
    assert set(seen) == {
        "chao",
        "pass",
        "first hand",
        "no-bid flip",
        "no-trump",
        "pair declared",
        "kitty taken again",
    }, seen


def test_a_planted_overtime_is_never_the_first_lead_whose_clock_no_camera_sees() -> None:
    firsts = 0
    for seed in range(60):
        record, truth = simulate_hand("XX", seed, ["overtime"])
        (planted,) = truth
        first_lead = record["tricks"][0]["plays"][0]["seat"]
        firsts += planted["trick"] == 1
        assert (planted["trick"], planted["seat"]) != (1, first_lead)
        assert found(record) == expected(truth)
    assert firsts > 0  # trick 1 still gets overtimes, on its followers


def camera_found(record: dict[str, Any]) -> list[tuple[str, str, int | None]]:
    """What the audit finds in the record as the overhead camera gives it."""
    return found(camera_record(record))


def test_the_camera_sees_only_the_cards_shown_in_the_bidding() -> None:
    record, _ = simulate_hand("XX", 8103, ["illegal_chao"])
    steps = camera_record(record)["before_play"]
    assert {s["action"] for s in steps} == {"declare"}  # a 叫主 and a 炒 look alike
    shown = [e for e in record["before_play"] if e["action"] in ("declare", "chao")]
    assert [(s["seat"], s["cards"]) for s in steps] == [(e["seat"], e["cards"]) for e in shown]
    assert all("face_down" not in s for s in steps)  # turned up before it is read
    assert "kitty_taken_t" not in camera_record(record)


def test_an_illegal_chao_only_the_kitty_moves_prove_is_off_camera() -> None:
    # seed 8003: N 炒s before S buried the kitty; seed 8103: W 炒s its own kitty
    for seed in (8003, 8103):
        record, truth = simulate_hand("XX", seed, ["illegal_chao"])
        assert found(record) == expected(truth)
        assert off_camera(record, truth) == [0]
        assert not any(k[0] == "illegal_chao" for k in camera_found(record))


def test_seen_by_camera_plants_an_illegal_chao_the_cameras_view_proves() -> None:
    for seed in (8003, 8103):
        record, truth = simulate_hand("XX", seed, ["illegal_chao"], seen_by_camera=True)
        ((kind, _, _),) = expected(truth)
        assert kind == "illegal_chao" and off_camera(record, truth) == []
        assert found(record) == camera_found(record) == expected(truth)  # nothing else
    for seed in range(12):
        rules = PROFILE_NAMES[seed % len(PROFILE_NAMES)]
        record, truth = simulate_hand(rules, seed, ["illegal_chao"], seen_by_camera=True)
        assert off_camera(record, truth) == [], (rules, seed)
        assert found(record) == expected(truth), (rules, seed)


def test_seen_by_camera_leaves_the_faults_of_the_play_as_they_are() -> None:
    for kind in ("revoke", "takeback", "false_declaration"):
        assert simulate_hand("XX", 5, [kind], seen_by_camera=True) == simulate_hand("XX", 5, [kind])
