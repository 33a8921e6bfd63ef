"""Rule profiles: one named set of knobs per regulation in ``shared/rules/VARIANTS.md``.

This module owns every rule parameter that differs between the regulations our users play by.
A profile is an immutable :class:`RuleProfile`; :func:`get_profile` returns one by name
(``A``, ``NT``, ``XX``, ``AH``, ``B``, ``HF``, ``LY``) with optional overrides (a mapping, e.g.
from a hand record's ``rule_overrides`` or a TOML file). Each knob's meaning is in
:data:`KNOB_DOCS`; where a profile's value comes from a regulation, :data:`PROFILE_SOURCES` holds
the quote and its place (file and line). Ambiguities of VARIANTS.md §11 are explicit knobs whose
chosen reading is written next to them. What an override may set each knob to is
:data:`KNOB_RULES` (its kind from the field's type, a numeric knob's range written beside the
field); :func:`check_overrides` refuses anything else in one line naming the knob.
"""

from __future__ import annotations

import dataclasses
import typing
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from engine import checks
from engine.cards import RANKS

Direction = Literal["clockwise", "counterclockwise"]
OvertimePenalty = Literal["flag", "escalating"]
ThrowFailPenalty = Literal["all_cards", "all_but_forced"]
KittyTractorSchedule = Literal["linear", "doubling", "capped"]
KittyThrowMultiplier = Literal["card_count", "component_class"]
PenaltyFloor = Literal["none", "zero", "shutout"]
ShutoutRule = Literal["formula", "to_A", "plus_levels"]


class ProfileError(ValueError):
    """A rule profile name or override that does not exist or has the wrong type."""


_T = TypeVar("_T")


def _ranged(default: _T, low: int, high: int, *, values: tuple[int, ...] = ()) -> _T:
    """A numeric knob's default and the range an override must keep to (``values``: the
    only ones allowed)."""
    return field(default=default, metadata={"low": low, "high": high, "values": values})


@dataclass(frozen=True)
class RuleProfile:
    """All knobs of one regulation. Defaults are the common 80分 practice (XX-like)."""

    name: str = "XX"
    title: str = ""
    # §1 table, direction, time
    direction: Direction = "clockwise"
    play_time_limit_s: float | None = _ranged(15.0, 1, 3600)
    bury_time_limit_s: float | None = _ranged(60.0, 1, 3600)
    overtime_penalty: OvertimePenalty = "flag"
    overtime_penalty_step: int = _ranged(10, 0, 200)
    # §5 tractors
    tractor_hollow: bool = True
    tractor_jokers: bool = True
    tractor_sj_level: bool = False
    tractor_level_offlevel: bool = False
    tractor_offlevel_trump_a: bool = False
    tractor_wrap_a2: bool = False
    # §6 following
    follow_pair: bool = True
    follow_tractor: bool = True
    # §7 throws
    throw_partner_can_defeat: bool = True
    throw_fail_penalty: ThrowFailPenalty = "all_cards"
    throw_fail_penalty_per_card: int = _ranged(10, 0, 200)
    # §8 kitty
    kitty_size: int = _ranged(8, 4, 12)
    wrong_kitty_penalty: int = _ranged(80, 0, 200)
    kitty_mult_single: int = _ranged(2, 1, 16)
    kitty_mult_pair: int = _ranged(4, 1, 32)
    kitty_mult_tractor: KittyTractorSchedule = "linear"
    kitty_mult_throw: KittyThrowMultiplier = "card_count"
    multiple_pairs_count_as_pair: bool = True
    # §9 scoring and levels
    turnover_points: int = _ranged(80, 5, 200)
    points_per_level: int = _ranged(10, 5, 200)
    shutout_rule: ShutoutRule = "formula"
    shutout_levels: int = _ranged(9, 1, 13)
    shutout_first_hand_wins: bool = False
    first_hand_turnover_with_kitty_wins: bool = False
    big_win_points: int | None = _ranged(None, 5, 1000)
    jump_wins_at_levels: tuple[str, ...] = ()
    penalty_floor: PenaltyFloor = "zero"
    must_play_levels: tuple[str, ...] = ("J", "A")
    must_play_once: bool = False
    kitty_drop_back: bool = True
    kitty_drop_back_needs_table_turnover: bool = False
    kitty_drop_back_throw_exempt: bool = True
    defender_win_demotes_declarer: bool = False
    # §10 penalties
    penalty_out_of_turn_per_card: int = _ranged(10, 0, 200)
    penalty_revoke_per_card: int = _ranged(10, 0, 200)
    revoke_cannot_win: bool = False
    penalty_hidden_card: int = _ranged(80, 0, 200)
    hidden_card_after_tricks: int = _ranged(2, 1, 25)
    penalty_hand_count: int = _ranged(80, 0, 200)
    penalty_hand_count_per_card: bool = False
    # match format
    match_hand_limit: int | None = _ranged(None, 1, 100)
    match_time_limit_min: int | None = _ranged(60, 1, 600)
    match_best_of: int = _ranged(1, 1, 9, values=(1, 3, 5, 7, 9))
    notes: tuple[str, ...] = field(default_factory=tuple)

    def seats_in_play_order(self, first: str) -> tuple[str, str, str, str]:
        """The four seats in playing order starting at ``first``."""
        ring = "NESW" if self.direction == "clockwise" else "NWSE"
        i = ring.index(first)
        return (ring[i], ring[(i + 1) % 4], ring[(i + 2) % 4], ring[(i + 3) % 4])


KNOB_DOCS: dict[str, str] = {
    "direction": "Order of play, 炒 and dealer rotation: clockwise N→E→S→W or counter-clockwise "
    "N→W→S→E (VARIANTS §1, §11.7).",
    "play_time_limit_s": "Seconds allowed for a play after the previous play (None: no limit). "
    "Where a regulation is silent (NT, HF, LY) the tournament default is the 15 s that every "
    "surviving rule set with a time rule uses (A 000 L5, XX 002 L32; B refers to its lost "
    "time section, 001 L25).",
    "bury_time_limit_s": "Seconds allowed to bury the kitty after taking it (None: no limit); "
    "60 s where a regulation is silent (A 000 L5, XX 002 L32).",
    "overtime_penalty": "'flag': an over-time play is recorded with no points (A/XX let the "
    "opponents claim the match instead); 'escalating': warning, then step, 2×step, … points "
    "per offending seat within the hand (B).",
    "overtime_penalty_step": "Points per step of the escalating over-time penalty.",
    "tractor_hollow": "Pairs either side of the level rank are adjacent (♥7♥7♥9♥9 at level 8).",
    "tractor_jokers": "BJ pair + SJ pair is a tractor.",
    "tractor_sj_level": "SJ pair + trump-suit level pair is a tractor.",
    "tractor_level_offlevel": "Trump-suit level pair + off-suit level pair is a tractor.",
    "tractor_offlevel_trump_a": "Off-suit level pair + trump-suit A pair is a tractor.",
    "tractor_wrap_a2": "A pair + 2 pair in a side suit is a tractor, the smallest one.",
    "follow_pair": "A follower holding a pair in the led suit must follow a led pair with it.",
    "follow_tractor": "A follower holding a tractor in the led suit must follow a led tractor.",
    "throw_partner_can_defeat": "A throw fails if any of the other three (True) or only an "
    "opponent (False) holds a higher unit. VARIANTS §11.5: XX/B say 「比其他人手中牌小」; "
    "a referee reads 其他人 literally as the other three players, as HF states outright.",
    "throw_fail_penalty": "'all_cards': 10 × every thrown card; 'all_but_forced': 10 × the "
    "cards other than the unit the thrower is made to play (B; all cards if every unit fails).",
    "throw_fail_penalty_per_card": "Points per card of a failed throw.",
    "kitty_size": "Cards in the kitty.",
    "wrong_kitty_penalty": "Points against the side whose kitty is not kitty_size cards.",
    "kitty_mult_single": "Kitty multiplier when the last trick is a single.",
    "kitty_mult_pair": "Kitty multiplier when the last trick is a pair.",
    "kitty_mult_tractor": "Tractor schedule: 'linear' 4 × pairs (XX: ×8, ×12, ×16 …); "
    "'doubling' 2^(pairs+1) (HF: ×8, ×16, ×32 …); 'capped' ×8 for any tractor (B). "
    "VARIANTS §11.2 readings of 依此类推.",
    "kitty_mult_throw": "Throw in the last trick: 'card_count' × number of cards (XX "
    "「撒几张乘几」); 'component_class' × the single/pair/tractor multiplier of the throw's "
    "largest unit (B).",
    "multiple_pairs_count_as_pair": "Several non-adjacent pairs count like a pair (B 「雙摳（一對或"
    "一對以上不連對）乘四」); only used with kitty_mult_throw='component_class'.",
    "turnover_points": "Defender points at which the defenders take over (上台).",
    "points_per_level": "Points per level; remainders of 5 are ignored.",
    "shutout_rule": "Defenders at 0 (大光): 'formula' (+8 by the 10-a-level formula), 'to_A' "
    "(declarer jumps to A, A/HF), 'plus_levels' (declarer + shutout_levels, B).",
    "shutout_levels": "Levels for 大光 with shutout_rule='plus_levels'.",
    "shutout_first_hand_wins": "大光 in the first hand of a game wins the game (HF 2.3).",
    "first_hand_turnover_with_kitty_wins": "In the first hand, defenders with ≥ turnover on the "
    "table who also win the kitty (摳底) win the game (HF 2.3).",
    "big_win_points": "Defender total at which they jump to A (HF 跳級, 200); None: no jump.",
    "jump_wins_at_levels": "Levels at which a 跳級 (大光 with shutout_rule='to_A', or "
    "big_win_points) wins the game outright instead of jumping to A (HF 「若打j\\q\\k\\a時遇到"
    "跳級則本局勝」 004 L13); (): the side jumps to A, and a side already at A passes it.",
    "penalty_floor": "Defender total below 0 after penalties: 'zero' (clamped to 0), 'shutout' "
    "(treated like 大光, A), 'none' (the formula continues).",
    "must_play_levels": "Levels a side must play as declarer before passing them; a gain that "
    "would pass one stops on it and surplus is void (不扣對家的級數).",
    "must_play_once": "A must-play level no longer binds once the side has played it (HF 2.1).",
    "kitty_drop_back": "J/A 抠底: at J, defenders winning the last trick with J send the "
    "declarer to 2; at A, a single A sends it to J, a pair of A to 2 (XX, HF).",
    "kitty_drop_back_needs_table_turnover": "The drop-back needs defenders ≥ turnover on the "
    "table, kitty excluded (HF 2.2).",
    "kitty_drop_back_throw_exempt": "A throw containing J/A does not drop back (XX 「如有“J”或"
    "“A”在内，不扣到底」).",
    "defender_win_demotes_declarer": "When defenders take over, the old declarer also drops a "
    "level per 10 above turnover (NT/B 「降一級」 reading; off by default, VARIANTS §11.3).",
    "penalty_out_of_turn_per_card": "Points per card played out of turn. Reading: 「非本輪首先出牌方"
    "在上家牌未著桌前搶先出牌為越序出牌」 000 L15 — only a seat other than the rightful leader "
    "that plays before its 上家 (the seat just before it in the profile's direction) has "
    "played; a lead out of turn that the next seat "
    "follows is one infraction (its own cards) and the trick goes on from it, so the seats that "
    "followed it in turn are not out of turn and the leader's later cards are a follow. A lone "
    "seat playing before the leader only jumped the gun: the leader's cards stay the lead.",
    "penalty_revoke_per_card": "Points per card of a revoke (吃苍蝇/跟错牌) found within "
    "hidden_card_after_tricks tricks.",
    "revoke_cannot_win": "A revoking play cannot win its trick (HF 「並且不能為大」, NT "
    "「吃蒼蠅後不可壓牌」): the trick's points go to the best non-offending play.",
    "penalty_hidden_card": "Points for 藏牌 (withholding a suit card, pair or tractor) proven "
    "hidden_card_after_tricks or more tricks later.",
    "hidden_card_after_tricks": "How many tricks after the offence a proof makes it 藏牌. "
    "「一圈後（不包括當圈，即第三圈）」 → the proof must appear at trick t+2 or later; a proof "
    "at t or t+1 is a revoke (VARIANTS §11.1).",
    "penalty_hand_count": "Points against a seat that plays more or fewer cards than it holds. "
    "Reading: 「任何一名選手手中牌比其他人多或少」 000 L14 — the seat out of line with the others: "
    "in a trick where three plays agree on a number of cards, the odd one (the leader too); "
    "otherwise a play of another number than the lead's.",
    "penalty_hand_count_per_card": "penalty_hand_count is per missing/extra card (NT 20 a card).",
    "match_hand_limit": "Hands per game before the leader wins (A: 12); None: no limit.",
    "match_time_limit_min": "Minutes per game before the leader wins; None: no limit.",
    "match_best_of": "Games in a match (best of three: 3).",
}

_Q = str  # a quote with its place: "「…」 file Lnn"

PROFILE_SOURCES: dict[str, dict[str, _Q]] = {
    "A": {
        "play_time_limit_s": "「各選手出牌時間不得超過15秒」 000 L5",
        "bury_time_limit_s": "「扣底牌不得超過60秒（炒底重扣時限相同）」 000 L5",
        "overtime_penalty": "「時間到而一局未完判領先方獲勝」 000 L6 (match-level; plays flagged)",
        "match_hand_limit": "「每局牌限12牌結束」 000 L6",
        "match_best_of": "「除半決賽、決賽採用三局兩勝制外，其餘均採用一局決勝負」 000 L4 "
        "(set 3 for semi-finals and finals)",
        "shutout_rule": "「如抓分方為0分（大光）或因罰分為負分，莊家方從低於a級的任何一級直接公升打"
        '"a"級」 000 L10',
        "penalty_floor": "「或因罰分為負分」 000 L10 (treated like 大光)",
        "wrong_kitty_penalty": "「扣下的底牌張數多於或少於8張，在首輪出牌後被發現，則罰80分」 000 L13",
        "penalty_hand_count": "「任何一名選手手中牌比其他人多或少，均罰80分」 000 L14",
        "penalty_out_of_turn_per_card": "「越序出牌每張罰10分」 000 L15",
        "penalty_revoke_per_card": "「凡跟錯牌（吃「蒼蠅」），在該輪發現，則判每張罰10分」 000 L16",
        "penalty_hidden_card": "「一圈後（不包括當圈，即第三圈）發現視為藏牌成立，判罰80分」 000 L17",
        "throw_fail_penalty": "generic 「判罰以張為單位，每張牌罰10分」 000 L12",
        "must_play_levels": 'none: A\'s level table 「莊家方從低於a級的任何一級直接公升打"a"級」 000 L10 names no must-play level',
        "kitty_drop_back": "off: A's level rules (000 L10) have no 抠底 drop-back",
    },
    "NT": {
        "tractor_hollow": "「採用實心姊妹對」 000 L40",
        "tractor_jokers": "「大王小王為最大姊妹對」 000 L40",
        "tractor_wrap_a2": "「ak姊妹對為大姊妹對；a2姊妹對為小姊妹對」 000 L40",
        "must_play_levels": "「從2打到a，a必打，過a為贏」 000 L31",
        "wrong_kitty_penalty": "「滅錯底牌罰80分」 000 L35",
        "kitty_mult_single": "「單摳分數兩倍，雙摳分數四倍」 000 L43",
        "revoke_cannot_win": "「吃蒼蠅後不可壓牌」 000 L42",
        "penalty_revoke_per_card": "「吃「蒼蠅」、出錯牌每張罰10分」 000 L42",
        "penalty_hand_count": "「最後手中少牌、多牌…每張罰20分」 000 L41",
        "match_best_of": "「打滿三局」 000 L30",
        "match_time_limit_min": "「賽時乙個半小時」 000 L30",
        "penalty_hand_count_per_card": "「最後手中少牌、多牌…每張罰20分」 000 L41",
    },
    "XX": {
        "direction": "「然后按顺时针方向依次摸牌」 002 L37; 炒 「按顺时针顺序」 002 L41",
        "play_time_limit_s": "「各选手出牌时间不得超过15秒」 002 L32",
        "bury_time_limit_s": "「扣底牌不得超过60秒（炒底重扣时限相同）」 002 L32",
        "overtime_penalty": "「发现超时可要求领先方胜」 002 L59 (a claim, not points: flagged)",
        "match_time_limit_min": "「比赛时间为一小时」 002 L33",
        "must_play_levels": "「（“J”、“A”必打，先过“A”者赢一局）」 002 L43",
        "points_per_level": "「实行80分为基准分，10分升一级制度（5分不挡级）」 002 L44",
        "kitty_mult_tractor": "「二连对…乘八，三连对…乘十二，依此类推」 002 L45",
        "kitty_mult_throw": "「凡撒牌抠底，撒几张乘几」 002 L45",
        "kitty_drop_back": "「打“J”被对方“J”抠底，庄家下台且倒回“2”…被对方一对“A”抠底，"
        "庄家下台且倒回“2”」 002 L46",
        "kitty_drop_back_throw_exempt": "「如有“J”或“A”在内，不扣到底」 002 L45",
        "tractor_hollow": "「实心或空心连对（空心牌是将牌，如打8，主副牌中7799属空心连对）」 002 L48",
        "tractor_jokers": "「对大小王…算拖拉机」 002 L48",
        "tractor_sj_level": "「小王和“主8”…都不是连对」 002 L48",
        "tractor_level_offlevel": "「“主8和副8”…都不是连对」 002 L48",
        "tractor_offlevel_trump_a": "「“副8”和“主A”都不是连对」 002 L48",
        "follow_pair": "「其余各家在同花色（或主牌）中有对必须跟出」 002 L49",
        "follow_tractor": "「“跟对、跟拖拉机原则”」 002 L30",
        "wrong_kitty_penalty": "「扣下的底牌张数多于或少于8张，均罚80分」 002 L52",
        "penalty_hand_count": "「任何一名选手手中牌比其他人多或少，均罚80分」 002 L53",
        "penalty_out_of_turn_per_card": "「越序出牌每张罚10分」 002 L54",
        "penalty_revoke_per_card": "「凡跟错牌（吃“苍蝇”），在该轮发现，则判每张罚10分」 002 L55",
        "penalty_hidden_card": "「一圈后（不包括当圈，即第三圈）发现视为藏牌成立，判罚80分」 002 L56",
        "throw_fail_penalty": "「一张牌罚10分，甩几张罚几十，且出“苍蝇”牌」 002 L58",
        "throw_partner_can_defeat": "「比其他人手中牌小」 002 L58 (其他人 = the other three)",
    },
    "B": {
        "direction": "炒 「按逆時針順序」 001 L1; no-bid kitty flip 「按逆時針方向翻底牌」 001 L2",
        "overtime_penalty": "「發現超時由裁判第一次警告，第二次判罰10分，第三次判罰20分，以此類推」 "
        "001 L25",
        "must_play_levels": "「（「j」必打，先過「a」者贏一局）」 001 L5 (A need not be played, "
        "but only passing A wins)",
        "kitty_drop_back": "「被對方「j」或「a」摳底，均不倒回「2」或「j」」 001 L5",
        "shutout_rule": "「台下方得0分（俗稱「大光」），莊家公升9級」 001 L7",
        "kitty_mult_tractor": "「二連對…乘八，三連對以上參照二連對計算」 001 L8",
        "kitty_mult_throw": "「撒牌摳底，視所撒牌請況，分別參照單摳、雙摳、二連對計算」 001 L8",
        "multiple_pairs_count_as_pair": "「雙摳（一對或一對以上不連對）乘四」 001 L8",
        "tractor_sj_level": "「大小王對、小王對和主「8」對等屬實心連對算拖拉機」 001 L11",
        "tractor_level_offlevel": "only the listed cases count, 「要求具有唯一性」 001 L11 (inferred)",
        "tractor_hollow": "「主副牌中「7799」屬空心連對也算拖拉機」 001 L11",
        "follow_tractor": "「有對或拖拉機必須跟對或拖拉機」 001 L12–13",
        "wrong_kitty_penalty": "「均罰錯扣方80分」 001 L16",
        "penalty_hand_count": "「任何一名選手手中牌比其他人多或少，均罰80分」 001 L18",
        "penalty_out_of_turn_per_card": "「越序出牌每張罰10分」 001 L19",
        "penalty_revoke_per_card": "「凡跟錯牌，在該輪發現，則每張判罰10分」 001 L20",
        "penalty_hidden_card": "「一圈後（不包括當圈）發現視為藏牌，判罰80分」 001 L21",
        "throw_fail_penalty": "「其餘為出錯牌，出錯牌一張罰10分…（如所出牌均比其他人小，全部視為"
        "出錯牌…）」 001 L24",
    },
    "HF": {
        "direction": "「炒底按逆時針方向從莊家的下一家開始」 004 L5",
        "must_play_levels": "「其中「2」、「j」、「a」為必打牌」 004 L8",
        "must_play_once": "「如「2」、「j」、「a」已打過，則不再為必打牌」 004 L9",
        "kitty_drop_back_needs_table_turnover": "「且臺面上拿滿80分的（不包含摳底中的分）」 004 L10",
        "kitty_drop_back_throw_exempt": "「以最後一次脫手牌中帶有同花色的一對「a」摳底」 004 L10 "
        "(a play containing the pair counts, throws included)",
        "shutout_first_hand_wins": "「首局主叫方打大光…判勝，本局結束」 004 L11",
        "first_hand_turnover_with_kitty_wins": "「防守方檯面抓80分及以上並摳底判勝」 004 L11",
        "shutout_rule": "「主叫方打大光則跳級…直接打「a」，可跳過「j」」 004 L13",
        "big_win_points": "「防守方抓200分及以上則跳級」 004 L13",
        "jump_wins_at_levels": "「若打「j\\q\\k\\a」時遇到跳級則本局勝，不必再打「a」」 004 L13",
        "tractor_hollow": "「當輪級牌為6，則梅花對5與梅花對7也可組成連對」 004 L31",
        "tractor_sj_level": "「對小王和對主級牌」 004 L32",
        "tractor_level_offlevel": "「對主級牌和對其他級牌」 004 L32",
        "tractor_offlevel_trump_a": "「對其他級牌和對主花色a之間也可組成連對」 004 L32",
        "tractor_wrap_a2": "「最多可由對2一直連到對a」 004 L30",
        "penalty_floor": "「台下罰分罰至0分為止」 004 L43",
        "throw_partner_can_defeat": "「若其餘三人有一人手中該花色的牌有大於所甩的牌」 004 L44",
        "throw_fail_penalty": "「按照所甩牌的張數被罰分，每張罰10分」 004 L44",
        "penalty_out_of_turn_per_card": "「越序出牌，每張罰10分」 004 L45",
        "revoke_cannot_win": "「跟錯牌，每張罰10分，並且不能為大」 004 L46",
        "penalty_hidden_card": "「故意出錯牌，如有對不出對、同一花式不出的，一經發現一次罰20分」 "
        "004 L46",
        "wrong_kitty_penalty": "「若扣底方所扣牌的張數多於或少於8張，則判罰80分」 004 L47",
        "kitty_mult_tractor": "「用連對挖可得8倍，用三連對挖可得16倍；依此類推」 004 L49",
        "penalty_hand_count": "「單方多牌或少牌皆罰20分」 004 L50",
    },
    "LY": {
        "direction": "「出牌及輪莊均逆時針進行」 000 L90",
        "must_play_levels": "「2不必打 a不必打」 000 L90",
        "tractor_level_offlevel": "「大王 小王 正級 副級 a k … 3 2」 000 L90 (order only; the "
        "rest of LY is lost, so other knobs keep the defaults)",
    },
}
PROFILE_SOURCES["AH"] = {
    k: v + " (AH 000 L51–86 is word-for-word XX up to 四.1)"
    for k, v in PROFILE_SOURCES["XX"].items()
}

_PROFILES: dict[str, RuleProfile] = {
    "XX": RuleProfile(name="XX", title="中国XX大学扑克牌八十分（炒地皮）比赛规则 (2009)"),
    "A": RuleProfile(
        name="A",
        title="撲克牌炒地皮比賽規則 (台上方/抓分方)",
        must_play_levels=(),
        kitty_drop_back=False,
        shutout_rule="to_A",
        penalty_floor="shutout",
        match_hand_limit=12,
        match_time_limit_min=None,
    ),
    "NT": RuleProfile(
        name="NT",
        title="南通紡院 撲克80分——炒地皮比賽規則 (2023), without 五十K / 紅五星",
        tractor_hollow=False,
        tractor_wrap_a2=True,
        must_play_levels=("A",),
        kitty_drop_back=False,
        revoke_cannot_win=True,
        penalty_hand_count=20,
        penalty_hand_count_per_card=True,
        match_best_of=3,
        match_time_limit_min=90,
        notes=(
            "五十K / 紅五星 sub-game (紅五星 above the jokers, 000 L37, L39, L45) is not modelled; "
            "the profile plays the rest of NT's rules (VARIANTS §11.8).",
        ),
    ),
    "B": RuleProfile(
        name="B",
        title="撲克牌八十分炒地皮比賽規則 (counter-clockwise; probably 財稅系統)",
        direction="counterclockwise",
        overtime_penalty="escalating",
        tractor_sj_level=True,
        must_play_levels=("J",),
        kitty_drop_back=False,
        shutout_rule="plus_levels",
        shutout_levels=9,
        kitty_mult_tractor="capped",
        kitty_mult_throw="component_class",
        throw_fail_penalty="all_but_forced",
        match_time_limit_min=None,
    ),
    "HF": RuleProfile(
        name="HF",
        title="合肥炒地皮 (通用規則)",
        direction="counterclockwise",
        tractor_sj_level=True,
        tractor_level_offlevel=True,
        tractor_offlevel_trump_a=True,
        must_play_levels=("2", "J", "A"),
        must_play_once=True,
        kitty_drop_back=True,
        kitty_drop_back_needs_table_turnover=True,
        kitty_drop_back_throw_exempt=False,
        kitty_mult_tractor="doubling",
        shutout_rule="to_A",
        shutout_first_hand_wins=True,
        first_hand_turnover_with_kitty_wins=True,
        big_win_points=200,
        jump_wins_at_levels=("J", "Q", "K", "A"),
        penalty_floor="zero",
        revoke_cannot_win=True,
        penalty_hidden_card=20,
        penalty_hand_count=20,
        match_time_limit_min=None,
    ),
    "LY": RuleProfile(
        name="LY",
        title="龍巖市職工健身系列競賽活動 撲克牌80分比賽規則 (only the preamble survives)",
        direction="counterclockwise",
        must_play_levels=(),
        kitty_drop_back=False,
        match_time_limit_min=None,
    ),
}
_PROFILES["AH"] = dataclasses.replace(
    _PROFILES["XX"], name="AH", title="安徽中醫學院撲克牌八十分（炒地皮）比賽規則 (= XX)"
)

PROFILE_NAMES: tuple[str, ...] = ("A", "NT", "XX", "AH", "B", "HF", "LY")

_FIELDS = {f.name: f for f in dataclasses.fields(RuleProfile)}


@dataclass(frozen=True)
class KnobRule:
    """What an override of one knob may be: its kind (``bool``, ``int``, ``float``, ``choice``
    or ``levels``, a list of distinct ranks), its range or choices, and whether null (no limit)
    is allowed."""

    kind: Literal["bool", "int", "float", "choice", "levels"]
    null: bool = False
    low: int = 0
    high: int = 0
    values: tuple[int, ...] = ()
    choices: tuple[str, ...] = ()

    def check(self, value: Any, where: str) -> Any:
        """``value`` as the profile holds it (lists become tuples, integers of a float knob
        floats), or :class:`ProfileError` naming ``where``, what is allowed and ``value``."""
        e = ProfileError
        if self.kind == "bool":
            return checks.boolean(value, where, e)
        if self.kind == "int":
            return checks.integer(
                value, where, e, self.low, self.high, values=self.values, null=self.null
            )
        if self.kind == "float":
            return checks.number(value, where, e, self.low, self.high, null=self.null)
        if self.kind == "choice":
            return checks.choice(value, where, e, self.choices)
        return checks.strings(value, where, e, RANKS, what="ranks 2–10, J, Q, K, A")

    def json_schema(self) -> dict[str, Any]:
        """The same rule as JSON Schema (``rule_overrides`` in
        ``engine/schema/hand-record.schema.json``)."""
        schema: dict[str, Any]
        if self.kind == "bool":
            schema = {"type": "boolean"}
        elif self.kind == "choice":
            schema = {"type": "string", "enum": list(self.choices)}
        elif self.kind == "levels":
            schema = {"type": "array", "items": {"$ref": "#/$defs/rank"}, "uniqueItems": True}
        elif self.values:
            schema = {"type": "integer", "enum": list(self.values)}
        else:
            kind = "integer" if self.kind == "int" else "number"
            schema = {"type": kind, "minimum": self.low, "maximum": self.high}
        if self.null:
            schema["type"] = [schema["type"], "null"]
            if "enum" in schema:
                schema["enum"].append(None)
        return schema

    def describe(self) -> str:
        """The allowed values in words (``engine/PROFILES.md``)."""
        if self.kind == "bool":
            text = "true or false"
        elif self.kind == "choice":
            text = "one of " + ", ".join(f"`{c}`" for c in self.choices)
        elif self.kind == "levels":
            text = "a list of distinct ranks 2–10, J, Q, K, A (may be empty)"
        elif self.values:
            text = "one of " + ", ".join(map(str, self.values))
        else:
            kind = "an integer" if self.kind == "int" else "a number"
            text = f"{kind} from {self.low} to {self.high}"
        return text + (", or null" if self.null else "")


def _rule_of(knob: str, hint: Any) -> KnobRule:
    args = typing.get_args(hint)
    null = type(None) in args
    if null:
        (hint,) = (a for a in args if a is not type(None))
    if typing.get_origin(hint) is Literal:
        return KnobRule("choice", choices=typing.get_args(hint))
    if hint is bool:
        return KnobRule("bool")
    if typing.get_origin(hint) is tuple:  # the tuple knobs are lists of levels (ranks)
        return KnobRule("levels")
    meta = _FIELDS[knob].metadata
    kind: Literal["int", "float"] = "int" if hint is int else "float"
    return KnobRule(kind, null, meta["low"], meta["high"], meta["values"])


_HINTS = typing.get_type_hints(RuleProfile)
KNOB_RULES: dict[str, KnobRule] = {k: _rule_of(k, _HINTS[k]) for k in KNOB_DOCS}
"""Each knob's allowed values; a numeric knob's range is written beside its field above."""


def check_overrides(overrides: Any, where: str = "rules") -> dict[str, Any]:
    """Knob overrides checked one by one (type, range, allowed values), as the profile holds
    them; the first bad one raises a one-line :class:`ProfileError` naming ``where.knob``."""
    if not isinstance(overrides, Mapping):
        raise ProfileError(
            f"{where}: must be an object of knob: value, got {checks.shown(overrides)}"
        )
    checked: dict[str, Any] = {}
    for knob, value in overrides.items():
        rule = KNOB_RULES.get(knob) if isinstance(knob, str) else None
        if rule is None:
            raise ProfileError(
                f"{where}: unknown rule knob {checks.shown(knob)}: "
                "`chaodipi profiles XX` lists the knobs"
            )
        checked[knob] = rule.check(value, f"{where}.{knob}")
    return checked


def get_profile(
    name: str, overrides: Mapping[str, Any] | None = None, where: str = "rules"
) -> RuleProfile:
    """The profile called ``name`` with ``overrides`` applied; a clear error for bad input
    (``where`` names the overrides in it, e.g. a record's ``rule_overrides``)."""
    base = _PROFILES.get(name) if isinstance(name, str) else None
    if base is None:
        raise ProfileError(
            f"unknown rule profile {checks.shown(name)}: choose one of {', '.join(PROFILE_NAMES)}"
        )
    if overrides is None:
        return base
    changes = check_overrides(overrides, where)
    return dataclasses.replace(base, **changes) if changes else base


def knob_names() -> tuple[str, ...]:
    """Every knob a profile override may set."""
    return tuple(k for k in KNOB_DOCS if k in _FIELDS)


def profiles_markdown() -> str:
    """The knob-by-profile table with each value's source quote (``engine/PROFILES.md``)."""
    profiles = [get_profile(n) for n in PROFILE_NAMES]
    lines = [
        "# Rule profiles / 规则档",
        "",
        "Generated by `chaodipi profiles --markdown` from `engine/profiles.py`; do not edit.",
        "Each knob: what it means, then each profile's value with the quote it comes from",
        "(regulation file and line in `shared/rules/`; `—` = the regulation is silent and the",
        "default is the common practice). An override (a record's `rule_overrides`, a",
        "`[rules]` table) is refused unless it is of the knob's type and range: booleans are",
        "`true`/`false`, integers are not floats or strings, levels are a list.",
        "",
        "| profile | title |",
        "|---|---|",
        *(f"| **{p.name}** | {p.title} |" for p in profiles),
        "",
    ]
    for knob in knob_names():
        lines.append(f"## `{knob}`")
        lines.append("")
        lines.append(KNOB_DOCS[knob])
        lines.append("")
        lines.append(f"Override: {KNOB_RULES[knob].describe()}.")
        lines.append("")
        lines.append("| profile | value | source |")
        lines.append("|---|---|---|")
        for p in profiles:
            source = PROFILE_SOURCES.get(p.name, {}).get(knob, "—")
            lines.append(f"| {p.name} | `{getattr(p, knob)!r}` | {source} |")
        lines.append("")
    return "\n".join(lines)
