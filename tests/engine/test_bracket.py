"""engine.bracket: the knockout draw with byes, each round's format, a match decided by games,
by the hand or time limit (leader wins, equal levels to the last declaring side), standings."""

from __future__ import annotations

import pytest

from engine.bracket import (
    BracketError,
    HandSummary,
    MatchResult,
    RoundFormat,
    decide_match,
    draw,
    knockout_formats,
    resolve,
    rounds_for,
    schedule,
    seed_order,
    standings,
)
from engine.profiles import get_profile

XX = get_profile("XX")


def hand(before: tuple[str, str], after: tuple[str, str], declarer: str = "NS", **kw: object):  # type: ignore[no-untyped-def]
    t0 = float(kw.get("t0", 0.0))  # type: ignore[arg-type]
    return HandSummary(
        declarer_side=declarer,
        levels_before={"NS": before[0], "EW": before[1]},
        levels_after={"NS": after[0], "EW": after[1]},
        next_declarer="N" if declarer == "NS" else "E",
        game_winner=kw.get("winner"),  # type: ignore[arg-type]
        started_t=t0,
        finished_t=float(kw.get("t1", t0 + 60)),  # type: ignore[arg-type]
    )


def test_seeds_1_and_2_meet_only_in_the_final_and_byes_go_to_the_top_seeds() -> None:
    assert seed_order(8) == [1, 8, 4, 5, 2, 7, 3, 6]
    assert rounds_for(2) == 1 and rounds_for(5) == 3 and rounds_for(64) == 6
    names = ["一", "二", "三", "四", "五"]
    b = draw(names, [RoundFormat()] * 3)
    first = [(m.top, m.bottom, m.bye) for m in b.rounds[0]]
    # 「如比赛队为奇数，轮空队须与上一轮比赛胜者之一比赛」: seeds 1–3 have byes, 4 plays 5
    assert first == [
        ("一", None, True),
        ("四", "五", False),
        ("二", None, True),
        ("三", None, True),
    ]
    with pytest.raises(BracketError, match="listed twice"):
        draw(["a", "a"], [RoundFormat()])


def test_round_formats_follow_the_regulation() -> None:
    # A: one game until the semi-finals, best of three then; 12 hands up to the semi-final
    a = knockout_formats(get_profile("A"), 4)
    assert [(f.best_of, f.hand_limit) for f in a] == [(1, 12), (1, 12), (3, 12), (3, None)]
    # XX: one hour, semi-finals and final an hour and a half
    xx = knockout_formats(XX, 3)
    assert [(f.best_of, f.time_limit_min) for f in xx] == [(1, 60), (1, 90), (1, 90)]


def test_a_game_passed_A_wins_and_best_of_three_needs_two() -> None:
    fmt = RoundFormat(best_of=3)
    won = [hand(("K", "5"), ("A", "5")), hand(("A", "5"), ("A", "5"), winner="NS")]
    r = decide_match(won, fmt, XX)
    assert r.games_won == {"NS": 1, "EW": 0} and r.winner is None
    r = decide_match([*won, *won], fmt, XX)
    assert r.winner == "NS" and len(r.games) == 2 and not r.games[0].by_limit


def test_at_the_hand_limit_the_leader_wins_and_a_tie_goes_to_the_last_declaring_side() -> None:
    fmt = RoundFormat(best_of=1, hand_limit=2)
    ahead = [hand(("2", "2"), ("2", "4"), "EW"), hand(("2", "4"), ("3", "4"), "NS")]
    r = decide_match(ahead, fmt, XX)
    assert r.winner == "EW" and r.games[0].by_limit
    tied = [hand(("2", "2"), ("3", "2"), "NS"), hand(("3", "2"), ("3", "3"), "EW")]
    assert decide_match(tied, fmt, XX).winner == "EW"  # 「升级相同时，以最后台上方获胜」
    assert decide_match(tied[:1], fmt, XX).winner is None  # one hand: not at the limit yet


def test_the_time_limit_ends_a_game_after_the_hand_in_play() -> None:
    fmt = RoundFormat(best_of=1, time_limit_min=60)
    early = hand(("2", "2"), ("4", "2"), "NS", t0=0, t1=1800)
    late = hand(("4", "2"), ("4", "3"), "EW", t0=1800, t1=3700)
    assert decide_match([early], fmt, XX).winner is None
    r = decide_match([early, late], fmt, XX)
    assert r.winner == "NS" and r.games[0].by_limit and r.hands == 2


def test_winners_advance_and_standings_place_everyone() -> None:
    names = ["一", "二", "三", "四", "五"]
    b = draw(names, [RoundFormat()] * 3)
    schedule(b, [["T1"], ["T1", "T2"], ["T3"]])
    assert (b.rounds[0][1].table, b.rounds[0][1].table_match) == ("T1", 1)
    assert (b.rounds[1][0].table, b.rounds[1][0].table_match) == ("T1", 2)
    ns = MatchResult((), {"NS": 1, "EW": 0}, "NS", 3, {})
    ew = MatchResult((), {"NS": 0, "EW": 1}, "EW", 3, {})
    results = {("T1", 1): ew, ("T1", 2): ns, ("T2", 1): ew, ("T3", 1): ns}
    resolve(b, lambda m: results.get((m.table or "", m.table_match or 0)))
    assert [m.winner for m in b.rounds[0]] == ["一", "五", "二", "三"]
    assert [m.winner for m in b.rounds[1]] == ["一", "三"]
    assert b.champion == "一"
    table = [(s.entrant, s.place, s.matches_won, s.matches_lost) for s in standings(b)]
    assert table == [
        ("一", 1, 2, 0),
        ("三", 2, 1, 1),
        ("二", 3, 0, 1),
        ("五", 3, 1, 1),
        ("四", 5, 0, 1),
    ]
    with pytest.raises(BracketError, match="round 1 has 1 matches but 2 tables"):
        schedule(draw(names, [RoundFormat()] * 3), [["T1", "T2"]])
