"""The seat clock of the state JSON: nobody is on it before the hand's first play, it runs from
the last play, and it stops where the hand went idle or the camera's frames stopped (the feed
ended) — at any later time the state says the same."""

from __future__ import annotations

from typing import Any

from chaodipi.table.store import StoredEvent
from chaodipi.table.table_state import CAMERA_STOPPED_S, IDLE_AFTER_S, TableState, fold

T0 = 1_796_180_000.0  # the hand starts; the demo's clip began about then
LIMIT = 5  # the demo table's play clock


class Log:
    """A table's events with the times they were logged (the fold reads nothing else)."""

    def __init__(self) -> None:
        self.events: list[StoredEvent] = []

    def add(self, t: float, kind: str, data: dict[str, Any], actor: str = "camera") -> None:
        self.events.append(StoredEvent(len(self.events) + 1, t, kind, actor, data))

    def start(self) -> None:
        contract = {"hand": 1, "rules": "XX", "rule_overrides": {"play_time_limit_s": LIMIT},
                    "levels": {"NS": "5", "EW": "3"}, "declarer": "E", "trump": "H"}  # fmt: skip
        self.add(T0, "hand_started", contract, "system")

    def play(self, t: float, seat: str, card: str) -> None:
        self.add(t, "play", {"seat": seat, "cards": [card], "t_landed": t, "t_stable": t + 0.5})

    def health(self, t: float, last_frame_age_s: float | None) -> None:
        self.add(t, "camera_health", {"fps": 0.0, "last_frame_age_s": last_frame_age_s})

    def state(self, now: float) -> dict[str, Any]:
        return fold(self.events, "T1", "XX").to_public_json(now)

    def clock(self, now: float) -> dict[str, Any] | None:
        clock: dict[str, Any] | None = self.state(now)["hand"]["clock"]
        return clock


def test_nobody_is_over_time_before_the_first_play_of_the_hand() -> None:
    log = Log()
    log.start()
    for now in (T0 + 1, T0 + LIMIT + 1, T0 + 600, T0 + 86_400):
        state = log.state(now)
        assert state["hand"]["current_trick"]["to_play"] == "E"  # the declarer leads
        assert state["hand"]["clock"] is None  # the lead is timed from the burial, unseen
    log.play(T0 + 40, "E", "4C")
    clock = log.clock(T0 + 41)
    assert clock is not None and (clock["seat"], clock["over"]) == ("S", False)


def test_the_next_hand_starts_with_nobody_on_the_clock() -> None:
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    log.add(T0 + 50, "next_hand", {}, "referee:王")
    assert log.clock(T0 + 600) is None


def test_the_clock_runs_from_the_last_play_and_is_over_past_the_limit() -> None:
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    running = log.clock(T0 + 42)
    assert running == {"seat": "S", "since": T0 + 40, "limit_s": LIMIT, "over": False,
                       "until": T0 + 40 + IDLE_AFTER_S, "stopped": False}  # fmt: skip
    over = log.clock(T0 + 40 + LIMIT + 1)
    assert over is not None and over["over"] is True and over["stopped"] is False


def test_the_clock_stops_when_the_hand_is_idle_and_stays_stopped() -> None:
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    later = [log.clock(T0 + 40 + IDLE_AFTER_S + s) for s in (0, 222, 86_400)]
    assert all(c == later[0] for c in later)  # stopped: the same clock whenever one asks
    assert later[0] is not None
    assert later[0]["stopped"] is True and later[0]["until"] == T0 + 40 + IDLE_AFTER_S
    assert later[0]["over"] is True  # the seat did take longer than its limit before the pause


def test_the_clock_stops_at_the_cameras_last_frame_when_the_feed_ends() -> None:
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    log.play(T0 + 41.5, "S", "2S")
    log.health(T0 + 45, 0.1)  # frames still coming: the clock runs
    running = log.clock(T0 + 60)
    assert running is not None and (running["stopped"], running["over"]) == (False, True)
    last_frame = T0 + 43.0  # the clip ends; the camera goes on reporting its growing frame age
    for t in (T0 + 50, T0 + 55, T0 + 60):
        log.health(t, t - last_frame)
    assert T0 + 60 - last_frame >= CAMERA_STOPPED_S
    for now in (T0 + 61, T0 + 222, T0 + 86_400):
        clock = log.clock(now)
        assert clock is not None
        assert (clock["seat"], clock["until"], clock["stopped"]) == ("W", last_frame, True)
        assert clock["over"] is False  # W had 1.5 s of its 5 when the feed ended


def test_a_play_after_the_camera_stalled_runs_the_clock_again() -> None:
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    log.health(T0 + 60, 15.0)  # no frame since T0 + 45: stopped there
    stalled = log.clock(T0 + 61)
    assert stalled is not None and (stalled["until"], stalled["stopped"]) == (T0 + 45, True)
    log.play(T0 + 62, "S", "2S")  # frames again, and a play
    clock = log.clock(T0 + 63)
    assert clock is not None and (clock["seat"], clock["stopped"]) == ("W", False)


def test_the_state_json_and_a_refold_agree_on_a_stopped_clock() -> None:
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    log.health(T0 + 60, 15.0)
    step = TableState("T1", "XX")
    for event in log.events:
        step.apply(event)
        step.to_public_json(T0 + 61)  # the cached JSON must not freeze an old clock
    assert step.to_public_json(T0 + 500) == log.state(T0 + 500)


def test_a_replay_that_played_out_stops_the_clock_though_its_times_run_ahead() -> None:
    """A recording replayed faster than real time logs landing times ahead of the wall clock;
    its end (``frames_ended_t``) stops the clock there, not when the wall clock gets there."""
    log = Log()
    log.start()
    log.play(T0 + 40, "E", "4C")
    log.play(T0 + 41.5, "S", "2S")
    log.add(T0 + 5, "camera_health", {"fps": 0.0, "last_frame_age_s": 5.0,
                                      "frames_ended_t": T0 + 43.0})  # fmt: skip
    for now in (T0 + 6, T0 + 43, T0 + 86_400):
        clock = log.clock(now)
        assert clock is not None
        assert (clock["seat"], clock["until"], clock["stopped"], clock["over"]) == (
            "W", T0 + 43.0, True, False)  # fmt: skip
