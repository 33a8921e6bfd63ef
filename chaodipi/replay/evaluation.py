"""``chaodipi replay-eval``: simulate hands with planted infractions, render, replay and score.

This module owns the end-to-end evaluation of the table pipeline::

    chaodipi replay-eval --hands N --seed-base S [--rules P] [--out DIR] [--model PATH | --deck DIR]
        [--kinds K,…] [--speedup 4] [--fps 10] [--size 4608x2592] [--decision-fps 4] [--json]

Hand *i* (seed ``S + i``) is simulated with one planted kind from a rotation, its times are
compressed (:func:`compress_times`), it is rendered with ``vision.synth.render.render_hand`` in the
held-out card design, replayed through :class:`chaodipi.table.pipeline.TablePipeline` with the real
detector, and scored (:func:`chaodipi.replay.scoring.score_events`). Each hand's folder under
``--out`` keeps the footage, ``injected.truth.json``, ``events.jsonl`` and ``score.json``; a
hand whose ``score.json`` was made by the same models, pipeline options and code
(:func:`replay_fingerprint`) is not redone, so an interrupted run resumes where it stopped; any
other stored score is replayed again from the kept footage (a changed model or change of code
is measured, never a stale score).
OpenCV and the detector run on one thread, so the stage timings are one core's.

Kinds testable from footage (:data:`TESTABLE_KINDS`): ``revoke``, ``hidden_cards``,
``failed_throw``, ``card_count`` and ``duplicate_card`` (the cards), ``out_of_turn`` (the order
the plays land in), ``overtime`` (the gap between landings), ``takeback`` (a card put in the
play area and lifted back before the sweep), ``exposed_card`` (a card lying face up between
the seat's edge and its play area), ``false_declaration`` and ``illegal_chao`` (the cards a
seat shows in the draw phase, played before the first trick; the footage shows all four, see
:mod:`vision.synth.render_plan`; planted only when ``--kinds`` names them, the default
rotation is :data:`DEFAULT_KINDS`). Every simulated hand carries its bidding (``before_play``),
which the footage plays honestly when another kind is planted. An ``illegal_chao`` that only
the kitty moves or the passes prove (a 炒 out of turn, before the burial) is never on camera:
the camera sees the showings, not the kitty or a pass (:mod:`vision.game_feed`), so the hands
are simulated with ``seen_by_camera`` (:func:`engine.simulate.simulate_hand`): a planted fault
before play is one the camera's view proves (a single after a declaration, a pair shown again),
redrawn on a fresh deal otherwise; one that no deal gives is listed as off camera (planted, not
in the footage: counted neither found nor missed). A kept folder whose
``original.record.json`` is not the hand simulated now (the planting changed) is rendered
afresh. Not testable: ``kitty_count``
— the tracker only accepts a shown kitty of exactly 8 cards (7 or 9 are never reported), the
burying time is never on camera, and the planted hand has the declarer play nothing in the last
trick, which the camera sees only as an incomplete trick.

Times: the footage would be as long as the hand (10+ minutes). :func:`compress_times` divides
every gap between plays by ``--speedup`` (never below one second, :data:`MIN_GAP_S`: a hand
reaches in, lays its cards and goes back) *except* gaps over the play time limit, which are kept,
so the compressed record audits exactly as the original (an overtime stays an overtime, no new
one appears) and is rendered at ``time_scale=1``; the rendered ``record.json`` is the compressed
record and the score's camera truth is on the footage's clock.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import statistics
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chaodipi.replay.replay import add_pipeline_options, replay
from chaodipi.replay.scoring import score_events
from chaodipi.table.pipeline import (
    PI_SLOWDOWN,
    StageTimes,
    TablePipeline,
    budget_text,
    contract_from_record,
)
from vision.enrolment.deck_model import DECK_HELP, detector_for
from vision.synth.render import CAMERA_SIZE_TEXT
from vision.synth.render import HELD_OUT_DESIGN as DEFAULT_DESIGN

TESTABLE_KINDS: tuple[str, ...] = (
    "revoke",
    "out_of_turn",
    "failed_throw",
    "overtime",
    "card_count",
    "hidden_cards",
    "duplicate_card",
    "takeback",
    "exposed_card",
    "false_declaration",
    "illegal_chao",
)
DEFAULT_KINDS: tuple[str, ...] = TESTABLE_KINDS[:7]
"""The rotation without ``--kinds``: the kinds proven by the plays (the seeds of the figures in
``models/README.md`` plant these); takebacks, exposed cards, false declarations and illegal 炒
are planted when asked for."""
UNTESTABLE_KINDS: dict[str, str] = {
    "kitty_count": "the tracker reports only a kitty of 8 cards; burying is never on camera",
}
TARGETS = {"plays_fraction": 0.99, "median_error_s": 0.3, "pi_decisions_per_s": 4.0}
DEFAULT_OUT = Path("out") / "replay-eval"
ASKED_BY_DESIGN = frozenset({"card_count", "duplicate_card"})
"""Planted kinds proven by a reading the game state contradicts (a play short of the lead's
count, a third copy of a card): the table asks the referee rather than asserting them
(:mod:`vision.game_feed`), so finding them as a question is all ``every_injected_asserted``
asks."""


class EvalError(ValueError):
    """The evaluation cannot run with these options; the message is one line."""


MIN_GAP_S = 1.0
"""A compressed gap between two plays is never under a second (unless it was shorter): each
play is a hand reaching in, laying its cards and going back, and plays a quarter of a second
apart are no table's. It also keeps every planted out-of-turn play clear of
:data:`vision.game_feed.SAME_MOMENT_S`, inside which the feed takes plays in turn order."""


def _gap(g: float, limit: float | None, speedup: float) -> float:
    if limit is not None and g > limit:
        return g
    return max(g / speedup, min(g, MIN_GAP_S))


def compress_times(record: Mapping[str, Any], speedup: float) -> dict[str, Any]:
    """A copy of ``record`` with every gap (kitty taken → buried, buried → first play, play →
    play) divided by ``speedup`` but not below :data:`MIN_GAP_S`, except gaps over their time
    limit, which are kept: the copy audits like the original. Plays without a time are left
    alone. A takeback or an exposed card keeps its time after its seat's play in its trick."""
    from engine.profiles import get_profile

    if not speedup >= 1:
        raise EvalError(f"--speedup must be ≥ 1 (got {speedup})")
    out: dict[str, Any] = json.loads(json.dumps(record))
    profile = get_profile(str(out["rules"]), out.get("rule_overrides"))
    play_limit, bury_limit = profile.play_time_limit_s, profile.bury_time_limit_s
    prev_old = out.get("kitty_buried_t")
    prev_new = prev_old
    taken = out.get("kitty_taken_t")
    if taken is not None and prev_old is not None:
        prev_new = round(taken + _gap(prev_old - taken, bury_limit, speedup), 3)
        out["kitty_buried_t"] = prev_new
    moved: dict[tuple[Any, str], tuple[float, float]] = {}  # (trick, seat): (old t, new t)
    for number, trick in enumerate(out.get("tricks", []), start=1):
        for play in trick["plays"]:
            t = play.get("t")
            if t is None:
                continue
            if prev_old is None or prev_new is None:
                new = float(t)
            else:
                new = round(prev_new + _gap(float(t) - prev_old, play_limit, speedup), 3)
            prev_old, prev_new = float(t), new
            play["t"] = new
            moved[(number, str(play["seat"]))] = (float(t), new)
    for name in ("takebacks", "exposed"):
        for item in out.get(name) or ():
            at = moved.get((item.get("trick"), str(item.get("seat"))))
            if at is not None and item.get("t") is not None:
                item["t"] = round(max(0.0, at[1] + float(item["t"]) - at[0]), 3)
    return out


def kind_for(i: int, kinds: Sequence[str]) -> str:
    """The planted kind of hand ``i``: the rotation of ``kinds``."""
    return kinds[i % len(kinds)]


@dataclass(frozen=True)
class EvalOptions:
    """The knobs of one evaluation run."""

    hands: int
    seed_base: int
    rules: str
    out: Path
    kinds: tuple[str, ...]
    speedup: float
    fps: float
    size: tuple[int, int]
    decision_fps: float
    px_per_cm: float
    skip_moving: bool
    max_seconds: float | None = None
    pi_slowdown: float = PI_SLOWDOWN
    """How many times slower than one core here a Pi 5 is, for the budget check only (not in
    the fingerprint: it changes no read)."""
    designs: tuple[str, ...] = (DEFAULT_DESIGN,)
    """The card designs hands are rendered in, one a hand in rotation (built-in names or deck
    folder paths)."""

    def design_for(self, i: int) -> str:
        return self.designs[i % len(self.designs)]


_last_bar = [0.0]


def _bar(done: float, total: int, label: str, *, force: bool = False) -> None:
    """A one-line progress bar on stderr, redrawn at most twice a second."""
    now = time.monotonic()
    if not force and now - _last_bar[0] < 0.5:
        return
    _last_bar[0] = now
    width = 30
    filled = int(width * done / max(1, total))
    sys.stderr.write(f"\r[{'#' * filled}{'-' * (width - filled)}] {done:5.1f}/{total} {label}")
    sys.stderr.flush()


def replay_fingerprint(opts: EvalOptions, detector: Any) -> str:
    """What a stored score depends on beyond the footage: the model files (localiser and
    classifier), the pipeline options and the source of ``chaodipi``, ``vision`` and ``engine``."""
    import chaodipi
    import engine
    import vision

    digest = hashlib.sha256()
    models = [getattr(detector, "model_path", None)]
    models.append(getattr(getattr(detector, "classifier", None), "model_path", None))
    for path in models:
        digest.update(Path(path).read_bytes() if path is not None else b"-")
    options = [opts.rules, opts.decision_fps, opts.px_per_cm, opts.skip_moving]
    digest.update(json.dumps(options).encode())
    for package in (chaodipi, vision, engine):
        folder = Path(str(package.__file__)).parent
        for source in sorted(folder.rglob("*.py")):
            digest.update(source.relative_to(folder).as_posix().encode())
            digest.update(source.read_bytes())
    return digest.hexdigest()[:16]


def eval_hand(
    i: int, opts: EvalOptions, detector: Any, fingerprint: str | None = None
) -> dict[str, Any]:
    """Simulate, render, replay and score hand ``i``; returns (and stores) its result. A stored
    result is reused only when it was made with the same ``fingerprint``."""
    from engine.simulate import simulate_hand
    from vision.synth.render import render_hand

    seed = opts.seed_base + i
    kind = kind_for(i, opts.kinds)
    design = opts.design_for(i)
    deck = "" if design == DEFAULT_DESIGN else f"_{Path(design).name}"
    folder = opts.out / f"hand_{seed:05d}_{kind}{deck}"
    score_path = folder / "score.json"
    if score_path.is_file():
        stored: dict[str, Any] = json.loads(score_path.read_text(encoding="utf-8"))
        if fingerprint is None or stored.get("fingerprint") == fingerprint:
            return stored
    frames = folder / "frames"
    original, injected = simulate_hand(opts.rules, seed, [kind], seen_by_camera=True)
    kept = folder / "original.record.json"
    if not (frames / "render.json").is_file() or not _same_json(kept, original):
        # absent, cut short, or footage of another planting: render afresh
        shutil.rmtree(folder, ignore_errors=True)
        record = compress_times(original, opts.speedup)
        folder.mkdir(parents=True)
        (folder / "original.record.json").write_text(json.dumps(original, indent=1), "utf-8")
        (folder / "injected.truth.json").write_text(
            json.dumps({"injected": injected}, indent=1), "utf-8"
        )
        render_hand(
            record,
            frames,
            fps=opts.fps,
            size=opts.size,
            seed=seed,
            time_scale=1.0,
            max_seconds=opts.max_seconds,
            design=design,
        )
    record = json.loads((frames / "record.json").read_text(encoding="utf-8"))
    injected = json.loads((folder / "injected.truth.json").read_text("utf-8"))["injected"]
    info = json.loads((frames / "render.json").read_text(encoding="utf-8"))
    (folder / "events.jsonl").unlink(missing_ok=True)
    pipeline = TablePipeline(
        None,
        detector,
        decision_fps=opts.decision_fps,
        px_per_cm=opts.px_per_cm,
        contract=contract_from_record(record),
        event_log=folder / "events.jsonl",
        skip_moving=opts.skip_moving,
    )
    duration = float(info.get("duration_s") or 1.0)
    result = replay(
        str(frames),
        pipeline,
        progress=lambda t: _bar(i + min(1.0, t / duration), opts.hands, f"hand {seed} {kind}"),
    )
    from vision.events import read_events

    score = score_events(
        result.events, read_events(frames / "ground_truth.jsonl"), record, injected=injected
    )
    out = {
        "seed": seed,
        "kind": kind,
        "design": design,
        "frames": info.get("frames"),
        "duration_s": info.get("duration_s"),
        "score": score.to_json(),
        "timings": result.timings.to_json(),
        "wall_s": round(result.wall_s, 2),
        "fingerprint": fingerprint,
    }
    score_path.write_text(json.dumps(out, indent=1) + "\n", encoding="utf-8")
    return out


def _same_json(path: Path, value: Any) -> bool:
    """Whether ``path`` holds ``value`` as JSON (False when it is missing or unreadable)."""
    try:
        return bool(json.loads(path.read_text(encoding="utf-8")) == json.loads(json.dumps(value)))
    except (OSError, ValueError):
        return False


def aggregate(
    results: Sequence[Mapping[str, Any]], pi_slowdown: float = PI_SLOWDOWN
) -> dict[str, Any]:
    """Totals over hands, with the acceptance checks (the Pi 5 ``pi_slowdown`` times slower
    than one core here)."""
    total = sum(r["score"]["plays"]["total"] for r in results)
    exact = sum(r["score"]["plays"]["exact"] for r in results)
    errors: list[float] = []
    injected = found = false = missed = false_to_check = injected_to_check = asked_by_design = 0
    off_camera = 0
    fixed_by_runner_up = false_after_runner_up = 0
    unsure = {"exact": 0, "wrong": 0}
    false_items: list[dict[str, Any]] = []
    missed_injected: list[dict[str, Any]] = []
    off_camera_injected: list[dict[str, Any]] = []
    times = StageTimes()
    kitties_shown = kitties_right = kitties_to_enter = 0
    for r in results:
        s = r["score"]
        kitty = s.get("kitty") or {}
        if kitty.get("true") is not None:
            kitties_shown += 1
            kitties_right += bool(kitty.get("right"))
            # read short, the referee was asked to enter it
            asked = bool((s.get("conflicts") or {}).get("kitty_incomplete"))
            kitties_to_enter += not kitty.get("right") and asked
        inf = s["infractions"]
        injected += len(inf["injected"] or [])
        found += len(inf["injected_found"])
        false += len(inf["false"])
        false_to_check += len(inf.get("false_to_check", ()))
        injected_to_check += len(inf.get("injected_to_check", ()))
        asked_by_design += sum(
            k["kind"] in ASKED_BY_DESIGN for k in inf.get("injected_to_check", ())
        )
        for outcome, n in (s["plays"].get("unsure") or {}).items():
            unsure[outcome] += n
        fixed_by_runner_up += s["plays"].get("wrong_fixed_by_runner_up", 0)
        false_after_runner_up += len(inf.get("false_after_runner_up", inf["false"]))
        missed += len(inf["missed"])
        false_items += _false_items(r["seed"], inf)
        missed_injected += [{"seed": r["seed"], **k} for k in inf["injected_missed"]]
        unseen = inf.get("injected_off_camera", ())
        off_camera += len(unseen)
        off_camera_injected += [{"seed": r["seed"], **k} for k in unseen]
        times.merge(StageTimes.from_json(r["timings"]))
        errors += _errors(r)
    budget = times.budget(slowdown=pi_slowdown)
    fraction = exact / total if total else None
    median = statistics.median(errors) if errors else None
    checks = {
        "plays_exact": fraction is not None and fraction >= TARGETS["plays_fraction"],
        "median_landing_error": median is not None and median <= TARGETS["median_error_s"],
        # a planted infraction the footage never shows is listed, not counted (off camera)
        "every_injected_found": found == injected - off_camera,
        "no_false_infraction": false == 0,
        # the referee's tiers: what the audit asserts vs what it asks (resting on unsure reads)
        "no_false_infraction_asserted": false == false_to_check,
        # a count or a third copy is proven by a reading the game contradicts: asked by design
        "every_injected_asserted": found - injected_to_check + asked_by_design
        == injected - off_camera,
        "pi_keeps_up": (budget["pi_decisions_per_s"] or 0) >= TARGETS["pi_decisions_per_s"],
    }
    return {
        "hands": len(results),
        "plays": {
            "total": total,
            "exact": exact,
            "fraction": fraction,
            "unsure": unsure,
            "wrong_fixed_by_runner_up": fixed_by_runner_up,
        },
        "landing_error_s": {
            "n": len(errors),
            "median": median,
            "max": max(errors) if errors else None,
        },
        "kitties": {
            "shown": kitties_shown,
            "right": kitties_right,
            "referee_asked_to_enter": kitties_to_enter,
        },
        "infractions": {
            "injected": injected,
            "injected_found": found,
            "injected_missed": missed_injected,
            "injected_off_camera": off_camera_injected,
            "injected_to_check": injected_to_check,
            "false": false,
            "false_items": false_items,
            "false_to_check": false_to_check,
            "false_after_runner_up": false_after_runner_up,
            "missed_vs_camera_truth": missed,
        },
        "timing": {**times.to_json(), **budget},
        "checks": checks,
        "passed": all(checks.values()),
    }


def _false_items(seed: int, inf: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A hand's false infractions, each marked whether it was put as a question (to check)."""
    questions = [dict(k) for k in inf.get("false_to_check", ())]
    out = []
    for k in inf["false"]:
        to_check = k in questions
        if to_check:
            questions.remove(k)
        out.append({"seed": seed, **k, "to_check": to_check})
    return out


def _errors(result: Mapping[str, Any]) -> list[float]:
    """A hand's landing errors (stored per hand as a list when present, else its median)."""
    e = result["score"]["landing_error_s"]
    if "values" in e:
        return [float(v) for v in e["values"]]
    return [] if e.get("median") is None else [float(e["median"])] * int(e.get("n", 1))


def run_eval(opts: EvalOptions, detector: Any) -> dict[str, Any]:
    """Evaluate ``opts.hands`` hands (resuming stored ones made the same way) and write
    ``summary.json``."""
    import cv2

    cv2.setNumThreads(1)  # one core, as the Pi budget is stated
    opts.out.mkdir(parents=True, exist_ok=True)
    results = []
    start = time.perf_counter()
    fingerprint = replay_fingerprint(opts, detector)
    for i in range(opts.hands):
        _bar(i, opts.hands, f"hand {opts.seed_base + i} {kind_for(i, opts.kinds)}", force=True)
        results.append(eval_hand(i, opts, detector, fingerprint))
    _bar(opts.hands, opts.hands, f"done in {time.perf_counter() - start:.0f} s\n", force=True)
    summary = {
        "options": {
            **{k: v for k, v in vars(opts).items() if k not in ("out", "kinds", "size")},
            "kinds": list(opts.kinds),
            "size": list(opts.size),
            "out": str(opts.out),
        },
        "untestable_kinds": UNTESTABLE_KINDS,
        **aggregate(results, opts.pi_slowdown),
        "per_hand": [
            {
                "seed": r["seed"],
                "kind": r["kind"],
                "plays": r["score"]["plays"]["fraction"],
                "median_error_s": r["score"]["landing_error_s"]["median"],
                "injected_found": len(r["score"]["infractions"]["injected_found"]),
                "false": len(r["score"]["infractions"]["false"]),
            }
            for r in results
        ],
    }
    (opts.out / "summary.json").write_text(json.dumps(summary, indent=1) + "\n", "utf-8")
    return summary


def summary_text(summary: Mapping[str, Any]) -> str:
    """The summary as a few lines, with PASS/FAIL per acceptance check."""
    p, e, inf = summary["plays"], summary["landing_error_s"], summary["infractions"]
    unsure = p.get("unsure") or {}
    frac = "-" if p["fraction"] is None else f"{100 * p['fraction']:.2f}%"
    med = "-" if e["median"] is None else f"{e['median']:.3f} s"
    lines = [
        f"{summary['hands']} hands: plays exactly right {p['exact']}/{p['total']} ({frac}); "
        f"median landing error {med}",
        f"kitties read right {summary['kitties']['right']}/{summary['kitties']['shown']} "
        f"(the referee asked to enter {summary['kitties'].get('referee_asked_to_enter', 0)} "
        "of the others: read short)",
        f"injected found {inf['injected_found']}/{inf['injected']} "
        f"({inf.get('injected_to_check', 0)} only as a question to check; "
        f"{len(inf.get('injected_off_camera', ()))} off camera, not counted); "
        f"false infractions {inf['false']} ({inf.get('false_to_check', 0)} of them put as a "
        f"question: resting on an unsure read); missed vs camera truth "
        f"{inf['missed_vs_camera_truth']}",
        f"plays naming an unsure read: {unsure.get('wrong', 0)} of the "
        f"{p['total'] - p['exact']} wrong, {unsure.get('exact', 0)} of the {p['exact']} right",
        f"wrong plays the console's runner-up correction fixes: "
        f"{p.get('wrong_fixed_by_runner_up', 0)}; false infractions left once those are "
        f"taken: {inf.get('false_after_runner_up', inf['false'])}",
        "not testable from footage: "
        + "; ".join(f"{k} ({v})" for k, v in summary["untestable_kinds"].items()),
    ]
    for item in inf["false_items"]:
        question = " (to check: rests on an unsure read)" if item.get("to_check") else ""
        lines.append(
            f"  false: seed {item['seed']} {item['kind']} {item['seat']} t{item['trick']}{question}"
        )
    for item in inf["injected_missed"]:
        lines.append(
            f"  missed: seed {item['seed']} {item['kind']} {item['seat']} t{item['trick']}"
        )
    for item in inf.get("injected_off_camera", ()):
        lines.append(
            f"  off camera: seed {item['seed']} {item['kind']} {item['seat']} t{item['trick']}"
        )
    lines += [f"{'PASS' if ok else 'FAIL'} {name}" for name, ok in summary["checks"].items()]
    return "\n".join(lines)


def cmd_replay_eval(args: argparse.Namespace) -> int:
    """Run ``replay-eval``."""
    from vision.detector import DEFAULT_MODEL, CardDetector
    from vision.synth.faces import check_design
    from vision.synth.render import parse_size

    kinds = tuple(k.strip() for k in args.kinds.split(",") if k.strip())
    bad = [k for k in kinds if k not in TESTABLE_KINDS]
    if bad or not kinds:
        why = "; ".join(f"{k}: {UNTESTABLE_KINDS.get(k, 'unknown kind')}" for k in bad)
        raise EvalError(f"--kinds: {why or 'none given'}; choose from {','.join(TESTABLE_KINDS)}")
    if args.hands < 1:
        raise EvalError(f"--hands must be ≥ 1 (got {args.hands})")
    if args.deck is not None and args.design is not None:
        raise EvalError(
            "--deck renders the hands in its deck: drop --design (or read other designs with "
            "--model DIR/model/card_detector.onnx --design …)"
        )
    model = detector_for(args.model, args.deck, "replay-eval")
    spec = str(args.deck) if args.deck is not None else args.design or DEFAULT_DESIGN
    designs = tuple(d.strip() for d in spec.split(",") if d.strip())
    if not designs:
        raise EvalError("--design: give a built-in deck name or a deck folder's path")
    for design in designs:
        check_design(design)
    opts = EvalOptions(
        hands=args.hands,
        seed_base=args.seed_base,
        rules=args.rules or "XX",
        out=args.out,
        kinds=kinds,
        speedup=args.speedup,
        fps=args.fps,
        size=parse_size(args.size),
        decision_fps=args.decision_fps,
        px_per_cm=args.px_per_cm,
        skip_moving=args.skip_moving,
        max_seconds=args.max_seconds,
        pi_slowdown=args.pi_slowdown,
        designs=designs,
    )
    detector = CardDetector(model or DEFAULT_MODEL, threads=args.threads)
    summary = run_eval(opts, detector)
    if args.json:
        print(json.dumps(summary, ensure_ascii=False, indent=1))
    else:
        print(summary_text(summary))
        timing = StageTimes.from_json(summary["timing"])
        print(budget_text(timing, opts.fps, opts.pi_slowdown))
        print(f"details: {opts.out / 'summary.json'}")
    return 0


def add_replay_eval_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``replay-eval``."""
    p: argparse.ArgumentParser = sub.add_parser(
        "replay-eval",
        help="simulate hands with planted infractions, render, replay and score them",
    )
    p.add_argument("--hands", type=int, default=10, help="number of hands (default 10)")
    p.add_argument("--seed-base", type=int, default=1000, help="seed of the first hand")
    p.add_argument("--out", type=Path, default=DEFAULT_OUT, help=f"work folder ({DEFAULT_OUT})")
    p.add_argument(
        "--kinds",
        default=",".join(DEFAULT_KINDS),
        help=f"planted kinds, one a hand in rotation, from {','.join(TESTABLE_KINDS)} "
        f"(default: {','.join(DEFAULT_KINDS)})",
    )
    p.add_argument("--speedup", type=float, default=4.0, help="divide gaps under the limit by this")
    p.add_argument("--fps", type=float, default=10.0, help="footage frames a second")
    p.add_argument(
        "--size", default=CAMERA_SIZE_TEXT, help=f"footage size WxH (default {CAMERA_SIZE_TEXT})"
    )
    p.add_argument("--max-seconds", type=float, help="cut each hand's footage (smoke tests)")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.add_argument(
        "--design",
        metavar="DECK[,DECK…]",
        help=f"card designs the hands are rendered in, one a hand in rotation: built-in names "
        f"or deck folder paths (default {DEFAULT_DESIGN})",
    )
    add_pipeline_options(p, deck_help=f"{DECK_HELP}; the hands are rendered in that deck")
    p.set_defaults(func=cmd_replay_eval)
    return p
