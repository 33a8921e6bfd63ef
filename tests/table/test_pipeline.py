"""``chaodipi.table.pipeline``, ``chaodipi replay`` and its scoring.

Small and fast, except the last test: the wiring test uses a FAKE detector (fixed detections at
table positions, no pixels read) and checks only the plumbing zones → tracker → feed → audit;
scoring is checked on hand-made event lists with exact numbers. The honest end-to-end test runs
the real detector on rendered pixels and skips until ``models/card_detector.onnx`` exists.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from chaodipi.cli.main import main
from chaodipi.replay.evaluation import MIN_GAP_S, aggregate, compress_times
from chaodipi.replay.scoring import score_events
from chaodipi.table.pipeline import PipelineError, StageTimes, TablePipeline, budget_text
from device.source import Frame
from tests.builders import top_down_config
from tests.square_detector import square_detector
from vision.detector import Detection
from vision.zone_reads import PX_PER_CM  # the pipeline's zone views
from vision.zones import Zones

REPO = Path(__file__).resolve().parents[2]
MODEL = REPO / "models" / "card_detector.onnx"
SIZE = 360  # frame side in px: 4 px a cm on the 90 cm table
CONTRACT = {
    "rules": "XX",
    "levels": {"NS": "5", "EW": "5"},
    "declarer": "N",
    "trump": "H",
}


class FakeDetector:
    """A FAKE detector for the wiring test only: returns ``self.cards`` (identity → table cm)
    as boxes in the top-down image, whatever the image shows."""

    def __init__(self) -> None:
        self.cards: list[tuple[str, tuple[float, float]]] = []

    def detect(self, image_bgr: np.ndarray) -> list[Detection]:
        s = 0.75 * PX_PER_CM
        out = []
        for identity, (x, y) in self.cards:
            cx, cy = x * PX_PER_CM, y * PX_PER_CM
            out.append(Detection(identity, (cx - s, cy - s, cx + s, cy + s), 0.9))
        return out


def _fake_pipeline() -> tuple[TablePipeline, FakeDetector, Zones, dict[str, tuple[float, float]]]:
    """A pipeline on the FAKE detector over the top-down test table: the pipeline, its detector,
    the table's zones and each seat's play-area centre (table cm)."""
    config = top_down_config(SIZE)
    zones = Zones.from_config(config.table, config.zones)
    centre = {s: tuple(np.mean(zones.seats[s], axis=0)) for s in "NESW"}
    fake = FakeDetector()
    return TablePipeline(config, fake, contract=CONTRACT, decision_fps=4.0), fake, zones, centre


def test_wiring_with_fake_detector_gives_plays_in_order_and_a_cleared_trick() -> None:
    """Unit test of the wiring (FAKE detector): zones → tracker → reorder → feed → audit."""
    pipe, fake, _, centre = _fake_pipeline()
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)  # a still table: the gate sees no motion
    script = [(1.0, "N", "AS"), (2.5, "E", "KS"), (4.0, "S", "QS"), (5.5, "W", "JS")]
    for i in range(100):  # 10 s at 10 fps
        t = i / 10
        fake.cards = [(c, centre[s]) for t0, s, c in script if t >= t0] if t < 8.0 else []
        pipe.process(Frame(image, t, i, "test"))
    pipe.finish()
    kinds = [e["type"] for e in pipe.events]
    assert kinds == ["play"] * 4 + ["trick_cleared"]
    plays = [e for e in pipe.events if e["type"] == "play"]
    assert [(p["seat"], p["cards"]) for p in plays] == [
        ("N", ["AS"]),
        ("E", ["KS"]),
        ("S", ["QS"]),
        ("W", ["JS"]),
    ]
    for play, (t0, _, _) in zip(plays, script, strict=True):
        assert 0 <= play["t_landed"] - t0 <= 0.25 + 1e-9  # the next decision frame
        assert play["t_stable"] > play["t_landed"]
    assert [e["seq"] for e in pipe.events] == [1, 2, 3, 4, 5]
    report = pipe.audit()
    assert [t.winner for t in report.tricks] == ["N"]
    assert report.infractions == []
    assert pipe.timings.decisions == 40 and pipe.timings.frames == 100


def test_zone_reads_wiring_gives_plays_in_order_and_reads_only_changed_zones() -> None:
    """The same trick drawn as white squares (side names the card) for a detector that reads
    zones at their own scale: plays in order, a cleared trick, and far fewer detector passes
    than zones × decision frames."""
    config = top_down_config(SIZE)
    zones = Zones.from_config(config.table, config.zones)
    centre = {s: tuple(np.mean(zones.seats[s], axis=0)) for s in "NESW"}
    side_cm = {"AS": 3.0, "KS": 2.5, "QS": 2.0, "JS": 1.5}
    det, model = square_detector(
        native=True, names_by_side={round(v * PX_PER_CM): k for k, v in side_cm.items()}
    )
    pipe = TablePipeline(config, det, contract=CONTRACT, decision_fps=4.0)
    assert pipe.zone_reader is not None
    script = [(1.0, "N", "AS"), (2.5, "E", "KS"), (4.0, "S", "QS"), (5.5, "W", "JS")]
    k = SIZE / 90.0
    for i in range(100):  # 10 s at 10 fps
        t = i / 10
        image = np.full((SIZE, SIZE, 3), 90, np.uint8)
        for t0, seat, card in script:
            if t0 <= t < 8.0:
                (x, y), half = centre[seat], side_cm[card] / 2
                image[round((y - half) * k) : round((y + half) * k),
                      round((x - half) * k) : round((x + half) * k)] = 255  # fmt: skip
        pipe.process(Frame(image, t, i, "test"))
    pipe.finish()
    plays = [(e["seat"], e["cards"]) for e in pipe.events if e["type"] == "play"]
    assert plays == [("N", ["AS"]), ("E", ["KS"]), ("S", ["QS"]), ("W", ["JS"])]
    assert [e["type"] for e in pipe.events][-1] == "trick_cleared"
    assert pipe.audit().infractions == []
    assert len(model.batches) < 5 * pipe.timings.decisions / 4


def test_no_markers_and_no_calibration_is_a_one_line_error() -> None:
    pipe = TablePipeline(None, FakeDetector(), calibrate_within_s=0.5)
    blank = np.full((120, 160, 3), 200, np.uint8)
    with pytest.raises(PipelineError) as err:
        for i in range(10):
            pipe.process(Frame(blank, i / 10, i, "test"))
    assert "\n" not in str(err.value) and "not found" in str(err.value)


def _play(seat: str, cards: str, t: float) -> dict[str, Any]:
    return {"type": "play", "seat": seat, "cards": cards.split(), "t_landed": t, "t_stable": None}


CLEARED = {"type": "trick_cleared", "t": 0.0}


def test_score_events_counts_plays_times_and_infractions_exactly() -> None:
    truth = [
        _play("N", "AS", 1.0),
        _play("E", "KS", 2.0),
        _play("S", "QS", 3.0),
        _play("W", "JS", 4.0),
        {**CLEARED, "t": 5.0},
        _play("N", "10S", 6.0),
        _play("E", "9S", 7.0),
        _play("S", "8S", 8.0),
        _play("W", "7S", 9.0),
    ]
    predicted = [
        _play("N", "AS", 1.1),
        _play("E", "KS", 2.2),
        _play("S", "QS", 3.0),
        _play("W", "JS", 4.3),
        {**CLEARED, "t": 5.5},
        _play("N", "10S", 6.4),
        _play("E", "9S", 7.0),
        _play("W", "7S", 7.3),  # lands clearly before S: out of turn in the recovered record
        _play("S", "6S", 8.0),  # misread: 6S for 8S
        {"type": "recognition_conflict", "kind": "count_mismatch", "seat": "S", "cards": []},
    ]
    record = {"format": "chaodipi-hand/1", **CONTRACT, "tricks": []}
    injected = [{"kind": "out_of_turn", "seat": "W", "trick": 2}]
    score = score_events(predicted, truth, record, injected=injected)
    assert (score.plays_exact, score.plays_total) == (7, 8)
    assert score.extra_plays == []
    assert sorted(round(e, 6) for e in score.errors_s) == [0.0, 0.0, 0.1, 0.2, 0.3, 0.4, 1.7]
    j = score.to_json()
    assert j["plays"]["wrong"] == [
        {"trick": 2, "seat": "S", "true": ["8S"], "recovered": ["6S"], "fixed_by_runner_up": False}
    ]
    assert j["landing_error_s"]["median"] == pytest.approx(0.2)
    assert j["landing_error_s"]["p90"] == pytest.approx(0.92)
    assert j["landing_error_s"]["max"] == pytest.approx(1.7)
    assert score.camera_truth == []
    assert score.false_infractions == [("out_of_turn", "W", 2)]
    assert score.injected_found == [("out_of_turn", "W", 2)]
    assert score.missed_infractions == []
    assert score.conflicts == {"count_mismatch": 1}
    assert score.kitty_right is None
    assert "plays exactly right: 7/8 (87.5%)" in score.text()


def _three_spade_tricks() -> list[dict[str, Any]]:
    """The true events of three spade tricks, N leading each (S plays 8S in trick 2, 3S in 3)."""
    tricks = [["N AS", "E KS", "S QS", "W JS"], ["N 10S", "E 9S", "S 8S", "W 7S"]]
    tricks += [["N 6S", "E 4S", "S 3S", "W 2S"]]
    truth: list[dict[str, Any]] = []
    for number, trick in enumerate(tricks):
        for k, play in enumerate(trick):
            seat, card = play.split()
            truth.append(_play(seat, card, 10.0 * number + k + 1))
        truth.append({**CLEARED, "t": 10.0 * number + 5})
    return truth


def test_an_infraction_resting_on_an_unsure_read_is_counted_as_a_question_not_asserted() -> None:
    truth = _three_spade_tricks()
    predicted = list(truth)
    predicted[10] = {**truth[10], "unsure": {"6S": 0.75}}  # right, though read unsurely
    predicted[7] = {**_play("W", "7S", 12.3), "unsure": {"7S": 0.7}}  # lands before S
    predicted[8] = {**_play("S", "8D", 13.0), "unsure": {"8D": 0.6}}  # misread: 8D for 8S
    record = {"format": "chaodipi-hand/1", **CONTRACT, "tricks": []}
    injected = [{"kind": "revoke", "seat": "S", "trick": 2}]
    score = score_events(predicted, truth, record, injected=injected)
    assert score.to_json()["plays"]["unsure"] == {"exact": 2, "wrong": 1}
    # S "played 8D" holding a spade (3S, trick 3): a revoke, but only as read unsurely
    assert score.false_infractions == [("revoke", "S", 2), ("out_of_turn", "W", 2)]
    # W's play before S's rests on when S's cards landed: read unsurely, they may have lain
    # there unread before they were read
    assert score.false_to_check == [("revoke", "S", 2), ("out_of_turn", "W", 2)]
    assert score.false_asserted == []
    assert score.injected_found == score.injected_to_check == [("revoke", "S", 2)]
    assert "to check, resting on an unsure read: revoke S t2" in score.text()
    predicted[8] = _play("S", "8S", 13.0)  # read surely: W went before it, asserted
    score = score_events(predicted, truth, record, injected=injected)
    assert score.false_asserted == [("out_of_turn", "W", 2)]


def test_a_misread_the_runner_up_read_fixes_is_counted_and_its_false_infractions_go() -> None:
    truth = _three_spade_tricks()
    predicted = list(truth)
    predicted[7] = {**_play("S", "8D", 13.0), "unsure": {"8D": 0.6}, "maybe": {"8D": "8S"}}
    record = {"format": "chaodipi-hand/1", **CONTRACT, "tricks": []}
    score = score_events(predicted, truth, record)
    j = score.to_json()
    assert j["plays"]["wrong_fixed_by_runner_up"] == 1
    assert j["plays"]["wrong"][0]["fixed_by_runner_up"]
    assert score.false_to_check == [("revoke", "S", 2)]  # "8D" while holding 3S
    assert score.false_after_runner_up == []  # the referee took 8S: no question is left
    assert "wrong plays the runner-up read fixes: 1" in score.text()
    # a runner-up that is wrong too fixes nothing
    predicted[7] = {**predicted[7], "maybe": {"8D": "6D"}}
    score = score_events(predicted, truth, record)
    assert score.to_json()["plays"]["wrong_fixed_by_runner_up"] == 0
    assert score.false_after_runner_up == [("revoke", "S", 2)]


def test_a_play_names_the_runner_up_read_of_each_unsure_card() -> None:
    from chaodipi.table.pipeline import _with_unsure_reads
    from vision.events import PlayEvent
    from vision.grouping import CardSighting

    play = PlayEvent("W", ("QC", "KC"), 1.0, 1.5)
    seen = {
        "W": [
            CardSighting("QC", confidence=0.63, runner_up="10C"),
            CardSighting("KC", confidence=0.97, runner_up="KS"),  # sure: no runner-up named
        ]
    }
    out = _with_unsure_reads(play, seen)
    assert isinstance(out, PlayEvent)
    assert out.unsure == (("QC", 0.63),) and out.maybe == (("QC", "10C"),)
    assert out.to_json()["maybe"] == {"QC": "10C"}


def test_a_play_read_under_the_unsure_bar_names_each_such_card_once_at_its_least_sure() -> None:
    from chaodipi.table.pipeline import UNSURE_READ, _with_unsure_reads
    from vision.events import PlayEvent, TrickClearedEvent
    from vision.grouping import CardSighting

    assert 0.7 < UNSURE_READ < 0.9
    play = PlayEvent("E", ("QC", "KC", "KC"), 1.0, 1.5)
    seen = {
        "E": [CardSighting("QC", confidence=0.7), CardSighting("KC", confidence=0.97)],
        "W": [CardSighting("QC", confidence=0.1)],  # another seat's reads do not count
    }
    seen["E"].append(CardSighting("KC", confidence=0.6))
    assert _with_unsure_reads(play, seen).unsure == (("QC", 0.7), ("KC", 0.6))
    sure = {"E": [CardSighting(card, confidence=0.95) for card in ("QC", "KC", "KC")]}
    assert _with_unsure_reads(play, sure) == play
    assert _with_unsure_reads(TrickClearedEvent(2.0), seen) == TrickClearedEvent(2.0)


def test_a_card_whose_two_corners_read_as_two_cards_is_unsure_however_sure_one_corner_is() -> None:
    from chaodipi.table.pipeline import _with_unsure_reads
    from vision.events import PlayEvent
    from vision.grouping import CardSighting

    # a lone 4D: one corner read KD at 0.95, the other 4D; a sure corner does not outvote it
    play = PlayEvent("S", ("KD",), 1.0, 1.5)
    seen = {"S": [CardSighting("KD", confidence=0.95, also_read="4D", runner_up="4D")]}
    out = _with_unsure_reads(play, seen)
    assert out.unsure == (("KD", 0.95),) and out.maybe == (("KD", "4D"),)
    # a pair: the copy whose corners disagree speaks for both, however sure the other copy is
    pair = PlayEvent("S", ("KD", "KD"), 1.0, 1.5)
    copies = [
        CardSighting("KD", confidence=0.99),
        CardSighting("KD", confidence=0.9, also_read="KS", runner_up="KS"),
    ]
    out = _with_unsure_reads(pair, {"S": copies})
    assert out.unsure == (("KD", 0.9),) and out.maybe == (("KD", "KS"),)


def test_a_kitty_names_its_cards_read_in_doubt_from_the_kitty_zones_reads() -> None:
    from chaodipi.table.pipeline import _with_unsure_reads
    from vision.events import KittyEvent
    from vision.grouping import CardSighting
    from vision.tracking import KITTY_ZONE

    cards = ("2D", "4D", "4S", "5D", "9S", "10D", "QD", "KD")
    kitty = KittyEvent(cards, 150.0, "1500")
    read = [CardSighting(c, confidence=0.97) for c in cards if c != "QD"]
    read.append(CardSighting("QD", confidence=0.55, runner_up="10D"))
    seat_reads = [CardSighting("2D", confidence=0.3)]  # another zone's reads do not count
    out = _with_unsure_reads(kitty, {KITTY_ZONE: read, "N": seat_reads})
    assert isinstance(out, KittyEvent) and out.cards == cards
    assert out.unsure == (("QD", 0.55),) and out.maybe == (("QD", "10D"),)
    sure = {KITTY_ZONE: [CardSighting(c, confidence=0.97) for c in cards]}
    assert _with_unsure_reads(kitty, sure) == kitty


def test_the_pi_budget_is_four_decisions_a_second_on_a_pi_as_many_times_slower_as_measured() -> (
    None
):
    times = StageTimes(decisions=100)
    times.add("detect", 4.0)  # 40 ms a decision here
    by_rule = times.budget()  # a Pi 5 taken as 4× slower: 160 ms of its 250
    assert by_rule["host_budget_ms"] == 62.5 and by_rule["pi_decisions_per_s"] == 6.25
    # On a VM where yolo11n takes 85 ms (170 ms on a Pi 5: bench/pi_reference.py), the Pi is
    # only 2× slower than this core.
    measured = times.budget(slowdown=2.0)
    assert measured["host_budget_ms"] == 125.0 and measured["pi_decisions_per_s"] == 12.5
    assert "2× slower Pi" in budget_text(times, slowdown=2.0)


def test_replay_eval_judges_the_pi_budget_with_the_slowdown_it_is_given() -> None:
    # 100 decisions costing 80 ms each here: 3.1 a second on a Pi 4× slower (under the 4
    # needed), 8.5 on one 1.47× slower (what bench/pi_reference.py measured on a slow VM)
    hand: dict[str, Any] = {
        "seed": 1,
        "timings": {"decisions": 100, "seconds": {"detect": 8.0}, "calls": {"detect": 100}},
        "score": {
            "plays": {"total": 1, "exact": 1},
            "landing_error_s": {"values": [0.1]},
            "kitty": {},
            "infractions": {
                "injected": [],
                "injected_found": [],
                "injected_missed": [],
                "false": [],
                "missed": [],
            },
        },
    }
    assert not aggregate([hand])["checks"]["pi_keeps_up"]
    assert aggregate([hand], pi_slowdown=1.47)["checks"]["pi_keeps_up"]


def test_a_slowdown_that_is_no_positive_number_is_refused_in_one_line() -> None:
    from chaodipi.replay.replay import slowdown_factor

    assert slowdown_factor("1.47") == 1.47
    for bad in ("0", "-2", "fast", "nan"):
        with pytest.raises(argparse.ArgumentTypeError, match="give a positive number"):
            slowdown_factor(bad)


def test_compress_times_keeps_overtime_and_divides_the_rest() -> None:
    record = {
        "format": "chaodipi-hand/1",
        **CONTRACT,
        "kitty_taken_t": 10.0,
        "kitty_buried_t": 30.0,
        "tricks": [{"plays": [{"seat": "N", "cards": ["AS"], "t": 38.0}]}] * 1
        + [{"plays": [{"seat": "E", "cards": ["KS"], "t": 58.0}]}]
        + [{"plays": [{"seat": "S", "cards": ["QS"], "t": 60.0}]}],
    }
    out = compress_times(record, 4.0)
    assert out["kitty_buried_t"] == 15.0  # 20 s of burying (limit 60) → 5 s
    # 8 → 2; 20 (> 15) kept; 2 → 1, not 0.5: plays are never under MIN_GAP_S apart
    assert [t["plays"][0]["t"] for t in out["tricks"]] == [17.0, 37.0, 37.0 + MIN_GAP_S]
    assert record["kitty_buried_t"] == 30.0  # the input is untouched


def test_replay_eval_totals_plays_kitties_and_infractions_over_hands() -> None:
    def hand(seed: int, exact: int, kitty_right: bool | None, false: int) -> dict[str, Any]:
        kitty = {"right": kitty_right, "true": None if kitty_right is None else ["2S"] * 8}
        found = [{"kind": "revoke", "seat": "N", "trick": 1}]
        return {
            "seed": seed,
            "timings": {},
            "score": {
                "plays": {"total": 10, "exact": exact},
                "landing_error_s": {"values": [0.1] * exact},
                "kitty": kitty,
                "infractions": {
                    "injected": found,
                    "injected_found": found,
                    "injected_missed": [],
                    "false": [{"kind": "out_of_turn", "seat": "E", "trick": 2}] * false,
                    "false_to_check": [{"kind": "out_of_turn", "seat": "E", "trick": 2}]
                    * (false // 2),
                    "missed": [],
                },
            },
        }

    total = aggregate([hand(1, 10, True, 0), hand(2, 9, False, 2), hand(3, 10, None, 0)])
    unsure = {"exact": 0, "wrong": 0}  # these hands' plays name no unsure reads
    assert total["plays"] == {
        "total": 30,
        "exact": 29,
        "fraction": 29 / 30,
        "unsure": unsure,
        "wrong_fixed_by_runner_up": 0,  # nor runner-up reads
    }
    assert total["infractions"]["false_after_runner_up"] == 2  # hands scored before counting it
    # the third hand showed no kitty; the wrong one was not reported read short
    assert total["kitties"] == {"shown": 2, "right": 1, "referee_asked_to_enter": 0}
    assert total["infractions"]["injected_found"] == 3 and total["infractions"]["false"] == 2
    assert not total["checks"]["plays_exact"]  # 96.7 % is under the 99 % bar
    assert not total["checks"]["no_false_infraction"]
    # of hand 2's two false ones, one was put to the referee as a question
    assert total["infractions"]["false_to_check"] == 1
    assert [i["to_check"] for i in total["infractions"]["false_items"]] == [True, False]
    assert not total["checks"]["no_false_infraction_asserted"]
    assert total["checks"]["every_injected_asserted"]


def test_replay_eval_reuses_a_stored_score_only_when_made_the_same_way(tmp_path: Path) -> None:
    from types import SimpleNamespace

    from chaodipi.replay.evaluation import EvalOptions, eval_hand, kind_for, replay_fingerprint

    localiser, classifier = tmp_path / "loc.onnx", tmp_path / "cls.onnx"
    localiser.write_bytes(b"localiser")
    classifier.write_bytes(b"classifier v1")
    detector = SimpleNamespace(
        model_path=localiser, classifier=SimpleNamespace(model_path=classifier)
    )
    opts = EvalOptions(
        hands=1,
        seed_base=7000,
        rules="XX",
        out=tmp_path / "eval",
        kinds=("revoke",),
        speedup=4.0,
        fps=10.0,
        size=(640, 360),
        decision_fps=4.0,
        px_per_cm=10.0,
        skip_moving=True,
    )
    made_with = replay_fingerprint(opts, detector)
    assert replay_fingerprint(opts, detector) == made_with  # nothing changed: same print
    hand = opts.out / f"hand_07000_{kind_for(0, opts.kinds)}"
    hand.mkdir(parents=True)
    stored = {"seed": 7000, "fingerprint": made_with, "score": {"stored": True}}
    (hand / "score.json").write_text(json.dumps(stored), encoding="utf-8")
    assert eval_hand(0, opts, detector, made_with) == stored  # resumed, not replayed

    classifier.write_bytes(b"classifier v2")
    assert replay_fingerprint(opts, detector) != made_with  # a new model: replay again
    slower = EvalOptions(**{**vars(opts), "decision_fps": 2.0})
    assert replay_fingerprint(slower, detector) != made_with


def test_replay_eval_renders_hands_in_its_designs_in_rotation_each_in_its_own_folder(
    tmp_path: Path,
) -> None:
    from chaodipi.replay.evaluation import EvalOptions

    opts = EvalOptions(
        hands=3,
        seed_base=7000,
        rules="XX",
        out=tmp_path,
        kinds=("revoke",),
        speedup=4.0,
        fps=10.0,
        size=(640, 360),
        decision_fps=4.0,
        px_per_cm=10.0,
        skip_moving=True,
        designs=("adrian_kennard", str(tmp_path / "decks" / "club deck")),
    )
    assert [opts.design_for(i) for i in range(3)] == [*opts.designs, "adrian_kennard"]


def test_replay_eval_of_a_design_that_is_no_deck_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["replay-eval", "--hands", "1", "--design", str(tmp_path / "no deck")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("chaodipi replay-eval:") and "does not exist" in err
    assert "\n" not in err


def test_replay_of_a_missing_source_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert main(["replay", str(tmp_path / "nowhere")]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("chaodipi replay:") and "\n" not in err
    assert "nowhere" in err


@pytest.mark.slow
def test_end_to_end_real_detector_on_rendered_footage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The honest test: the trained detector reads rendered pixels (held-out card design)."""
    if not MODEL.is_file():
        pytest.skip("models/card_detector.onnx is not there yet")
    from engine.simulate import simulate_hand
    from vision.synth.render import render_hand

    record, _ = simulate_hand("XX", 11)
    record["tricks"] = record["tricks"][:3]
    record.pop("before_play")  # the plays only: replay-eval --kinds measures the draw phase
    out = tmp_path / "clip"
    render_hand(record, out, fps=10, size=(1280, 960), time_scale=4.0, seed=11)
    assert main(["replay", str(out), "--score", "--json"]) == 0
    score = json.loads(capsys.readouterr().out)["score"]
    assert score["plays"]["total"] == 12
    assert score["plays"]["fraction"] >= 0.9, score["plays"]["wrong"]
    assert score["landing_error_s"]["median"] <= 0.3
    assert score["infractions"]["false"] == []


def test_the_recovered_hand_marks_the_cards_read_in_doubt_and_the_seats_never_read() -> None:
    from chaodipi.replay.replay import hand_table

    trick = {"plays": [{"seat": "N", "cards": ["10C", "QC"], "unsure": ["QC"]},
                       {"seat": "E", "cards": ["2C"]}, {"seat": "W", "cards": ["3C"]}],
             "unread": ["S"]}  # fmt: skip
    row = hand_table({"tricks": [trick]}).splitlines()[1].split()
    assert row[:6] == ["1", "10C", "QC?", "2C", "??", "3C"]
    trick["plays"][0]["maybe"] = {"QC": "10C"}  # type: ignore[index]
    row = hand_table({"tricks": [trick]}).splitlines()[1].split()
    assert row[:3] == ["1", "10C", "QC?10C"]  # with the runner-up read


def test_wiring_reports_a_takeback_and_a_card_lying_outside_the_zones() -> None:
    """FAKE detector: E lifts its card back and plays it again; a 9H lies face up between N's
    edge and its play area for 4 s. The pipeline reports both and the audit raises them."""
    pipe, fake, zones, centre = _fake_pipeline()
    x0, y0 = pipe.reading_region_cm[:2]
    strip = (55.0 - x0, 8.4 - y0)  # the fake's boxes are in the reading region's image
    assert zones.seat_of((55.0, 8.4)) is None
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)
    script = [(1.0, "N", "AS"), (2.5, "E", "KS"), (7.0, "E", "KS"), (8.5, "S", "QS")]
    script += [(10.0, "W", "JS")]
    for i in range(150):  # 15 s at 10 fps
        t = i / 10
        seen = [(c, centre[s]) for t0, s, c in script if t >= t0 and t < 13.0]
        if 3.5 <= t < 7.0:
            seen.remove(("KS", centre["E"]))  # lifted back
        seen = [(c, (x - x0, y - y0)) for c, (x, y) in seen]
        fake.cards = seen + ([("9H", strip)] if 4.0 <= t < 8.0 else [])
        frame = image.copy()
        if 3.2 <= t < 3.5:  # the hand that lifts E's card: cards leave a zone only in a hand
            cx, cy = (round(v * SIZE / 90.0) for v in centre["E"])
            frame[cy - 30 : cy + 30, cx - 30 : cx + 30] = 200
        pipe.process(Frame(frame, t, i, "test"))
    pipe.finish()
    kinds = [e["type"] for e in pipe.events]
    assert kinds.count("takeback") == 1 and kinds.count("exposed_card") == 1
    takeback = next(e for e in pipe.events if e["type"] == "takeback")
    assert (takeback["seat"], takeback["cards"]) == ("E", ["KS"])
    assert 3.5 <= takeback["t"] <= 3.8
    exposed = next(e for e in pipe.events if e["type"] == "exposed_card")
    assert (exposed["card"], exposed["seat"]) == ("9H", "N")
    assert exposed["where"] == pytest.approx([55.0, 8.4], abs=0.2)
    found = [(i.kind, i.seat, i.trick) for i in pipe.audit().infractions]
    assert found == [("exposed_card", "N", 1), ("takeback", "E", 1)]


def test_zone_reads_keep_a_card_lying_in_no_zone_apart_and_report_it_shown() -> None:
    """A white square (a card, for the square detector) between W's edge and its play area,
    inside W's reading rectangle: never a play of W, reported as shown by W — a declaration,
    since no play has landed yet (after one it is an exposed card, as the wiring tests show)."""
    config = top_down_config(SIZE)
    zones = Zones.from_config(config.table, config.zones)
    det, _ = square_detector(native=True, names_by_side={30: "9H"})
    pipe = TablePipeline(config, det, contract=CONTRACT, decision_fps=4.0)
    where = (7.6, 45.0)
    assert zones.seat_of(where) is None
    k = SIZE / 90.0
    for i in range(60):  # 6 s at 10 fps, the card from 1 s to 5 s
        t = i / 10
        image = np.full((SIZE, SIZE, 3), 90, np.uint8)
        if 1.0 <= t < 5.0:
            (x, y), half = where, 1.5
            image[round((y - half) * k) : round((y + half) * k),
                  round((x - half) * k) : round((x + half) * k)] = 255  # fmt: skip
        pipe.process(Frame(image, t, i, "test"))
    pipe.finish()
    assert [e["type"] for e in pipe.events] == ["declaration"]
    (event,) = pipe.events
    assert (event["cards"], event["seat"]) == (["9H"], "W")
    assert 1.0 <= event["t"] <= 1.5


def test_wiring_reports_cards_shown_before_the_first_play_as_declarations() -> None:
    """FAKE detector: in the draw phase N shows a pair of 5H (the level card: a declaration)
    and W a 6D (a false one) between their edges and their play areas; after the first play
    a card lying there is an exposed card again. The audit raises the false declaration."""
    pipe, fake, zones, centre = _fake_pipeline()
    x0, y0 = pipe.reading_region_cm[:2]
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)
    shown = [
        (1.0, 5.0, "5H", (45.0, 8.4)),  # a pair 20 cm apart, as the renderer lays it
        (1.0, 5.0, "5H", (65.0, 8.4)),
        (6.0, 10.0, "6D", (8.4, 45.0)),
        (17.0, 21.0, "9H", (55.0, 8.4)),
    ]
    assert all(zones.seat_of(where) is None for *_, where in shown)
    script = [(12.0, "N", "AS"), (13.0, "E", "KS"), (14.0, "S", "QS"), (15.0, "W", "JS")]
    for i in range(230):  # 23 s at 10 fps
        t = i / 10
        seen = [(c, centre[s]) for t0, s, c in script if t >= t0]
        seen += [(c, where) for t0, t1, c, where in shown if t0 <= t < t1]
        fake.cards = [(c, (x - x0, y - y0)) for c, (x, y) in seen]
        pipe.process(Frame(image, t, i, "test"))
    pipe.finish()
    declarations = [(e["seat"], e["cards"]) for e in pipe.events if e["type"] == "declaration"]
    assert declarations == [("N", ["5H", "5H"]), ("W", ["6D"])]
    assert [e["card"] for e in pipe.events if e["type"] == "exposed_card"] == ["9H"]
    steps = pipe.record["before_play"]
    assert [(s["seat"], s["action"], s["cards"]) for s in steps] == [
        ("N", "declare", ["5H", "5H"]),
        ("W", "declare", ["6D"]),
    ]
    found = [(i.kind, i.seat, i.trick) for i in pipe.audit().infractions]
    assert found == [("false_declaration", "W", None), ("exposed_card", "N", 1)]


def test_a_showing_still_on_the_table_when_the_footage_ends_is_told_at_finish() -> None:
    """The card has lain the 2 s an exposed card needs when the footage stops, before the
    0.6 s in which more cards of the showing may join it: ``finish`` tells it all the same."""
    config = top_down_config(SIZE)
    det, _ = square_detector(native=True, names_by_side={30: "9H"})
    pipe = TablePipeline(config, det, contract=CONTRACT, decision_fps=4.0)
    (x, y), half, k = (7.6, 45.0), 1.5, SIZE / 90.0
    for i in range(33):  # 3.2 s at 10 fps, the card from 1 s on
        t = i / 10
        image = np.full((SIZE, SIZE, 3), 90, np.uint8)
        if t >= 1.0:
            image[round((y - half) * k) : round((y + half) * k),
                  round((x - half) * k) : round((x + half) * k)] = 255  # fmt: skip
        pipe.process(Frame(image, t, i, "test"))
    assert pipe.events == []  # the showing is still open
    told = pipe.finish()
    assert [e.to_json()["type"] for e in told] == ["declaration"]
    assert (told[0].to_json()["seat"], told[0].to_json()["cards"]) == ("W", ["9H"])
    assert [(s["seat"], s["cards"]) for s in pipe.record["before_play"]] == [("W", ["9H"])]
    assert pipe.finish() == []  # told once


def _fake_table(
    seconds: float,
    cards_at: Callable[[float], list[tuple[str, str]]],
    hand_over: Callable[[float], str | None] = lambda t: None,
) -> tuple[TablePipeline, list[tuple[float, str]]]:
    """FAKE detector at 10 fps for ``seconds``: ``cards_at(t)`` the (card, seat) pairs read at
    the middle of their seats' play areas, ``hand_over(t)`` the seat whose area a hand covers
    (cards leave a zone only in a hand). Returns the finished pipeline and, per event told
    while frames came, the frame's time and the event's type."""
    pipe, fake, _, centre = _fake_pipeline()
    x0, y0 = pipe.reading_region_cm[:2]
    image = np.full((SIZE, SIZE, 3), 90, np.uint8)
    told: list[tuple[float, str]] = []
    for i in range(round(seconds * 10)):
        t = i / 10
        fake.cards = [(c, (centre[s][0] - x0, centre[s][1] - y0)) for c, s in cards_at(t)]
        frame = image.copy()
        seat = hand_over(t)
        if seat is not None:
            cx, cy = (round(v * SIZE / 90.0) for v in centre[seat])
            frame[cy - 30 : cy + 30, cx - 30 : cx + 30] = 200
        told += [(t, e.to_json()["type"]) for e in pipe.process(Frame(frame, t, i, "test"))]
    pipe.finish()
    return pipe, told


def _bidding_showing_then_a_trick(lift_by_hand: bool) -> TablePipeline:
    """In the draw phase E's small joker, shown in the bidding, is read inside E's play area
    from 1 s to 4 s (lifted by a hand, or gone with none seen); N leads the hand's first trick
    at 8 s."""
    script = [(8.0, "N", "AS"), (9.5, "E", "KS"), (11.0, "S", "QS"), (12.5, "W", "JS")]

    def cards_at(t: float) -> list[tuple[str, str]]:
        shown = [("SJ", "E")] if 1.0 <= t < 4.0 else []
        return [(c, s) for t0, s, c in script if t0 <= t < 15.0] + shown

    lifting = "E" if lift_by_hand else None
    return _fake_table(17.0, cards_at, lambda t: lifting if 3.7 <= t < 4.0 else None)[0]


@pytest.mark.parametrize("lift_by_hand", [True, False], ids=["lifted", "gone-unseen"])
def test_a_card_shown_in_the_bidding_inside_a_play_area_is_a_declaration_not_the_first_lead(
    lift_by_hand: bool,
) -> None:
    """Lifted before any other seat played, the draw phase's lone first play was a showing:
    a declaration of E dated when it landed; the first trick is N's, whole, and nothing is
    found on it."""
    pipe = _bidding_showing_then_a_trick(lift_by_hand)
    kinds = [e["type"] for e in pipe.events]
    assert kinds == ["declaration"] + ["play"] * 4 + ["trick_cleared"]
    declaration = pipe.events[0]
    assert (declaration["seat"], declaration["cards"]) == ("E", ["SJ"])
    assert 1.0 <= declaration["t"] <= 1.25
    plays = [(e["seat"], e["cards"]) for e in pipe.events if e["type"] == "play"]
    assert plays == [("N", ["AS"]), ("E", ["KS"]), ("S", ["QS"]), ("W", ["JS"])]
    assert [s["seat"] for s in pipe.record["before_play"]] == ["E"]
    report = pipe.audit()
    assert [t.winner for t in report.tricks] == ["N"]
    assert [i for i in report.infractions if i.trick is not None] == []


def test_the_first_lead_is_held_until_the_second_play_and_keeps_its_own_times() -> None:
    """The draw phase's first play, a showing's size, is told only once another seat plays."""

    def cards_at(t: float) -> list[tuple[str, str]]:  # N leads at 1 s, E follows at 6 s
        return ([("AS", "N")] if t >= 1.0 else []) + ([("KS", "E")] if t >= 6.0 else [])

    pipe, told_at = _fake_table(10.0, cards_at)
    assert [kind for _, kind in told_at] == ["play", "play"]
    assert told_at[0][0] >= 6.0  # N's lead waited for E's play
    lead = pipe.events[0]
    assert (lead["seat"], lead["cards"]) == ("N", ["AS"])
    assert 1.0 <= lead["t_landed"] <= 1.25


def test_the_hands_first_lead_lifted_and_played_again_by_its_seat_is_a_takeback() -> None:
    """N leads 9S, lifts it back (a hand over it) and leads AS: 悔牌 of the first lead, not a
    showing, since the same seat plays next."""
    script = [(6.0, "N", "AS"), (7.5, "E", "KS"), (9.0, "S", "QS"), (10.5, "W", "JS")]

    def cards_at(t: float) -> list[tuple[str, str]]:
        first = [("9S", "N")] if 1.0 <= t < 3.0 else []
        return [(c, s) for t0, s, c in script if t0 <= t < 13.0] + first

    pipe, _ = _fake_table(15.0, cards_at, lambda t: "N" if 2.7 <= t < 3.0 else None)
    told = [(e["type"], e.get("seat"), e.get("cards")) for e in pipe.events]
    assert told[:3] == [("play", "N", ["9S"]), ("takeback", "N", ["9S"]), ("play", "N", ["AS"])]
    assert [kind for kind, *_ in told[3:]] == ["play"] * 3 + ["trick_cleared"]
    found = [(i.kind, i.seat, i.trick) for i in pipe.audit().infractions]
    assert found == [("takeback", "N", 1)]


def test_a_kitty_read_with_a_card_too_many_keeps_the_cards_it_read_surely() -> None:
    from chaodipi.table.pipeline import kitty_reading
    from vision.grouping import CardSighting

    cards = ["2H", "2C", "3C", "5C", "7C", "9C", "10C", "KC"]
    sure = [CardSighting(c, confidence=0.97) for c in cards]
    edge_of_the_fan = CardSighting("SJ", confidence=0.78)  # a fan's edge read whole
    assert kitty_reading([*sure, edge_of_the_fan], 8) == cards
    # Eight cards, or too many sure ones: what was read, for the tracker to judge.
    assert kitty_reading([*sure[:7], edge_of_the_fan], 8) == [*cards[:7], "SJ"]
    extra_sure = CardSighting("4D", confidence=0.99)
    assert kitty_reading([*sure, extra_sure, edge_of_the_fan], 8) == [*cards, "4D", "SJ"]
    # Two in doubt and seven sure: nothing to choose between them.
    doubtful = [*sure[:7], edge_of_the_fan, CardSighting("KC", confidence=0.5)]
    assert kitty_reading(doubtful, 8) == [*cards[:7], "SJ", "KC"]
