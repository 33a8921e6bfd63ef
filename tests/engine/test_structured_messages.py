"""Every message the engine gives a page is data: an infraction's proof (``proof_data``) and each
step of a hand's settlement (``steps``) carry a kind and the facts — trick, seat, cards,
numbers, the deciding knob — from which a page writes the sentence in its own language. The
facts alone give back the English sentence the CLI and reports print."""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from engine.audit import (
    KINDS,
    PROOF_KINDS,
    REFEREE_KINDS,
    AuditReport,
    CardCheck,
    audit,
    proof_text,
)
from engine.profiles import get_profile
from engine.record import load_record
from engine.scoring import STEP_KINDS, HandOutcome, explain, settle_hand
from tests.builders import record, run, trick


def _with_hands(tricks: list[str], hands: dict[str, list[str]]) -> AuditReport:
    return audit(load_record(record(tricks, hands=hands, finished=False)))


# A hand whose audit gives a proof of each kind (several where the kind has variants).
PROOF_CASES: dict[str, list[Callable[[], AuditReport]]] = {
    "out_of_turn": [lambda: run(["S:KS,KS N:3S,4S W:5S,5S E:6S,7S"])],
    "mixed_lead": [lambda: run(["S:AS,AD W:3S,3D N:4S,4D E:5S,5D"])],
    "no_play": [lambda: run(["S:AS W:3S N:4S", "S:KS W:6S N:7S E:8S"])],
    "play_count": [
        lambda: run(["S:KS,KS W:3S N:5S,6S E:7S,8S"]),  # against the lead
        lambda: run(["S:KS W:3S,4S N:5S,6S E:7S,8S"]),  # against the three others
    ],
    "bury_time": [lambda: run([], kitty_taken_t=10.0, kitty_buried_t=75.0)],
    "play_time": [
        lambda: run([trick("S:KS W:AS N:3S E:4S", [50.0, 60.0, 76.5, 80.0])], kitty_buried_t=41.0),
        lambda: run([trick("S:KS W:AS N:3S E:4S", [60.0, 61.0, 62.0, 63.0])], kitty_buried_t=41.0),
    ],
    "not_in_hand": [
        lambda: _with_hands(
            ["S:AS W:6S N:4S E:5S"], {"S": ["AS"], "W": ["3S"], "N": ["4S"], "E": ["5S"]}
        ),
    ],
    "follow": [
        lambda: run(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"]),  # revoke, a suit
        lambda: run(["S:AS W:3D N:4S E:5S", "S:KC W:3C N:4C E:5C", "S:KS W:6S N:7S E:8S"]),
        lambda: run(["S:KS,KS W:3S,4S N:5S,6S E:7S,8S", "S:AD,AD W:9S,9S N:3D,3D E:4D,5D"]),
        lambda: run(
            [
                "S:KS,KS,QS,QS E:3S,3S,6S,7S N:5S,5S,9S,10S W:8S,8S,JS,JS",
                "S:AD,AD E:4S,4S N:3D,3D W:4D,5D",
            ],
            rules="B",
            rule_overrides={"follow_pair": False},
        ),  # a tractor
        lambda: _with_hands(
            ["S:AS W:3D N:4S E:5S"], {"S": ["AS"], "W": ["3D", "6S"], "N": ["4S"], "E": ["5S"]}
        ),
        lambda: run(["S:2H W:3D N:4H E:5H", "S:6H W:7H N:8H E:9H"]),  # trumps led
    ],
    "throw": [
        lambda: run(["S:AS,QS W:KS,3S N:4S,5S E:6S,7S"]),
        lambda: run(["S:KS,QS,QS E:AS,3S,4S N:5S,6S,7S W:8S,9S,10S"], rules="B"),
        lambda: _with_hands(
            ["S:AS,QS W:3S,4S N:5S,6S E:7S,8S"],
            {"S": ["AS", "QS"], "W": ["3S", "4S", "KS"], "N": ["5S", "6S"], "E": ["7S", "8S"]},
        ),
    ],
    "kitty_count": [lambda: run([], kitty=["3C"] * 2 + ["4C", "5C", "6C", "7C", "8C"])],
    "third_copy": [
        lambda: run(["S:AS W:3S N:4S E:5S", "S:AS W:3S N:6S E:7S", "S:8S W:3S N:9S E:10S"]),
        lambda: run(
            ["S:AS W:3S N:4S E:5S", "S:AS W:6S N:7S E:8S"],
            kitty=["AS"] + ["3C"] * 2 + ["4C", "5C", "6C", "7C", "8C"],
        ),
    ],
    "copies": [
        lambda: _with_hands(
            ["S:AS W:3S N:4S E:5S"],
            {"S": ["AS", "AS"], "W": ["3S", "AS"], "N": ["4S"], "E": ["5S"]},
        ),
    ],
    "hand_count": [lambda: run(["S:AS W:3S N:4S E:5S"], finished=True)],
    "card_check": [
        lambda: audit(
            load_record(record(["S:AS W:3S N:4S E:5S"])),
            [CardCheck("W", "S", 1), CardCheck("E", "S", 1)],  # the first free, then 10
        )
    ],
}
PROOF_CASES["throw"].append(  # HF: the partner held a beater and did not say (判負)
    lambda: run(["S:AS,QS E:6S,7S N:KS,5S W:3S,4S"], rules="HF")
)


def proofs_of(kind: str) -> list[tuple[Any, dict[str, Any]]]:
    """(infraction, its ``proof_data`` as the JSON API serves it) for every proof of ``kind``."""
    out = []
    for case in PROOF_CASES[kind]:
        for inf in case().infractions:
            served = json.loads(json.dumps(inf.to_json()))["proof_data"]
            if served["kind"] == kind:
                out.append((inf, served))
    return out


@pytest.mark.parametrize("kind", PROOF_KINDS)
def test_each_proof_kind_carries_the_facts_its_sentence_is_made_of(kind: str) -> None:
    found = proofs_of(kind)
    assert len(found) >= len(PROOF_CASES[kind]), f"a case gave no {kind} proof"
    for inf, data in found:
        assert proof_text(data) == inf.proof  # the facts alone give the sentence back
        if "trick" in data:
            assert data["trick"] == inf.trick
        if "seat" in data:
            assert data["seat"] == inf.seat
        if "cards" in data:
            assert data["cards"] == list(inf.cards)


def test_every_infraction_kind_has_a_proof_case() -> None:
    seen = {inf.kind for kind in PROOF_KINDS for inf, _ in proofs_of(kind)}
    assert seen == set(KINDS) | set(REFEREE_KINDS)


def test_a_follow_proof_names_the_obligation_the_suit_the_basis_and_the_knob() -> None:
    ((_, hidden),) = proofs_of_case("follow", 1)
    assert {k: hidden[k] for k in ("obligation", "needed", "suit", "basis", "later_cards")} == {
        "obligation": "suit", "needed": 1, "suit": "S", "basis": "later", "later_cards": ["6S"],
    }  # fmt: skip
    assert (hidden["found_at"], hidden["delay"], hidden["verdict"]) == (3, 2, "hidden_cards")
    assert (hidden["knob"], hidden["hidden_after"]) == ("hidden_card_after_tricks", 2)
    ((_, trumps),) = proofs_of_case("follow", 5)
    assert trumps["suit"] == "trump"
    ((_, from_hand),) = proofs_of_case("follow", 4)
    assert (from_hand["basis"], from_hand["held"]) == ("hand", 1)


def proofs_of_case(kind: str, index: int) -> list[tuple[Any, dict[str, Any]]]:
    infs = PROOF_CASES[kind][index]().infractions
    return [(i, i.to_json()["proof_data"]) for i in infs if i.proof_data["kind"] == kind]


def test_an_over_time_play_is_timed_in_seconds_into_the_hand_never_by_the_clock() -> None:
    epoch = 1_796_180_000.0  # the camera's times are Unix times
    plays = trick("S:KS W:AS N:3S E:4S", [epoch + 50.0, epoch + 60.0, epoch + 76.5, epoch + 80.0])
    (inf,) = run([plays], kitty_buried_t=epoch + 41.0).infractions
    data = inf.to_json()["proof_data"]
    assert {k: data[k] for k in ("took_s", "limit_s", "from_s", "at_s", "after", "knob")} == {
        "took_s": 16.5, "limit_s": 15.0, "from_s": 19.0, "at_s": 35.5, "after": "play",
        "knob": "play_time_limit_s",
    }  # fmt: skip
    assert "16.5 s after the previous card (19.0 s → 35.5 s into the hand)" in inf.proof
    assert not re.search(r"\d{6,}|e\+0\d|t=", inf.proof)


def test_a_proof_resting_on_an_unsure_read_keeps_its_facts_and_adds_the_question() -> None:
    rec = record(["S:AS W:3D N:4S E:5S", "S:KS W:6S N:7S E:8S"])
    rec["tricks"][0]["plays"][1]["unsure"] = ["3D"]
    (inf,) = audit(load_record(rec)).infractions
    assert inf.to_check and inf.proof.startswith(proof_text(inf.proof_data) + " · 识别存疑")


# ----------------------------------------------------------------- settlement steps


def settle(profile: str, **kw: Any) -> HandOutcome:
    levels: Mapping[str, str] = kw.pop("levels", {"NS": "2", "EW": "2"})
    cards: Sequence[str] = kw.pop("cards", ())
    return settle_hand(
        get_profile(profile, kw.pop("overrides", None)),
        levels=levels,
        declarer="N",
        defender_table_points=kw.pop("table", 0),
        kitty_points=kw.pop("kitty", 0),
        kitty_multiplier=2,
        defenders_won_last_trick=kw.pop("won_last", False),
        last_trick_winning_cards=cards,
        last_trick_is_throw=False,
        penalties_to_defenders=kw.pop("penalties", 0),
        first_hand=kw.pop("first_hand", False),
        **{
            k: kw.pop(k) for k in ("declarer_points", "declaration_side", "forfeited_by") if k in kw
        },
    )


SETTLEMENTS: list[Callable[[], HandOutcome]] = [
    lambda: settle("XX", table=75),
    lambda: settle("XX", table=40, kitty=15, won_last=True, cards=["3C"], penalties=30),
    lambda: settle("XX", table=10, penalties=-30),  # the floor: zero
    lambda: settle("A", table=10, penalties=-30, levels={"NS": "4", "EW": "2"}),  # shutout
    lambda: settle("LY", table=5, penalties=-20, overrides={"penalty_floor": "none"}),
    lambda: settle("A", table=0, levels={"NS": "A", "EW": "5"}),  # a jump that wins the game
    lambda: settle("A", table=0, levels={"NS": "J", "EW": "5"}),  # a jump to A
    lambda: settle("B", table=0, levels={"NS": "3", "EW": "2"}),  # B: 大光 +9 levels
    lambda: settle("HF", table=0, first_hand=True),
    lambda: settle("HF", table=80, won_last=True, cards=["3C"], first_hand=True),
    lambda: settle("HF", table=200, levels={"NS": "5", "EW": "4"}),
    lambda: settle("XX", table=55, levels={"NS": "9", "EW": "2"}),  # must-play J
    lambda: settle("XX", table=90, levels={"NS": "5", "EW": "3"}),
    lambda: settle(
        "XX",
        table=100,
        levels={"NS": "5", "EW": "3"},
        overrides={"defender_win_demotes_declarer": True},
    ),
    lambda: settle("XX", table=40, won_last=True, cards=["JS"], levels={"NS": "J", "EW": "5"}),
    lambda: settle("XX", table=70, levels={"NS": "A", "EW": "2"}),  # passes A
    lambda: settle(
        "XX",
        table=55,
        levels={"NS": "9", "EW": "6"},
        overrides={"surplus_rule": "demotes_opponents"},
    ),
    lambda: settle("NT", table=40, levels={"NS": "5", "EW": "3"}, declaration_side="NS"),
    lambda: settle(
        "NT", table=150, levels={"NS": "5", "EW": "3"}, declaration_side="EW", declarer_points=50
    ),
    lambda: settle("HF", table=30, levels={"NS": "5", "EW": "3"}, forfeited_by="NS"),
]


def test_each_settlement_line_is_the_rendering_of_a_step_of_data() -> None:
    seen: set[str] = set()
    for make in SETTLEMENTS:
        out = make()
        steps = json.loads(json.dumps(out.steps))  # as the JSON API serves them
        assert tuple(explain(step) for step in steps) == out.explanation
        seen |= {step["kind"] for step in steps}
    assert seen == set(STEP_KINDS)


def test_a_finished_hands_result_json_carries_its_steps() -> None:
    kitty = ["3C", "3C", "4C", "5C", "6C", "7C", "8C", "9C"]
    result = run(["S:AS W:3S N:4S E:5S"], finished=True, kitty=kitty).to_json()["result"]
    assert result["steps"][0]["kind"] == "defender_total"
    assert result["steps"][0]["total"] == result["defender_total"]
    assert [explain(s) for s in result["steps"]] == result["explanation"]
