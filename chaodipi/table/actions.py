"""Table actions that append several events at once: starting, advancing and resetting.

This module owns the event groups whose contents come from the folded state: the first
``hand_started`` of an empty log, ``next_hand`` + ``hand_finished`` + ``hand_started`` when the
referee (or the feed) moves on, and ``next_match`` + ``hand_started``. Each group is appended in
one transaction, while the state is held, so a crash or a concurrent camera event can never
split it.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from chaodipi.table.live import LiveTable
from chaodipi.table.table_state import (
    BIDDING_KEYS,
    DEFAULT_LEVELS,
    check_contract,
    without_hand_fields,
)


def _started(number: int, contract: Mapping[str, Any]) -> dict[str, Any]:
    started = {
        "hand": number,
        "rules": contract["rules"],
        "rule_overrides": dict(contract.get("rule_overrides") or {}),
        "levels": dict(contract["levels"]),
        "declarer": contract["declarer"],
        "trump": contract["trump"],
    }
    for key in BIDDING_KEYS:  # the hand's draw and bidding, when the caller knows them
        if contract.get(key) is not None:
            started[key] = copy.deepcopy(contract[key])
    return started


def start_table(live: LiveTable, contract: Mapping[str, Any]) -> int | None:
    """Append the first ``hand_started`` if the log is empty; returns its seq (None if the log
    already has events: a restart resumes)."""
    with live.locked() as state:
        if state.seq > 0:
            return None
        return live.append("hand_started", _started(1, check_contract(dict(contract))), "system")


def advance_hand(
    live: LiveTable, actor: str, contract: Mapping[str, Any] | None = None
) -> list[int]:
    """``next_hand``, ``hand_finished`` (the result with confirmed penalties, null for a hand
    left unfinished) and the next ``hand_started``; ``contract`` overrides what the match
    gives (the feed knows its next record's)."""
    with live.locked() as state:
        hand = state.hand
        scored = hand.scored()
        result = scored.report.to_json()["result"] if scored is not None else None
        nxt = dict(contract) if contract is not None else state.next_contract()
        nxt = check_contract(nxt)
        return live.append_many(
            [
                ("next_hand", {}, actor),
                ("hand_finished", {"hand": hand.number, "result": result}, "system"),
                ("hand_started", _started(hand.number + 1, nxt), "system"),
            ]
        )


def new_match(live: LiveTable, actor: str) -> list[int]:
    """``next_match`` and the ``hand_started`` of its first hand (levels 2–2)."""
    with live.locked() as state:
        hand = state.hand
        nxt = {**without_hand_fields(hand.contract), "levels": dict(DEFAULT_LEVELS), "trump": "NT"}
        return live.append_many(
            [
                ("next_match", {}, actor),
                ("hand_started", _started(hand.number + 1, nxt), "system"),
            ]
        )
