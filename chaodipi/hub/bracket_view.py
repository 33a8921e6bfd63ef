"""The bracket and standings the hub shows, from hub.toml's draw and the tables' logs.

This module owns :class:`TableMatches` (a table's matches — the hands between ``next_match``
events — as :class:`engine.bracket.HandSummary` lists, taken from the table's fold so a hand's
result counts only confirmed penalties) and :func:`bracket_json`, which lays the draw out
(:mod:`engine.bracket`), asks each scheduled table for its match and answers the JSON of
``/api/bracket``. The rules themselves are all in :mod:`engine.bracket`.
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping
from typing import Any

from chaodipi.hub.config import BracketConfig
from chaodipi.table.live import LiveTable
from engine.bracket import (
    Bracket,
    HandSummary,
    Match,
    MatchResult,
    RoundFormat,
    decide_match,
    draw,
    knockout_formats,
    resolve,
    rounds_for,
    schedule,
    standings,
)
from engine.profiles import get_profile


class TableMatches:
    """One table's matches, read from its (possibly delayed) live view."""

    def __init__(self, live: LiveTable) -> None:
        self.live = live
        self._read = 0
        self._hand = 1
        self._bounds: list[int] = []  # the last hand number of each finished match
        self._seq = -1
        self._matches: list[list[HandSummary]] = [[]]

    def matches(self) -> list[list[HandSummary]]:
        """The hands of each match so far, settled hands only, in order."""
        with self.live.locked() as state:
            if state.seq == self._seq:
                return self._matches
            if state.seq > self._read:
                for ev in self.live.store.events(since=self._read, limit=state.seq - self._read):
                    if ev.kind == "hand_started":
                        self._hand = int(ev.data.get("hand", self._hand))
                    elif ev.kind == "next_match":
                        self._bounds.append(self._hand)
                self._read = state.seq
            out: list[list[HandSummary]] = [[] for _ in range(len(self._bounds) + 1)]
            for hand in state.hands:
                scored = hand.scored()
                if scored is None or not scored.report.finished or scored.report.result is None:
                    continue
                r = scored.report.result
                times = [p.t for t in scored.report.tricks for p in t.plays if p.t is not None]
                out[bisect.bisect_left(self._bounds, hand.number)].append(
                    HandSummary(
                        declarer_side=r.declarer_side,
                        levels_before=dict(r.levels_before),
                        levels_after=dict(r.levels_after),
                        next_declarer=r.next_declarer,
                        game_winner=r.game_winner,
                        started_t=hand.started_t,
                        finished_t=max(times, default=hand.started_t),
                    )
                )
            self._seq, self._matches = state.seq, out
            return out


def formats_of(cfg: BracketConfig) -> list[RoundFormat]:
    """Each round's format: the regulation's, with hub.toml's overrides (0 = no limit)."""
    rounds = rounds_for(len(cfg.entrants))
    out = knockout_formats(get_profile(cfg.rules), rounds)
    for i, fmt in enumerate(out):
        best_of = cfg.best_of[i] if cfg.best_of else fmt.best_of
        hands = cfg.hand_limit[i] if cfg.hand_limit else fmt.hand_limit
        minutes = cfg.time_limit_min[i] if cfg.time_limit_min else fmt.time_limit_min
        out[i] = RoundFormat(best_of, hands or None, minutes or None)
    return out


def build_bracket(cfg: BracketConfig, tables: Mapping[str, TableMatches]) -> Bracket:
    """The draw with every decided winner filled in."""
    formats = formats_of(cfg)
    bracket = draw(cfg.entrants, formats)
    schedule(bracket, cfg.tables)
    profile = get_profile(cfg.rules)

    def lookup(m: Match) -> MatchResult | None:
        source = tables.get(m.table or "")
        if source is None or m.table_match is None:
            return None
        matches = source.matches()
        if m.table_match > len(matches):
            return None
        return decide_match(matches[m.table_match - 1], formats[m.round - 1], profile)

    return resolve(bracket, lookup)


def stage(round_no: int, rounds: int) -> str:
    """``final``, ``semi``, ``quarter`` or ``round`` (earlier rounds)."""
    return {0: "final", 1: "semi", 2: "quarter"}.get(rounds - round_no, "round")


def _match_json(m: Match) -> dict[str, Any]:
    if m.bye:
        status = "bye"
    elif m.winner is not None:
        status = "done"
    elif m.top is None or m.bottom is None or m.table is None:
        status = "waiting"
    else:
        status = "playing"
    r = m.result
    return {
        "key": m.key,
        "top": m.top,
        "bottom": m.bottom,
        "table": m.table,
        "table_match": m.table_match,
        "status": status,
        "winner": m.winner,
        "games_won": None if r is None else dict(r.games_won),
        "games": []
        if r is None
        else [
            {"winner": g.winner, "hands": g.hands, "by_limit": g.by_limit, "levels": g.levels}
            for g in r.games
        ],
        "hands": 0 if r is None else r.hands,
        "levels": None if r is None else dict(r.levels),
    }


def bracket_json(cfg: BracketConfig | None, tables: Mapping[str, TableMatches]) -> dict[str, Any]:
    """``/api/bracket``: rounds with their format and matches, the champion, the standings."""
    if cfg is None:
        return {"configured": False, "rounds": [], "champion": None, "standings": []}
    bracket = build_bracket(cfg, tables)
    total = len(bracket.rounds)
    return {
        "configured": True,
        "rules": cfg.rules,
        "rounds": [
            {
                "round": i + 1,
                "stage": stage(i + 1, total),
                "format": bracket.formats[i].to_json(),
                "matches": [_match_json(m) for m in matches],
            }
            for i, matches in enumerate(bracket.rounds)
        ],
        "champion": bracket.champion,
        "standings": [
            {
                "entrant": s.entrant,
                "seed": s.seed,
                "place": s.place,
                "reached": s.reached,
                "matches_won": s.matches_won,
                "matches_lost": s.matches_lost,
                "games_won": s.games_won,
                "games_lost": s.games_lost,
            }
            for s in standings(bracket)
        ],
    }
