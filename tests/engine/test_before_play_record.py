"""The record's fields before play and beside the tricks: optional, validated field by field in
one line, kept through JSON and the schema; their findings carry facts that give back their
sentence, and the pages have a template for every kind, proof and reason."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from engine.audit import audit, proof_text
from engine.preplay import proofs
from engine.preplay.fields import ACTIONS, FIELDS
from engine.record import RecordError, load_record, record_to_json
from tests.builders import record

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "engine/schema/hand-record.schema.json").read_text("utf-8"))
I18N = (ROOT / "web_dashboard/static/i18n.js").read_text("utf-8")

EVERYTHING: dict[str, Any] = {
    "draw": {
        "first": "S",
        "direction": "clockwise",
        "shuffled_by": "E",
        "cut_by": "W",
        "flips": [{"seat": "S", "card": "9H"}, {"seat": "E", "card": "BJ"}],
        "t": 0.0,
    },
    "before_play": [
        {"seat": "E", "action": "declare", "cards": ["2H"], "face_down": True, "t": 3.0},
        {"seat": "E", "action": "take", "count": 8, "t": 40.0},
        {"seat": "E", "action": "bury", "cards": ["3C", "4C"], "t": 50.0},
        {"seat": "E", "action": "look", "t": 51.0},
        {"seat": "S", "action": "pass"},
        {
            "seat": "W",
            "action": "chao",
            "cards": ["BJ", "BJ", "SJ", "SJ"],
            "face_down": False,
            "revealed_t": 60.0,
            "trump": "NT",
            "t": 55.0,
        },
        {"seat": "W", "action": "bury", "count": 8},
    ],
    "no_bid_flip": ["3C", "2H"],
    "takebacks": [{"seat": "N", "cards": ["3S"], "t": 70.0, "trick": 1}],
    "exposed": [{"seat": "S", "cards": ["QD", "QD"]}],
    "redeals": [{"seat": "W", "t": 1.0}],
    "dealer_by_rotation": "S",
}


def test_a_record_with_every_new_field_loads_keeps_them_and_matches_the_schema() -> None:
    rec = record(["S:AS W:3S N:4S E:5S"], **EVERYTHING)
    jsonschema.validate(rec, SCHEMA)
    out = record_to_json(load_record(rec))
    assert {k: out[k] for k in FIELDS} == EVERYTHING


def test_a_record_without_them_is_what_it_was() -> None:
    rec = record(["S:AS W:3S N:4S E:5S"])
    out = record_to_json(load_record(rec))
    assert not set(FIELDS) & set(out)
    assert load_record({**rec, **dict.fromkeys(FIELDS)}) == load_record(rec)  # null: absent


def test_an_empty_bidding_says_nobody_declared() -> None:
    assert load_record(record([], before_play=[])).preplay.events == ()
    assert load_record(record([])).preplay.events is None


def test_the_schema_lists_the_actions_and_keys_the_record_reads() -> None:
    event = SCHEMA["$defs"]["bid_event"]
    assert event["properties"]["action"]["enum"] == list(ACTIONS)
    assert set(SCHEMA["properties"]) >= set(FIELDS)


def _event(**extra: Any) -> dict[str, Any]:
    return {"before_play": [{"seat": "E", "action": "declare", "cards": ["2H"], **extra}]}


MISREADS: list[tuple[dict[str, Any], str]] = [
    ({"draw": "S"}, "draw: must be an object with first, direction"),
    ({"draw": {"first": "X"}}, 'draw.first: must be one of "N"'),
    ({"draw": {"direction": "cw"}}, 'draw.direction: must be one of "clockwise"'),
    ({"draw": {"flips": [{"seat": "S"}]}}, "draw.flips 1 card: must be a card"),
    ({"draw": {"flips": [{"seat": "S", "card": "1Z"}]}}, "draw.flips 1 card: unknown card"),
    ({"draw": {"flips": "S9H"}}, "draw.flips: must be a list"),
    ({"draw": {"dealer": "S"}}, 'draw: unknown key "dealer"'),
    ({"draw": {"t": -1}}, "draw.t: must be a number of seconds from 0"),
    ({"before_play": {}}, "before_play: must be a list"),
    ({"before_play": [{"seat": "E"}]}, 'before_play event 1 action: must be one of "declare"'),
    ({"before_play": [{"seat": "E", "action": "bid"}]}, "before_play event 1 action: must be"),
    ({"before_play": [{"seat": "Q", "action": "pass"}]}, "before_play event 1 seat: must be"),
    ({"before_play": [{"seat": "E", "action": "declare"}]}, "a declare shows 1 to 4 cards, got 0"),
    (_event(cards=["2H"] * 5), "before_play event 1: a declare shows 1 to 4 cards, got 5"),
    (_event(cards="2H"), "before_play event 1 cards: must be a list of cards"),
    (_event(face_down="yes"), 'before_play event 1 face_down: must be true or false, got "yes"'),
    (_event(trump="X"), 'before_play event 1 trump: must be one of "S"'),
    (_event(revealed_t="soon"), "before_play event 1 revealed_t: must be a number of seconds"),
    (_event(count=2), "before_play event 1: only a take or a bury has a count"),
    (_event(hidden=True), 'before_play event 1: unknown key "hidden"'),
    (
        {"before_play": [{"seat": "E", "action": "pass", "cards": ["2H"]}]},
        "before_play event 1: a pass shows no cards",
    ),
    (
        {"before_play": [{"seat": "E", "action": "take", "count": 8.0}]},
        "before_play event 1 count: must be an integer from 0 to 108, got 8.0",
    ),
    (
        {"before_play": [{"seat": "E", "action": "bury", "count": 2, "cards": ["3C"]}]},
        "before_play event 1: count 2 but 1 cards listed",
    ),
    (
        {"before_play": [{"seat": "E", "action": "look", "face_down": True}]},
        "before_play event 1: only a declare or a chao has face_down",
    ),
    (
        {"before_play": [{"seat": "E", "action": "pass"}] * 401},
        "before_play: 401 entries, more than 400",
    ),
    ({"no_bid_flip": "3C"}, "no_bid_flip: must be a list of cards"),
    ({"takebacks": [{"seat": "N", "cards": []}]}, "takebacks 1 has no cards"),
    (
        {"takebacks": [{"seat": "N", "cards": ["3S"], "trick": 0}]},
        "takebacks 1 trick: must be an integer from 1",
    ),
    (
        {"exposed": [{"seat": "N", "cards": ["3S"], "trick": "2"}]},
        "exposed 1 trick: must be an integer",
    ),
    ({"exposed": [{"seat": "N"}]}, "exposed 1 cards: must be a list of cards"),
    ({"exposed": {"seat": "N"}}, "exposed: must be a list"),
    ({"redeals": [{"seat": "N", "why": "weak"}]}, 'redeals 1: unknown key "why"'),
    ({"redeals": [{"t": 1.0}]}, 'redeals 1 seat: must be one of "N"'),
    ({"dealer_by_rotation": "north"}, 'dealer_by_rotation: must be one of "N"'),
]


@pytest.mark.parametrize(("change", "message"), MISREADS)
def test_a_bad_value_is_refused_in_one_line_naming_its_field(
    change: dict[str, Any], message: str
) -> None:
    with pytest.raises(RecordError) as err:
        load_record(record([], **change))
    assert message in str(err.value) and "\n" not in str(err.value)


# ----- findings as data ------------------------------------------------------------------------


def _findings() -> list[Any]:
    """One hand whose audit gives a proof of every kind of this package."""
    rec = record(
        ["S:AS W:3S N:4S E:5S"],
        declarer="S",
        trump="S",  # the bidding gave ♥
        levels={"NS": "2", "EW": "2"},
        first_hand=True,
        draw={
            "first": "E",
            "direction": "counterclockwise",
            "flips": [{"seat": "E", "card": "3C"}],
        },
        before_play=[
            {"seat": "E", "action": "declare", "cards": ["3C"]},
            {"seat": "E", "action": "declare", "cards": ["2H"], "face_down": False},
            {"seat": "E", "action": "take", "count": 7},
            {"seat": "E", "action": "bury", "count": 8},
            {"seat": "E", "action": "look"},
            {"seat": "E", "action": "chao", "cards": ["2D", "2D"]},
        ],
        takebacks=[{"seat": "N", "cards": ["4S"], "trick": 1}],
        exposed=[{"seat": "W", "cards": ["9C"]}],
        redeals=[{"seat": "W"}],
    )
    no_bid = record(["S:AS W:3S N:4S E:5S"], before_play=[])
    return [*audit(load_record(rec)).infractions, *audit(load_record(no_bid)).infractions]


def test_every_kind_and_proof_of_this_package_is_found_with_its_facts() -> None:
    found = _findings()
    ours = [i for i in found if i.proof_data["kind"] in proofs.PROOF_KINDS]
    assert {i.kind for i in ours} == set(proofs.KINDS)
    assert {i.proof_data["kind"] for i in ours} == set(proofs.PROOF_KINDS)
    for inf in ours:
        served = json.loads(json.dumps(inf.to_json()))["proof_data"]
        assert proof_text(served) == inf.proof  # the facts alone give the sentence back
        assert served["seat"] == inf.seat
        if "cards" in served:
            assert served["cards"] == list(inf.cards)


def _keys(language: str) -> set[str]:
    block = I18N.split(f"\n  {language}: {{", 1)[1].split("\n  },", 1)[0]
    return set(re.findall(r'^\s+"([^"]+)":', block, re.M))


@pytest.mark.parametrize("language", ["zh", "en"])
def test_pages_have_a_template_for_every_kind_proof_and_reason(language: str) -> None:
    keys = _keys(language)
    assert {f"kind.{k}" for k in proofs.KINDS} <= keys
    assert {f"proof.{k}" for k in proofs.PROOF_KINDS} <= keys
    assert {f"proof.reason.{r}" for r in proofs.REASONS_EN} <= keys
    assert "suit.NT" in keys


def test_a_takeback_read_in_doubt_is_to_check_and_round_trips() -> None:
    """A camera's takeback or exposed card may name cards read in doubt (``unsure``, with their
    runner-up ``maybe``): the infraction is then a question, and the fields survive a round
    trip; an unsure card that is not one of its cards is refused in one line."""
    from engine.simulate import simulate_hand

    record, _ = simulate_hand("XX", 11, ["takeback"])
    (item,) = record["takebacks"]
    card = item["cards"][0]
    other = "2C" if card != "2C" else "3C"
    item.update(unsure=[card], maybe={card: other})
    (infraction,) = audit(load_record(record)).infractions
    assert infraction.kind == "takeback" and infraction.to_check
    assert [(r.card, r.maybe) for r in infraction.unsure_reads] == [(card, other)]
    assert record_to_json(load_record(record))["takebacks"] == [item]
    jsonschema.validate(record, SCHEMA)
    item["unsure"] = [other]
    with pytest.raises(RecordError, match="takebacks 1 unsure names"):
        load_record(record)


def test_a_declaration_read_in_doubt_is_to_check_and_round_trips() -> None:
    """A camera's declaration may name cards read in doubt (``unsure``, with their runner-up
    ``maybe``): a false declaration or illegal 炒 resting on it is then a question, and the
    fields survive a round trip; a step that shows no cards has none, and an unsure card that
    is not one of its cards is refused in one line."""
    from engine.simulate import simulate_hand

    record, injected = simulate_hand("XX", 30, ["false_declaration"])
    (planted,) = injected
    steps = record["before_play"]
    step = next(s for s in steps if s["seat"] == planted["seat"] and s["action"] == "declare")
    card = step["cards"][0]
    other = "2C" if card != "2C" else "3C"
    step.update(unsure=[card], maybe={card: other})
    (infraction,) = [i for i in audit(load_record(record)).infractions if i.trick is None]
    assert infraction.kind == "false_declaration" and infraction.to_check
    assert [(r.card, r.maybe) for r in infraction.unsure_reads] == [(card, other)]
    assert f"{card} ({planted['seat']}, before play; maybe {other})" in infraction.proof
    assert record_to_json(load_record(record))["before_play"] == steps
    jsonschema.validate(record, SCHEMA)
    step["unsure"] = [other]
    with pytest.raises(RecordError, match=r"before_play event \d+ unsure names"):
        load_record(record)
    step["unsure"] = [card]
    take = next(s for s in steps if s["action"] == "take")
    take["unsure"] = []
    with pytest.raises(RecordError, match="only a declare or a chao has unsure"):
        load_record(record)
