"""engine.match: a game carried hand to hand, its limits, and best-of-N matches."""

from __future__ import annotations

import dataclasses

import pytest

from engine.match import GameState, MatchError, MatchState
from engine.profiles import get_profile
from engine.scoring import HandOutcome, settle_hand


def play(game: GameState, declarer: str, table: int, **kw: object) -> HandOutcome:
    """Settle a plain hand (no kitty, no penalties) from the game's state and apply it."""
    won_last = bool(kw.pop("won_last", False))
    cards = kw.pop("cards", ())
    assert isinstance(cards, tuple)
    out = settle_hand(
        game.profile,
        levels=game.levels,
        declarer=declarer,
        defender_table_points=table,
        kitty_points=0,
        kitty_multiplier=2,
        defenders_won_last_trick=won_last,
        last_trick_winning_cards=cards,
        last_trick_is_throw=False,
        penalties_to_defenders=0,
        first_hand=game.first_hand,
        must_play_done=game.must_play_done,
    )
    game.apply(out)
    return out


def test_a_new_game_starts_both_sides_at_2_before_any_declarer() -> None:
    # VARIANTS.md §9 L127; XX 「从“2”开始打到“J”，再打到“A”为一局」 002 L43
    game = GameState(get_profile("XX"))
    assert game.levels == {"NS": "2", "EW": "2"}
    assert game.declarer is None
    assert game.first_hand
    assert game.winner is None
    assert game.leader() is None


def test_apply_carries_levels_declarer_and_last_declaring_side() -> None:
    # VARIANTS.md §9 L120; XX 「10分升一级」 002 L44; next declarer = partner (LY 000 L90)
    game = GameState(get_profile("XX"))
    play(game, "N", 55)  # 55 → 50: +3
    assert game.levels == {"NS": "5", "EW": "2"}
    assert game.declarer == "S"
    assert game.last_declarer_side == "NS"
    assert game.hands_played == 1
    assert not game.first_hand
    play(game, "S", 100)
    assert game.levels == {"NS": "5", "EW": "4"}
    assert game.declarer == "W"  # clockwise: S → W
    assert game.last_declarer_side == "NS"


def test_apply_rejects_an_outcome_settled_from_other_levels_or_the_wrong_side() -> None:
    # VARIANTS.md §9 L127 (levels carry from hand to hand)
    game = GameState(get_profile("XX"))
    play(game, "N", 55)
    stale = settle_hand(
        game.profile,
        levels={"NS": "2", "EW": "2"},
        declarer="S",
        defender_table_points=40,
        kitty_points=0,
        kitty_multiplier=2,
        defenders_won_last_trick=False,
        last_trick_winning_cards=(),
        last_trick_is_throw=False,
        penalties_to_defenders=0,
    )
    with pytest.raises(MatchError):
        game.apply(stale)
    wrong_side = dataclasses.replace(stale, levels_before=dict(game.levels), declarer_side="EW")
    with pytest.raises(MatchError):
        game.apply(wrong_side)


def test_the_game_ends_when_a_side_passes_a() -> None:
    # VARIANTS.md §9 L127; XX 「先过“A”者赢一局」 002 L43
    game = GameState(get_profile("XX"), levels={"NS": "A", "EW": "5"}, declarer="N")
    play(game, "N", 70)
    assert game.winner == "NS"
    with pytest.raises(MatchError):
        play(game, "S", 40)


def test_hf_must_play_record_carries_to_the_next_hand() -> None:
    # VARIANTS.md §9 L127; HF 「如「2」、「j」、「a」已打過，則不再為必打牌」 004 L9
    game = GameState(get_profile("HF"))
    play(game, "N", 100)  # NS played 2; EW stays on its unplayed 2
    assert game.levels == {"NS": "2", "EW": "2"}
    assert game.must_play_done == {"NS": ("2",), "EW": ()}
    play(game, "W", 50)  # EW declares 2 and gains 3
    assert game.levels == {"NS": "2", "EW": "5"}
    play(game, "E", 110)  # NS has played 2: +3
    assert game.levels == {"NS": "5", "EW": "5"}


def test_leader_wins_at_the_limit() -> None:
    # VARIANTS.md §1 L35–36; A 「時間到而一局未完判領先方獲勝」 000 L6; XX 「判领先方获胜」 002 L33
    game = GameState(get_profile("XX"))
    play(game, "N", 100)  # EW takes over +2 → 4
    assert game.leader() == "EW"
    assert game.decide_at_limit() == "EW"


def test_equal_levels_at_the_limit_go_to_the_last_declaring_side() -> None:
    # VARIANTS.md §1 L36; XX 「升级相同时，以最后台上方获胜」 002 L33
    game = GameState(get_profile("XX"))
    play(game, "N", 70)  # NS 3
    play(game, "S", 90)  # EW 3, took over from NS, who declared this last hand
    assert game.levels == {"NS": "3", "EW": "3"}
    assert game.leader() is None
    assert game.decide_at_limit() == "NS"


def test_a_game_with_no_hand_played_cannot_be_decided() -> None:
    # VARIANTS.md §1 L36; XX 002 L33 (needs a last 台上方)
    with pytest.raises(MatchError):
        GameState(get_profile("XX")).decide_at_limit()


def test_a_profile_limits_a_game_to_12_hands() -> None:
    # VARIANTS.md §1 L36; A 「每局牌限12牌結束」 000 L6
    game = GameState(get_profile("A"))
    for _ in range(12):
        assert not game.limit_reached(elapsed_min=500)
        play(game, game.declarer or "N", 80)  # a 0-level take-over each hand
    assert game.limit_reached()


def test_xx_limits_a_game_to_one_hour_and_nt_to_ninety_minutes() -> None:
    # VARIANTS.md §1 L36; XX 「比赛时间为一小时」 002 L33; NT 「賽時乙個半小時」 000 L30
    xx = GameState(get_profile("XX"))
    assert not xx.limit_reached(elapsed_min=59.5)
    assert xx.limit_reached(elapsed_min=60)
    assert not xx.limit_reached()
    nt = GameState(get_profile("NT"))
    assert not nt.limit_reached(elapsed_min=60)
    assert nt.limit_reached(elapsed_min=90)


def test_ly_has_no_game_limit() -> None:
    # VARIANTS.md §1 L36 (LY 「—」); LY preamble only 000 L90
    game = GameState(get_profile("LY"))
    game.hands_played = 100
    assert not game.limit_reached(elapsed_min=1000)


def test_best_of_three_needs_two_games() -> None:
    # VARIANTS.md §1 L36; NT 「打滿三局」 000 L30; A 「半決賽、決賽採用三局兩勝制」 000 L4
    match = MatchState(get_profile("NT"))
    assert match.games_needed == 2
    match.record_game("NS")
    assert match.winner() is None
    match.record_game("EW")
    assert match.winner() is None
    match.record_game("NS")
    assert match.winner() == "NS"
    assert match.games_won == {"NS": 2, "EW": 1}
    assert [g.winner for g in match.finished_games] == ["NS", "EW", "NS"]
    with pytest.raises(MatchError):
        match.record_game("EW")


def test_a_profile_final_is_best_of_three_by_override() -> None:
    # VARIANTS.md §1 L36; A 「除半決賽、決賽採用三局兩勝制外，其餘均採用一局決勝負」 000 L4
    assert MatchState(get_profile("A")).games_needed == 1
    final = MatchState(get_profile("A", {"match_best_of": 3}))
    final.record_game("EW")
    final.record_game("EW")
    assert final.winner() == "EW"


def test_a_match_records_a_game_won_by_passing_a_and_starts_a_fresh_one() -> None:
    # VARIANTS.md §9 L127; XX 「先过“A”者赢一局」 002 L43
    match = MatchState(get_profile("XX", {"match_best_of": 3}))
    match.current.levels = {"NS": "2", "EW": "A"}
    match.current.declarer = "E"
    out = settle_hand(
        match.profile,
        levels=match.current.levels,
        declarer="E",
        defender_table_points=60,
        kitty_points=0,
        kitty_multiplier=2,
        defenders_won_last_trick=False,
        last_trick_winning_cards=(),
        last_trick_is_throw=False,
        penalties_to_defenders=0,
    )
    assert match.apply(out) == "EW"
    assert match.games_won == {"NS": 0, "EW": 1}
    assert match.current.levels == {"NS": "2", "EW": "2"}
    assert match.current.first_hand
    assert match.winner() is None


def test_record_game_rejects_a_side_that_did_not_win_the_current_game() -> None:
    # VARIANTS.md §9 L127 (one winner per game)
    match = MatchState(get_profile("XX"))
    match.current.winner = "NS"
    with pytest.raises(MatchError):
        match.record_game("EW")
    with pytest.raises(MatchError):
        match.record_game("XX")
