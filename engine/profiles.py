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
# card order, throws and scoring (VARIANTS §4–§7, §9)
TrumpOrder = Literal["standard", "red_five_star"]
TieRule = Literal["first_played"]
TrumpInSideTractor = Literal["forbidden"]
ThrowLegal = Literal["each_unit", "singles_and_pairs"]
ThrowFailForced = Literal["beaten_unit", "smallest_beaten"]
FivePointRemainder = Literal["ignored", "blocks"]
SurplusRule = Literal["void", "demotes_opponents"]


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
    # §1 table, time (the directions are in the before-play block below)
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
    # ----- §4–§7, §9, §10 查牌: card order, combinations, throws, scoring -------------------
    trump_order: TrumpOrder = "standard"
    offsuit_level_equal: bool = True
    tie_rule: TieRule = "first_played"
    tractor_beats_pairs: bool = False
    trump_in_side_tractor: TrumpInSideTractor = "forbidden"
    throw_legal: ThrowLegal = "each_unit"
    throw_fail_forced: ThrowFailForced = "beaten_unit"
    throw_partner_hiding_loses: bool = False
    five_point_remainder: FivePointRemainder = "ignored"
    surplus_rule: SurplusRule = "void"
    penalty_zero_is_shutout: bool = False
    declaration_jump: bool = False
    penalty_hidden_card_per_card: bool = False
    card_check_free: int = _ranged(1, 0, 25)
    card_check_penalty: int = _ranged(10, 0, 200)
    # ----- end of the card order, throws and scoring block --------------------------------
    # ----- §1–3, §8, §10 before the first trick: the draw, declarations and 炒, the kitty's
    # pick-up and burial, exposed cards and takebacks (checked by engine/preplay) -----------
    deal_direction: Direction = "clockwise"
    play_direction: Direction = "clockwise"
    shuffle_by: Literal[
        "defenders", "declarers_shuffle_defenders_cut", "dealer_shuffles_upstream_cuts", "any"
    ] = "defenders"
    first_drawer_rule: Literal["card_flip", "drawn_card", "any"] = "card_flip"
    first_dealer_rule: Literal["last_before_kitty", "first_declarer"] = "last_before_kitty"
    later_dealer_rule: Literal["rotation", "declaration"] = "rotation"
    secret_bidding: bool = True
    chao_cards: Literal["pair", "pair_or_completed_single"] = "pair"
    chao_overcall: Literal["order_only", "strength"] = "order_only"
    chao_pair_reuse: bool = False
    chao_order: Direction = "clockwise"
    chao_first_round_others_only: bool = False
    chao_rebury: bool = True
    joker_declare: Literal["pair_no_trump", "tractor_any_suit"] = "pair_no_trump"
    no_bid_rule: Literal["redeal", "flip_kitty"] = "redeal"
    false_declare_penalty: int = _ranged(0, 0, 200)
    false_declare_ends_hand: bool = False
    illegal_chao_is_false_declaration: bool = False
    allow_redeal: bool = False
    bury_violation: Literal["warn_then_penalty", "penalty", "flag"] = "warn_then_penalty"
    bury_violation_penalty: int = _ranged(80, 0, 200)
    kitty_draw_error: Literal["under_only", "both", "flag"] = "under_only"
    kitty_draw_penalty: int = _ranged(80, 0, 200)
    penalty_exposed_card: int = _ranged(10, 0, 200)
    penalty_takeback: int = _ranged(10, 0, 200)
    # ----- end of the before-play block -----------------------------------------------------
    notes: tuple[str, ...] = field(default_factory=tuple)

    def seats_in_play_order(self, first: str) -> tuple[str, str, str, str]:
        """The four seats in playing order starting at ``first``."""
        ring = "NESW" if self.play_direction == "clockwise" else "NWSE"
        i = ring.index(first)
        return (ring[i], ring[(i + 1) % 4], ring[(i + 2) % 4], ring[(i + 3) % 4])

    @property
    def direction(self) -> Direction:
        """The play direction (the knob ``direction`` is an alias, see :data:`KNOB_ALIASES`)."""
        return self.play_direction


KNOB_DOCS: dict[str, str] = {
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
    "shutout_first_hand_wins": "大光 played in the first hand of a game wins the game (HF 2.3). "
    "Reading: a hand a false declaration ended is not played (HF 「本盤牌不打，按2.4條規定跳級」 "
    "004 L48): the offended side jumps as 2.4 says, and a 0 there wins no game.",
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

# ----- before-play knobs (engine/preplay): what each means, and the reading chosen where a text
# is ambiguous, with its quote ---------------------------------------------------------------
KNOB_DOCS.update(
    {
        "deal_direction": "Direction of the draw (摸牌): clockwise N→E→S→W or counter-clockwise "
        "N→W→S→E. Where a text states only its 炒 or play order (B, HF, LY) the draw is read to "
        "go the same way, as every direction those texts name does (VARIANTS §1).",
        "play_direction": "Order of play and of the dealer's rotation (轮庄): clockwise or "
        "counter-clockwise (VARIANTS §1, §11.7). The override `direction` sets it, "
        "`deal_direction` and `chao_order` at once (the one knob of earlier records).",
        "shuffle_by": "Who shuffles and cuts in a later hand (the first has no 台上方 yet): "
        "'defenders' both (XX 「台下方洗牌、倒牌」), 'declarers_shuffle_defenders_cut' (A "
        "「台上方洗牌，台下方倒牌」), 'dealer_shuffles_upstream_cuts' (HF 「主打者洗牌，主打者的上家"
        "倒牌」: 主打者 read as the dealer, 上家 the seat before it in play order), 'any'.",
        "first_drawer_rule": "Who draws first (启牌人). 'card_flip': before the first hand S, E, N, "
        "W each flip a card, the highest draws first (BJ > SJ > A … 2; equal ranks ♥ > ♦ > ♠ > "
        "♣; two identical top cards decide nothing, so the draw is not checked), and in later "
        "hands the dealer draws first (XX 「庄家启牌」 002 L37); 'drawn_card': one card is drawn "
        "and a joker does not count (HF) — how the card names the drawer is not written, so "
        "only the jokers are checked; 'any': not checked.",
        "first_dealer_rule": "The dealer (庄家) of a game's first hand. 'last_before_kitty': the "
        "first seat to place a level card is the dealer, and a pair declared before the kitty "
        "is first taken (正主/反主) moves the deal to its seat, the last such pair decides; a 炒 "
        "after the kitty was taken sets the trump only (XX 「未拿底牌时正主…正庄，炒底时正主不正庄」, "
        "HF 「以最後反主拿底者為莊家」). 'first_declarer': the first declaration's seat. A "
        "declaration found false or illegal counts for neither the dealer nor the trump (the "
        "referee undoes it). With nobody declaring, `no_bid_rule` decides.",
        "later_dealer_rule": "The dealer of a later hand: 'rotation' (the previous hand's next "
        "declarer, 轮庄/上台; declarations set the trump only: XX 「除开局盘外，均正主不正庄」), "
        "checked against the record's `dealer_by_rotation` when it has one; 'declaration': as "
        "in the first hand.",
        "secret_bidding": "Declarations and 炒 are placed face down (暗叫/暗炒) until revealed. "
        "Reading: a declaration shown face up where the bidding is secret shows its cards to the "
        "other three (HF 「均不能讓其餘三人知道」), an exposed card (`penalty_exposed_card` a "
        "card, 「有意或無意暴露的牌張」).",
        "chao_cards": "What may 炒: 'pair' — a pair of the hand's level card (one suit) or two "
        "BJ or two SJ (XX 「一对将牌或两张大王、两张小王均可炒底」); 'pair_or_completed_single' — "
        "also, once 炒 has begun, the seat that first placed a single level card may 炒 with "
        "the other copy of that card, making the pair (B 「最先單張暗放主牌者，在炒牌後可用另一張"
        "與暗放主牌同色的主牌組成一對將牌炒牌」; 同色 read as the identical card, since the two "
        "must be 一對將牌). Before the kitty is taken the first declaration may be a single; "
        "every later one must be a pair (a single cannot overcall).",
        "chao_overcall": "'order_only': a later 炒 beats an earlier one whatever the suit (XX "
        "「不分花色大小，后面的可以炒前面的」); 'strength': a later declaration must be stronger — "
        "a pair over a single, SJ pair over a level pair, BJ pair over SJ pair, a 紅五星 pair "
        "over those, the joker tractor over all (NT 「王姊妹對可反紅星對」).",
        "chao_pair_reuse": "A pair that has declared or 炒 once may 炒 again (False: XX "
        "「炒过的将牌不能重复炒」, HF 「一對牌只能炒一次」). Reading: the pair itself, whoever holds "
        "it after a reburial.",
        "chao_order": "Turn order of 炒: after each burial the turn goes to the burier's next "
        "seat in this direction, each seat 炒s or passes, and 炒 is over when the three others "
        "have passed (so no seat 炒s twice in a row). Reading where the order is not written: "
        "when a record lists passes it lists them all and a 炒 must come in turn; when it lists "
        "none, the seats a 炒 passes over are taken to have passed.",
        "chao_first_round_others_only": "In the first round of 炒 (from the dealer's next seat) "
        "only the seats other than the first caller and the dealer may 炒; if none does, 炒 is "
        "over (HF 「如果第一輪除叫牌者和莊家外無人炒底，則叫牌者和莊家均不能炒底」).",
        "chao_rebury": "A 炒家 takes the kitty back and buries 8 again (XX 「还可将底牌取回重垫8张"
        "底牌」); False: a 炒 sets the trump only and taking the kitty is not allowed.",
        "joker_declare": "'pair_no_trump': a single joker may not declare; two SJ or two BJ "
        "declare no-trump (XX 「小王、大王不得单张亮主，双小王、双大王正主后此盘“无主”」, HF "
        "「大、小王只能炒無主」); 'tractor_any_suit': the BJ pair + SJ pair tractor declares the "
        "suit its seat names, or no-trump, and so does a 紅五星 pair where the trump order has "
        "it (`trump_order` 'red_five_star'; NT 「大王小王連對、紅五星反主可任選定主」); a joker pair "
        "alone does not declare.",
        "no_bid_rule": "Nobody declares: 'flip_kitty' — from the first drawer, seat by seat in "
        "the draw's direction, the kitty is turned up; the first level card's suit is trump, "
        "else the suit of the largest, earliest card (jokers ignored); in a first hand the seat "
        "that turned it deals; no 炒 afterwards (B 001 L2–3); 'redeal' — the hand is dealt "
        "again (the common practice where a text is silent), so a played hand needs a "
        "declaration.",
        "false_declare_penalty": "Points against a declaration or 炒 whose cards cannot declare "
        "(not the level card, not a pair of one card, a single joker …): B 80. HF's 「本盤牌不打，"
        "按2.4條規定跳級」 is read as 200 against the offender with the hand ended: 200 for the "
        "defenders is 2.4's jump to A (big_win_points), and a declarer side's defenders left "
        "below 0 have its 大光 jump. 0 where a text is silent: listed for the referee.",
        "false_declare_ends_hand": "A false declaration ends the hand when found (B 「發現時即結束"
        "此盤比賽」, HF 「本盤牌不打」): its tricks do not count and it is settled on the penalties "
        "alone, as a hand whose defenders took no points. Reading: a defender's false "
        "declaration leaves the defenders at 0 points taken, which is 大光 for the declarers "
        "(B 「台下方得0分（俗稱「大光」），莊家公升9級」 001 L7: +9), but a hand not played wins "
        "no first-hand game (HF: 2.4's jump, see shutout_first_hand_wins).",
        "illegal_chao_is_false_declaration": "A 炒 the rules do not allow (a single, a re-used "
        "pair, out of turn) is punished as a false declaration (HF 「不具備炒底資格而假炒底的」, "
        "read as every 炒 its seat had no right to). Otherwise it is listed with 0 points and "
        "void: the referee undoes it.",
        "allow_redeal": "A seat may have a weak hand redealt (造反); False: 「无“造反”说法」 (XX), "
        "so a record's redeal is listed for the referee.",
        "bury_violation": "Burying the kitty in more than one go, or looking at or taking back "
        "one's buried kitty (「必须同时将8张牌扣下…此后不得查看和换牌」): 'warn_then_penalty' — "
        "the first time a warning (0), then bury_violation_penalty (A, XX 「第一次警告，第二次判罰80"
        "分」; counted per seat within the hand, the record knows no other); 'penalty' every "
        "time; 'flag' listed with 0.",
        "bury_violation_penalty": "Points for a bury violation after the warning.",
        "kitty_draw_error": "The seat taking the kitty takes more or fewer cards than it holds "
        "(多抓/少抓底牌): 'under_only' — too few costs kitty_draw_penalty, too many is corrected "
        "without one (XX 002 L57); 'both' — either costs it (B 001 L22; NT counts it as 滅錯底牌, "
        "000 L36); 'flag' — listed with 0.",
        "kitty_draw_penalty": "Points for a kitty draw error, against the seat that took it.",
        "penalty_exposed_card": "Points per card exposed (有意或無意暴露的牌張) before or during "
        "play, the record's `exposed` (A, XX, B: 10 a card).",
        "penalty_takeback": "Points per card taken back after it was played (悔牌, the record's "
        "`takebacks`): B 「悔1張罰10分，悔2張罰20分」. Where a text is silent, its rule for any "
        "card not played the normal way, 10 a card (「凡没有按照正常打牌方式打出的牌均属违例」).",
    }
)

# ----- card order, combinations, throws and scoring knobs (VARIANTS §4–§7, §9, §10 查牌): what
# each means, and the reading chosen where a text is ambiguous, with its quote ----------------
KNOB_DOCS.update(
    {
        "trump_order": "The trump ladder. 'standard': BJ > SJ > trump-suit level card > off-suit "
        "level cards > trump suit A…2 (HF 「常主》主級牌》其他級牌》主花色牌》副牌」). "
        "'red_five_star' (NT 「大王小王連對、紅五星、大王、小王、黑桃、紅桃、梅花、方塊」 000 L37): "
        "the 紅五星, read as ♥5 (紅 is 紅桃 in NT's own 「副牌紅桃五十k時可不逼紅五十k」 000 L39; "
        "「紅五星對」 000 L45 is a pair of it), is a trump above BJ in every hand, out of the "
        "hearts ladder (its gap is hollow like the level rank's); a ♥5 pair joins no tractor, "
        "the BJ-SJ tractor being the biggest (「大王小王為最大姊妹對」 000 L40). Not modelled, "
        "as the text does not define them: the list's suits 黑桃、紅桃、梅花、方塊 are read as the "
        "order of declarations for 反主 (「王姊妹對可反紅星對」 000 L44 ranks what may 反 what), "
        "not as a card order in play; the 五十K (5-10-K) combination 「主五十k逼大主、逼主分五十k」 "
        "000 L39 says neither what it obliges nor how it compares, so a 5-10-K lead is read as "
        "a throw, and its 摳底 (「五十k摳底一摳到底」 000 L45) as an ordinary one.",
        "offsuit_level_equal": "Off-suit level cards are equal among themselves (the first "
        "played wins between them): HF 「除主花色外，其他花色級牌、副牌之間無大小區別」, LY's "
        "ladder has one 副級 rank. False: ranked by suit ♦ < ♣ < ♥ < ♠, the only order of suits "
        "for cards in the regulations (NT 000 L37); two of them are then not a tractor.",
        "tie_rule": "Equal cards in a trick: 'first_played' — the one played first wins (HF "
        "「每輪中相同花色，相同大小的牌以先出為大」, 「同等大小的牌以先出為大」). The only reading in "
        "any regulation, and the common practice where one is silent.",
        "tractor_beats_pairs": "Against a lead with two or more pairs outside tractors (a throw "
        "of pairs), a same-shape answer whose pairs form a longer tractor beats one whose pairs "
        "do not, whatever their rank (LY 「連對子大於兩個不連的對子」 000 L90). False: the three "
        "types are not compared with each other (HF 「單張、對子、連對三種牌型之間不能比較大小」), "
        "a tractor in such an answer counts as its pairs and the highest card decides.",
        "trump_in_side_tractor": "Trump cards in a side-suit tractor: 'forbidden' in every "
        "regulation (NT 「主牌不得參加副牌姊妹對」, XX 「主牌不得下放在副牌中使用」, B 「副牌同花色是"
        "同類，主牌是同類」, HF 「花色相同」): ♥7♥7 ♥8♥8 ♥9♥9 at level 8 is no tractor — the ♥8 "
        "pair is a trump — and a lead of them mixes trumps into a side suit, a failed throw "
        "(10 a card, 「凡沒有按照正常打牌方式打出的牌均屬違例」 000 L12).",
        "throw_legal": "What makes a throw (甩牌) good, judged on what each other hand still "
        "holds at that trick (the cards already played are out of the comparison). "
        "'each_unit' (HF 「若乙個玩家手上同種花色的副牌均為當前最大時，即可一起打出」, "
        "「同時有當前最大單張和最大對子（包括連對）時，也可一起打出」, 「單張、對子、連對三種牌型之間"
        "不能比較大小」 004 L33–37): every unit — single, pair, tractor — must be the biggest of "
        "its type, so a thrown tractor fails only against a longer-or-equal higher tractor; a "
        "trump throw is judged against every trump, jokers and level cards included "
        "(「常主和級牌也在比較範圍內」). 'singles_and_pairs' (XX 「只要有一张牌或一对牌比其他人"
        "手中牌小」, B the same): every card and every pair of the throw — each pair of a "
        "thrown tractor too — must not be smaller than a single or a pair another hand holds.",
        "throw_fail_forced": "Which unit a failed throw leaves on the table (the others go back "
        "to the hand; the proof names it as `forced`; with throw_fail_penalty 'all_but_forced' "
        "the rest are the wrong cards). 'beaten_unit' (XX 「且出“苍蝇”牌」): the 苍蝇 — the unit "
        "the first seat in play order able to beat one beats, the smallest if it beats "
        "several. 'smallest_beaten' (B 「且出最小牌」): the smallest of all the units some seat "
        "beats. Reading of B: 最小牌 is the smallest of the units 「比其他人手中牌小」 — if it "
        "meant the smallest unit of the throw, a thrower of ♣A + ♣QQ against a ♣KK would keep "
        "the unbeatable ♣A on the table and take the trick his failed throw lost, and B's "
        "「其餘為出錯牌」 would fine the pair that was beaten; smallest = fewest pairs, then "
        "lowest (VARIANTS §11.6).",
        "throw_partner_hiding_loses": "The thrower's partner held a unit beating a failed "
        "throw and the throw stood (every other seat answered all its cards): the failed "
        "throw's proof names the partner (`concealed_by`) and, counted, it loses the game for "
        "their side (HF 「如甩牌人的對家有大於所甩的牌而故意隱瞞不說的，一經發現，判負」 004 L44; "
        "判負 read as losing the game, as HF's other 「視為輸掉該局」 004 L56). Intent (故意) is "
        "for the referee, who confirms or dismisses the failed throw with it. Needs "
        "throw_partner_can_defeat (the partner's unit is what defeats the throw).",
        "five_point_remainder": "A defender total that is not a whole number of levels: "
        "'ignored' — the 5 does not count, the total is rounded down to points_per_level "
        "(70–75 → declarers +1, 5 → +8: A 000 L10, XX 「5分不挡级」, B 「5分不計」, HF 「零頭5分"
        "不算分」); 'blocks' (5分挡级, a house rule no regulation here uses) — the declarers' "
        "margin below turnover is rounded down instead (75 → +0, 35 → +4).",
        "surplus_rule": "Levels past a must-play level the gain stopped on: 'void' — lost, the "
        "opponents keep theirs (A 「已超過部分不降對方的級別」, HF 「多餘的分數作廢，不扣對家的"
        "級數」); 'demotes_opponents' — taken off the opponents' level instead (not below 2), "
        "the practice those texts rule out.",
        "penalty_zero_is_shutout": "A defender total brought to 0 (or below, under the 'zero' "
        "penalty_floor) by penalties, though the defenders took points, counts as 大光 — "
        "shutout_rule and the first-hand win apply. True only where a text says so: A "
        "「如抓分方為0分（大光）或因罰分為負分」 000 L10. HF (「台下罰分罰至0分為止」 004 L43) and B "
        "(「台下方得0分（俗稱「大光」）」 001 L7): False — 大光 is what the declarers play "
        "(「主叫方打大光」 004 L11, L13), a shutout of the points on the table, and HF's floor "
        "exists to limit a penalty, which a 大光 jump to A would multiply; such a 0 follows the "
        "formula (+8). A total of 0 with no points taken is 大光 whatever the penalties.",
        "declaration_jump": "NT: after a BJ-SJ tractor (大王小王連對) or a 紅五星 pair was shown "
        "to 反主 (the record's declaration), if the side that showed it was the declaring side "
        "and the defenders' total stays under turnover, it goes straight to A and the "
        "defenders to 2; if the defenders showed it and the declaring side's own points "
        "(tricks it won, the kitty if it won the last trick) stay under turnover, the "
        "defenders go to A and the declarers to 2 (「如果是主打方亮相對方未拿滿80分則主打方直接"
        "打a，台下方打2；如果是台下方亮相後而主打方未拿滿80分則台下方直接打a，主打方打2」 000 L45). "
        "Otherwise the hand settles as usual.",
        "card_check_free": "Unfounded card checks (查牌: a seat asks the referee to check an "
        "opponent's earlier play and it was right) a side may ask in a hand before each costs "
        "card_check_penalty (「經檢查對方無誤，第一次不判罰，從第二次開始，查一次扣（或加對方）10分」 "
        "A 000 L21, XX 002 L63, B 001 L31). Reading: counted per side within the hand, the "
        "unit a penalty is settled in; a check is founded when the audit finds the checked "
        "seat's cards in the checked trick wrong — a revoke, 藏牌, failed throw, wrong count or "
        "duplicate card (「經檢查對方存在錯誤，按違例處理」: that one is then scored as the "
        "infraction it is). Where a text is silent (NT, HF, LY) the same "
        "common rule.",
        "card_check_penalty": "Points against the asking side for each unfounded card check "
        "past card_check_free.",
        "penalty_hidden_card_per_card": "penalty_hidden_card is per wrong card, like a revoke. "
        "NT has no 藏牌 rule, only 「吃「蒼蠅」、出錯牌每張罰10分…以證據為準，當局結清」 (000 L42): "
        "a withheld card proven at any time in the hand costs 10 a card, not the 80 of the "
        "other texts' 藏牌 (penalty_hidden_card 10, per card).",
    }
)

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
        "play_direction": "「然后按顺时针方向依次摸牌」 002 L37; 炒 「按顺时针顺序」 002 L41 (play: "
        "the stated directions, VARIANTS §11.7)",
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
        "play_direction": "炒 「按逆時針順序」 001 L1; no-bid kitty flip 「按逆時針方向翻底牌」 001 L2",
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
        "play_direction": "「炒底按逆時針方向從莊家的下一家開始」 004 L5",
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
        "play_direction": "「出牌及輪莊均逆時針進行」 000 L90",
        "must_play_levels": "「2不必打 a不必打」 000 L90",
        "tractor_level_offlevel": "「大王 小王 正級 副級 a k … 3 2」 000 L90 (order only; the "
        "rest of LY is lost, so other knobs keep the defaults)",
    },
}
# ----- before-play knobs' sources (engine/preplay); AH takes XX's below ----------------------
_BEFORE_PLAY_SOURCES: dict[str, dict[str, _Q]] = {
    "A": {
        "shuffle_by": "「台上方洗牌，台下方倒牌」 000 L8",
        "chao_rebury": "「扣底牌不得超過60秒（炒底重扣時限相同）」 000 L5",
        "bury_violation": "「莊家須一次性扣完8張底牌…此後不得檢視和換牌…第一次警告，第二次判罰80分」 "
        "000 L9",
        "bury_violation_penalty": "「第一次警告，第二次判罰80分」 000 L9",
        "penalty_exposed_card": "「（包括有意或無意暴露的牌張）。判罰以張為單位，每張牌罰10分」 000 L12",
        "penalty_takeback": "「凡沒有按照正常打牌方式打出的牌均屬違例…每張牌罰10分」 000 L12 "
        "(悔牌 is not named: the rule for any card not played the normal way)",
    },
    "NT": {
        "joker_declare": "「大王小王連對、紅五星反主可任選定主」 000 L37; 「王姊妹對可反紅星對」 000 L44",
        "chao_overcall": "「王姊妹對可反紅星對」 000 L44: a 反主 needs a stronger declaration (the "
        "joker tractor over the 紅五星 pair), nothing says a later one wins whatever it is",
        "kitty_draw_error": "「如抓底多牌或少牌主家沒發現判作滅錯底牌」 000 L36",
        "kitty_draw_penalty": "「滅錯底牌罰80分」 000 L35",
    },
    "XX": {
        "deal_direction": "「然后按顺时针方向依次摸牌」 002 L37",
        "shuffle_by": "「台下方洗牌、倒牌，庄家启牌」 002 L37",
        "first_drawer_rule": "「按南东北西依此翻牌，得最大牌者为启牌人…同级按红心、方块、黑桃、梅花渐小」 "
        "002 L36; 「庄家启牌」 002 L37",
        "first_dealer_rule": "「先放（暗放一张）“2”者…为庄家，未拿底牌时正主（一对“2”暗扣）正庄，"
        "炒底时正主不正庄」 002 L39",
        "later_dealer_rule": "「除开局盘外，均正主不正庄」 002 L39",
        "secret_bidding": "「先放（暗放一张）“2”者」 002 L39; 「炒牌（暗炒…）」 002 L41",
        "chao_cards": "「一对将牌或两张大王、两张小王均可炒底」 002 L41",
        "chao_overcall": "「不分花色大小，后面的可以炒前面的」 002 L41",
        "chao_pair_reuse": "「炒过的将牌不能重复炒」 002 L41",
        "chao_order": "「按顺时针顺序」 002 L41",
        "chao_rebury": "「炒牌除反主外还可将底牌取回重垫8张底牌」 002 L41",
        "joker_declare": "「小王、大王不得单张亮主，双小王、双大王正主后此盘“无主”」 002 L41",
        "allow_redeal": "「无论任何选手手中牌主和分多少，比赛均正常进行，无“造反”说法」 002 L62",
        "bury_violation": "「必须同时将8张牌扣下，炒底重扣同理），此后不得查看和换牌…如违例，第一次警告，"
        "第二次判罚80分」 002 L40",
        "bury_violation_penalty": "「第一次警告，第二次判罚80分」 002 L40",
        "kitty_draw_error": "「造成底牌抓过…不判罚。底牌少抓造成庄家手中多牌…并判罚庄家方80分」 002 L57 "
        "(VARIANTS §8: over-draw free, under-draw 80)",
        "kitty_draw_penalty": "「并判罚庄家方80分」 002 L57",
        "penalty_exposed_card": "「（包括有意或无意暴露的牌张）。判罚以张为单位，每张牌罚10分」 002 L51",
        "penalty_takeback": "「凡没有按照正常打牌方式打出的牌均属违例…每张牌罚10分」 002 L51 "
        "(悔牌 is not named: the rule for any card not played the normal way)",
    },
    "B": {
        "deal_direction": "— inferred: every order B states is counter-clockwise, 炒 「按逆時針順序」 "
        "001 L1, the kitty flip 「從起牌人開始按逆時針方向翻底牌」 001 L2",
        "secret_bidding": "「炒牌（暗炒…）」 001 L1; 「四人都不暗放主牌」 001 L2",
        "chao_cards": "「最先單張暗放主牌者，在炒牌後可用另一張與暗放主牌同色的主牌組成一對將牌炒牌」 001 L1",
        "chao_overcall": "「不分花色大小，後面的可以炒前面的」 001 L1",
        "chao_order": "「按逆時針順序」 001 L1",
        "chao_rebury": "「炒牌除反主外還可將底牌取回重墊8張底牌」 001 L1",
        "joker_declare": "「小王、大王不得單張正主，雙小王、雙大王正主後此盤「無主」」 001 L1",
        "no_bid_rule": "「四人都不暗放主牌，則從起牌人開始按逆時針方向翻底牌，以先翻出的將牌的花色為主…"
        "（鬼牌不參與定主）」 001 L2; 「翻底牌選主後不得炒牌」 001 L3",
        "false_declare_penalty": "「暗放主牌出錯，放錯牌方判罰80分」 001 L23",
        "false_declare_ends_hand": "「發現時即結束此盤比賽」 001 L23",
        "allow_redeal": "「無論任何選手手中 「主」牌和「分」牌多少，比賽均正常進行」 001 L29",
        "kitty_draw_error": "「多抓少抓底牌，由莊家負責…並判罰莊家方80分；底牌少抓…並判罰莊家方80分」 "
        "001 L22",
        "kitty_draw_penalty": "「並判罰莊家方80分」 001 L22",
        "penalty_exposed_card": "「（包括有意或無意暴露的牌張）。判罰以張為單位，每張牌罰10分」 001 L15",
        "penalty_takeback": "「出現悔牌行為，按悔牌張數進行判罰，悔1張罰10分，悔2張罰20分」 001 L26",
    },
    "HF": {
        "deal_direction": "— inferred from the one order HF states, 「炒底按逆時針方向從莊家的下一家開始」 "
        "004 L5",
        "shuffle_by": "「洗牌由台上一方主打者洗牌，主打者的上家倒牌」 004 L55",
        "first_drawer_rule": "「由這一桌年齡最大者抽一張牌決定誰先抓牌，抽到大小鬼不算，重新抽牌」 004 L53",
        "first_dealer_rule": "「先叫暗叫「2」者為莊家，但在拿底牌之前若有人反主，則反主者為莊家…以最後反主拿底者"
        "為莊家」 004 L6",
        "later_dealer_rule": "「如果莊家不是叫牌者，則莊家在拿底牌之前可先反主」 004 L5 (the caller is "
        "not the dealer: calling does not move the deal)",
        "secret_bidding": "「比賽實行暗叫暗炒，叫主者和炒底者均不能讓其餘三人知道」 004 L3",
        "chao_cards": "「炒底必須有主打牌的同花式對子（包括大小鬼）才能參加炒底」 004 L3",
        "chao_overcall": "「炒底時只按順序，不分花色大小，以最後所炒的花色為主牌」 004 L4",
        "chao_pair_reuse": "「一對牌只能炒一次」 004 L4",
        "chao_order": "「炒底按逆時針方向從莊家的下一家開始」 004 L5",
        "chao_first_round_others_only": "「如果莊家的下一家為叫牌者，則從叫牌者的下一家開始炒底。如果"
        "第一輪除叫牌者和莊家外無人炒底，則叫牌者和莊家均不能炒底」 004 L5",
        "chao_rebury": "「炒底」 004 L3–5: stealing the kitty is taking it (implied)",
        "joker_declare": "「炒底時，大、小王只能炒無主」 004 L4",
        "false_declare_penalty": "「叫牌錯誤的，或者不具備炒底資格而假炒底的，本盤牌不打，按2.4條規定跳級」 "
        "004 L48, with 2.4 「防守方抓200分及以上則跳級」 004 L13: 200 against the offender",
        "false_declare_ends_hand": "「本盤牌不打」 004 L48",
        "illegal_chao_is_false_declaration": "「不具備炒底資格而假炒底的」 004 L48",
    },
    "LY": {
        "deal_direction": "— inferred from 「出牌及輪莊均逆時針進行」 000 L90",
        "chao_order": "— inferred from 「出牌及輪莊均逆時針進行」 000 L90",
    },
}
for _name, _sources in _BEFORE_PLAY_SOURCES.items():
    PROFILE_SOURCES.setdefault(_name, {}).update(_sources)
# ----- end of the before-play sources ---------------------------------------------------------
# ----- sources of the card order, throws and scoring knobs (VARIANTS §4–§7, §9, §10 查牌) -----
_CARD_CHECK = {
    "A": "「經檢查對方無誤，第一次不判罰，從第二次開始，查一次扣（或加對方）10分」 000 L21",
    "XX": "「经检查对方无误，第一次不判罚，从第二次开始，查一次扣（或加对方）10分」 002 L63",
    "B": "「經檢查對方無誤，第一次不判罰，從第二次開始，查一次扣（或加對方）10分」 001 L31",
}
for _name, _quote in _CARD_CHECK.items():
    PROFILE_SOURCES[_name].update({"card_check_free": _quote, "card_check_penalty": _quote})
PROFILE_SOURCES["A"].update(
    {
        "five_point_remainder": "「抓分方得70~75分，莊家方公升一級；抓分方得60~65分，莊家方公升兩級；"
        "如抓分方得5分，莊家方公升八級」 000 L10",
        "surplus_rule": "「已超過部分不降對方的級別」 000 L10",
        "penalty_zero_is_shutout": "「如抓分方為0分（大光）或因罰分為負分」 000 L10",
    }
)
PROFILE_SOURCES["NT"].update(
    {
        "trump_order": "「以「大王小王連對、紅五星、大王、小王、黑桃、紅桃、梅花、方塊」為大小順序」 "
        "000 L37 (紅五星 = ♥5 above BJ; the suits order declarations, see the knob)",
        "trump_in_side_tractor": "「主牌不得參加副牌姊妹對」 000 L40",
        "declaration_jump": "「「大王小王連對「、「紅五星對」亮相反牌後，如果是主打方亮相對方未拿滿"
        "80分則主打方直接打a，台下方打2」 000 L45",
        "penalty_hidden_card": "「吃「蒼蠅」、出錯牌每張罰10分…以證據為準，當局結清」 000 L42 (no "
        "藏牌 rule: a withheld card costs 10 a card whenever proven)",
        "penalty_hidden_card_per_card": "「吃「蒼蠅」、出錯牌每張罰10分」 000 L42",
        "kitty_drop_back": "off: NT's 摳底 rule is 「五十k摳底一摳到底」 000 L45, a 五十K trigger "
        "(not modelled, see trump_order)",
    }
)
PROFILE_SOURCES["XX"].update(
    {
        "five_point_remainder": "「实行80分为基准分，10分升一级制度（5分不挡级）」 002 L44",
        "trump_in_side_tractor": "「主牌不得下放在副牌中使用」 002 L48",
        "throw_legal": "「甩牌中只要有一张牌或一对牌比其他人手中牌小为“苍蝇”」 002 L58",
        "throw_fail_forced": "「其余均为“苍蝇”，一张牌罚10分，甩几张罚几十，且出“苍蝇”牌」 002 L58",
    }
)
PROFILE_SOURCES["B"].update(
    {
        "five_point_remainder": "「實行80分為基準分，10分公升（降）一級制度（5分不計）」 001 L6",
        "trump_in_side_tractor": "「副牌同花色是同類 ，主牌是同類」 001 L10–11",
        "throw_legal": "「撒牌中只要有一張牌或一對牌比其他人手中牌小」 001 L24",
        "throw_fail_forced": "「其餘為出錯牌，出錯牌一張罰10分，錯幾張罰幾十，且出最小牌」 001 L24 "
        "(最小牌: the smallest beaten unit, see the knob)",
        "throw_partner_can_defeat": "「比其他人手中牌小」 001 L24 (其他人 = the other three)",
        "penalty_zero_is_shutout": "「台下方得0分（俗稱「大光」），莊家公升9級」 001 L7 (大光 is a "
        "shutout in play: a penalty-made 0 follows the formula)",
        "shutout_levels": "「每盤比賽中無論打到幾，台下方得0分（俗稱「大光」），莊家公升9級」 001 L7; "
        "the +9 still stops on the must-play J (「「j」必打」 001 L5): 無論打到幾 says the gain is 9 "
        "at any level, not that it may pass J — where a text lets a jump pass J it says so (HF "
        "「可跳過「j」」 004 L13)",
    }
)
PROFILE_SOURCES["HF"].update(
    {
        "trump_order": "「常主》主級牌》其他級牌》主花色牌》副牌」 004 L23",
        "offsuit_level_equal": "「除主花色外，其他花色級牌、副牌之間無大小區別」 004 L25",
        "tie_rule": "「每輪中相同花色，相同大小的牌以先出為大」 004 L26; 「同等大小的牌以先出為大」 "
        "004 L41",
        "tractor_beats_pairs": "「單張、對子、連對三種牌型之間不能比較大小」 004 L37",
        "trump_in_side_tractor": "「連對（拖拉機）：花色相同，大小順序相鄰的對子可組成連對」 004 L30",
        "throw_legal": "「若乙個玩家手上同種花色的副牌均為當前最大時，即可一起打出」 004 L33; "
        "「同時有當前最大單張和最大對子（包括連對）時，也可一起打出」 004 L35; 「常主和級牌也在比較"
        "範圍內」 004 L36",
        "throw_partner_hiding_loses": "「如甩牌人的對家有大於所甩的牌而故意隱瞞不說的，一經發現，"
        "判負」 004 L44",
        "five_point_remainder": "「公升級時，10分為一級，零頭5分不算分」 004 L8",
        "surplus_rule": "「多餘的分數作廢，不扣對家的級數」 004 L9",
        "penalty_zero_is_shutout": "「台下罰分罰至0分為止」 004 L43 with 「主叫方打大光」 004 L11, "
        "L13 (大光 is played, not made by penalties)",
        "kitty_drop_back": "「打a時，台下方以最後一次脫手牌中帶有同花色的一對「a」摳底…台上方重新"
        "回到「2」；以單張「a」 摳底…台上方則回到「j」；打j時，台下方以「j」摳底…台上方重新回到"
        "「2」」 004 L10",
    }
)
PROFILE_SOURCES["LY"].update(
    {
        "trump_order": "「牌的大小順序 大王 小王 正級 副級 a k 3 2」 000 L90",
        "offsuit_level_equal": "「正級 副級」 000 L90 (one 副級 rank)",
        "tractor_beats_pairs": "「連對子大於兩個不連的對子」 000 L90",
    }
)

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
        play_direction="counterclockwise",
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
        play_direction="counterclockwise",
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
        play_direction="counterclockwise",
        must_play_levels=(),
        kitty_drop_back=False,
        match_time_limit_min=None,
    ),
}
# ----- the card order, throws and scoring knobs of each profile (VARIANTS §4–§7, §9) ----------
_ORDER_AND_SCORING: dict[str, dict[str, Any]] = {
    "A": {"penalty_zero_is_shutout": True},
    "NT": {
        "trump_order": "red_five_star",
        "declaration_jump": True,
        "penalty_hidden_card": 10,
        "penalty_hidden_card_per_card": True,
        "title": "南通紡院 撲克80分——炒地皮比賽規則 (2023), 紅五星 ladder without 五十K combinations",
        "notes": (
            "紅五星 (♥5) above the jokers is modelled (trump_order); the 五十K (5-10-K) "
            "combinations and their 摳底 (000 L39, L45) are not: the text does not say what they "
            "oblige or how they compare (VARIANTS §11.8).",
        ),
    },
    "XX": {"throw_legal": "singles_and_pairs"},
    "B": {"throw_legal": "singles_and_pairs", "throw_fail_forced": "smallest_beaten"},
    "HF": {"throw_partner_hiding_loses": True},
    "LY": {"tractor_beats_pairs": True},
}
for _name, _knobs in _ORDER_AND_SCORING.items():
    _PROFILES[_name] = dataclasses.replace(_PROFILES[_name], **_knobs)

_PROFILES["AH"] = dataclasses.replace(
    _PROFILES["XX"], name="AH", title="安徽中醫學院撲克牌八十分（炒地皮）比賽規則 (= XX)"
)

# ----- before-play knob values per profile (quotes in _BEFORE_PLAY_SOURCES); AH is XX --------
_BEFORE_PLAY: dict[str, dict[str, Any]] = {
    "A": {"shuffle_by": "declarers_shuffle_defenders_cut"},
    "NT": {
        "joker_declare": "tractor_any_suit",
        "chao_overcall": "strength",
        "kitty_draw_error": "both",
    },
    "B": {
        "deal_direction": "counterclockwise",
        "chao_order": "counterclockwise",
        "chao_cards": "pair_or_completed_single",
        "no_bid_rule": "flip_kitty",
        "false_declare_penalty": 80,
        "false_declare_ends_hand": True,
        "kitty_draw_error": "both",
    },
    "HF": {
        "deal_direction": "counterclockwise",
        "chao_order": "counterclockwise",
        "shuffle_by": "dealer_shuffles_upstream_cuts",
        "first_drawer_rule": "drawn_card",
        "chao_first_round_others_only": True,
        "false_declare_penalty": 200,
        "false_declare_ends_hand": True,
        "illegal_chao_is_false_declaration": True,
    },
    "LY": {"deal_direction": "counterclockwise", "chao_order": "counterclockwise"},
}
for _name, _values in _BEFORE_PLAY.items():
    _PROFILES[_name] = dataclasses.replace(_PROFILES[_name], **_values)
# ----- end of the before-play values ----------------------------------------------------------

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

KNOB_ALIASES: dict[str, tuple[str, ...]] = {
    "direction": ("deal_direction", "play_direction", "chao_order")
}
"""Override names of earlier records, each setting the knobs it names (a knob the same overrides
set by its own name keeps that value): ``direction`` once drove the draw, 炒 and play alike."""
KNOB_RULES["direction"] = KNOB_RULES["play_direction"]


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
    for alias, knobs in KNOB_ALIASES.items():
        if alias in checked:
            value = checked.pop(alias)
            for knob in knobs:
                checked.setdefault(knob, value)
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


VARIANT_ROWS: dict[str, tuple[str, ...]] = {
    # ----- §4–§7, §9, §10 查牌: VARIANTS.md rows whose key is not a knob's name, or that have
    # no key, and the knobs that implement them ------------------------------------------------
    "`tractor_offlevel_trumpA` (§5)": ("tractor_offlevel_trump_a",),
    "`throw_checked_against` (§7)": ("throw_partner_can_defeat",),
    "`big_win_jump` (§9)": ("big_win_points", "jump_wins_at_levels"),
    "`penalty_out_of_turn` (§10)": ("penalty_out_of_turn_per_card",),
    "`penalty_revoke` (§10)": ("penalty_revoke_per_card", "revoke_cannot_win"),
    "Pair order / tractor vs pairs (§4)": ("tractor_beats_pairs",),
    "Trump cards inside side-suit tractors (§5)": ("trump_in_side_tractor",),
    "Deliberate non-follow (§6)": ("penalty_hidden_card", "hidden_card_after_tricks"),
    "Partner hides a beating card (§7)": ("throw_partner_hiding_loses",),
    "Declarer schedule below 80 (§9)": ("turnover_points", "points_per_level"),
    "Defenders 80–85 (§9)": ("defender_win_demotes_declarer",),
    "5 points (小光) (§9)": ("shutout_rule", "five_point_remainder"),
    "First-hand special (§9)": ("shutout_first_hand_wins", "first_hand_turnover_with_kitty_wins"),
    "Declaration-triggered jump (§9)": ("declaration_jump",),
    "Unfounded card check (查牌) (§10)": ("card_check_free", "card_check_penalty"),
    "Match format (§1)": ("match_hand_limit", "match_time_limit_min", "match_best_of"),
    # ----- end of the §4–§7, §9, §10 rows --------------------------------------------------------
}
"""VARIANTS.md (``shared/rules/``) rows that are not a knob of their key's name → the knobs that
implement them; every other key of VARIANTS.md is the name of a knob."""


def _variant_rows_markdown() -> list[str]:
    lines = [
        "## VARIANTS.md rows and their knobs",
        "",
        "Every key of `shared/rules/VARIANTS.md` is a knob of that name above, or a row here "
        "names the knobs that implement it (rows without a key by their title).",
        "",
        "| VARIANTS.md row | knobs |",
        "|---|---|",
    ]
    for row, knobs in VARIANT_ROWS.items():
        lines.append(f"| {row} | {', '.join(f'`{k}`' for k in knobs)} |")
    lines.append("")
    return lines


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
    for alias, knobs in KNOB_ALIASES.items():
        lines.append(f"## `{alias}` (alias)")
        lines.append("")
        lines.append(
            f"An override `{alias}` sets {', '.join(f'`{k}`' for k in knobs)} at once; one of "
            "them overridden by its own name keeps its own value."
        )
        lines.append("")
        lines.append(f"Override: {KNOB_RULES[alias].describe()}.")
        lines.append("")
    lines += _variant_rows_markdown()
    return "\n".join(lines)
