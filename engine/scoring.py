"""The result of one hand: kitty multiplier, defender total, level moves and the next declarer.

This module owns the arithmetic a referee does once the last trick is down (VARIANTS.md §8–§9):
the kitty multiplier of the last trick's lead (:func:`kitty_multiplier`), and
:func:`settle_hand`, which turns the defenders' table points, the kitty, penalties and the
last trick into a :class:`HandOutcome` — the defenders' total after the penalty floor, each
side's new level (levels are rank strings ``"2"``…``"10"``, ``"J"``, ``"Q"``, ``"K"``, ``"A"``)
with must-play caps, J/A 抠底 drop-backs, 大光 and 跳級 jumps, the game winner if a side passes
A or wins by a special rule, the next declarer, and short bilingual lines that explain each step.
Every rule that differs between regulations is a :class:`~engine.profiles.RuleProfile` knob;
this module reads knobs and never names a profile.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.cards import RANKS, SIDES, other_side, partner_of, rank_of, side_of
from engine.profiles import RuleProfile

PAST_A = len(RANKS)  # index one beyond "A": a side that gets here has passed A and won
_IDX: dict[str, int] = {r: i for i, r in enumerate(RANKS)}


class ScoringError(ValueError):
    """Input to the scoring functions that cannot describe a real hand."""


# --------------------------------------------------------------------------- kitty multiplier


def _tractor_multiplier(profile: RuleProfile, pairs: int) -> int:
    """Multiplier of a tractor of ``pairs`` pairs (VARIANTS.md §8 L111, §11 L150)."""
    if profile.kitty_mult_tractor == "linear":
        return 4 * pairs  # XX 「二连对…乘八，三连对…乘十二，依此类推」 002 L45
    if profile.kitty_mult_tractor == "doubling":
        return int(2 ** (pairs + 1))  # HF 「連對…8倍，…三連對…16倍；依此類推」 004 L49
    return 8  # 'capped': B 「三連對以上參照二連對計算」 001 L8


def _unit_multiplier(profile: RuleProfile, pairs: int) -> int:
    if pairs == 0:
        return profile.kitty_mult_single
    if pairs == 1:
        return profile.kitty_mult_pair
    return _tractor_multiplier(profile, pairs)


def kitty_multiplier(profile: RuleProfile, components: Sequence[int]) -> int:
    """The kitty multiplier for a last-trick lead made of ``components``.

    Each component is one unit of the lead given as its number of pairs: 0 a single card, 1 a
    pair, L >= 2 a tractor of L pairs. One component is an ordinary lead: single
    ``kitty_mult_single``, pair ``kitty_mult_pair``, tractor by ``kitty_mult_tractor``
    (VARIANTS.md §8 L110–111). Several components are a throw (VARIANTS.md §8 L112):
    ``kitty_mult_throw='card_count'`` multiplies by the number of cards (XX 「撒几张乘几」
    002 L45); ``'component_class'`` uses the multiplier of the throw's largest unit class — the
    longest tractor, else a pair, else a single (B 「分別參照單摳、雙摳、二連對計算」 001 L8).
    With ``'component_class'`` a throw of two or more pairs (no tractor) counts as a pair when
    ``multiple_pairs_count_as_pair`` (B 「雙摳（一對或一對以上不連對）乘四」 001 L8); with that
    knob off such a throw is read as not being a 雙摳 and is multiplied by its card count.
    """
    units = list(components)
    if not units:
        raise ScoringError("the last trick's lead needs at least one unit")
    for u in units:
        if isinstance(u, bool) or not isinstance(u, int) or u < 0:
            raise ScoringError(f"a lead unit is its number of pairs (0, 1, 2, …), not {u!r}")
    if len(units) == 1:
        return _unit_multiplier(profile, units[0])
    card_count = sum(max(1, 2 * u) for u in units)
    if profile.kitty_mult_throw == "card_count":
        return card_count
    longest = max(units)
    if longest >= 2:
        return _tractor_multiplier(profile, longest)
    if longest == 1:
        pairs = sum(1 for u in units if u == 1)
        if pairs > 1 and not profile.multiple_pairs_count_as_pair:
            return card_count
        return profile.kitty_mult_pair
    return profile.kitty_mult_single


# --------------------------------------------------------------------------- hand outcome


@dataclass(frozen=True)
class HandOutcome:
    """What one hand changes. ``level_change`` counts passing A as one step past ``"A"``."""

    defender_total: int  # after kitty bonus and penalties, after the penalty floor
    declarer_side: str  # "NS" or "EW"
    levels_before: dict[str, str]
    levels_after: dict[str, str]
    level_change: dict[str, int]  # levels actually moved per side (negative for drop-backs)
    next_declarer: str  # seat
    game_winner: str | None  # side that passed A / won the game by a special rule, else None
    must_play_done: dict[str, tuple[str, ...]]
    explanation: tuple[str, ...]  # short lines, Chinese first then English in brackets
    steps: tuple[Step, ...] = ()
    """The explanation as data, one :data:`Step` a line (what pages render in their language)."""


Step = dict[str, Any]
"""One step of a hand's settlement: ``"kind"`` and its facts (points, levels, seats, whether a
side won) as plain JSON values; :func:`explain` renders it as a line of
:attr:`HandOutcome.explanation`. The kinds and their keys are tabled in ``engine/README.md``."""

STEP_KINDS: tuple[str, ...] = (
    "defender_total",
    "floor_zero",
    "floor_shutout",
    "floor_none",
    "first_hand_shutout",
    "first_hand_turnover",
    "drop_back",
    "jump",
    "must_play_stop",
    "declarers_gain",
    "defenders_take_over",
    "declarers_drop",
    "side_levels",
    "keep_deal",
    "take_over_deal",
    "game_won",
    "opponents_drop",
    "declaration_jump",
    "forfeit",
)
PAST_A_NAME = {"zh": "过A", "en": "past A"}


def _line(zh: str, en: str) -> str:
    return f"{zh} ({en})"


def _new_level(step: Step, lang: str) -> str:
    return PAST_A_NAME[lang] if step["past_a"] else str(step["to"])


def explain(step: Step) -> str:
    """The line of a :data:`Step`: Chinese first, English in brackets."""
    k = step["kind"]
    if k == "defender_total":
        parts_zh, parts_en = [f"台面 {step['table']}"], [f"table {step['table']}"]
        if step["kitty"] is not None:
            parts_zh.append(f"抠底 {step['kitty']}×{step['multiplier']}")
            parts_en.append(f"kitty {step['kitty']}×{step['multiplier']}")
        if step["penalties"]:
            parts_zh.append(f"罚分 {step['penalties']:+d}")
            parts_en.append(f"penalties {step['penalties']:+d}")
        total = step["total"]
        return _line(
            f"台下方得分 {total} = " + " + ".join(parts_zh),
            f"defenders {total} = " + " + ".join(parts_en),
        )
    if k == "floor_zero":
        return _line("罚分至 0 分为止：记 0 分", "penalties stop at 0: counted as 0")
    if k == "floor_shutout":
        return _line("因罚分为负分：按大光处理", "negative after penalties: treated as 大光")
    if k == "floor_none":
        return _line("负分照公式计算", "negative total: the formula goes on")
    if k == "keep_deal":
        return _line(
            f"庄家方保庄：下一庄 {step['next']}（庄家对家）",
            f"declarers keep the deal: next declarer {step['next']}, the declarer's partner",
        )
    if k == "take_over_deal":
        return _line(
            f"台下方上台：下一庄 {step['next']}（庄家下家）",
            f"defenders take over: next declarer {step['next']}, next seat in play order",
        )
    if k == "game_won":
        return _line(f"{step['side']} 方赢得本局", f"{step['side']} wins the game")
    if k == "opponents_drop":
        side, void, to = step["side"], step["levels"], step["to"]
        return _line(
            f"多余 {void} 级扣对家：{side} 方降至 {to}",
            f"the {void} surplus comes off the opponents: {side} drop to {to}",
        )
    if k == "declaration_jump":
        if step["shown_by"] == "declarers":
            zh = f"庄家方亮王连对/红五星对，台下方 {step['points']} 分 < {step['turnover']}"
            en = (
                f"declarers showed the joker tractor or 紅五星 pair, defenders {step['points']} "
                f"< {step['turnover']}"
            )
        else:
            zh = f"台下方亮王连对/红五星对，庄家方只得 {step['points']} 分 < {step['turnover']}"
            en = (
                f"defenders showed the joker tractor or 紅五星 pair, declarers took only "
                f"{step['points']} < {step['turnover']}"
            )
        side = step["side"]
        return _line(f"{zh}：{side} 方直接打 A，对家打 2", f"{en}: {side} to A, the opponents to 2")
    if k == "forfeit":
        return _line(
            f"{step['side']} 方隐瞒能管住甩牌的牌：判负",
            f"{step['side']} hid a card beating the throw: the game is lost",
        )
    if k == "first_hand_shutout":
        return _line("首局打大光：庄家方判胜", "大光 in the first hand: declarers win")
    if k == "first_hand_turnover":
        pts, turnover = step["points"], step["turnover"]
        return _line(
            f"首局台下方台面 {pts} ≥ {turnover} 并抠底：台下方判胜",
            f"first hand, defenders {pts} ≥ {turnover} on the table and won the kitty: "
            "defenders win",
        )
    if k == "drop_back":
        level, to = step["level"], step["to"]
        return _line(
            f"打{level}被{level}抠底：庄家方倒回 {to}",
            f"{level} 抠底 at level {level}: declarers fall back to {to}",
        )
    if k == "jump":
        if step["by"] == "shutout":
            zh, en = "大光跳级", "大光 jump"
        else:
            zh, en = f"台下方 {step['points']} 分跳级", f"defenders {step['points']} jump"
        if step["wins"]:
            return _line(f"{zh}：打{step['from']}时跳级，本局胜", f"{en} at {step['from']}: wins")
        return _line(f"{zh}：直接打 A", f"{en}: straight to A")
    if k == "must_play_stop":
        level, void = step["level"], step["void"]
        return _line(
            f"{level} 必打：停在 {level}，多余 {void} 级作废",
            f"{level} must be played: stop there, {void} surplus void",
        )
    if k == "declarers_gain":
        if step["by"] == "shutout":
            zh = en = "大光"
        else:
            zh = f"台下方 {step['points']} 分 < {step['turnover']}"
            en = f"defenders {step['points']} < {step['turnover']}"
        up = step["levels"]
        return _line(f"{zh}：庄家方升 {up} 级", f"{en}: declarers +{up}")
    if k == "defenders_take_over":
        pts, turnover, up = step["points"], step["turnover"], step["levels"]
        return _line(
            f"台下方 {pts} 分 ≥ {turnover}：上台，升 {up} 级",
            f"defenders {pts} ≥ {turnover}: take over, +{up}",
        )
    if k == "declarers_drop":
        up, to = step["levels"], step["to"]
        return _line(f"庄家方降 {up} 级 → {to}", f"declarers drop {up} → {to}")
    if k == "side_levels":
        side = {"declarers": ("庄家方", "declarers"), "defenders": ("台下方", "defenders")}
        zh_side, en_side = side[step["side"]]
        return _line(
            f"{zh_side} {step['from']} → {_new_level(step, 'zh')}",
            f"{en_side} {step['from']} → {_new_level(step, 'en')}",
        )
    raise ValueError(f"unknown settlement step {k!r}")


def _floor_step(total: int, step: int) -> int:
    """``total`` rounded down to a whole number of levels: remainders of 5 are ignored.

    XX 「5分不挡级」 002 L44, B 「5分不計」 001 L6, HF 「零頭5分不算分」 004 L8
    (VARIANTS.md §9 L119).
    """
    return (total // step) * step


def _declarers_levels(profile: RuleProfile, total: int) -> int:
    """Levels the declarers gain with the defenders at ``total`` < turnover: the total rounded
    down (``five_point_remainder = "ignored"``: 75 → +1), or the margin rounded down
    (``"blocks"``, 5分挡级: 75 → +0)."""
    turnover, step = profile.turnover_points, profile.points_per_level
    if profile.five_point_remainder == "blocks":
        return (turnover - total) // step
    return (turnover - _floor_step(total, step)) // step


def _level_step(side: str, before: str, idx: int) -> Step:
    """A side's level move: ``to`` its new level, ``past_a`` when it passed A."""
    past = idx >= PAST_A
    return {"kind": "side_levels", "side": side, "from": before,
            "to": "A" if past else RANKS[idx], "past_a": past}  # fmt: skip


@dataclass
class _Advance:
    idx: int  # new index; PAST_A when the side passed A
    stopped_at: str | None = None  # must-play level that stopped the gain
    void: int = 0  # surplus levels lost at that level


def _advance(
    profile: RuleProfile,
    start: int,
    gain: int,
    *,
    done: set[str],
    start_exempt: bool,
) -> _Advance:
    """Move a side ``gain`` levels up from ``start`` under the must-play caps.

    A must-play level ``m`` with ``start <= m < target`` stops the gain there and the surplus is
    void, the opponents are not pushed down (A 「已超過部分不降對方的級別」 000 L10, HF 「多餘的分數
    作廢，不扣對家的級數」 004 L9; VARIANTS.md §9 L127–128). ``m == start`` does not bind when
    ``start_exempt`` (the side has just played it as declarer, or is counting 升几打几 from a
    drop-back level). With ``must_play_once`` a level in ``done`` no longer binds (HF 「如「2」、
    「j」、「a」已打過，則不再為必打牌」 004 L9).
    """
    target = start + gain
    if gain <= 0:
        return _Advance(start)
    binding = sorted(_IDX[m] for m in profile.must_play_levels if m in _IDX)
    for mi in binding:
        if not start <= mi < target:
            continue
        if mi == start and start_exempt:
            continue
        if profile.must_play_once and RANKS[mi] in done:
            continue
        return _Advance(mi, stopped_at=RANKS[mi], void=target - mi)
    return _Advance(min(target, PAST_A))


def _drop_back_target(
    profile: RuleProfile,
    hand_level: str,
    *,
    defenders_won_last_trick: bool,
    last_trick_winning_cards: Sequence[str],
    last_trick_is_throw: bool,
    defender_table_points: int,
) -> str | None:
    """The level the declarer side falls back to on a J/A 抠底, or None (VARIANTS.md §9 L129).

    XX 「打“J”被对方“J”抠底，庄家下台且倒回“2”…被对方一张“A”抠底，庄家下台且倒回“J”，被对方一对
    “A”抠底，庄家下台且倒回“2”」 002 L46; a throw containing J/A is exempt with
    ``kitty_drop_back_throw_exempt`` (「如有“J”或“A”在内，不扣到底」 002 L45); HF needs the A pair
    to be of one suit (identical cards) and the defenders to hold ≥ turnover on the table,
    kitty excluded (「同花色的一對「a」摳底，且臺面上拿滿80分的（不包含摳底中的分）」 004 L10).
    """
    if not profile.kitty_drop_back or not defenders_won_last_trick:
        return None
    if hand_level not in ("J", "A"):
        return None
    if profile.kitty_drop_back_throw_exempt and last_trick_is_throw:
        return None
    if (
        profile.kitty_drop_back_needs_table_turnover
        and defender_table_points < profile.turnover_points
    ):
        return None
    level_cards = [c for c in last_trick_winning_cards if rank_of(c) == hand_level]
    if not level_cards:
        return None
    if hand_level == "J":
        return "2"
    has_pair = any(level_cards.count(c) >= 2 for c in level_cards)
    return "2" if has_pair else "J"


def _check_inputs(levels: Mapping[str, str], declarer: str, cards: Sequence[str]) -> None:
    if set(levels) != set(SIDES):
        raise ScoringError(f"levels must give both sides NS and EW, not {sorted(levels)!r}")
    for side, level in levels.items():
        if level not in _IDX:
            raise ScoringError(f"level of {side} must be one of {', '.join(RANKS)}, not {level!r}")
    if declarer not in ("N", "E", "S", "W"):
        raise ScoringError(f"declarer must be a seat N, E, S or W, not {declarer!r}")
    for c in cards:
        rank_of(c)  # raises CardError for a card outside the notation


def settle_hand(
    profile: RuleProfile,
    *,
    levels: Mapping[str, str],
    declarer: str,
    defender_table_points: int,
    kitty_points: int,
    kitty_multiplier: int,
    defenders_won_last_trick: bool,
    last_trick_winning_cards: Sequence[str],
    last_trick_is_throw: bool,
    penalties_to_defenders: int,
    first_hand: bool = False,
    must_play_done: Mapping[str, Sequence[str]] | None = None,
    declarer_points: int | None = None,
    declaration_side: str | None = None,
    forfeited_by: str | None = None,
    played: bool = True,
) -> HandOutcome:
    """Settle one hand (VARIANTS.md §9).

    ``penalties_to_defenders`` is signed: points for the defenders when the declarer side
    offended are positive, deductions for defender offences negative (VARIANTS.md §10 L132).
    ``last_trick_winning_cards`` are the cards of the play that won the last trick (used for the
    J/A 抠底 drop-back). ``must_play_done`` lists, per side, the must-play levels it has already
    played as declarer (read only with ``must_play_once``). ``declarer_points`` (the points the
    declaring side took: its tricks, the kitty if it won the last one) and ``declaration_side``
    (the side that showed a joker tractor or 紅五星 pair to declare) drive ``declaration_jump``;
    ``forfeited_by`` is a side that loses the game by an infraction (判負: HF 004 L44).
    ``played`` is False for a hand a false declaration ended before its play counted: it jumps
    as a 大光 or a big win would, but wins no game in a first hand.

    The steps, each with its source:

    1. Total = table points + kitty × multiplier if the defenders won the last trick + penalties;
       below 0 the ``penalty_floor`` applies (VARIANTS.md §9 L124).
    2. HF first hand: 大光 wins for the declarer side, defenders ≥ turnover on the table who
       also 抠底 win for the defenders (HF 004 L11; VARIANTS.md §9 L126).
    3. Below turnover the declarer side keeps the deal and gains (turnover − total rounded
       down to 10)/10 levels (VARIANTS.md §9 L118–120); 大光 by ``shutout_rule`` (§9 L122).
    4. At or above turnover the defenders take over and gain one level per full 10 above it
       (80 and 85 → 0, 90 → 1: VARIANTS.md §11.3 L151); ``big_win_points`` jumps them to A
       (HF 004 L13; §9 L125).
    5. Must-play caps, J/A drop-back, passing A, as in :func:`_advance` and
       :func:`_drop_back_target`.
    6. Next declarer: the declarer's partner when the side keeps the deal, else the next seat
       after the declarer in the play direction — the common 轮庄 rule (LY 「出牌及輪莊均逆時針
       進行」 000 L90; VARIANTS.md §1 L32).
    """
    _check_inputs(levels, declarer, last_trick_winning_cards)
    if kitty_multiplier < 0 or kitty_points < 0 or defender_table_points < 0:
        raise ScoringError("table points, kitty points and the multiplier cannot be negative")

    decl_side = side_of(declarer)
    def_side = other_side(decl_side)
    hand_level = levels[decl_side]
    before = {s: levels[s] for s in SIDES}
    turnover = profile.turnover_points
    step = profile.points_per_level
    lines: list[Step] = []

    # Must-play levels played: the declarer side has just played the hand's level.
    done: dict[str, set[str]] = {s: set() for s in SIDES}
    for s, levels_played in (must_play_done or {}).items():
        if s not in done:
            raise ScoringError(f"must_play_done has an unknown side {s!r}")
        done[s].update(levels_played)
    if hand_level in profile.must_play_levels:
        done[decl_side].add(hand_level)

    # 1. the defenders' total
    kitty_bonus = kitty_points * kitty_multiplier if defenders_won_last_trick else 0
    raw = defender_table_points + kitty_bonus + penalties_to_defenders
    total = raw
    lines.append(
        {
            "kind": "defender_total",
            "total": raw,
            "table": defender_table_points,
            "kitty": kitty_points if defenders_won_last_trick else None,
            "multiplier": kitty_multiplier if defenders_won_last_trick else None,
            "penalties": penalties_to_defenders,
        }
    )
    # 大光 is a shutout of the points taken; a 0 made by penalties only with
    # penalty_zero_is_shutout (A 「如抓分方為0分（大光）或因罰分為負分」 000 L10)
    earned = defender_table_points + kitty_bonus
    shutout = False
    if raw < 0:
        if profile.penalty_floor == "zero":  # HF 「台下罰分罰至0分為止」 004 L43
            total = 0
            lines.append({"kind": "floor_zero"})
        elif profile.penalty_floor == "shutout":  # A 「或因罰分為負分」 000 L10
            shutout = True
            lines.append({"kind": "floor_shutout"})
        else:
            lines.append({"kind": "floor_none"})
    if total == 0 and (earned == 0 or profile.penalty_zero_is_shutout):
        shutout = True

    new_idx = {s: _IDX[before[s]] for s in SIDES}
    winner: str | None = None
    keeps = total < turnover

    def finish() -> HandOutcome:
        nonlocal winner
        if forfeited_by is not None:
            winner = other_side(forfeited_by)
            lines.append({"kind": "forfeit", "side": forfeited_by})
        after = {s: RANKS[min(new_idx[s], PAST_A - 1)] for s in SIDES}
        change = {s: new_idx[s] - _IDX[before[s]] for s in SIDES}
        nxt = partner_of(declarer) if keeps else profile.seats_in_play_order(declarer)[1]
        lines.append({"kind": "keep_deal" if keeps else "take_over_deal", "next": nxt})
        if winner is not None:
            lines.append({"kind": "game_won", "side": winner})
        return HandOutcome(
            defender_total=total,
            declarer_side=decl_side,
            levels_before=before,
            levels_after=after,
            level_change=change,
            next_declarer=nxt,
            game_winner=winner,
            must_play_done={
                s: tuple(sorted(done[s], key=lambda r: _IDX.get(r, len(RANKS)))) for s in SIDES
            },
            explanation=tuple(explain(step) for step in lines),
            steps=tuple(lines),
        )

    # 2. HF first-hand rules: 「首局主叫方打大光或防守方檯面抓80分及以上並摳底判勝」 004 L11 —
    # a 大光 played (打); a hand a false declaration ended is 「本盤牌不打，按2.4條規定跳級」
    # 004 L48: 2.4's jump, not 2.3's win
    if first_hand and played and profile.shutout_first_hand_wins and shutout:
        winner = decl_side
        keeps = True
        lines.append({"kind": "first_hand_shutout"})
        return finish()
    if (
        first_hand
        and profile.first_hand_turnover_with_kitty_wins
        and defenders_won_last_trick
        and defender_table_points >= turnover
    ):
        winner = def_side
        keeps = False
        lines.append(
            {"kind": "first_hand_turnover", "points": defender_table_points, "turnover": turnover}
        )
        return finish()

    # NT 「「大王小王連對「、「紅五星對」亮相反牌後，如果是主打方亮相對方未拿滿80分則主打方直接打a，
    # 台下方打2；如果是台下方亮相後而主打方未拿滿80分則台下方直接打a，主打方打2」 000 L45
    jump_by: tuple[str, str, int] | None = None  # (who showed it, the side to A, the points)
    if profile.declaration_jump and declaration_side == decl_side and total < turnover:
        jump_by = ("declarers", decl_side, total)
    elif (
        profile.declaration_jump
        and declaration_side == def_side
        and declarer_points is not None
        and declarer_points < turnover
    ):
        jump_by = ("defenders", def_side, declarer_points)
    if jump_by is not None:
        shown_by, to_a, points = jump_by
        new_idx[to_a], new_idx[other_side(to_a)] = _IDX["A"], _IDX["2"]
        keeps = to_a == decl_side
        lines.append(
            {
                "kind": "declaration_jump",
                "shown_by": shown_by,
                "side": to_a,
                "points": points,
                "turnover": turnover,
            }
        )
        lines.append(_level_step("declarers", before[decl_side], new_idx[decl_side]))
        lines.append(_level_step("defenders", before[def_side], new_idx[def_side]))
        return finish()

    # J/A 抠底 drop-back (XX 002 L45–46, HF 004 L10)
    drop_to = _drop_back_target(
        profile,
        hand_level,
        defenders_won_last_trick=defenders_won_last_trick,
        last_trick_winning_cards=last_trick_winning_cards,
        last_trick_is_throw=last_trick_is_throw,
        defender_table_points=defender_table_points,
    )
    if drop_to is not None:
        new_idx[decl_side] = _IDX[drop_to]
        lines.append({"kind": "drop_back", "level": hand_level, "to": drop_to})

    def jump(side: str, from_level: str, by: str, points: int | None) -> None:
        """跳級 straight to A, skipping must-play levels (HF 「可跳過「j」」 004 L13); from a
        level in ``jump_wins_at_levels`` (HF J/Q/K/A), or from A itself, the side wins."""
        nonlocal winner
        wins = from_level in profile.jump_wins_at_levels or from_level == "A"
        if wins:
            new_idx[side] = PAST_A
            winner = side
        else:
            new_idx[side] = _IDX["A"]
        lines.append({"kind": "jump", "by": by, "points": points, "from": from_level, "wins": wins})

    def gain(side: str, levels_up: int, *, exempt: bool) -> None:
        nonlocal winner
        start = new_idx[side]
        adv = _advance(profile, start, levels_up, done=done[side], start_exempt=exempt)
        new_idx[side] = adv.idx
        if adv.stopped_at is not None:
            lines.append({"kind": "must_play_stop", "level": adv.stopped_at, "void": adv.void})
            if profile.surplus_rule == "demotes_opponents":
                other = other_side(side)
                new_idx[other] = max(0, new_idx[other] - adv.void)
                lines.append(
                    {
                        "kind": "opponents_drop",
                        "side": other,
                        "levels": adv.void,
                        "to": RANKS[new_idx[other]],
                    }
                )
        if adv.idx >= PAST_A:
            winner = side

    if keeps:
        # 3. declarers keep the deal. After a drop-back they count from 2 or J: 「台下方如不满80分，
        # 庄家从“2”或“J”升级，升几打几」 002 L46 — the drop-back level itself does not stop them.
        start_level = RANKS[new_idx[decl_side]]
        if shutout and profile.shutout_rule == "to_A":
            # A 「莊家方從低於a級的任何一級直接公升打"a"級」 000 L10; HF 004 L13
            jump(decl_side, start_level, "shutout", None)
        else:
            by = "points"
            if shutout and profile.shutout_rule == "plus_levels":
                up = profile.shutout_levels  # B 「大光…莊家公升9級」 001 L7
                by = "shutout"
            else:
                up = _declarers_levels(profile, max(total, 0) if shutout else total)
            lines.append(
                {
                    "kind": "declarers_gain",
                    "by": by,
                    "points": total,
                    "turnover": turnover,
                    "levels": up,
                }
            )
            gain(decl_side, up, exempt=True)
        lines.append(_level_step("declarers", before[decl_side], new_idx[decl_side]))
        return finish()

    # 4. defenders take over
    up = (_floor_step(total, step) - turnover) // step
    big = (
        profile.big_win_points is not None
        and total >= profile.big_win_points
        and not first_hand  # 「比賽中（首局除外）」 004 L12
    )
    if big:
        jump(def_side, before[def_side], "defenders", total)
    else:
        lines.append(
            {"kind": "defenders_take_over", "points": total, "turnover": turnover, "levels": up}
        )
        gain(def_side, up, exempt=False)
    if drop_to is None and profile.defender_win_demotes_declarer and up > 0:
        # NT 「反之，降一級」 000 L38 / B 「升（降）」 001 L6, VARIANTS.md §11.3 L151
        new_idx[decl_side] = max(0, new_idx[decl_side] - up)
        lines.append({"kind": "declarers_drop", "levels": up, "to": RANKS[new_idx[decl_side]]})
    lines.append(_level_step("defenders", before[def_side], new_idx[def_side]))
    return finish()
