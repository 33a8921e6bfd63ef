"""A knockout tournament: the draw with byes, each round's match format, results, standings.

Pure rules, no I/O. The regulations' format:

* **Knockout.** 「比賽採取淘汰制」 (A 000 L4; XX 「比赛采用淘汰制」 002 L12). Entrants are seeded;
  the draw pairs seed *s* with seed *size + 1 − s* (size the next power of two) and places them
  so that seeds 1 and 2 can only meet in the final.
* **Byes.** When the count is not a power of two the missing places are byes, given to the top
  seeds, who go straight to round 2 and there meet a winner of round 1 — the regulations' 「如比
  赛队为奇数，轮空队须与上一轮比赛胜者之一比赛」 (XX 002 L12; AH 000 L60), with the pairing fixed by
  seed instead of a draw at the venue.
* **Match format by round** (:func:`knockout_formats`): one game, except semi-finals and final
  best of three — 「除半決賽、決賽採用三局兩勝制外，其餘均採用一局決勝負」 (A 000 L4). A game stops
  at the hand limit 「從第一輪到半決賽，每局牌限12牌結束」 (A 000 L6) or the time limit
  「小组赛及1/8、1/4决赛1小时，半决赛、决赛1.5小时」 (XX 002 L13), and then 「判領先方獲勝」:
  the side with the higher level wins, equal levels go to the last declaring side
  「升级相同时，以最后台上方获胜」 (XX 002 L33) — :meth:`engine.match.GameState.decide_at_limit`.

:func:`decide_match` plays a table's settled hands (:class:`HandSummary`) through
:class:`engine.match.MatchState` under a round's format; :func:`resolve` fills the draw with
winners; :func:`standings` places every entrant by the round it reached.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from engine.match import MatchState
from engine.profiles import RuleProfile
from engine.scoring import HandOutcome


class BracketError(ValueError):
    """A draw or format that cannot be played; the message is one line naming the fix."""


@dataclass(frozen=True)
class RoundFormat:
    """How one round's matches are played: games (best of), and a game's limits."""

    best_of: int = 1
    hand_limit: int | None = None
    time_limit_min: int | None = None

    def to_json(self) -> dict[str, object]:
        return {
            "best_of": self.best_of,
            "hand_limit": self.hand_limit,
            "time_limit_min": self.time_limit_min,
        }


def rounds_for(entrants: int) -> int:
    """Rounds of a knockout for ``entrants`` (2 → 1, 3–4 → 2, 5–8 → 3, …)."""
    if entrants < 2:
        raise BracketError(f"a knockout needs at least 2 entrants, not {entrants}: list more")
    return max(1, (entrants - 1).bit_length())


def knockout_formats(profile: RuleProfile, rounds: int) -> list[RoundFormat]:
    """Each round's format under ``profile``'s regulation (see the module docstring)."""
    out = []
    for r in range(1, rounds + 1):
        late = r >= rounds - 1 and rounds >= 2  # semi-final or final
        final = r == rounds
        if profile.name == "A":
            # 「除半決賽、決賽採用三局兩勝制外，其餘均採用一局決勝負」 000 L4; 12 hands from the
            # first round to the semi-final 000 L6; 「半決賽、決賽每局牌總時間不受限制」 000 L7
            out.append(RoundFormat(3 if late or final else 1, None if final else 12, None))
        elif profile.name in ("XX", "AH"):
            # 「小组赛及1/8、1/4决赛1小时，半决赛、决赛1.5小时」 002 L13 (AH 000 L62)
            out.append(RoundFormat(1, profile.match_hand_limit, 90 if late or final else 60))
        else:
            out.append(
                RoundFormat(
                    profile.match_best_of, profile.match_hand_limit, profile.match_time_limit_min
                )
            )
    return out


def seed_order(size: int) -> list[int]:
    """Seeds in draw order for a power-of-two ``size``: 1, size, …, 2 in the bottom half."""
    order = [1]
    while len(order) < size:
        n = 2 * len(order)
        order = [s for seed in order for s in (seed, n + 1 - seed)]
    return order


@dataclass(frozen=True)
class HandSummary:
    """One settled hand of a match, as the table's log states it."""

    declarer_side: str
    levels_before: dict[str, str]
    levels_after: dict[str, str]
    next_declarer: str
    game_winner: str | None
    started_t: float
    finished_t: float


@dataclass(frozen=True)
class GameResult:
    winner: str  # "NS" or "EW"
    hands: int
    by_limit: bool
    levels: dict[str, str]


@dataclass(frozen=True)
class MatchResult:
    """A table's match so far: games, games won per side, the winning side once decided."""

    games: tuple[GameResult, ...]
    games_won: dict[str, int]
    winner: str | None
    hands: int
    levels: dict[str, str]  # of the game in play (or the last game)


def decide_match(
    hands: Sequence[HandSummary], fmt: RoundFormat, profile: RuleProfile
) -> MatchResult:
    """The match of ``hands`` under ``fmt``: a game ends past A or at its limit (the leader
    wins, equal levels to the last declaring side); the match when a side has a majority of
    ``best_of``. Levels are taken from each hand as the table played it (the referee's word)."""
    rules = dataclasses.replace(
        profile,
        match_best_of=fmt.best_of,
        match_hand_limit=fmt.hand_limit,
        match_time_limit_min=fmt.time_limit_min,
    )
    match = MatchState(rules)
    games: list[GameResult] = []
    game_start = 0.0
    played = 0
    levels = {"NS": "2", "EW": "2"}
    for h in hands:
        if match.winner() is not None:
            break
        game = match.current
        if game.hands_played == 0:
            game_start = h.started_t
        game.levels, game.declarer = dict(h.levels_before), None
        outcome = HandOutcome(
            defender_total=0,
            declarer_side=h.declarer_side,
            levels_before=dict(h.levels_before),
            levels_after=dict(h.levels_after),
            level_change={},
            next_declarer=h.next_declarer,
            game_winner=h.game_winner,
            must_play_done={"NS": (), "EW": ()},
            explanation=(),
        )
        played += 1
        levels = dict(h.levels_after)
        won = match.apply(outcome)
        if won is not None:
            games.append(GameResult(won, game.hands_played, False, levels))
            continue
        if game.limit_reached((h.finished_t - game_start) / 60.0):
            winner = game.decide_at_limit()
            match.record_game(winner)
            games.append(GameResult(winner, game.hands_played, True, levels))
    return MatchResult(tuple(games), dict(match.games_won), match.winner(), played, levels)


@dataclass
class Match:
    """One place in the draw: round (1 = first), index within the round, the two entrants
    (``top`` sits NS), the table and the table's match result."""

    round: int
    index: int
    top: str | None = None
    bottom: str | None = None
    bye: bool = False
    table: str | None = None
    table_match: int | None = None
    result: MatchResult | None = None
    winner: str | None = None

    @property
    def key(self) -> str:
        return f"{self.round}-{self.index + 1}"


@dataclass
class Bracket:
    entrants: list[str]
    formats: list[RoundFormat]
    rounds: list[list[Match]] = field(default_factory=list)

    @property
    def champion(self) -> str | None:
        return self.rounds[-1][0].winner if self.rounds else None


Lookup = Callable[[Match], MatchResult | None]


def draw(entrants: Sequence[str], formats: Sequence[RoundFormat]) -> Bracket:
    """The empty draw: round 1 pairs by seed (byes to the top seeds), later rounds wait."""
    names = list(entrants)
    if len(set(names)) != len(names):
        raise BracketError("an entrant is listed twice: give every entrant a different name")
    rounds = rounds_for(len(names))
    if len(formats) != rounds:
        raise BracketError(f"{len(names)} entrants play {rounds} rounds: give {rounds} formats")
    size = 2**rounds
    order = seed_order(size)
    first = []
    for i in range(size // 2):
        a, b = order[2 * i], order[2 * i + 1]
        top = names[a - 1] if a <= len(names) else None
        bottom = names[b - 1] if b <= len(names) else None
        first.append(Match(1, i, top, bottom, bye=top is None or bottom is None))
    out = [first]
    for r in range(2, rounds + 1):
        out.append([Match(r, i) for i in range(size // 2**r)])
    return Bracket(names, list(formats), out)


def schedule(bracket: Bracket, tables: Sequence[Sequence[str]]) -> None:
    """Give the played matches of each round their tables, in draw order (byes skipped); a
    table's n-th match in the whole schedule is its n-th match in its log."""
    seen: dict[str, int] = {}
    for r, matches in enumerate(bracket.rounds):
        row = list(tables[r]) if r < len(tables) else []
        played = [m for m in matches if not m.bye]
        if len(row) > len(played):
            raise BracketError(
                f"round {r + 1} has {len(played)} matches but {len(row)} tables: list one a match"
            )
        for m, table in zip(played, row, strict=False):
            seen[table] = seen.get(table, 0) + 1
            m.table, m.table_match = table, seen[table]


def resolve(bracket: Bracket, lookup: Lookup) -> Bracket:
    """Fill in entrants and winners round by round: a bye's entrant goes through, a played
    match's winner is its table's winning side (``top`` sits NS)."""
    for r, matches in enumerate(bracket.rounds):
        if r > 0:
            for m in matches:
                m.top = bracket.rounds[r - 1][2 * m.index].winner
                m.bottom = bracket.rounds[r - 1][2 * m.index + 1].winner
        for m in matches:
            m.result, m.winner = None, None
            if m.bye:
                m.winner = m.top or m.bottom
                continue
            if m.top is None or m.bottom is None or m.table is None:
                continue
            m.result = lookup(m)
            if m.result is not None and m.result.winner is not None:
                m.winner = m.top if m.result.winner == "NS" else m.bottom
    return bracket


@dataclass(frozen=True)
class Standing:
    entrant: str
    seed: int
    place: int | None  # None while still in the tournament
    reached: int  # the last round played or waiting to be played
    matches_won: int
    matches_lost: int
    games_won: int
    games_lost: int


def standings(bracket: Bracket) -> list[Standing]:
    """Every entrant placed by the round it reached: champion 1, finalist 2, semi-final
    losers 3, quarter-final losers 5, …; those still in play have no place yet."""
    rounds = len(bracket.rounds)
    rows = []
    for seed, name in enumerate(bracket.entrants, start=1):
        won = lost = gw = gl = 0
        reached, place = 1, None
        for matches in bracket.rounds:
            for m in matches:
                if name not in (m.top, m.bottom):
                    continue
                reached = m.round
                if m.bye or m.winner is None:
                    if m.bye and m.winner == name and m.round == rounds:
                        place = 1
                    continue
                side = "NS" if m.top == name else "EW"
                if m.result is not None:
                    gw += m.result.games_won[side]
                    gl += m.result.games_won["EW" if side == "NS" else "NS"]
                if m.winner == name:
                    won += 1
                    if m.round == rounds:
                        place = 1
                else:
                    lost += 1
                    place = 2 ** (rounds - m.round) + 1
        rows.append(Standing(name, seed, place, reached, won, lost, gw, gl))
    # still in play first (deepest round first), then by place; seed breaks ties
    return sorted(
        rows,
        key=lambda s: (s.place is not None, s.place or -s.reached, s.seed),
    )
