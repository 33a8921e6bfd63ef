"""The referee's reading of an audit: plain text, Chinese first, one trick per line.

It renders an :class:`~engine.audit.AuditReport` the way a referee reads a hand: header (rules,
declarer, level, trump), each trick (leader, plays in table order, winner, points), the kitty,
penalties, each infraction with its proof, and the level change.
"""

from __future__ import annotations

from engine.audit import AuditReport
from engine.cards import SUIT_NAMES_ZH, other_side
from engine.preplay.proofs import KIND_ZH as PREPLAY_KIND_ZH
from engine.preplay.proofs import KINDS as PREPLAY_KINDS

KIND_ZH: dict[str, str] = {
    "revoke": "吃苍蝇/跟错牌",
    "hidden_cards": "藏牌",
    "failed_throw": "甩牌失败",
    "out_of_turn": "越序出牌",
    "overtime": "超时",
    "kitty_count": "扣错底牌",
    "card_count": "多牌/少牌",
    "duplicate_card": "牌张重复",
    "card_check": "查牌无误",
}
KIND_ZH.update(PREPLAY_KIND_ZH)  # before play and beside the tricks (engine/preplay)
SIDE_ZH = {"NS": "南北", "EW": "东西"}


def render_text(report: AuditReport) -> str:
    r = report.record
    side = report.declarer_side
    lines = [
        f"规则 rules {report.profile.name} · 庄家 declarer {r.declarer} ({SIDE_ZH[side]} {side}) · "
        f"打 level {r.level} · 主 trump {SUIT_NAMES_ZH.get(r.trump, r.trump)} {r.trump}",
        f"级别 levels NS {r.levels['NS']} · EW {r.levels['EW']}",
        "",
    ]
    defenders = other_side(side)
    running = 0
    for t in report.tricks:
        plays = "  ".join(f"{p.seat}:{' '.join(p.cards)}" for p in t.plays)
        if not t.complete:
            lines.append(f"第{t.number:>2}轮 trick {t.number:>2}  {plays}  (进行中 in progress)")
            continue
        to = t.points_to or "?"
        if to and to != "?" and ("NS" if to in "NS" else "EW") == defenders:
            running += t.points
        moved = f" → 分归 points to {t.points_to}" if t.points_to != t.winner else ""
        lines.append(
            f"第{t.number:>2}轮 trick {t.number:>2}  {plays}  胜 won by {t.winner}"
            f"  {t.points:>2} 分{moved}  台下 defenders {running}"
        )
    k = report.kitty
    lines.append("")
    if k.cards is None:
        lines.append("底牌 kitty: 未亮 not shown yet")
    else:
        won = {True: "台下抠底 defenders won the last trick", False: "庄家保底 declarers kept it"}
        lines.append(
            f"底牌 kitty {' '.join(k.cards)}: {k.points} 分 × {k.multiplier}"
            + (
                f" · {won[k.won_by_defenders]} (+{k.bonus})"
                if k.won_by_defenders is not None
                else ""
            )
        )
    lines.append(f"台下得分 defender table points: {report.defender_points}")
    p = report.penalties
    lines.append(
        f"罚分 penalties: 庄家方 declarers {p['against_declarers']} · 台下方 defenders "
        f"{p['against_defenders']} → 台下 net {p['to_defenders']:+d}"
    )
    if report.infractions:
        lines.append("")
        lines.append(f"违例 infractions ({len(report.infractions)}):")
        for inf in report.infractions:
            where = f"第{inf.trick}轮 trick {inf.trick}"
            if inf.trick is None:
                where = "牌前 before play" if inf.kind in PREPLAY_KINDS else "底牌 kitty"
            check = " · 待核实，未计分 to check, not counted" if inf.to_check else ""
            lines.append(
                f"  [{KIND_ZH[inf.kind]} {inf.kind}] {inf.seat} · {where} · 罚 {inf.penalty} 分"
                f"{check}"
            )
            lines.append(f"    {inf.proof}")
    else:
        lines.append("违例 infractions: 无 none")
    lines.append("")
    if report.result is None:
        lines.append("结果 result: 本盘未完 hand not finished")
    else:
        res = report.result
        lines.append(f"台下总分 defender total: {res.defender_total}")
        lines.extend(f"  {e}" for e in res.explanation)
        lines.append(
            f"结果 result: NS {res.levels_before['NS']}→{res.levels_after['NS']} · "
            f"EW {res.levels_before['EW']}→{res.levels_after['EW']} · 下一庄 next declarer "
            f"{res.next_declarer}"
            + (f" · 胜 game won by {res.game_winner}" if res.game_winner else "")
        )
    return "\n".join(lines)
