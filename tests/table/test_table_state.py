"""The table state is a pure fold of the event log: incremental or from scratch, the same state;
stable infraction ids; only confirmed infractions score; levels carry from hand to hand."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema

from chaodipi.table.actions import advance_hand, new_match, start_table
from chaodipi.table.feed import contract_of, record_events
from chaodipi.table.live import LiveTable
from chaodipi.table.sink import CameraSink
from chaodipi.table.store import EventStore
from chaodipi.table.table_state import TableState, fold
from engine.audit import audit, rescore
from engine.record import load_record
from tests.builders import record as build_record
from tests.table_helpers import EPOCH, feed, hand, table

NOW = EPOCH + 3600
REFEREE_ONLY = {"proof", "proof_data", "evidence", "note", "conflicts", "corrections", "notes",
                "notes_data", "decided_by", "decided_at", "chao_di", "frame", "was"}  # fmt: skip


def keys(obj: Any) -> set[str]:
    if isinstance(obj, dict):
        return set(obj) | {k for v in obj.values() for k in keys(v)}
    if isinstance(obj, list):
        return {k for v in obj for k in keys(v)}
    return set()


def referee_session(tmp_path: Path) -> Any:
    """A table through a whole hand with every kind of referee event, then half of the next."""
    rec = hand()
    live = table(tmp_path, rec)
    store = live.store
    state = live.referee_json(NOW)
    first, second = (i["id"] for i in state["infractions"][:2])
    store.append("infraction_decided", {"id": first, "decision": "confirm", "note": "看见了"},
                 "referee:王")  # fmt: skip
    store.append("infraction_decided", {"id": second, "decision": "dismiss"}, "referee:王")
    c = store.append("play_corrected", {"trick": 2, "seat": "E", "cards": ["AS"], "was": []},
                     "referee:王")  # fmt: skip
    store.append("correction_undone", {"of_seq": c}, "referee:王")
    store.append("play_corrected", {"trick": 1, "seat": "W", "cards": ["3C"], "was": []},
                 "referee:王")  # fmt: skip
    store.append("snapshot", {"hand": 1, "trick": 2, "path": "evidence/h0001-t02-1.jpg"}, "system")
    store.append("camera_health", {"fps": 8.0, "last_frame_age_s": 0.1, "cpu_temp_c": 50}, "camera")
    store.append("calibration_drift", {"ok": False, "detail": "marker 2 moved"}, "camera")
    store.append("recognition_conflict", {"kind": "cards_changed", "seat": "N", "cards": ["5H"],
                 "detail": "cards changed", "t": EPOCH}, "camera")  # fmt: skip
    advance_hand(live, "referee:王")
    store.append("contract_set", {"trump": "S"}, "referee:王")
    store.append("chao_di", {"seat": "W", "cards": ["BJ", "BJ"]}, "referee:王")
    store.append("kitty_entered", {"cards": ["3S"] * 8}, "referee:王")
    feed(live, hand(seed=11, inject=()), 0, 9)
    store.append("play", {"seat": "Q"}, "camera")  # a malformed event: skipped with a note
    return live


def test_folding_one_event_at_a_time_equals_folding_the_whole_log(tmp_path: Path) -> None:
    live = referee_session(tmp_path)
    events = live.store.events()
    step = TableState("T1", "XX")
    for event in events:  # build the JSON after every event, so the caches are exercised
        step.apply(event)
        step.to_public_json(NOW)
        step.to_referee_json(NOW)
    whole = fold(events, "T1", "XX")
    assert step.to_referee_json(NOW) == whole.to_referee_json(NOW)
    assert step.to_public_json(NOW) == whole.to_public_json(NOW)
    assert live.referee_json(NOW) == whole.to_referee_json(NOW)
    assert [h.record() for h in step.hands] == [h.record() for h in whole.hands]
    assert any("seq" in n and "(play) ignored" in n for n in whole.to_referee_json(NOW)["notes"])


def test_spectators_see_no_referee_data(tmp_path: Path) -> None:
    live = referee_session(tmp_path)
    public = live.public_json(NOW)
    assert not keys(public) & REFEREE_ONLY
    assert "referee:" not in json.dumps(public, ensure_ascii=False)
    assert "看见了" not in json.dumps(public, ensure_ascii=False)
    referee = live.referee_json(NOW)
    assert {"conflicts", "corrections", "notes"} <= set(referee)


def test_a_decided_infraction_carries_its_decision_note_referee_and_time(tmp_path: Path) -> None:
    live = table(tmp_path, hand())
    first, second = (i["id"] for i in live.referee_json(NOW)["infractions"][:2])
    confirm = live.store.append(
        "infraction_decided", {"id": first, "decision": "confirm", "note": "看见了"}, "referee:王"
    )
    dismiss = live.store.append(
        "infraction_decided", {"id": second, "decision": "dismiss"}, "referee:李"
    )
    logged = {e.seq: e.t for e in live.store.events()}
    rows = {r["id"]: r for r in live.referee_json(NOW)["infractions"]}
    assert {k: rows[first][k] for k in ("status", "note", "decided_by", "decided_at")} == {
        "status": "confirmed", "note": "看见了", "decided_by": "referee:王",
        "decided_at": logged[confirm],
    }  # fmt: skip
    assert {k: rows[second][k] for k in ("status", "note", "decided_by", "decided_at")} == {
        "status": "dismissed", "note": None, "decided_by": "referee:李",
        "decided_at": logged[dismiss],
    }  # fmt: skip
    assert all(r["proof_data"]["kind"] for r in rows.values())  # every proof also as data


def test_the_folds_notes_are_data_with_an_english_line_each(tmp_path: Path) -> None:
    referee = referee_session(tmp_path).referee_json(NOW)
    assert len(referee["notes"]) == len(referee["notes_data"])
    skipped = [n for n in referee["notes_data"] if n["kind"] == "event_skipped"]
    assert skipped and skipped[-1]["event"] == "play" and isinstance(skipped[-1]["seq"], int)


def test_the_state_json_has_the_contract_shape(tmp_path: Path) -> None:
    live = table(tmp_path, hand(), upto=30)
    state = live.public_json(NOW)
    assert set(state) == {"table", "seq", "server_time", "match", "hand", "infractions", "camera"}
    assert set(state["match"]) == {"levels", "hand", "winner"}
    # The simulated hand's draw and bidding travel in its contract: draw, before_play,
    # dealer_by_rotation.
    assert set(state["hand"]) == {
        "rules", "declarer", "declarer_side", "level", "trump", "trick", "finished",
        "defender_points", "point_cards", "points_by_trick", "current_trick", "clock", "tricks",
        "kitty", "result", "draw", "before_play", "dealer_by_rotation",
    }  # fmt: skip
    h = state["hand"]
    assert state["table"] == "T1" and state["server_time"] == NOW
    assert h["trick"] == h["current_trick"]["number"] == 7  # 30 events = 6 tricks of 4 + clear
    assert len(h["tricks"]) == 6 and len(h["points_by_trick"]) == 6
    assert sum(h["points_by_trick"]) == h["defender_points"]
    assert (
        h["current_trick"]["plays"] == []
        and h["current_trick"]["to_play"] == h["tricks"][-1]["winner"]
    )
    assert h["clock"]["seat"] == h["current_trick"]["to_play"] and h["clock"]["limit_s"] == 15
    assert h["clock"]["over"] is True  # an hour after the last play


def test_infraction_ids_are_stable_and_named_by_hand_kind_seat_trick(tmp_path: Path) -> None:
    live = table(tmp_path, hand())
    ids = [i["id"] for i in live.public_json(NOW)["infractions"]]
    assert ids == ["1-revoke-N-2-0", "1-overtime-N-4-0"]
    assert [i["id"] for i in fold(live.store.events()).to_public_json(NOW)["infractions"]] == ids


def test_only_confirmed_infractions_change_the_score(tmp_path: Path) -> None:
    live = table(tmp_path, hand())
    before = live.public_json(NOW)["hand"]["result"]["defender_total"]
    assert before == 200  # the open revoke (10 against the defender N) is not counted
    live.store.append("infraction_decided", {"id": "1-revoke-N-2-0", "decision": "confirm"},
                      "referee:王")  # fmt: skip
    assert live.public_json(NOW)["hand"]["result"]["defender_total"] == 190
    live.store.append("infraction_decided", {"id": "1-revoke-N-2-0", "decision": "dismiss"},
                      "referee:王")  # fmt: skip
    state = live.public_json(NOW)
    assert state["hand"]["result"]["defender_total"] == 200
    assert [i["id"] for i in state["infractions"]] == ["1-overtime-N-4-0"]  # dismissed: gone
    assert live.referee_json(NOW)["infractions"][0]["status"] == "dismissed"


def test_levels_and_the_deal_carry_over_to_the_next_hand(tmp_path: Path) -> None:
    live = table(tmp_path, hand())
    result = live.public_json(NOW)["hand"]["result"]
    advance_hand(live, "referee:王")
    state = live.public_json(NOW)
    assert state["match"] == {"levels": result["levels_after"], "hand": 2, "winner": None}
    assert state["hand"]["declarer"] == result["next_declarer"] and state["hand"]["trump"] == "NT"
    kinds = [e.kind for e in live.store.events(since=live.store.last_seq - 3)]
    assert kinds == ["next_hand", "hand_finished", "hand_started"]
    new_match(live, "referee:王")
    assert live.public_json(NOW)["match"] == {"levels": {"NS": "2", "EW": "2"}, "hand": 3,
                                              "winner": None}  # fmt: skip


def test_a_correction_replaces_or_adds_a_play_and_undo_restores_it(tmp_path: Path) -> None:
    rec = hand()
    live = table(tmp_path, rec, upto=3)  # trick 1: three plays seen, the fourth missed
    missing = rec["tricks"][0]["plays"][3]
    seq = live.store.append("play_corrected", {"trick": 1, **missing, "was": []}, "referee:王")
    with live.locked() as st:
        plays = st.hand.record()["tricks"][0]["plays"]
        assert [p["seat"] for p in plays] == [p["seat"] for p in rec["tricks"][0]["plays"]]
    assert live.public_json(NOW)["hand"]["tricks"][0]["winner"] is not None
    live.store.append("correction_undone", {"of_seq": seq}, "referee:王")
    with live.locked() as st:
        assert len(st.hand.record()["tricks"][0]["plays"]) == 3
        assert st.to_referee_json(NOW)["corrections"] == []


def test_a_chao_di_names_the_trump_and_reburies_the_kitty(tmp_path: Path) -> None:
    live = table(tmp_path, hand())
    assert live.public_json(NOW)["hand"]["kitty"]["cards"] is not None
    live.store.append("chao_di", {"seat": "E", "cards": ["SJ", "SJ"]}, "referee:王")
    h = live.public_json(NOW)["hand"]
    assert h["trump"] == "NT" and h["kitty"]["cards"] is None


def test_hand_records_export_in_the_engine_schema(tmp_path: Path) -> None:
    schema = json.loads(Path("engine/schema/hand-record.schema.json").read_text(encoding="utf-8"))
    live = referee_session(tmp_path)
    with live.locked() as st:
        records = [h.record() for h in st.hands]
    for rec in records:
        jsonschema.validate(rec, schema)
        load_record(rec)
    assert len(records) == 2 and records[1]["trump"] == "NT"  # the 炒底 with jokers


def test_the_first_hand_replayed_gives_the_simulated_record(tmp_path: Path) -> None:
    rec = hand()
    live = table(tmp_path, rec)
    with live.locked() as st:
        got = st.hand.record()
    strip = [[{k: p[k] for k in ("seat", "cards")} for p in t["plays"]] for t in rec["tricks"]]
    assert [[{k: p[k] for k in ("seat", "cards")} for p in t["plays"]] for t in got["tricks"]] == (
        strip
    )
    assert got["kitty"] == rec["kitty"] and got["declarer"] == rec["declarer"]


def test_the_sink_drops_plays_a_restarted_camera_reports_again(tmp_path: Path) -> None:
    rec = hand()
    live = table(tmp_path, rec, upto=7)  # trick 2 has two plays on the table
    before = live.store.last_seq
    sink = CameraSink(live)
    events = record_events(rec, EPOCH)
    for _, (kind, data) in events[5:7]:  # the same plays, seen again after a restart
        assert sink.emit(kind, data) is None
    assert live.store.last_seq == before and sink.dropped == 2
    for _, (kind, data) in events[7:]:
        sink.emit(kind, data)
    assert (
        fold(live.store.events()).hand.record()["tricks"]
        == fold(table(tmp_path / "clean", rec).store.events()).hand.record()["tricks"]
    )


def test_rescore_counts_only_the_chosen_infractions() -> None:
    # HF: a revoking winner's trick points go to the best other play, only if it is counted.
    # HF plays counter-clockwise (S E N W); E trumps a heart lead while holding hearts.
    rec = build_record(["S:5H E:4S N:3H W:7H", "E:6H N:8H W:9H S:KH"], rules="HF", trump="S")
    report = audit(load_record(rec))
    assert [i.kind for i in report.infractions] == ["revoke"]
    counted, uncounted = rescore(report, [0]), rescore(report, [])
    assert counted.penalties == report.penalties and uncounted.penalties["to_defenders"] == 0
    assert [t.points_to for t in uncounted.tricks] == [t.winner for t in uncounted.tricks]
    assert [t.points_to for t in counted.tricks] == [t.points_to for t in report.tricks]
    assert report.tricks[0].winner == "E" and report.tricks[0].points_to == "W"


def test_a_camera_play_that_names_unsure_reads_asks_the_referee_to_check_it(
    tmp_path: Path,
) -> None:
    live = table(tmp_path, hand(), upto=2)
    sink = CameraSink(live)
    sink.emit("play", {"seat": "S", "cards": ["QC"], "t_landed": EPOCH + 50, "t_stable": EPOCH + 51,
                       "unsure": {"QC": 0.55}})  # fmt: skip
    conflicts = live.referee_json(NOW)["conflicts"]
    unsure = [c for c in conflicts if c["kind"] == "unsure_read"]
    assert [(c["seat"], c["cards"]) for c in unsure] == [("S", ["QC"])]
    assert "识别存疑" in unsure[0]["detail"] and "QC 0.55" in unsure[0]["detail"]
    assert "unsure" not in json.dumps(live.public_json(NOW))  # spectators never see it


def _a_table_where_n_revokes_in_trick_2(
    tmp_path: Path,
) -> tuple[dict[str, Any], LiveTable, CameraSink, list[str]]:
    """A started table, its camera sink, the hand to feed it (N revokes in trick 2) and N's
    revoking cards."""
    rec = hand()
    live = table(tmp_path)
    start_table(live, contract_of(rec))
    revoking = rec["tricks"][1]["plays"]
    n_cards = next(p["cards"] for p in revoking if p["seat"] == "N")
    return rec, live, CameraSink(live), n_cards


def test_a_card_read_as_another_while_it_lay_there_is_the_referees_question(
    tmp_path: Path,
) -> None:
    rec, live, sink, n_cards = _a_table_where_n_revokes_in_trick_2(tmp_path)
    n_card = n_cards[0]
    cleared = 0
    for _, (kind, data) in record_events(rec, EPOCH):
        if kind == "trick_cleared":
            cleared += 1
            if cleared == 2:  # the frames of trick 2 read N's card as the 2 of clubs too
                data = {**data, "read_otherwise": {"N": {n_card: "2C"}}}
        sink.emit(kind, data)
    referee = live.referee_json(NOW)
    asked = [c for c in referee["conflicts"] if c["kind"] == "unsure_read"]
    assert [(c["seat"], c["cards"]) for c in asked] == [("N", [n_card])]
    assert f"{n_card} 也被认作 2C" in asked[0]["detail"]
    revoke = {i["id"]: i for i in referee["infractions"]}["1-revoke-N-2-0"]
    assert revoke["unsure_reads"][0]["maybe"] == "2C"
    assert "1-revoke-N-2-0" not in [i["id"] for i in live.public_json(NOW)["infractions"]]


def test_an_infraction_resting_on_an_unsure_read_is_the_referees_question_until_confirmed(
    tmp_path: Path,
) -> None:
    rec, live, sink, n_cards = _a_table_where_n_revokes_in_trick_2(tmp_path)
    for _, (kind, data) in record_events(rec, EPOCH):
        if kind == "play" and data["seat"] == "N" and data["cards"] == n_cards:
            data = {**data, "unsure": {n_cards[0]: 0.6}}
        sink.emit(kind, data)
    referee = {i["id"]: i for i in live.referee_json(NOW)["infractions"]}
    assert referee["1-revoke-N-2-0"]["unsure_reads"] == [
        {"trick": 2, "seat": "N", "card": n_cards[0], "maybe": None, "play": n_cards}
    ]
    assert referee["1-overtime-N-4-0"]["unsure_reads"] == []
    public = [i["id"] for i in live.public_json(NOW)["infractions"]]
    assert public == ["1-overtime-N-4-0"]  # the question is not shown to spectators
    live.store.append("infraction_decided", {"id": "1-revoke-N-2-0", "decision": "confirm"},
                      "referee:王")  # fmt: skip
    public = [i["id"] for i in live.public_json(NOW)["infractions"]]
    assert public == ["1-revoke-N-2-0", "1-overtime-N-4-0"]


def _w_revokes_with_a_3d_that_may_be_3s(tmp_path: Path) -> LiveTable:
    """W plays "3D" on S's AS lead, read at 0.55 with 3S as the classifier's second thought,
    then a spade: a revoke resting on that read."""
    live = table(tmp_path)
    start_table(live, {"rules": "XX", "rule_overrides": {}, "levels": {"NS": "2", "EW": "2"},
                       "declarer": "S", "trump": "H"})  # fmt: skip
    sink = CameraSink(live)
    plays = [("S", "AS"), ("W", "3D"), ("N", "4S"), ("E", "5S"),
             ("S", "KS"), ("W", "6S"), ("N", "7S"), ("E", "8S")]  # fmt: skip
    for i, (seat, card) in enumerate(plays):
        data = {"seat": seat, "cards": [card], "t_landed": EPOCH + i, "t_stable": EPOCH + i + 0.5}
        if card == "3D":
            data |= {"unsure": {"3D": 0.55}, "maybe": {"3D": "3S"}}
        sink.emit("play", data)
        if i == 3:
            sink.emit("trick_cleared", {"t": EPOCH + 3.8, "frame": ""})
    return live


def test_confirming_an_infraction_checks_the_reads_it_rests_on(tmp_path: Path) -> None:
    live = _w_revokes_with_a_3d_that_may_be_3s(tmp_path)
    (inf,) = live.referee_json(NOW)["infractions"]
    live.store.append("infraction_decided", {"id": inf["id"], "decision": "confirm"},
                      "referee:王")  # fmt: skip
    (conflict,) = [c for c in live.referee_json(NOW)["conflicts"] if c["kind"] == "unsure_read"]
    assert "fixes" not in conflict  # the referee looked: it is 3D, no correction to offer
    assert conflict["play"] == ["3D"]


def test_the_cameras_runner_up_read_is_offered_as_a_one_click_correction(
    tmp_path: Path,
) -> None:
    live = _w_revokes_with_a_3d_that_may_be_3s(tmp_path)
    state = live.referee_json(NOW)
    (inf,) = state["infractions"]
    assert inf["kind"] == "revoke" and inf["seat"] == "W"
    assert inf["unsure_reads"] == [
        {"trick": 1, "seat": "W", "card": "3D", "maybe": "3S", "play": ["3D"], "fix": ["3S"]}
    ]
    (conflict,) = [c for c in state["conflicts"] if c["kind"] == "unsure_read"]
    assert conflict["detail"].startswith("识别存疑，请核对桌上的牌（3D 可能是 3S）")
    assert "read unsure (3D 0.55 maybe 3S)" in conflict["detail"]
    # the conflict offers the same correction: a misread 10 read as Q moves points, with or
    # without an infraction
    assert conflict["fixes"] == [{"card": "3D", "maybe": "3S", "cards": ["3S"]}]
    assert conflict["play"] == ["3D"]  # to edit by hand when the runner-up is wrong too
    # the referee looks, the card is 3S: the console posts the fix as a correction
    live.store.append("play_corrected", {"trick": 1, "seat": "W", "cards": ["3S"], "was": ["3D"]},
                      "referee:王")  # fmt: skip
    after = live.referee_json(NOW)
    assert after["infractions"] == []
    assert all("fixes" not in c for c in after["conflicts"])  # corrected: nothing to offer
    (conflict,) = [c for c in after["conflicts"] if c["kind"] == "unsure_read"]
    assert conflict["play"] == ["3S"]


def test_the_referee_entering_a_play_the_camera_saw_but_never_read_settles_the_question(
    tmp_path: Path,
) -> None:
    live = table(tmp_path)
    start_table(live, {"rules": "XX", "rule_overrides": {}, "levels": {"NS": "2", "EW": "2"},
                       "declarer": "S", "trump": "H"})  # fmt: skip
    sink = CameraSink(live)
    for seat, card, t in (("S", "AS", 1.0), ("W", "3S", 2.0), ("N", "4S", 3.0)):
        sink.emit("play", {"seat": seat, "cards": [card], "t_landed": EPOCH + t,
                           "t_stable": EPOCH + t + 0.5})  # fmt: skip
    sink.emit("trick_cleared", {"t": EPOCH + 6, "frame": "", "unread": ["E"]})
    sink.emit("play", {"seat": "S", "cards": ["KS"], "t_landed": EPOCH + 7, "t_stable": EPOCH + 8})
    (inf,) = live.referee_json(NOW)["infractions"]
    assert inf["kind"] == "card_count" and inf["unsure_reads"][0]["card"] is None
    live.store.append("play_corrected", {"trick": 1, "seat": "E", "cards": ["5S"], "was": []},
                      "referee:王")  # fmt: skip
    state = live.referee_json(NOW)
    assert state["infractions"] == [] and state["notes"] == []  # the hand audits, E played 5S


def test_a_kitty_card_read_in_doubt_offers_the_kitty_with_its_runner_up_to_enter() -> None:
    """An infraction resting on a kitty card read in doubt shows the kitty as recorded and, for
    one click into the kitty form, the kitty with that card read as its runner-up."""
    from chaodipi.table.table_state import _unsure_read_rows
    from engine.audit import KITTY_READ, UnsureRead

    kitty = ["AS", "2H", "3H", "4H", "6H", "7H", "8H", "9H"]
    record = {"kitty": kitty, "kitty_unsure": ["AS"], "kitty_maybe": {"AS": "4S"}, "tricks": []}
    (row,) = _unsure_read_rows([UnsureRead(KITTY_READ, "S", "AS", "4S")], record)
    assert row == {
        "trick": 0, "seat": "S", "card": "AS", "maybe": "4S", "play": kitty,
        "fix": ["4S", *kitty[1:]],
    }  # fmt: skip


def bidding(record: dict[str, Any]) -> list[dict[str, Any]]:
    """The simulated hand's ``before_play`` on the table's clock: N's face-down 6♥ turned up at
    once, S's face-down 炒 of 6♣ 6♣ never turned up."""
    events = [{**e, "t": EPOCH + e["t"]} for e in record["before_play"]]
    events[0]["revealed_t"] = events[0]["t"] + 1.0
    return events


def test_the_hands_bidding_in_its_contract_is_in_the_state_and_not_carried_on(
    tmp_path: Path,
) -> None:
    rec = hand()
    live = LiveTable(EventStore(tmp_path / "T1.sqlite"), "T1", "XX")
    start_table(live, {**contract_of(rec), "before_play": bidding(rec)})
    feed(live, rec)
    assert live.referee_json(NOW)["hand"]["before_play"] == bidding(rec)
    public = live.public_json(NOW)["hand"]["before_play"]
    assert [(e["seat"], e["action"]) for e in public] == [
        ("N", "declare"), ("W", "take"), ("W", "bury"), ("S", "chao"), ("S", "take"), ("S", "bury"),
    ]  # fmt: skip
    assert public[0]["cards"] == ["6H"]
    advance_hand(live, "referee:王")
    assert "before_play" not in live.public_json(NOW)["hand"]


def test_spectators_see_a_face_down_card_only_once_revealed(tmp_path: Path) -> None:
    rec = hand()
    live = LiveTable(EventStore(tmp_path / "T1.sqlite"), "T1", "XX")
    events = bidding(rec)
    start_table(live, {**contract_of(rec), "before_play": events})
    before = live.public_json(events[0]["revealed_t"] - 0.5)["hand"]["before_play"]
    assert before[0] == {"seat": "N", "action": "declare", "face_down": True,
                         "t": events[0]["t"], "count": 1, "hidden": True}  # fmt: skip
    later = live.public_json(NOW)["hand"]["before_play"]
    assert later[0]["cards"] == ["6H"]
    assert later[3] == {"seat": "S", "action": "chao", "face_down": True, "t": events[3]["t"],
                        "count": 2, "hidden": True}  # fmt: skip
    assert "6C" not in json.dumps(live.public_json(NOW))


def test_a_contract_set_gives_the_bidding_checked_like_the_record(tmp_path: Path) -> None:
    live = table(tmp_path, hand(), upto=0)
    recorded = live.public_json(NOW)["hand"]["before_play"]  # the simulated hand's bidding
    live.store.append("contract_set", {"before_play": [{"seat": "N", "action": "shout"}]},
                      "referee:王")  # fmt: skip
    assert live.public_json(NOW)["hand"]["before_play"] == recorded
    assert "before_play event 1 action" in " ".join(live.referee_json(NOW)["notes"])
    bid = [{"seat": "E", "action": "declare", "cards": ["2S"]}, {"seat": "E", "action": "take"}]
    live.store.append("contract_set", {"before_play": bid}, "referee:王")
    assert live.public_json(NOW)["hand"]["before_play"] == bid


def test_the_cameras_takeback_and_exposed_card_reach_the_live_hand_and_the_console(
    tmp_path: Path,
) -> None:
    rec = hand(inject=())
    live = table(tmp_path, rec, upto=2)
    second = rec["tricks"][0]["plays"][1]
    t = EPOCH + second["t"] + 1.0
    live.store.append("takeback", {"seat": second["seat"], "cards": second["cards"], "t": t},
                      "camera")  # fmt: skip
    live.store.append("exposed_card", {"card": "9H", "where": [55.0, 8.4], "seat": "N",
                      "t": t + 1.0}, "camera")  # fmt: skip
    with live.locked() as st:
        record = st.hand.record()
    assert [tb["seat"] for tb in record["takebacks"]] == [second["seat"]]
    assert [e["cards"] for e in record["exposed"]] == [["9H"]]
    kinds = {i["kind"] for i in live.referee_json(NOW)["infractions"]}
    assert {"takeback", "exposed_card"} <= kinds


def test_the_cameras_declaration_reaches_the_live_hands_bidding_and_the_console(
    tmp_path: Path,
) -> None:
    rec = hand(inject=())
    rec.pop("before_play")  # the referee has not entered the bidding: the camera's is the one
    live = table(tmp_path, rec, upto=2)
    card = "3D" if "3" not in rec["levels"].values() else "4D"  # no level card: cannot declare
    live.store.append("declaration", {"seat": "E", "cards": [card],
                      "t": EPOCH + 0.5, "unsure": {card: 0.5}}, "camera")  # fmt: skip
    with live.locked() as st:
        record = st.hand.record()
    assert record["before_play"] == [
        {"seat": "E", "action": "declare", "cards": [card], "t": EPOCH + 0.5, "unsure": [card]}
    ]
    console = live.referee_json(NOW)
    false = [i for i in console["infractions"] if i["kind"] == "false_declaration"]
    assert [i["seat"] for i in false] == ["E"] and false[0]["unsure_reads"]
    assert any(c["kind"] == "unsure_read" and c["seat"] == "E" for c in console["conflicts"])
