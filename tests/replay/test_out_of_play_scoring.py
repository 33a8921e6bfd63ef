"""``replay-eval`` on takebacks (悔牌), exposed cards and the draw phase (false declarations,
illegal 炒): each kind can be planted, incidents' times follow their play when a hand is
compressed, and they are scored found / missed / false like every other planted infraction (the
truth of rendered footage as the replay, no pixels)."""

from __future__ import annotations

import argparse
from typing import Any

import numpy as np
import pytest

from chaodipi.replay.evaluation import (
    DEFAULT_KINDS,
    TESTABLE_KINDS,
    add_replay_eval_parser,
    aggregate,
    compress_times,
)
from chaodipi.replay.scoring import score_events
from engine.simulate import simulate_hand
from vision.synth.render_plan import build_timeline


def rendered_truth(kind: str, seed: int = 11) -> tuple[dict[str, Any], list[dict[str, Any]], Any]:
    """A compressed hand with ``kind`` planted, the truth its footage would carry, and what
    was planted."""
    original, injected = simulate_hand("XX", seed, [kind])
    record = compress_times(original, 4.0)
    tl = build_timeline(record, np.random.default_rng(seed), fps=10)
    truth = [e.to_json() for e in tl.truth(int(tl.duration * 10) + 1, 10, str)]
    return record, truth, injected


def test_both_kinds_can_be_planted_in_replay_eval_when_asked_for() -> None:
    assert {"takeback", "exposed_card"} <= set(TESTABLE_KINDS)
    assert not {"takeback", "exposed_card"} & set(DEFAULT_KINDS)  # the documented rotation
    parser = argparse.ArgumentParser()
    add_replay_eval_parser(parser.add_subparsers())
    args = parser.parse_args(["replay-eval", "--kinds", "takeback,exposed_card"])
    assert args.kinds == "takeback,exposed_card"


def test_compressing_a_hand_keeps_an_incident_just_after_its_play() -> None:
    original, _ = simulate_hand("XX", 11, ["takeback"])
    record = compress_times(original, 4.0)
    (before,), (after,) = original["takebacks"], record["takebacks"]
    trick = before["trick"] - 1

    def play_t(rec: dict[str, Any]) -> float:
        plays = rec["tricks"][trick]["plays"]
        return float(next(p["t"] for p in plays if p["seat"] == before["seat"]))

    assert after["t"] - play_t(record) == pytest.approx(before["t"] - play_t(original), abs=1e-3)


def test_a_replay_that_sees_the_planted_takeback_and_exposed_card_finds_them() -> None:
    for kind in ("takeback", "exposed_card"):
        record, truth, injected = rendered_truth(kind)
        score = score_events(truth, truth, record, injected=injected)
        assert len(score.injected_found) == 1 and not score.injected_missed
        assert score.false_infractions == [] and score.missed_infractions == []
        assert score.plays_exact == score.plays_total


def test_a_replay_that_misses_them_or_sees_one_unplanted_is_scored_so() -> None:
    record, truth, injected = rendered_truth("takeback")
    blind = [e for e in truth if e["type"] != "takeback"]
    assert score_events(blind, truth, record, injected=injected).injected_missed
    (event,) = [e for e in truth if e["type"] == "takeback"]
    phantom = {"type": "exposed_card", "card": "2C", "where": [20.0, 8.0], "seat": "N"}
    seen = [*truth, {**phantom, "t": event["t"], "frame": ""}]
    score = score_events(seen, truth, record, injected=injected)
    assert [k[0] for k in score.false_infractions] == ["exposed_card"]
    assert score.false_asserted  # read surely: asserted, not a question


DRAW_KINDS = ("false_declaration", "illegal_chao")


def test_false_declarations_and_illegal_chao_can_be_planted_when_asked_for() -> None:
    assert set(DRAW_KINDS) <= set(TESTABLE_KINDS)
    assert not set(DRAW_KINDS) & set(DEFAULT_KINDS)
    parser = argparse.ArgumentParser()
    add_replay_eval_parser(parser.add_subparsers())
    args = parser.parse_args(["replay-eval", "--kinds", ",".join(DRAW_KINDS)])
    assert args.kinds == "false_declaration,illegal_chao"


def test_a_replay_that_sees_the_draw_phase_finds_the_planted_declaration_faults() -> None:
    for kind in DRAW_KINDS:
        record, truth, injected = rendered_truth(kind, seed=30)
        assert any(e["type"] == "declaration" for e in truth)
        score = score_events(truth, truth, record, injected=injected)
        assert [k[0] for k in score.injected_found] == [kind] and not score.injected_missed
        assert score.false_infractions == [] and score.missed_infractions == []


def test_another_kinds_hand_shows_its_honest_bidding_and_raises_nothing_of_it() -> None:
    record, truth, injected = rendered_truth("revoke", seed=30)
    assert any(e["type"] == "declaration" for e in truth)
    score = score_events(truth, truth, record, injected=injected)
    assert [k[0] for k in score.injected_found] == ["revoke"]
    assert score.false_infractions == [] and score.off_camera == []


def test_a_declaration_the_replay_misses_or_misreads_is_scored_so() -> None:
    record, truth, injected = rendered_truth("false_declaration", seed=30)
    (planted,) = injected
    wrong = [e for e in truth if e["type"] == "declaration" and e["seat"] == planted["seat"]][-1]
    blind = [e for e in truth if e is not wrong]
    assert score_events(blind, truth, record, injected=injected).injected_missed
    doubted = [{**e, "unsure": {e["cards"][0]: 0.5}} if e is wrong else e for e in truth]
    score = score_events(doubted, truth, record, injected=injected)
    assert score.injected_found and score.injected_to_check  # found, but only as a question


def test_an_illegal_chao_only_the_kitty_moves_prove_is_off_camera_not_missed() -> None:
    """Seed 8003 simulated without ``seen_by_camera``: N 炒s before the kitty was buried, which
    the footage (showings, no kitty move) cannot prove: listed off camera, neither found nor
    missed. The camera takes N's 炒 for a valid one, so its showings name another trump than
    the referee's: the 0-point ``wrong_trump`` notice, which the footage's truth shows too."""
    original, injected = simulate_hand("XX", 8003, ["illegal_chao"])
    record = compress_times(original, 4.0)
    tl = build_timeline(record, np.random.default_rng(8003), fps=10)
    truth = [e.to_json() for e in tl.truth(int(tl.duration * 10) + 1, 10, str)]
    score = score_events(truth, truth, record, injected=injected)
    planted = [(i["kind"], i["seat"], i["trick"]) for i in injected]
    assert score.injected_off_camera == planted == score.off_camera
    assert score.injected_missed == [] and score.injected_found == []
    assert score.false_infractions == []
    assert score.recovered == score.camera_truth == [("wrong_trump", "N", None)]
    summary = aggregate([{"seed": 8003, "timings": {}, "score": score.to_json()}])
    assert summary["infractions"]["injected_off_camera"] == [
        {"seed": 8003, "kind": "illegal_chao", "seat": "N", "trick": None}
    ]
    assert summary["checks"]["every_injected_found"]
    assert summary["checks"]["every_injected_asserted"]


def test_replay_eval_plants_an_illegal_chao_the_footage_shows() -> None:
    """Hands 8003 and 8103 of ``replay-eval --kinds …,illegal_chao``: the planted 炒 is one
    the camera's view proves (a single after a declaration, a pair shown again), and a replay
    that reads the footage as shown finds it, asserted, with nothing false."""
    for seed in (8003, 8103):
        original, injected = simulate_hand("XX", seed, ["illegal_chao"], seen_by_camera=True)
        record = compress_times(original, 4.0)
        tl = build_timeline(record, np.random.default_rng(seed), fps=10)
        truth = [e.to_json() for e in tl.truth(int(tl.duration * 10) + 1, 10, str)]
        score = score_events(truth, truth, record, injected=injected)
        assert [k[0] for k in score.injected_found] == ["illegal_chao"], seed
        assert score.injected_to_check == [] and score.injected_off_camera == []
        assert score.false_infractions == [] and score.off_camera == []
        shown = [e for e in truth if e["type"] == "declaration"]
        doubted = [{**e, "unsure": {e["cards"][0]: 0.5}} if e is shown[-1] else e for e in truth]
        score = score_events(doubted, truth, record, injected=injected)
        assert score.injected_found and score.injected_to_check  # a question, not asserted
        assert score.false_asserted == []
