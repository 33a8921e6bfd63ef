"""A game (局) and a match: levels carried from hand to hand, limits, and games won.

This module owns the state that outlives one hand. :class:`GameState` is one game — both sides
start at ``"2"`` and the first to pass A wins (XX 「先过“A”者赢一局」 002 L43) — and takes each
:class:`~engine.scoring.HandOutcome` with :meth:`GameState.apply`; it also answers the match
limits: a hand limit (A 「每局牌限12牌結束」 000 L6) or a time limit (XX 「比赛时间为一小时」
002 L33), after which the leader wins and equal levels go to the last declaring side (XX
「升级相同时，以最后台上方获胜」 002 L33). :class:`MatchState` counts games in a best-of-N match
(A 「半決賽、決賽採用三局兩勝制」 000 L4, NT 「打滿三局」 000 L30).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.cards import RANKS, SIDES, side_of
from engine.profiles import RuleProfile
from engine.scoring import HandOutcome

_IDX: dict[str, int] = {r: i for i, r in enumerate(RANKS)}


class MatchError(ValueError):
    """An outcome or game result that does not fit the game or match it is applied to."""


def _start_levels() -> dict[str, str]:
    return {"NS": "2", "EW": "2"}


def _no_levels_done() -> dict[str, tuple[str, ...]]:
    return {"NS": (), "EW": ()}


@dataclass
class GameState:
    """One game (局): both sides from ``"2"`` until one passes A or wins by a special rule."""

    profile: RuleProfile
    levels: dict[str, str] = field(default_factory=_start_levels)
    declarer: str | None = None  # the seat that declares the next hand; None before the first
    hands_played: int = 0
    must_play_done: dict[str, tuple[str, ...]] = field(default_factory=_no_levels_done)
    winner: str | None = None
    last_declarer_side: str | None = None  # the side that declared the last hand played

    @property
    def first_hand(self) -> bool:
        """True before any hand of this game is played (HF's 首局 rules, 004 L11)."""
        return self.hands_played == 0

    def apply(self, outcome: HandOutcome) -> None:
        """Take one settled hand: new levels, next declarer, must-play record, winner."""
        if self.winner is not None:
            raise MatchError(f"the game is already won by {self.winner}")
        if outcome.levels_before != self.levels:
            raise MatchError(
                f"the hand was settled from levels {outcome.levels_before}, "
                f"but the game stands at {self.levels}"
            )
        if self.declarer is not None and side_of(self.declarer) != outcome.declarer_side:
            raise MatchError(
                f"the hand was declared by {outcome.declarer_side}, "
                f"but {self.declarer} ({side_of(self.declarer)}) was due to declare"
            )
        self.levels = dict(outcome.levels_after)
        self.declarer = outcome.next_declarer
        self.must_play_done = dict(outcome.must_play_done)
        self.last_declarer_side = outcome.declarer_side
        self.hands_played += 1
        self.winner = outcome.game_winner

    def leader(self) -> str | None:
        """The side with the higher level; None when the levels are equal."""
        ns, ew = _IDX[self.levels["NS"]], _IDX[self.levels["EW"]]
        if ns == ew:
            return None
        return "NS" if ns > ew else "EW"

    def decide_at_limit(self) -> str:
        """The winner when the game stops at its limit.

        The leader wins (A 「時間到而一局未完判領先方獲勝」 000 L6; XX 「打完本副牌后判领先方获胜」
        002 L33); equal levels go to the side that declared the last hand played, read as the
        last 台上方 (XX 「升级相同时，以最后台上方获胜」 002 L33; VARIANTS.md §1 L36).
        """
        if self.winner is not None:
            return self.winner
        lead = self.leader()
        if lead is not None:
            return lead
        if self.last_declarer_side is None:
            raise MatchError("no hand has been played: the game cannot be decided")
        return self.last_declarer_side

    def limit_reached(self, elapsed_min: float | None = None) -> bool:
        """Whether the game has run into ``match_hand_limit`` hands or ``match_time_limit_min``.

        Asked after a hand is settled: a hand in progress when time runs out is played to the
        end (XX 「若双方摸牌在手而时间到，则打完本副牌后判领先方获胜」 002 L33). ``elapsed_min``
        is the game's playing time so far; None skips the time check.
        """
        limit = self.profile.match_hand_limit
        if limit is not None and self.hands_played >= limit:
            return True
        minutes = self.profile.match_time_limit_min
        return minutes is not None and elapsed_min is not None and elapsed_min >= minutes


@dataclass
class MatchState:
    """A match of ``profile.match_best_of`` games; the first side to win a majority wins."""

    profile: RuleProfile
    games_won: dict[str, int] = field(default_factory=lambda: {"NS": 0, "EW": 0})
    current: GameState = field(init=False)
    finished_games: list[GameState] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.current = GameState(self.profile)

    @property
    def games_needed(self) -> int:
        """Games a side must win: a majority of ``match_best_of`` (2 of 3)."""
        return self.profile.match_best_of // 2 + 1

    def apply(self, outcome: HandOutcome) -> str | None:
        """Apply a hand to the current game; record the game if it was won. Returns its winner."""
        self.current.apply(outcome)
        won = self.current.winner
        if won is not None:
            self.record_game(won)
        return won

    def record_game(self, winner: str) -> None:
        """Close the current game as won by ``winner`` (also at a limit) and start the next."""
        if winner not in SIDES:
            raise MatchError(f"a game is won by a side NS or EW, not {winner!r}")
        if self.winner() is not None:
            raise MatchError(f"the match is already won by {self.winner()}")
        if self.current.winner is not None and self.current.winner != winner:
            raise MatchError(f"the current game was won by {self.current.winner}, not {winner}")
        self.current.winner = winner
        self.games_won[winner] += 1
        self.finished_games.append(self.current)
        self.current = GameState(self.profile)

    def winner(self) -> str | None:
        """The side that has won a majority of the games, else None."""
        for side in SIDES:
            if self.games_won[side] >= self.games_needed:
                return side
        return None
