"""What the hub keeps aside: each conflicting event and refused message once with how often
it came, counts that survive a restart, and past the rows kept only counting — so a flood
neither fills the disk nor goes uncounted."""

from __future__ import annotations

from pathlib import Path

from chaodipi.hub.set_aside import SetAside
from chaodipi.table.store import StoredEvent


def forged(seq: int, card: str) -> StoredEvent:
    return StoredEvent(seq, 1_700_000_000.5, "play", "camera", {"seat": "N", "cards": [card]})


def test_each_message_is_kept_once_with_how_often_it_came(tmp_path: Path) -> None:
    aside = SetAside(tmp_path / "_set_aside.sqlite")
    assert aside.conflict("T1", forged(2, "BJ"), signed=False) is True
    assert aside.conflict("T1", forged(2, "BJ"), signed=False) is False  # again: counted
    assert aside.conflict("T1", forged(2, "SJ"), signed=False) is True  # other content
    aside.reject("七号桌", "events", "unsigned", b'{"seq": 1}')
    aside.reject("七号桌", "events", "unsigned", b'{"seq": 1}')
    aside.reject("七号桌", "status", "bad signature", b"\xff not even text")
    assert aside.counts("T1") == {"conflicts": 2, "rejected": 0}
    assert aside.counts("七号桌") == {"conflicts": 0, "rejected": 3}
    recent = aside.recent("T1")["conflicts"]
    assert sorted((c["offered"]["data"]["cards"][0], c["times"]) for c in recent) == [
        ("BJ", 2),
        ("SJ", 1),
    ]
    rejected = aside.recent("七号桌")["rejected"]
    assert {(r["topic"], r["reason"], r["times"]) for r in rejected} == {
        ("events", "unsigned", 2),
        ("status", "bad signature", 1),
    }
    aside.close()

    again = SetAside(tmp_path / "_set_aside.sqlite")
    assert again.counts("T1") == {"conflicts": 2, "rejected": 0}
    assert again.counts("七号桌") == {"conflicts": 0, "rejected": 3}
    again.close()


def test_past_the_rows_kept_it_only_counts(tmp_path: Path) -> None:
    aside = SetAside(tmp_path / "_set_aside.sqlite", max_rows=3)
    for i in range(10):
        aside.reject("T1", "events", "bad signature", f'{{"seq": {i}}}'.encode())
        aside.conflict("T1", forged(5, f"{2 + i}H"), signed=True)
    assert aside.counts("T1") == {"conflicts": 10, "rejected": 10}
    recent = aside.recent("T1", limit=100)
    for kind in ("rejected", "conflicts"):
        kept = [r for r in recent[kind] if not r["overflow"]]
        (overflow,) = [r for r in recent[kind] if r["overflow"]]
        assert len(kept) == 3 and overflow["times"] == 7, kind
    aside.close()
    again = SetAside(tmp_path / "_set_aside.sqlite", max_rows=3)
    assert again.counts("T1") == {"conflicts": 10, "rejected": 10}
    again.close()
