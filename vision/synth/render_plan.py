"""The timeline of a rendered hand: where every card and hand is at any moment, and the truth.

This module owns the choreography of ``chaodipi render`` (no pixels): from a hand record it
lays out each play as a fan in the playing seat's zone (cards in record order, each one shifted
to the player's right so every card's top-left corner index stays visible, turned to face the
seat), schedules the hand that carries the cards in from the seat's edge and withdraws, the
winner's hand that sweeps a finished trick to a face-down pile in front of it, and the kitty
shown face up in the centre at the end. A record's ``takebacks`` (悔牌) and ``exposed`` cards
are shown too: a takeback's cards land in the seat's zone where its play would have, lie
:data:`TAKEBACK_REST_S`, and are lifted back off the table by the seat's hand; the play lands
:data:`TAKEBACK_AWAY_S` after that. An exposed card lands face up, turned sideways, in the strip
between the seat's edge and its play area (:data:`EXPOSED_DEPTH_CM` in, to the player's left),
:data:`EXPOSED_AFTER_S` after the seat's play in that trick, lies :data:`EXPOSED_SHOW_S`, and is
picked up again. A record's ``before_play`` (the draw phase) is played before the first
trick (:func:`build_timeline`'s draw phase): the kitty lies face down in the centre from the
start; each declaration and 炒 is laid at the declaring seat's edge where an exposed card would
lie (centred on the edge, its cards :data:`DECLARED_APART_CM` apart), face up for
:data:`DECLARE_SHOW_S` and picked up again (a face-down placement lies face down first and is
turned up: after its ``revealed_t`` less its ``t``, between :data:`FACE_DOWN_MIN_S` and
:data:`FACE_DOWN_MAX_S` of video, else :data:`FACE_DOWN_MIN_S`);
a ``take`` carries the face-down kitty from the centre off the table at the taker's edge, a
``bury`` lays ``count`` backs (the cards' number only) in the centre again. The steps follow one
another :data:`DRAW_STEP_GAP_S` apart, whatever their record times (the draw's own pace is not
on trial); the first play lands after the last. :class:`Timeline` answers "what is on the
table at time ``t``" and builds the ground-truth events a perfect tracker would emit on a given
frame grid.

Times. A play with record time ``t`` lands at ``lead_in + (t - t0) / time_scale`` seconds of
video (``t0`` the first play's time; a play without a time comes :data:`DEFAULT_GAP_S` record
seconds after the previous one). Gaps too short for the physical motions are stretched, never
shortened: one frame between plays of a trick, and between the last play of a trick and the next
lead enough time to see the trick rest, sweep it and show the empty table
(:func:`min_trick_gap`). A stretched gap is at most that minimum, so it never creates an
overtime that the record did not have. Table coordinates are ``chaodipi.config``'s (cm, origin
NW, x → E, y → S).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from vision.events import (
    DeclarationEvent,
    ExposedCardEvent,
    KittyEvent,
    KittyMoveEvent,
    PlayEvent,
    TakebackEvent,
    TrickClearedEvent,
)
from vision.table_geometry import TableGeometry, ZoneConfig
from vision.zones import CARD_H_CM, SEATS, Zones, inward, right_of

DEFAULT_GAP_S = 3.0
"""Record seconds between plays that carry no time."""

LEAD_IN_S = 2.0  # empty table before the first hand reaches in
REACH_S = (0.3, 0.6)  # a hand carrying cards in
WITHDRAW_S = 0.35
SWEEP_DELAY_S = 1.5  # last play of a trick → the winner's hand starts the sweep
SWEEP_MIN_DELAY_S = 1.2
SWEEP_REACH_S = 0.3
SLIDE_S = 0.45
SWEEP_WITHDRAW_S = 0.3
EMPTY_DWELL_S = 0.8  # zones empty before the next lead's hand reaches in
KITTY_DELAY_S = 1.5
KITTY_SHOW_S = 3.0
TAIL_S = 1.0
TAKEBACK_REST_S = 1.5  # a taken-back card lies in the zone this long before it is lifted
LIFT_S = 0.45  # a hand carrying cards back off the table
TAKEBACK_AWAY_S = 3.0  # lifted → the play landing (longer than the tracker's TAKEBACK_S)
EXPOSED_AFTER_S = 0.6  # the seat's play in the trick → its exposed card lands
EXPOSED_SHOW_S = 4.0  # an exposed card lies face up this long
EXPOSED_DEPTH_CM = 8.4  # … this far in from the seat's edge (its zone starts at 10)
EXPOSED_LEFT_CM = 10.0  # … and this far to the player's left
DECLARE_SHOW_S = 3.0  # a declaration's cards lie face up this long (past EXPOSED_HOLD_S)
FACE_DOWN_MIN_S = 1.2  # a face-down declaration lies face down at least this long …
FACE_DOWN_MAX_S = 4.0  # … and at most this long before it is turned up
DRAW_STEP_GAP_S = 0.8  # between two steps of the draw phase
DECLARED_APART_CM = 18.0  # a pair's cards this far apart: never read as one card's two corners
DECLARED_TURN_DEG = 90.0  # declared cards lie sideways, as exposed cards do
KITTY_CARRY_S = 0.6  # the kitty carried off the table when it is taken
KITTY_SIZE = 8  # backs buried when a bury gives no count
BACK = "back"  # the identity of a face-down card whose face the footage never shows
PILE_IN_CM = 4.5  # a won-trick pile's centre, in from the winner's edge
PILE_RIGHT_CM = 18.0  # … and to the winner's right

Point = tuple[float, float]


def facing_angle(seat: str) -> float:
    """Rotation (degrees, image convention) that turns a card upright for ``seat``'s player."""
    ux, uy = inward(seat)
    return math.degrees(math.atan2(ux, -uy))


def edge_point(geometry: TableGeometry, seat: str, depth_cm: float, lateral_cm: float) -> Point:
    """The point ``depth_cm`` in from the middle of ``seat``'s edge, ``lateral_cm`` to its right."""
    w, h = geometry.width_cm, geometry.height_cm
    mid = {"N": (w / 2, 0.0), "E": (w, h / 2), "S": (w / 2, h), "W": (0.0, h / 2)}[seat]
    ux, uy = inward(seat)
    rx, ry = right_of(seat)
    return (mid[0] + ux * depth_cm + rx * lateral_cm, mid[1] + uy * depth_cm + ry * lateral_cm)


def _ease(f: float) -> float:
    """Smoothstep on [0, 1] (clamped)."""
    f = min(1.0, max(0.0, f))
    return f * f * (3 - 2 * f)


@dataclass(frozen=True)
class Placement:
    """One card on the table: identity, centre (cm), rotation (degrees), face up unless
    ``face_down``."""

    identity: str
    x: float
    y: float
    angle: float
    face_down: bool = False


@dataclass(frozen=True)
class HandMove:
    """A hand (with its sleeve) from ``seat``: key positions ``(t, x_cm, y_cm)``, eased between
    keys; visible from the first key's time to the last's."""

    seat: str
    keys: tuple[tuple[float, float, float], ...]

    @property
    def start(self) -> float:
        return self.keys[0][0]

    @property
    def end(self) -> float:
        return self.keys[-1][0]

    def at(self, t: float) -> Point | None:
        """The hand's centre at ``t``, or None when it is off the table."""
        if t < self.start or t > self.end:
            return None
        for (t0, x0, y0), (t1, x1, y1) in zip(self.keys, self.keys[1:], strict=False):
            if t <= t1:
                f = _ease((t - t0) / (t1 - t0)) if t1 > t0 else 1.0
                return (x0 + (x1 - x0) * f, y0 + (y1 - y0) * f)
        return self.keys[-1][1], self.keys[-1][2]


@dataclass
class Group:
    """Cards put down together (one play, or the kitty) and how they come and go.

    Carried in by ``reach`` (the cards move with the hand until ``t_land``), at rest from
    ``t_land``; if swept, they slide from ``t_slide0`` to the ``gather`` point by ``t_slide1``
    and are gone after it.
    """

    kind: str  # "play", "kitty", "takeback" (lifted back: slides off), "exposed",
    # "declaration" (face up at the edge before play), "face_down" (a declaration or the
    # kitty lying face down: never read)
    seat: str
    cards: tuple[Placement, ...]
    reach: HandMove
    t_land: float
    trick: int | None = None
    index: int = 0  # the play's index in the whole hand (kitty: -1)
    record_t: float | None = None
    t_slide0: float | None = None
    t_slide1: float | None = None
    gather: Point | None = None
    sweeper: str | None = None

    @property
    def t_reach(self) -> float:
        return self.reach.start

    def resting(self, t: float) -> bool:
        """Whether the cards lie still on the table at ``t``."""
        return self.t_land <= t and (self.t_slide0 is None or t < self.t_slide0)

    def gone(self, t: float) -> bool:
        return self.t_slide1 is not None and t >= self.t_slide1

    def at(self, t: float) -> tuple[Placement, ...] | None:
        """The cards' placements at ``t`` (None before they come in or after they are gone)."""
        if t < self.t_reach or self.gone(t):
            return None
        if t < self.t_land:
            hold = self.reach.at(self.t_land)
            now = self.reach.at(t)
            if hold is None or now is None:
                return None
            dx, dy = now[0] - hold[0], now[1] - hold[1]
            return tuple(replace(c, x=c.x + dx, y=c.y + dy) for c in self.cards)
        if self.t_slide0 is None or t < self.t_slide0:
            return self.cards
        assert self.t_slide1 is not None and self.gather is not None
        f = _ease((t - self.t_slide0) / max(1e-6, self.t_slide1 - self.t_slide0))
        gx, gy = self.gather
        return tuple(replace(c, x=c.x + (gx - c.x) * f, y=c.y + (gy - c.y) * f) for c in self.cards)


@dataclass
class Timeline:
    """Everything that moves in a rendered hand, in video seconds."""

    geometry: TableGeometry
    zones: Zones
    groups: list[Group] = field(default_factory=list)
    hands: list[HandMove] = field(default_factory=list)
    sweeps: list[tuple[float, str]] = field(default_factory=list)  # (t_slide1, pile owner)
    kitty_moves: list[tuple[float, str, str, int]] = field(default_factory=list)
    """The draw phase's kitty moves: (video time done, seat, "take" or "bury", cards)."""
    duration: float = 0.0

    def piles(self, t: float) -> dict[str, int]:
        """Won tricks in front of each seat at ``t`` (face-down piles)."""
        out = dict.fromkeys(SEATS, 0)
        for t1, seat in self.sweeps:
            if t >= t1:
                out[seat] += 1
        return out

    def hands_at(self, t: float) -> list[tuple[HandMove, Point]]:
        """The hands over the table at ``t`` with their centres."""
        out = []
        for h in self.hands:
            p = h.at(t)
            if p is not None:
                out.append((h, p))
        return out

    def schedule(self) -> list[dict[str, Any]]:
        """The plays' record and video times (for ``render.json``)."""
        return [
            {
                "trick": g.trick,
                "seat": g.seat,
                "cards": [c.identity for c in g.cards],
                "t_record": g.record_t,
                "t_video": round(g.t_land, 6),
            }
            for g in self.groups
            if g.kind == "play"
        ]

    def _in_seat_zone(self, group: Group, t: float) -> bool:
        cards = group.at(t)
        return cards is not None and any(self.zones.seat_of((c.x, c.y)) in SEATS for c in cards)

    def truth(self, n_frames: int, fps: float, name: Callable[[int], str]) -> list[TruthEvent]:
        """The events a perfect tracker emits on frames ``i / fps`` (``i < n_frames``).

        ``play``: the first frame at or after the landing (a takeback's cards too: they were
        played); ``takeback``: the first frame after the lift began in which none of its cards
        has its centre in the seat's zone; ``trick_cleared``: the first frame after the sweep
        began in which no card of the trick has its centre in a seat zone; ``kitty``: the first
        frame at or after the kitty lands; ``exposed_card``: the first frame at or after an
        exposed card lands; ``declaration``: the first frame at or after a declaration's cards
        lie face up (turned up, for a face-down one); ``kitty_move``: the first frame at or after
        the kitty has left the table (take) or lies in the centre again (bury). ``t_stable``
        is left to the caller (a perfect tracker has none: it
        is a property of the real one's settling).
        """

        def frame_at(t: float) -> int:
            return max(0, math.ceil(t * fps - 1e-6))

        events: list[tuple[float, int, TruthEvent]] = []
        by_trick: dict[int, list[Group]] = {}
        for g in self.groups:
            i = frame_at(g.t_land)
            if i >= n_frames:
                continue
            cards = tuple(c.identity for c in g.cards)
            if g.kind == "face_down":
                continue  # nothing a camera reads
            if g.kind == "declaration":
                events.append((i / fps, 1, DeclarationEvent(g.seat, cards, i / fps, name(i))))
            elif g.kind == "kitty":
                events.append((i / fps, 1, KittyEvent(cards, i / fps, name(i))))
            elif g.kind == "exposed":
                seat, t = g.seat, i / fps
                events += [
                    (t, 1, ExposedCardEvent(c.identity, (c.x, c.y), seat, t, name(i)))
                    for c in g.cards
                ]
            elif g.kind == "takeback":
                events.append((i / fps, 0, PlayEvent(g.seat, cards, i / fps, i / fps, name(i))))
                assert g.t_slide0 is not None
                for k in range(frame_at(g.t_slide0), n_frames):
                    if not self._in_seat_zone(g, k / fps):
                        events.append((k / fps, 1, TakebackEvent(g.seat, cards, k / fps, name(k))))
                        break
            else:
                events.append((i / fps, 0, PlayEvent(g.seat, cards, i / fps, i / fps, name(i))))
                if g.trick is not None:
                    by_trick.setdefault(g.trick, []).append(g)
        for t, seat, action, count in self.kitty_moves:
            i = frame_at(t)
            if i < n_frames:
                events.append((i / fps, 1, KittyMoveEvent(seat, action, count, i / fps, name(i))))
        for plays in by_trick.values():
            t0 = plays[-1].t_slide0
            if t0 is None:
                continue
            for i in range(frame_at(t0), n_frames):
                if not any(self._in_seat_zone(g, i / fps) for g in plays):
                    events.append((i / fps, 2, TrickClearedEvent(i / fps, name(i))))
                    break
        events.sort(key=lambda e: (e[0], e[1]))
        return [e for _, _, e in events]


TruthEvent = (
    PlayEvent
    | TrickClearedEvent
    | KittyEvent
    | TakebackEvent
    | ExposedCardEvent
    | DeclarationEvent
    | KittyMoveEvent
)


def _incidents(record: Mapping[str, Any], name: str) -> dict[tuple[int, str], list[str]]:
    """A record's takebacks or exposed cards by (0-based trick, seat): their cards."""
    out: dict[tuple[int, str], list[str]] = {}
    for item in record.get(name) or ():
        trick = item.get("trick")
        if trick is None:
            continue  # no trick to show it in
        key = (int(trick) - 1, str(item["seat"]))
        out.setdefault(key, []).extend(str(c) for c in item["cards"])
    return out


def min_trick_gap(reach_s: float) -> float:
    """Video seconds needed between a trick's last play and the next lead's landing."""
    return SWEEP_MIN_DELAY_S + SWEEP_REACH_S + SLIDE_S + EMPTY_DWELL_S + reach_s


def _fan(
    rng: np.random.Generator,
    cards: Sequence[str],
    centre: Point,
    seat: str,
    step_cm: float,
) -> tuple[Placement, ...]:
    """Cards spread left to right (as the player sees them), each on top of the previous."""
    n = len(cards)
    rx, ry = right_of(seat)
    ux, uy = inward(seat)
    base = facing_angle(seat) + rng.normal(0, 3)
    arc = rng.uniform(0, 3)
    out = []
    for i, card in enumerate(cards):
        off = (i - (n - 1) / 2) * step_cm
        lift = rng.normal(0, 0.12)
        out.append(
            Placement(
                card,
                centre[0] + rx * off + ux * lift,
                centre[1] + ry * off + uy * lift,
                base + (i - (n - 1) / 2) * arc + rng.normal(0, 0.8),
            )
        )
    return tuple(out)


def _record_times(plays: Sequence[Mapping[str, Any]]) -> list[float]:
    out: list[float] = []
    for p in plays:
        t = p.get("t")
        if isinstance(t, (int, float)) and not isinstance(t, bool):
            out.append(float(t))
        else:
            out.append(out[-1] + DEFAULT_GAP_S if out else 0.0)
    return out


def _winners(record: Mapping[str, Any]) -> list[str | None]:
    """Each trick's winner by the engine (None where the audit cannot tell)."""
    try:
        from engine.audit import audit
        from engine.record import load_record

        report = audit(load_record(record))
        return [t.winner for t in report.tricks]
    except Exception:  # an unusual record: fall back to the next leader
        return []


def build_timeline(
    record: Mapping[str, Any],
    rng: np.random.Generator,
    *,
    fps: float,
    time_scale: float = 1.0,
    geometry: TableGeometry | None = None,
    zone_config: ZoneConfig | None = None,
) -> Timeline:
    """The timeline of a (validated) hand record; see the module docstring for the times."""
    geometry = geometry or TableGeometry()
    zone_config = zone_config or ZoneConfig()
    zones = Zones.from_config(geometry, zone_config)
    tl = Timeline(geometry, zones)
    tricks = [list(t["plays"]) for t in record.get("tricks", [])]
    flat = [p for plays in tricks for p in plays]
    times = _record_times(flat)
    winners = _winners(record)
    near = zone_config.edge_margin_cm
    depth = zone_config.play_depth_cm

    def hold_for(seat: str, centre: Point) -> tuple[Point, Point]:
        """Where the carrying hand is at landing, and where it comes from (off the table)."""
        ux, uy = inward(seat)
        hold = (centre[0] - ux * CARD_H_CM * 0.55, centre[1] - uy * CARD_H_CM * 0.55)
        ex, ey = edge_point(geometry, seat, -14.0, 0.0)
        # come straight in from beyond the edge, in line with the hold point
        lateral = (hold[0] - ex) * abs(uy) + (hold[1] - ey) * abs(ux)
        off = (ex + abs(uy) * lateral, ey + abs(ux) * lateral)
        return hold, off

    def lift(g: Group, t0: float, reach: float) -> float:
        """The seat's hand reaches in and carries ``g``'s cards off the table by ``t0`` +
        :data:`LIFT_S`; returns that time."""
        hold, off = hold_for(g.seat, (g.cards[0].x, g.cards[0].y))
        t1 = t0 + LIFT_S
        tl.hands.append(HandMove(g.seat, ((t0 - reach, *off), (t0, *hold), (t1, *off))))
        g.t_slide0, g.t_slide1 = t0, t1
        g.gather = edge_point(geometry, g.seat, -12.0, 0.0)
        g.sweeper = g.seat
        return t1

    def edge_spots(seat: str, n: int) -> list[Point]:
        """Where ``n`` exposed cards lie: between the edge and the play area, to the left."""
        return [
            edge_point(geometry, seat, EXPOSED_DEPTH_CM, -EXPOSED_LEFT_CM - 10.0 * i)
            for i in range(n)
        ]

    def declared_spots(seat: str, n: int) -> list[Point]:
        """Where a declaration's ``n`` cards lie: as exposed cards do, centred on the edge."""
        return [
            edge_point(geometry, seat, EXPOSED_DEPTH_CM, (i - (n - 1) / 2) * DECLARED_APART_CM)
            for i in range(n)
        ]

    def carried(seat: str, where: Point, t_land: float, reach: float) -> HandMove:
        """The seat's hand bringing something to ``where`` at ``t_land`` and withdrawing."""
        hold, off = hold_for(seat, where)
        move = HandMove(
            seat, ((t_land - reach, *off), (t_land, *hold), (t_land + WITHDRAW_S, *off))
        )
        tl.hands.append(move)
        return move

    def backs(seat: str, n: int) -> tuple[Placement, ...]:
        """``n`` face-down kitty cards in a loose stack in the centre."""
        cx, cy = geometry.width_cm / 2, geometry.height_cm / 2
        base = facing_angle(seat) + 90.0
        return tuple(
            Placement(BACK, cx + rng.normal(0, 0.4), cy + rng.normal(0, 0.4), base, True)
            for _ in range(n)
        )

    def declaration(step: Mapping[str, Any], t: float) -> float:
        """A declaration or 炒 shown from ``t``; returns when its cards are off the table."""
        seat, shown = str(step["seat"]), [str(c) for c in step.get("cards") or ()]
        reach = float(rng.uniform(*REACH_S))
        angle = facing_angle(seat) + DECLARED_TURN_DEG
        spots = declared_spots(seat, len(shown))
        up = tuple(
            Placement(c, x, y, angle + float(rng.normal(0, 2)))
            for c, (x, y) in zip(shown, spots, strict=True)
        )
        t_land = t + reach
        move = carried(seat, spots[0], t_land, reach)
        if step.get("face_down"):
            down = Group(
                "face_down", seat, tuple(replace(c, face_down=True) for c in up), move, t_land
            )
            wait = FACE_DOWN_MIN_S
            if step.get("revealed_t") is not None and step.get("t") is not None:
                wait = float(step["revealed_t"]) - float(step["t"])
            t_up = t_land + min(FACE_DOWN_MAX_S, max(FACE_DOWN_MIN_S, wait / time_scale))
            down.t_slide0 = down.t_slide1 = t_up  # turned over: the face-up cards replace them
            tl.groups.append(down)
            carried(seat, spots[0], t_up, reach)  # the hand that turns them
            hold, _ = hold_for(seat, spots[0])
            move = HandMove(seat, ((t_up, *hold), (t_up, *hold)))
            t_land = t_up
        shown_up = Group("declaration", seat, up, move, t_land, None, -1, step.get("t"))
        tl.groups.append(shown_up)
        return lift(shown_up, t_land + DECLARE_SHOW_S, reach)

    def draw_phase(steps: Sequence[Mapping[str, Any]], start: float) -> float:
        """The draw phase from ``start``; returns when it is over."""
        dealer = str(record.get("declarer", "S"))
        still = HandMove(dealer, ((0.0, 0.0, 0.0), (0.0, 0.0, 0.0)))
        kitty = Group("face_down", dealer, backs(dealer, KITTY_SIZE), still, 0.0)
        tl.groups.append(kitty)
        lying: Group | None = kitty
        t = start
        for step in steps:
            seat, action = str(step["seat"]), str(step.get("action"))
            if action in ("declare", "chao") and step.get("cards"):
                t = declaration(step, t) + DRAW_STEP_GAP_S
            elif action == "take" and lying is not None:
                reach = float(rng.uniform(*REACH_S))
                hold, off = hold_for(seat, (lying.cards[0].x, lying.cards[0].y))
                lying.t_slide0 = t + reach
                lying.t_slide1 = lying.t_slide0 + KITTY_CARRY_S
                lying.gather, lying.sweeper = edge_point(geometry, seat, -12.0, 0.0), seat
                end = lying.t_slide1 + WITHDRAW_S
                tl.hands.append(
                    HandMove(
                        seat,
                        (
                            (t, *off),
                            (lying.t_slide0, *hold),
                            (lying.t_slide1, *lying.gather),
                            (end, *off),
                        ),
                    )
                )
                tl.kitty_moves.append((lying.t_slide1, seat, "take", len(lying.cards)))
                lying = None
                t = end + DRAW_STEP_GAP_S
            elif action == "bury":
                count = step.get("count")
                n = int(count) if count is not None else len(step.get("cards") or ()) or KITTY_SIZE
                reach = float(rng.uniform(*REACH_S))
                cards = backs(seat, n)
                t_land = t + reach
                move = carried(seat, (cards[0].x, cards[0].y), t_land, reach)
                lying = Group("face_down", seat, cards, move, t_land)
                tl.groups.append(lying)
                tl.kitty_moves.append((t_land, seat, "bury", n))
                t = t_land + WITHDRAW_S + DRAW_STEP_GAP_S
        return t

    draw_steps = [s for s in record.get("before_play") or () if isinstance(s, Mapping)]
    lead_in = draw_phase(draw_steps, LEAD_IN_S) if draw_steps else LEAD_IN_S
    buried = next(
        (g for g in reversed(tl.groups) if g.kind == "face_down" and g.t_slide1 is None), None
    )
    taken_back = _incidents(record, "takebacks")
    exposed = _incidents(record, "exposed")
    k = 0
    prev_video: float | None = None
    prev_record: float | None = None
    trick_groups: list[list[Group]] = []
    for ti, plays in enumerate(tricks):
        groups: list[Group] = []
        for j, play in enumerate(plays):
            seat = str(play["seat"])
            reach = float(rng.uniform(*REACH_S))
            t_rec = times[k]
            if prev_video is None or prev_record is None:
                t_land = lead_in + reach
            else:
                gap = (t_rec - prev_record) / time_scale
                after_trick = j == 0 and ti > 0 and len(tricks[ti - 1]) >= 4
                need = min_trick_gap(reach) if after_trick else 1.0 / fps + 1e-3
                t_land = prev_video + max(gap, need)
            d = near + depth * rng.uniform(0.3, 0.42)
            centre = edge_point(geometry, seat, d, float(rng.uniform(-5, 5)))
            back = taken_back.get((ti, seat))
            if back:
                # 悔牌: these cards land where the play would have, and are lifted back.
                shown = _fan(rng, back, centre, seat, rng.uniform(1.3, 1.8))
                hold, off = hold_for(seat, centre)
                move = HandMove(
                    seat, ((t_land - reach, *off), (t_land, *hold), (t_land + WITHDRAW_S, *off))
                )
                tb = Group("takeback", seat, shown, move, t_land, ti, -1, t_rec)
                tl.groups.append(tb)
                tl.hands.append(move)
                lifted = lift(tb, t_land + TAKEBACK_REST_S, reach)
                t_land = lifted + TAKEBACK_AWAY_S
            cards = _fan(rng, [str(c) for c in play["cards"]], centre, seat, rng.uniform(1.3, 1.8))
            hold, off = hold_for(seat, centre)
            move = HandMove(
                seat,
                (
                    (t_land - reach, *off),
                    (t_land, *hold),
                    (t_land + WITHDRAW_S, *off),
                ),
            )
            g = Group("play", seat, cards, move, t_land, ti, k, t_rec)
            groups.append(g)
            tl.groups.append(g)
            tl.hands.append(move)
            shown_out = exposed.get((ti, seat))
            if shown_out:
                # A card shown out of play: face up, sideways, between the edge and the zone.
                t_out = t_land + EXPOSED_AFTER_S + reach
                spots = edge_spots(seat, len(shown_out))
                angle = facing_angle(seat) + 90.0
                out = tuple(
                    Placement(c, x, y, angle + float(rng.normal(0, 2)))
                    for c, (x, y) in zip(shown_out, spots, strict=True)
                )
                hold, off = hold_for(seat, spots[0])
                move = HandMove(
                    seat, ((t_out - reach, *off), (t_out, *hold), (t_out + WITHDRAW_S, *off))
                )
                ex = Group("exposed", seat, out, move, t_out, ti, -1)
                tl.groups.append(ex)
                tl.hands.append(move)
                lift(ex, t_out + EXPOSED_SHOW_S, reach)
            prev_video, prev_record = t_land, t_rec
            k += 1
        trick_groups.append(groups)

    end = prev_video if prev_video is not None else lead_in
    for g in tl.groups:  # an exposed card picked up after the last play
        if g.t_slide1 is not None:
            end = max(end, g.t_slide1)
    # Sweeps: each complete trick goes to its winner.
    for ti, groups in enumerate(trick_groups):
        if len(groups) < 4:
            continue
        last = groups[-1].t_land
        nxt = next((g for gs in trick_groups[ti + 1 :] for g in gs), None)
        delay = SWEEP_DELAY_S
        if nxt is not None:
            room = nxt.t_reach - last - (SWEEP_REACH_S + SLIDE_S + EMPTY_DWELL_S)
            delay = max(SWEEP_MIN_DELAY_S, min(SWEEP_DELAY_S, room))
        winner = winners[ti] if ti < len(winners) and winners[ti] else None
        if winner is None:
            winner = nxt.seat if nxt is not None else str(record.get("declarer", groups[0].seat))
        t_sweep = last + delay
        slide0 = t_sweep + SWEEP_REACH_S
        slide1 = slide0 + SLIDE_S
        gather = edge_point(geometry, winner, PILE_IN_CM, PILE_RIGHT_CM)
        _, off = hold_for(winner, gather)
        middle = (geometry.width_cm / 2, geometry.height_cm / 2)
        move = HandMove(
            winner,
            (
                (t_sweep, *off),
                (slide0, *middle),
                (slide1, *gather),
                (slide1 + SWEEP_WITHDRAW_S, *off),
            ),
        )
        tl.hands.append(move)
        for g in groups:
            g.t_slide0, g.t_slide1, g.gather, g.sweeper = slide0, slide1, gather, winner
        tl.sweeps.append((slide1, winner))
        end = max(end, slide1 + SWEEP_WITHDRAW_S)

    kitty = record.get("kitty")
    if kitty:
        seat = str(record.get("declarer", "S"))
        reach = float(rng.uniform(*REACH_S))
        t_land = end + KITTY_DELAY_S + reach
        w, h = geometry.width_cm, geometry.height_cm
        centre = (w / 2 + rng.uniform(-1, 1), h / 2 + rng.uniform(-1, 1))
        step = min(1.3, 9.0 / max(1, len(kitty) - 1))
        cards = _fan(rng, [str(c) for c in kitty], centre, seat, step)
        hold, off = hold_for(seat, centre)
        move = HandMove(
            seat, ((t_land - reach, *off), (t_land, *hold), (t_land + WITHDRAW_S, *off))
        )
        g = Group("kitty", seat, cards, move, t_land, None, -1)
        if buried is not None:  # the buried kitty is turned up: its backs give way to it
            buried.t_slide0 = buried.t_slide1 = t_land
        t_sweep = t_land + KITTY_SHOW_S
        g.t_slide0 = t_sweep + SWEEP_REACH_S
        g.t_slide1 = g.t_slide0 + SLIDE_S
        g.gather = edge_point(geometry, seat, PILE_IN_CM, 0.0)
        g.sweeper = seat
        take = HandMove(
            seat,
            (
                (t_sweep, *off),
                (g.t_slide0, *hold),
                (g.t_slide1, *g.gather),
                (g.t_slide1 + SWEEP_WITHDRAW_S, *off),
            ),
        )
        tl.groups.append(g)
        tl.hands += [move, take]
        end = g.t_slide1 + SWEEP_WITHDRAW_S
    tl.duration = end + TAIL_S
    return tl
