"""What this package finds, as data, and the English sentence of each proof.

A :class:`Finding` is an infraction before the auditor turns it into one
(:class:`engine.audit.Infraction`): its kind (:data:`KINDS`), seat, trick (None before play),
cards, penalty (None for an over-time burial, which the auditor prices with its escalation)
and proof facts. The proof kinds (:data:`PROOF_KINDS`) and their keys are tabled in
``engine/README.md``; ``reason`` names the case within a kind, ``other`` a seat the rule
expected, ``knob`` the profile knob whose value decided. :func:`proof_text` renders the English
sentence the CLI prints; pages render their own from the same facts.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

KINDS: tuple[str, ...] = (
    "false_declaration",
    "illegal_chao",
    "bury_violation",
    "kitty_draw_error",
    "exposed_card",
    "takeback",
    "wrong_trump",
    "wrong_dealer",
    "draw_error",
    "redeal",
)
"""The infraction kinds found before the first trick and beside the tricks."""

KIND_ZH: dict[str, str] = {
    "false_declaration": "叫主错误",
    "illegal_chao": "炒底违例",
    "bury_violation": "扣底违例",
    "kitty_draw_error": "多抓/少抓底牌",
    "exposed_card": "暴露牌",
    "takeback": "悔牌",
    "wrong_trump": "主牌不符",
    "wrong_dealer": "庄家不符",
    "draw_error": "洗牌/摸牌违例",
    "redeal": "造反",
}
"""Each kind's name in the referee's Chinese (the CLI report)."""

PROOF_KINDS: tuple[str, ...] = (
    "false_declaration",
    "illegal_chao",
    "face_up",
    "bury_violation",
    "kitty_draw",
    "exposed_card",
    "takeback",
    "trump_result",
    "no_declaration",
    "dealer_result",
    "draw",
    "redeal",
)


@dataclass(frozen=True)
class Finding:
    kind: str
    seat: str
    trick: int | None
    cards: tuple[str, ...]
    penalty: int | None
    proof: dict[str, Any]
    unsure: tuple[tuple[str, str | None], ...] = ()
    """Cards of it read in doubt, each with its runner-up read (or None): what rests on them
    is a question for the referee."""


TRUMP_EN = {"S": "spades ♠", "H": "hearts ♥", "D": "diamonds ♦", "C": "clubs ♣", "NT": "no-trump"}

REASONS_EN: dict[str, str] = {
    # false_declaration
    "not_level": "they are not the level card {level}",
    "not_pair": "two different cards are not a pair",
    "single_joker": "a single joker may not declare",
    "joker_pair": "a joker pair alone does not declare here, only the BJ-SJ tractor",
    "not_declaring": "no single, pair or joker declaration is made of them",
    "named_other": "the suit named is not the cards' suit",
    # illegal_chao
    "single": "a single cannot overcall or 炒: a pair is needed",
    "reused": "that pair has declared or 炒 already (炒过的将牌不能重复炒)",
    "weaker": "it is not stronger than the declaration standing",
    "after_flip": "the kitty was turned up for the trump: no 炒 after that",
    "before_burial": "the kitty was not buried yet ({other} held it)",
    "turn": "it was {other}'s turn",
    "closed": "the others had all passed: the 炒 was over",
    "first_round": "the caller and the dealer may not 炒 in the first round",
    "rebury": "a 炒 here does not take the kitty",
    "took_without_chao": "the kitty was taken without a 炒",
    # bury_violation
    "piecemeal": "buried the kitty in more than one go",
    "looked": "looked at the kitty after burying it",
    "retook": "took its buried kitty back",
    # draw_error
    "draw_clockwise": "the draw goes clockwise",
    "draw_counterclockwise": "the draw goes counter-clockwise",
    "dealer_draws_first": "the dealer {other} draws first",
    "flip_order": "the cards are turned S, E, N, W",
    "flip_winner": "the highest card turned, {other}'s, draws first",
    "joker_drawn": "a joker drawn does not count",
    "shuffle": "the wrong seat shuffled",
    "cut": "the wrong seat cut",
}


def _cards(cards: Any) -> str:
    return " ".join(cards or ()) or "—"


def reason_text(d: Mapping[str, Any]) -> str:
    other = d.get("other") or "another seat"
    return REASONS_EN[d["reason"]].format(other=other, level=d.get("level", ""))


def proof_text(d: Mapping[str, Any]) -> str:
    """The English sentence of one of this package's proofs (``d["kind"]`` in
    :data:`PROOF_KINDS`)."""
    kind, seat = d["kind"], d.get("seat")
    if kind == "false_declaration":
        end = "; the hand ends" if d["ends_hand"] else ""
        return (
            f"before play: {seat} declared with {_cards(d['cards'])}, which cannot declare: "
            f"{reason_text(d)}{end} · 叫主错误"
        )
    if kind == "illegal_chao":
        end = "; the hand ends" if d["ends_hand"] else ""
        return (
            f"before play: {seat}'s 炒 {_cards(d['cards'])} is not allowed: {reason_text(d)}"
            f"{end} · 炒底违例"
        )
    if kind == "face_up":
        return (
            f"before play: {seat} showed its declaration {_cards(d['cards'])} face up where "
            "declarations are secret · 暗叫亮牌"
        )
    if kind == "bury_violation":
        warn = " (a warning the first time)" if d["warning"] else ""
        return f"kitty: {seat} {reason_text(d)}{warn} · 扣底违例"
    if kind == "kitty_draw":
        return (
            f"kitty: {seat} took {d['count']} cards as the kitty, which holds {d['kitty_size']}"
            " · 多抓/少抓底牌"
        )
    if kind == "exposed_card":
        when = f"trick {d['trick']}" if d.get("trick") else "before play"
        return f"{when}: {seat} exposed {_cards(d['cards'])} · 暴露牌"
    if kind == "takeback":
        when = f"trick {d['trick']}" if d.get("trick") else "play"
        return f"{when}: {seat} took back {_cards(d['cards'])} after playing it · 悔牌"
    if kind == "trump_result":
        basis = "the last declaration" if d["basis"] == "declaration" else "the kitty turned up"
        return (
            f"trump: the record says {TRUMP_EN[d['trump']]}, but {basis} ({seat}) gives "
            f"{TRUMP_EN[d['expected_trump']]} · 主牌不符"
        )
    if kind == "no_declaration":
        return "trump: nobody declared, and this profile deals again then · 无人叫主"
    if kind == "dealer_result":
        basis = {
            "first_declaration": "the first declaration",
            "last_before_kitty": "the last declaration before the kitty was taken",
            "flip": "the kitty turned up",
            "rotation": "the previous hand's result",
        }[d["basis"]]
        return (
            f"dealer: the record says {seat}, but {basis} makes {d['other']} the dealer · 庄家不符"
        )
    if kind == "draw":
        return f"draw: {seat}: {reason_text(d)} · 洗牌/摸牌违例"
    if kind == "redeal":
        return f"before play: {seat} had the deal redone (造反), which this profile does not allow"
    raise ValueError(f"unknown proof kind {kind!r}")
