"""The referee's JSON API: decisions, corrections, contract and bidding, kitty, 炒底, 查牌, next
hand and match.

This module owns the ``/api/referee/*`` routes of ``web_dashboard/API.md``. Every one needs a
referee session (401), every POST the session's CSRF token (403); a bad body is a 400 with one
bilingual line naming the field and the fix. Each POST appends events (actor
``referee:<name>``) and answers ``{"ok": true, "seq": <the last appended seq>}``; the state
follows from the fold. A correction also saves the trick's picture and its labels as training
data (:func:`chaodipi.table.evidence.save_correction`). The contract may carry the hand's draw
and bidding (``before_play``, ``draw``, ``dealer_by_rotation``), checked by the engine's own
reading of the record; entered bidding also sets the declarer and trump it makes unless the
same request gives them (:func:`chaodipi.table.table_state.follow_bidding`).
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, abort, jsonify, request, send_file

from chaodipi.table.actions import advance_hand, new_match
from chaodipi.table.evidence import save_correction
from chaodipi.table.hand_fold import HandFold, with_kitty
from chaodipi.table.table_state import (
    BIDDING_KEYS,
    check_contract,
    follow_bidding,
    is_level_pair,
    with_card_check,
)
from engine.cards import SEATS, CardError, parse, side_of
from engine.record import load_record
from web_dashboard.auth import error, referee_name, referee_only
from web_dashboard.context import ctx

bp = Blueprint("referee_api", __name__)
MAX_NOTE = 500


class BadInput(ValueError):
    """A referee request that cannot be applied; the message is the one line sent back."""


def body() -> dict[str, Any]:
    if not request.get_data():
        return {}
    data = request.get_json(silent=True)
    if not isinstance(data, dict):
        raise BadInput("请求体须为 JSON 对象 / the body must be a JSON object")
    return data


def cards_of(value: Any, what: str = "cards") -> list[str]:
    """Cards from a list or a "10H QS" string, checked against the notation."""
    items = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        raise BadInput(f'{what} 须为牌的列表，如 ["10H", "QS"] / {what} must list cards')
    out = []
    for c in items:
        card = str(c).strip().upper()
        try:
            parse(card)
        except CardError:
            raise BadInput(
                f"未知的牌 {c!r}：写成点数+花色，如 10H、QS、BJ / unknown card {c!r}: "
                "write rank + suit, e.g. 10H, QS, BJ"
            ) from None
        out.append(card)
    return out


def seat_of(value: Any) -> str:
    seat = str(value or "").strip().upper()
    if seat not in SEATS:
        raise BadInput(f"座位 {value!r} 无效，用 N E S W / seat {value!r}: use N, E, S or W")
    return seat


def actor() -> str:
    return f"referee:{referee_name()}"


def ok(seq: int) -> Any:
    return jsonify({"ok": True, "seq": seq})


@bp.errorhandler(BadInput)
def bad_input(e: BadInput) -> Any:
    return error(str(e), 400)


@bp.get("/api/referee/state")
@referee_only(post=False)
def referee_state() -> Any:
    return jsonify(ctx().live.referee_json())


@bp.get("/api/referee/evidence/<path:path>")
@referee_only(post=False)
def evidence(path: str) -> Any:
    file = ctx().evidence.path_of(path)
    if file is None or not file.is_file():
        abort(404)
    return send_file(file, mimetype="image/jpeg", max_age=3600)


@bp.post("/api/referee/infractions/<id>")
@referee_only(post=True)
def decide(id: str) -> Any:  # the path parameter is named id in API.md
    ident = id
    data = body()
    decision = data.get("decision")
    if decision not in ("confirm", "dismiss"):
        raise BadInput('decision 须为 "confirm" 或 "dismiss" / decision must be confirm or dismiss')
    note = data.get("note")
    if note is not None and (not isinstance(note, str) or len(note) > MAX_NOTE):
        raise BadInput(f"备注须为不超过 {MAX_NOTE} 字的文字 / note must be text ≤ {MAX_NOTE} chars")
    live = ctx().live
    with live.locked() as state:
        if state.infraction(ident) is None:
            raise BadInput(
                f"本手没有违例 {ident}（刷新页面）/ no infraction {ident} in this hand: reload"
            )
        event = {"id": ident, "decision": decision, **({"note": note} if note else {})}
        return ok(live.append("infraction_decided", event, actor()))


@bp.post("/api/referee/correction")
@referee_only(post=True)
def correct() -> Any:
    data = body()
    trick = data.get("trick")
    if isinstance(trick, str) and trick.strip().isdigit():
        trick = int(trick)
    if not isinstance(trick, int) or isinstance(trick, bool) or trick < 1:
        raise BadInput("trick 须为墩号 1、2…… / trick must be a trick number 1, 2, …")
    seat, cards = seat_of(data.get("seat")), cards_of(data.get("cards"))
    context = ctx()
    live = context.live
    with live.locked() as state:
        hand = state.hand
        tricks = hand.record()["tricks"]
        if trick > len(tricks) + 1:
            raise BadInput(
                f"第 {trick} 墩还没打到（现有 {len(tricks)} 墩）/ trick {trick} has not been "
                f"played yet ({len(tricks)} so far)"
            )
        was: list[str] = []
        if trick <= len(tricks):
            was = next((p["cards"] for p in tricks[trick - 1]["plays"] if p["seat"] == seat), [])
        frames = hand.snapshots.get(trick, [])
        frame = frames[-1] if frames else None
        event: dict[str, Any] = {
            "hand": hand.number,
            "trick": trick,
            "seat": seat,
            "cards": cards,
            "was": list(was),
        }
        if frame:
            event["frame"] = frame
        seq = live.append("play_corrected", event, actor())
        number = hand.number
    jpeg = None
    if frame:
        path = context.evidence.path_of(frame)
        if path is not None and path.is_file():
            jpeg = path.read_bytes()
    labels = {
        "table": context.config.table_id,
        "hand": number,
        "trick": trick,
        "seat": seat,
        "cards": cards,
        "was": list(was),
        "source_frame": frame,
        "seq": seq,
    }
    name = f"h{number:04d}-t{trick:02d}-{seat}-{seq}"
    save_correction(context.evidence.data_dir, name, jpeg, labels)
    return ok(seq)


@bp.post("/api/referee/undo")
@referee_only(post=True)
def undo() -> Any:
    live = ctx().live
    with live.locked() as state:
        live_ones = state.hand.live_corrections()
        if not live_ones:
            raise BadInput("本手没有可撤销的更正 / no correction to undo in this hand")
        return ok(live.append("correction_undone", {"of_seq": live_ones[-1]["seq"]}, actor()))


@bp.post("/api/referee/contract")
@referee_only(post=True)
def contract() -> Any:
    data = body()
    change = contract_change(data)
    live = ctx().live
    with live.locked() as state:
        hand = state.hand
        try:
            new = check_contract({**hand.contract, **change})
            for key in BIDDING_KEYS:
                if key in change and change[key] is None:  # null: removed
                    new.pop(key, None)
            if change.get("before_play") is not None:
                given = [k for k in ("declarer", "trump") if k in change]
                first = state.is_first_hand(hand, new)
                followed = follow_bidding(new, first_hand=first, keep=given)
                change |= {k: followed[k] for k in ("declarer", "trump") if followed[k] != new[k]}
        except (ValueError, KeyError) as e:
            bidding = set(change) & set(BIDDING_KEYS)
            zh, en = ("牌前记录", "before play") if bidding else ("约定", "contract")
            raise BadInput(f"{zh}无效 / bad {en}: {one_line(e)}") from None
        return ok(live.append("contract_set", change, actor()))


def one_line(e: BaseException) -> str:
    return " ".join(str(e).split())


def contract_change(data: dict[str, Any]) -> dict[str, Any]:
    """The fields of a contract request: the contract's own (``declarer``, ``trump``, ``levels``,
    ``rules``), read as the forms give them, and :data:`BIDDING_KEYS` as the record has them
    (null removes one); checked by the caller."""
    change: dict[str, Any] = {}
    if data.get("declarer") is not None:
        change["declarer"] = seat_of(data["declarer"])
    if data.get("trump") is not None:
        change["trump"] = str(data["trump"]).strip().upper()
    if data.get("rules") is not None:
        change["rules"] = str(data["rules"]).strip().upper()
    if data.get("levels") is not None:
        levels = data["levels"]
        if not isinstance(levels, dict):
            raise BadInput('levels 须为 {"NS": "2", "EW": "5"} / levels must be {"NS", "EW"}')
        change["levels"] = {str(k).upper(): str(v).upper() for k, v in levels.items()}
    for key in BIDDING_KEYS:
        if key in data:
            change[key] = data[key]
    if not change:
        raise BadInput(
            "没有要改的项 / nothing to change: give declarer, trump, levels, rules, "
            "before_play, draw or dealer_by_rotation"
        )
    return change


@bp.post("/api/referee/kitty")
@referee_only(post=True)
def kitty() -> Any:
    cards = cards_of(body().get("cards"))
    live = ctx().live
    with live.locked() as state:
        try:
            load_record(with_kitty(state.hand.record(), cards))
        except ValueError as e:
            raise BadInput(f"底牌无效 / bad kitty: {e}") from None
        return ok(live.append("kitty_entered", {"cards": cards}, actor()))


@bp.post("/api/referee/chao-di")
@referee_only(post=True)
def chao_di() -> Any:
    data = body()
    seat, cards = seat_of(data.get("seat")), cards_of(data.get("cards"))
    live = ctx().live
    with live.locked() as state:
        c = state.hand.contract
        level = c["levels"]["NS" if c["declarer"] in ("N", "S") else "EW"]
        if not is_level_pair(cards, level):
            raise BadInput(
                f"炒底须亮一对级牌（{level}）或一对王 / a 炒底 shows a pair of level cards "
                f"({level}) or of one joker"
            )
        return ok(live.append("chao_di", {"seat": seat, "cards": cards}, actor()))


@bp.post("/api/referee/card-check")
@referee_only(post=True)
def card_check() -> Any:
    data = body()
    seat, checked = seat_of(data.get("seat")), seat_of(data.get("checked"))
    if side_of(seat) == side_of(checked):
        raise BadInput(
            f"查牌查的是对方的牌：{seat} 与 {checked} 同一方 / a card check is of an "
            f"opponent's play: {seat} and {checked} are partners"
        )
    live = ctx().live
    with live.locked() as state:
        hand = state.hand
        gathered = gathered_tricks(hand)
        trick = data.get("trick", gathered)
        if isinstance(trick, str) and trick.strip().isdigit():
            trick = int(trick)
        if not isinstance(trick, int) or isinstance(trick, bool) or not 1 <= trick <= gathered:
            raise BadInput(
                f"trick 须为已收的一墩 1–{gathered} / trick must be a gathered trick, 1 to "
                f"{gathered}"
                if gathered
                else "还没有收过墩，无牌可查 / no trick has been gathered yet: nothing to check"
            )
        event = {"hand": hand.number, "seat": seat, "checked": checked, "trick": trick}
        try:
            with_card_check(hand, event)
        except ValueError as e:
            raise BadInput(f"查牌无效 / bad card check: {one_line(e)}") from None
        return ok(live.append("card_check", event, actor()))


def gathered_tricks(hand: HandFold) -> int:
    """How many tricks of ``hand`` are complete (every seat played), as its audit reads them."""
    scored = hand.scored()
    if scored is None:
        return sum(1 for t in hand.record()["tricks"] if len(t["plays"]) >= len(SEATS))
    return sum(1 for t in scored.report.tricks if t.complete)


@bp.post("/api/referee/next-hand")
@referee_only(post=True)
def next_hand() -> Any:
    body()
    return ok(advance_hand(ctx().live, actor())[-1])


@bp.post("/api/referee/next-match")
@referee_only(post=True)
def next_match() -> Any:
    body()
    return ok(new_match(ctx().live, actor())[-1])
