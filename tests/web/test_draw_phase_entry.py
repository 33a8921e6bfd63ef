"""The referee enters and corrects a hand's draw phase — the draw (who drew first, in which
direction), the bidding, the dealer by rotation — and records 查牌 through the table's web app
(web_dashboard/API.md: ``POST /api/referee/contract`` with ``before_play``, ``draw`` and
``dealer_by_rotation``; ``POST /api/referee/card-check``), against a real store and app."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from flask import Flask
from flask.testing import FlaskClient

from chaodipi.table.actions import start_table
from chaodipi.table.feed import contract_of
from chaodipi.table.live import LiveTable
from chaodipi.table.store import EventStore
from engine.audit import audit
from engine.record import load_record
from tests.table_helpers import feed, hand, table
from tests.web.test_web import CONFIG, post, sign_in
from web_dashboard.app import create_app

SCHEMA = json.loads(Path("engine/schema/hand-record.schema.json").read_text(encoding="utf-8"))


@pytest.fixture
def live(tmp_path: Path) -> Iterator[LiveTable]:
    t = table(tmp_path, hand())  # XX, declarer W; N revokes in trick 2
    yield t
    t.store.close()


@pytest.fixture
def app(live: LiveTable) -> Flask:
    return create_app(live.store, CONFIG)


@pytest.fixture
def client(app: Flask) -> tuple[FlaskClient, str]:
    c = app.test_client()
    return c, sign_in(c)


def kinds(client: FlaskClient) -> list[str]:
    return [i["kind"] for i in client.get("/api/referee/state").get_json()["infractions"]]


def the_hands_bidding() -> dict[str, Any]:
    """The simulated hand's draw and bidding as its record has them: a later hand (W deals by
    rotation), N's face-down 6♥ before W takes the kitty, then S's face-down 炒 of 6♣ 6♣."""
    rec = hand()
    return {k: rec[k] for k in ("draw", "before_play", "dealer_by_rotation")}


def test_a_bidding_entered_shows_in_the_state_and_the_dealer_check_agrees(
    client: tuple[FlaskClient, str],
) -> None:
    c, token = client
    entered = the_hands_bidding()
    res = post(c, "/api/referee/contract", token, entered)
    assert res.status_code == 200 and res.get_json()["ok"] is True
    state = c.get("/api/state").get_json()
    public = state["hand"]["before_play"]
    assert [(e["seat"], e["action"]) for e in public] == [
        ("N", "declare"), ("W", "take"), ("W", "bury"), ("S", "chao"), ("S", "take"), ("S", "bury"),
    ]  # fmt: skip
    assert public[3] == {"seat": "S", "action": "chao", "face_down": True, "t": 84.9,
                         "count": 2, "hidden": True}  # fmt: skip
    assert c.get("/api/referee/state").get_json()["hand"]["before_play"] == entered["before_play"]
    logged = c.get("/api/events?since=0").get_json()["events"]
    [fed] = [e["data"]["before_play"] for e in logged if e["kind"] == "contract_set"]
    assert fed == public  # the events feed hides the face-down 炒 as the state does
    assert state["hand"]["declarer"] == "W" and state["hand"]["trump"] == "C"
    assert state["hand"]["dealer_by_rotation"] == "W"  # a later hand: W dealt by rotation
    assert "wrong_dealer" not in kinds(c) and "wrong_trump" not in kinds(c)
    record = c.get("/api/records/1.json").get_json()
    assert {k: record[k] for k in entered} == entered
    jsonschema.validate(record, SCHEMA)


def test_in_a_games_first_hand_the_bidding_makes_the_declarer_and_trump(tmp_path: Path) -> None:
    live = table(tmp_path, hand(), upto=0)  # the log's first hand, no card played yet
    c = create_app(live.store, CONFIG).test_client()
    token = sign_in(c)
    bidding = [
        {"seat": "E", "action": "declare", "cards": ["6S"]},
        {"seat": "N", "action": "pass"},
        {"seat": "E", "action": "take"},
        {"seat": "E", "action": "bury", "count": 8},
    ]
    first_hand = {"before_play": bidding, "dealer_by_rotation": None, "draw": None}
    assert post(c, "/api/referee/contract", token, first_hand).status_code == 200
    hand_now = c.get("/api/state").get_json()["hand"]
    assert (hand_now["declarer"], hand_now["trump"]) == ("E", "S")
    assert "wrong_dealer" not in kinds(c) and "wrong_trump" not in kinds(c)
    given = {**first_hand, "declarer": "N"}  # the referee's own word stands
    assert post(c, "/api/referee/contract", token, given).status_code == 200
    assert c.get("/api/state").get_json()["hand"]["declarer"] == "N"
    assert "wrong_dealer" in kinds(c)
    live.store.close()


@pytest.mark.parametrize(
    ("body", "names"),
    [
        ({"before_play": [{"seat": "N", "action": "declare", "cards": ["1Z"]}]},
         "before_play event 1 cards"),
        ({"before_play": [{"seat": "N", "action": "shout"}]}, "before_play event 1 action"),
        ({"before_play": [{"seat": "N", "action": "pass", "cards": ["6H"]}]},
         "a pass shows no cards"),
        ({"before_play": {"seat": "N"}}, "before_play: must be a list"),
        ({"draw": {"first": "X"}}, 'draw.first: must be one of "N", "E", "S", "W", got "X"'),
        ({"draw": {"first": "W", "direction": "left"}},
         'draw.direction: must be one of "clockwise", "counterclockwise", got "left"'),
        ({"draw": "W"}, "draw: must be an object with first, direction"),
        ({"draw": {"first": "W", "seat": "N"}}, 'draw: unknown key "seat": it has only first'),
        ({"dealer_by_rotation": "Q"}, "dealer_by_rotation"),
    ],
)  # fmt: skip
def test_a_bad_entry_is_refused_with_one_line_naming_the_field(
    client: tuple[FlaskClient, str], live: LiveTable, body: dict[str, Any], names: str
) -> None:
    c, token = client
    before = live.store.last_seq
    res = post(c, "/api/referee/contract", token, body)
    error = res.get_json()["error"]
    assert res.status_code == 400 and names in error and "\n" not in error
    assert error.startswith("牌前记录无效 / bad before play: ")
    assert live.store.last_seq == before  # nothing was logged


def test_the_draw_set_and_corrected_shows_in_both_states_lands_in_the_record_and_is_audited(
    client: tuple[FlaskClient, str], live: LiveTable
) -> None:
    c, token = client
    recorded = the_hands_bidding()["draw"]  # W, the dealer by rotation, drew first, clockwise
    assert c.get("/api/state").get_json()["hand"]["draw"] == recorded
    assert "draw_error" not in kinds(c)
    logged = [(e.seq, e.kind, e.data) for e in live.store.events(0)]

    wrong = {**recorded, "first": "N", "direction": "counterclockwise"}
    res = post(c, "/api/referee/contract", token, {"draw": wrong})
    assert res.status_code == 200
    for path in ("/api/state", "/api/referee/state"):
        assert c.get(path).get_json()["hand"]["draw"] == wrong
    record = c.get("/api/records/1.json").get_json()
    assert record["draw"] == wrong
    jsonschema.validate(record, SCHEMA)
    # XX draws clockwise, and in a later hand the dealer (W) draws first: two draw errors
    errors = [i for i in c.get("/api/referee/state").get_json()["infractions"]
              if i["kind"] == "draw_error"]  # fmt: skip
    assert sorted(i["seat"] for i in errors) == ["N", "N"]
    reasons = sorted(i["proof_data"]["reason"] for i in errors)
    assert reasons == ["dealer_draws_first", "draw_clockwise"]
    assert [e.kind for e in audit(load_record(record)).infractions].count("draw_error") == 2

    # appended, never rewritten: one contract_set by the referee, the earlier events as they were
    events = list(live.store.events(0))
    assert [(e.seq, e.kind, e.data) for e in events[: len(logged)]] == logged
    [added] = events[len(logged) :]
    seq = res.get_json()["seq"]
    assert (added.seq, added.kind, added.actor) == (seq, "contract_set", "referee:王")
    assert added.data == {"draw": wrong}

    assert post(c, "/api/referee/contract", token, {"draw": recorded}).status_code == 200
    assert c.get("/api/state").get_json()["hand"]["draw"] == recorded
    assert "draw_error" not in kinds(c)
    assert post(c, "/api/referee/contract", token, {"draw": None}).status_code == 200
    assert "draw" not in c.get("/api/state").get_json()["hand"]
    assert "draw" not in c.get("/api/records/1.json").get_json()
    assert [e.data for e in live.store.events(0)][-3:] == [{"draw": wrong}, {"draw": recorded},
                                                           {"draw": None}]  # fmt: skip


def test_a_correction_replaces_the_earlier_list_and_null_removes_it(
    client: tuple[FlaskClient, str], live: LiveTable
) -> None:
    c, token = client
    first = the_hands_bidding()
    assert post(c, "/api/referee/contract", token, first).status_code == 200
    corrected = [e for e in first["before_play"] if e["action"] != "chao"][:3]
    assert post(c, "/api/referee/contract", token, {"before_play": corrected}).status_code == 200
    referee = c.get("/api/referee/state").get_json()
    assert referee["hand"]["before_play"] == corrected
    events = [e for e in live.store.events(0) if e.kind == "contract_set"]
    assert [e.data["before_play"] for e in events] == [first["before_play"], corrected]
    assert post(c, "/api/referee/contract", token, {"before_play": None}).status_code == 200
    assert "before_play" not in c.get("/api/state").get_json()["hand"]
    assert c.get("/api/records/1.json").get_json()["dealer_by_rotation"] == "W"  # kept


def test_a_card_check_is_recorded_and_audited_founded_or_free_then_penalised(
    client: tuple[FlaskClient, str], live: LiveTable
) -> None:
    c, token = client
    founded = {"seat": "E", "checked": "N", "trick": 2}  # N revoked there
    assert post(c, "/api/referee/card-check", token, founded).status_code == 200
    assert "card_check" not in kinds(c)
    for check in ({"seat": "E", "checked": "S", "trick": 3}, {"seat": "W", "checked": "N"}):
        assert post(c, "/api/referee/card-check", token, check).status_code == 200
    referee = c.get("/api/referee/state").get_json()
    assert referee["card_checks"] == [founded, {"seat": "E", "checked": "S", "trick": 3},
                                      {"seat": "W", "checked": "N", "trick": 16}]  # fmt: skip
    unfounded = [i for i in referee["infractions"] if i["kind"] == "card_check"]
    assert [(i["seat"], i["trick"], i["penalty"]) for i in unfounded] == [
        ("E", 3, 0),  # the side's first unfounded check is free under XX
        ("W", 16, 10),  # the second costs card_check_penalty
    ]
    assert [e.kind for e in live.store.events(0)][-3:] == ["card_check"] * 3
    record = c.get("/api/records/1.json").get_json()
    jsonschema.validate(record, SCHEMA)
    exported = audit(load_record(record))  # what `chaodipi audit` reads from the export
    assert [(i.seat, i.penalty) for i in exported.infractions if i.kind == "card_check"] == [
        ("E", 0),
        ("W", 10),
    ]
    assert post(c, "/api/referee/next-hand", token).status_code == 200
    assert c.get("/api/referee/state").get_json()["card_checks"] == []


def test_a_profile_with_more_free_checks_charges_nothing(tmp_path: Path) -> None:
    rec = hand()
    live = LiveTable(EventStore(tmp_path / "T1.sqlite"), "T1", "XX")
    start_table(live, {**contract_of(rec), "rule_overrides": {"card_check_free": 2}})
    feed(live, rec)
    c = create_app(live.store, CONFIG).test_client()
    token = sign_in(c)
    for trick in (3, 4):
        body = {"seat": "E", "checked": "S", "trick": trick}
        assert post(c, "/api/referee/card-check", token, body).status_code == 200
    checks = [i for i in c.get("/api/state").get_json()["infractions"] if i["kind"] == "card_check"]
    assert [i["penalty"] for i in checks] == [0, 0]
    live.store.close()


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"seat": "E", "checked": "W"}, "partners"),
        ({"seat": "E", "checked": "N", "trick": 17}, "a gathered trick, 1 to 16"),
        ({"seat": "X", "checked": "N"}, "seat 'X'"),
        ({"seat": "E"}, "seat None"),
    ],
)
def test_a_card_check_that_cannot_be_is_refused_with_one_line(
    client: tuple[FlaskClient, str], body: dict[str, Any], says: str
) -> None:
    c, token = client
    res = post(c, "/api/referee/card-check", token, body)
    error = res.get_json()["error"]
    assert res.status_code == 400 and says in error and "\n" not in error


def test_no_card_check_before_a_trick_is_gathered(tmp_path: Path) -> None:
    live = table(tmp_path, hand(), upto=0)
    c = create_app(live.store, CONFIG).test_client()
    res = post(c, "/api/referee/card-check", sign_in(c), {"seat": "E", "checked": "N"})
    assert res.status_code == 400 and "no trick has been gathered" in res.get_json()["error"]
    live.store.close()
