"""A hand's fold of the camera's takebacks (悔牌), exposed cards and declarations (the draw
phase): the record lists them, the audit raises its infractions, and a card read in doubt makes
them questions for the referee."""

from __future__ import annotations

from typing import Any

from chaodipi.table.hand_fold import CAMERA_HAND_KINDS, HandFold

CONTRACT: dict[str, Any] = {
    "rules": "XX",
    "rule_overrides": {},
    "levels": {"NS": "2", "EW": "2"},
    "declarer": "S",
    "trump": "NT",
}


def fold(events: list[tuple[str, dict[str, Any]]]) -> HandFold:
    hand = HandFold(1, dict(CONTRACT), 0.0)
    for seq, (kind, data) in enumerate(events, start=1):
        assert kind in CAMERA_HAND_KINDS
        hand.camera(seq, kind, data)
    return hand


def play(seat: str, card: str, t: float, **doubt: Any) -> tuple[str, dict[str, Any]]:
    return "play", {"seat": seat, "cards": [card], "t_landed": t, "t_stable": t + 0.5, **doubt}


TRICK = [
    play("S", "AS", 1.0),
    play("W", "3S", 2.0),
    ("takeback", {"seat": "W", "cards": ["3S"], "t": 4.0}),
    play("W", "3S", 7.0),
    play("N", "4S", 8.0),
    play("E", "5S", 9.0),
]


def test_a_takeback_is_folded_into_the_record_and_raised_open_for_the_referee() -> None:
    hand = fold(TRICK)
    record = hand.record()
    assert record["takebacks"] == [{"seat": "W", "cards": ["3S"], "t": 4.0, "trick": 1}]
    assert [p["seat"] for p in record["tricks"][0]["plays"]] == ["S", "W", "N", "E"]
    scored = hand.scored()
    assert scored is not None
    kinds = [(i.kind, i.seat, i.trick, i.to_check) for i in scored.report.infractions]
    assert kinds == [("takeback", "W", 1, False)]
    assert scored.ids == ["1-takeback-W-1-0"] and scored.status == ["open"]
    assert hand.camera_events == len(TRICK)


def test_an_exposed_card_read_in_doubt_is_a_question_and_a_cue_to_check_the_card() -> None:
    exposed = {
        "card": "9H",
        "where": [55.0, 8.4],
        "seat": "N",
        "t": 10.0,
        "unsure": {"9H": 0.55},
        "maybe": {"9H": "9D"},
    }
    hand = fold([*TRICK, ("exposed_card", exposed)])
    assert hand.record()["exposed"] == [
        {
            "seat": "N",
            "cards": ["9H"],
            "t": 10.0,
            "trick": 1,
            "unsure": ["9H"],
            "maybe": {"9H": "9D"},
        }
    ]
    scored = hand.scored()
    assert scored is not None
    exposed_card = next(i for i in scored.report.infractions if i.kind == "exposed_card")
    assert exposed_card.seat == "N" and exposed_card.to_check
    assert exposed_card.unsure_reads[0].maybe == "9D"
    (cue,) = [c for c in hand.conflicts if c["kind"] == "unsure_read"]
    assert cue["seat"] == "N" and cue["cards"] == ["9H"] and "9D" in cue["detail"]


def declaration(seat: str, cards: list[str], t: float, **doubt: Any) -> tuple[str, dict[str, Any]]:
    return "declaration", {"seat": seat, "cards": cards, "t": t, **doubt}


BIDDING = [declaration("S", ["2S"], 0.5), declaration("E", ["6D"], 0.8)]


def test_the_cameras_declarations_make_the_bidding_and_a_false_one_is_raised() -> None:
    hand = fold([*BIDDING, *TRICK])
    record = hand.record()
    assert record["before_play"] == [
        {"seat": "S", "action": "declare", "cards": ["2S"], "t": 0.5},
        {"seat": "E", "action": "declare", "cards": ["6D"], "t": 0.8},
    ]
    scored = hand.scored()
    assert scored is not None
    found = [(i.kind, i.seat, i.trick, i.to_check) for i in scored.report.infractions]
    assert ("false_declaration", "E", None, False) in found
    assert hand.camera_events == len(BIDDING) + len(TRICK)


def test_a_declaration_read_in_doubt_is_a_question_and_a_cue_to_check_the_cards() -> None:
    doubtful = declaration("E", ["6D"], 0.8, unsure={"6D": 0.5}, maybe={"6D": "2D"})
    hand = fold([BIDDING[0], doubtful, *TRICK])
    assert hand.record()["before_play"][1]["unsure"] == ["6D"]
    scored = hand.scored()
    assert scored is not None
    false = next(i for i in scored.report.infractions if i.kind == "false_declaration")
    assert false.seat == "E" and false.to_check
    (cue,) = [c for c in hand.conflicts if c["kind"] == "unsure_read"]
    assert cue["seat"] == "E" and cue["cards"] == ["6D"] and "2D" in cue["detail"]


def test_the_bidding_the_referee_enters_replaces_the_cameras() -> None:
    hand = fold([*BIDDING, *TRICK])
    entered = [{"seat": "S", "action": "declare", "cards": ["2S"]}]
    hand.contract["before_play"] = entered
    assert hand.record()["before_play"] == entered
    scored = hand.scored()
    assert scored is not None
    assert not any(i.kind == "false_declaration" for i in scored.report.infractions)
