"""The spectators' JSON API: state, events, the live stream, hand records, the OpenAPI file.

This module owns the public routes of ``web_dashboard/API.md``. Nothing here needs a session
and nothing here shows referee-only data: the state is
:meth:`~chaodipi.table.table_state.TableState.to_public_json`; ``/api/events`` leaves out
``snapshot``
events, the notes of ``infraction_decided`` and the frames of ``play_corrected`` (and every
event's actor), and shows a bidding's face-down and buried cards only by their count, as the
state does. ``/api/stream`` sends ``event: state`` with ``id: <seq>`` at once and on every
append (it waits on the store's condition, so within milliseconds), and a ``: heartbeat``
comment every 15 s. This Flask route holds a server thread while a stream is open, so it serves
only plain WSGI servers (tests, tools); ``chaodipi run`` and the hub answer ``/api/stream``
before the request reaches Flask, without a thread (:mod:`web_dashboard.server`), with the same
messages (:func:`sse_state`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from flask import Blueprint, Response, jsonify, request

from chaodipi.table.store import StoredEvent
from chaodipi.table.table_state import public_before_play
from web_dashboard.auth import error
from web_dashboard.context import ctx

bp = Blueprint("api", __name__)
OPENAPI = Path(__file__).with_name("openapi.json")
MAX_EVENTS = 5000
MAX_SEQ = 2**63 - 1  # SQLite's largest integer
HIDDEN_KINDS = frozenset({"snapshot"})
HIDDEN_FIELDS = {"infraction_decided": ("note",), "play_corrected": ("frame",)}


def public_event(event: StoredEvent) -> dict[str, Any] | None:
    """An event as spectators see it (None for referee-only kinds)."""
    if event.kind in HIDDEN_KINDS:
        return None
    hidden = HIDDEN_FIELDS.get(event.kind, ())
    data = {k: v for k, v in event.data.items() if k not in hidden}
    bidding = data.get("before_play")
    if isinstance(bidding, list) and all(isinstance(e, dict) for e in bidding):
        data["before_play"] = public_before_play(bidding, time.time())  # hidden cards: a count
    return {"seq": event.seq, "t": event.t, "kind": event.kind, "data": data}


@bp.get("/api/state")
def state() -> Any:
    return jsonify(ctx().live.public_json())


@bp.get("/api/events")
def events() -> Any:
    try:
        since = int(request.args.get("since", "0"))
        limit = min(int(request.args.get("limit", str(MAX_EVENTS))), MAX_EVENTS)
    except ValueError:
        return error("since/limit 须为整数 / since and limit must be whole numbers", 400)
    if not 0 <= since <= MAX_SEQ or limit < 1:
        return error(
            f"since 须在 0 到 {MAX_SEQ} 之间，limit ≥ 1 / since must be 0 to {MAX_SEQ} and "
            "limit ≥ 1",
            400,
        )
    store = ctx().live.store
    rows = store.events(since=since, limit=limit)
    out = [e for e in (public_event(r) for r in rows) if e is not None]
    last = rows[-1].seq if rows else min(since, store.last_seq)
    return jsonify({"events": out, "last": last})


def sse_state(seq: int, text: str) -> str:
    """One ``state`` message of the live stream (``text``: the state JSON on one line)."""
    return f"event: state\nid: {seq}\ndata: {text}\n\n"


SSE_HEARTBEAT = ": heartbeat\n\n"
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


@bp.get("/api/stream")
def stream() -> Response:
    context = ctx()
    live, beat = context.live, context.heartbeat_s

    def messages() -> Iterator[str]:
        sent = -1
        last_write = time.monotonic()
        while not live.store.closed:
            if live.store.last_seq != sent:
                sent, text = live.public_text()
                last_write = time.monotonic()
                yield sse_state(sent, text)
                continue
            left = beat - (time.monotonic() - last_write)
            if left <= 0:
                last_write = time.monotonic()
                yield SSE_HEARTBEAT
                continue
            live.store.wait(sent, left)

    return Response(messages(), mimetype="text/event-stream", headers=SSE_HEADERS)


@bp.get("/api/records")
def records() -> Any:
    with ctx().live.locked() as st:
        return jsonify(st.records())


@bp.get("/api/records/<int:hand>.json")
def record(hand: int) -> Any:
    with ctx().live.locked() as st:
        fold = st.find_hand(hand)
        if fold is None:
            return error(f"没有第 {hand} 手牌 / no hand {hand} at this table", 404)
        return jsonify(fold.record())


@bp.get("/api/openapi.json")
def openapi() -> Any:
    return Response(OPENAPI.read_text(encoding="utf-8"), mimetype="application/json")
