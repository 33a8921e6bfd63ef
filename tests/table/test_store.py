"""The event store: an append-only, gap-free SQLite log that many threads read while one writes,
and the evidence folder with its size cap."""

from __future__ import annotations

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from chaodipi.table.evidence import Evidence, save_correction
from chaodipi.table.store import EventStore, StoreError
from tests.waiting import DEADLINE_S


def test_appends_get_gap_free_seqs_and_read_back_in_order(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        seqs = [store.append("play", {"seat": "N", "cards": ["AS"]}, "camera") for _ in range(3)]
        seqs += store.append_many([("next_hand", {}, "referee:王"), ("hand_started", {}, "system")])
        assert seqs == [1, 2, 3, 4, 5]
        events = store.events()
        assert [e.seq for e in events] == [1, 2, 3, 4, 5]
        assert events[3].kind == "next_hand" and events[3].actor == "referee:王"
        assert events[0].data == {"seat": "N", "cards": ["AS"]}
        assert [e.seq for e in store.events(since=3)] == [4, 5]
        assert [e.seq for e in store.events(since=1, limit=2)] == [2, 3]


def test_the_table_has_exactly_the_contract_schema_and_durable_settings(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        store.append("next_hand", {}, "system")
        db = sqlite3.connect(tmp_path / "t.sqlite")
        cols = [(r[1], r[2], r[5]) for r in db.execute("PRAGMA table_info(events)")]
        assert cols == [("seq", "INTEGER", 1), ("t", "REAL", 0), ("kind", "TEXT", 0),
                        ("actor", "TEXT", 0), ("data", "TEXT", 0)]  # fmt: skip
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert store._db.execute("PRAGMA synchronous").fetchone()[0] == 2  # FULL
        db.close()


def test_rows_can_never_be_updated_or_deleted(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        store.append("next_hand", {}, "system")
    db = sqlite3.connect(tmp_path / "t.sqlite")
    for sql in ("UPDATE events SET kind = 'x'", "DELETE FROM events"):
        with pytest.raises(sqlite3.DatabaseError, match="append-only"):
            db.execute(sql)
    db.close()


@pytest.mark.parametrize(
    ("kind", "data", "actor", "message"),
    [
        ("plya", {}, "camera", "event kind 'plya' unknown"),
        ("play", [1], "camera", "must be a JSON object"),
        ("play", {"x": float("nan")}, "camera", "not JSON"),
        ("play", {}, "referee", "actor 'referee' unknown"),
    ],
)
def test_bad_events_are_refused_with_one_line(
    tmp_path: Path, kind: str, data: object, actor: str, message: str
) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        with pytest.raises(StoreError, match=message) as err:
            store.append(kind, data, actor)  # type: ignore[arg-type]
        assert "\n" not in str(err.value)
        assert store.last_seq == 0


def test_a_group_is_appended_all_or_nothing(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        with pytest.raises(StoreError):
            store.append_many([("next_hand", {}, "system"), ("bogus", {}, "system")])
        assert store.events() == [] and store.last_seq == 0


def test_a_reopened_log_continues_its_seqs(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        store.append("next_hand", {}, "system")
    with EventStore(tmp_path / "t.sqlite") as store:
        assert store.append("next_match", {}, "system") == 2


def test_a_file_that_is_not_a_log_is_named(tmp_path: Path) -> None:
    bad = tmp_path / "t.sqlite"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="not a usable event log"):
        EventStore(bad)


def test_writers_and_readers_in_many_threads_keep_the_log_gap_free(tmp_path: Path) -> None:
    store = EventStore(tmp_path / "t.sqlite")
    seen_by_readers: list[list[int]] = []
    stop = threading.Event()

    def write(n: int) -> None:
        for i in range(40):
            store.append("camera_health", {"writer": n, "i": i}, "camera")

    def read() -> None:
        views = []
        while not stop.is_set():
            views.append([e.seq for e in store.events()])
        seen_by_readers.extend(views)

    readers = [threading.Thread(target=read) for _ in range(3)]
    writers = [threading.Thread(target=write, args=(n,)) for n in range(4)]
    for th in readers + writers:
        th.start()
    for th in writers:
        th.join()
    stop.set()
    for th in readers:
        th.join()
    assert [e.seq for e in store.events()] == list(range(1, 161))
    for view in seen_by_readers:  # every read is a gap-free prefix
        assert view == list(range(1, len(view) + 1))
    store.close()


def test_a_waiter_wakes_as_soon_as_an_event_is_appended(tmp_path: Path) -> None:
    with EventStore(tmp_path / "t.sqlite") as store:
        woke: list[int] = []

        def wait() -> None:
            woke.append(store.wait(0, timeout=DEADLINE_S))

        th = threading.Thread(target=wait)
        th.start()
        time.sleep(0.1)  # the waiter has gone to sleep on the empty log
        store.append("next_hand", {}, "system")
        th.join(DEADLINE_S)
        assert woke == [1]  # woken by the event with its seq, not at the timeout
        assert store.wait(1, timeout=0.05) == 1  # nothing newer: returns at the timeout


# ---------------------------------------------------------------- evidence


def picture(ev: Evidence, hand: int, trick: int, size: int = 100) -> str:
    path = ev.save(b"x" * size, hand, trick, current_hand=hand)
    assert path is not None
    return path


def test_evidence_is_pruned_oldest_finished_hand_first_never_protected(tmp_path: Path) -> None:
    ev = Evidence(tmp_path, cap_bytes=500)
    old = [picture(ev, 1, t) for t in (1, 2)]
    later = [picture(ev, 2, t) for t in (1, 2)]
    assert ev.usage() == 400
    # Hand 3 is in play; hand 1 trick 1 is evidence of an open infraction.
    new = ev.save(b"y" * 200, 3, 1, current_hand=3, protected={old[0]})
    assert new is not None and new.startswith("evidence/h0003-t01-")
    left = {p.path for p in ev.pictures()}
    assert left == {old[0], later[0], later[1], new}  # hand 1 trick 2 went, not the protected one
    assert ev.usage() <= 500


def test_when_nothing_may_go_the_new_picture_is_not_saved(tmp_path: Path) -> None:
    ev = Evidence(tmp_path, cap_bytes=250)
    kept = [picture(ev, 2, 1), picture(ev, 2, 2)]
    assert ev.save(b"z" * 100, 2, 3, current_hand=2) is None  # the hand in play is never pruned
    assert {p.path for p in ev.pictures()} == set(kept)


def test_only_our_own_evidence_names_resolve(tmp_path: Path) -> None:
    ev = Evidence(tmp_path)
    rel = picture(ev, 1, 1)
    assert ev.path_of(rel) == tmp_path / rel
    assert ev.path_of(rel.removeprefix("evidence/")) == tmp_path / rel
    assert ev.path_of("../secret_key") is None and ev.path_of("h1.jpg") is None


def test_a_correction_becomes_an_image_and_labels_without_boxes(tmp_path: Path) -> None:
    image, label = save_correction(tmp_path, "h0001-t03-E-9", b"\xff\xd8jpeg", {"cards": ["AS"]})
    assert image == tmp_path / "corrections/images/h0001-t03-E-9.jpg"
    text = label.read_text(encoding="utf-8")
    assert '"boxes": null' in text and "YOLO boxes unknown" in text and '"AS"' in text
