"""``chaodipi replay``: run the whole table pipeline on footage, print the hand and its audit.

This module owns the command and the loop behind it: :func:`footage_files` finds what
``chaodipi render`` (and ``chaodipi simulate --inject``) wrote beside footage, :func:`replay`
plays a frame source through a :class:`chaodipi.table.pipeline.TablePipeline`, and
:func:`add_replay_parser` adds ``replay`` (and ``replay-eval``, :mod:`chaodipi.replay.evaluation`)
to
the CLI::

    chaodipi replay SOURCE [--rules P] [--json] [--score [GROUND_TRUTH]] [--model PATH | --deck DIR]
        [--config table.toml] [--events OUT.jsonl] [--decision-fps 4]
        [--record R.json] [--declarer S] [--trump H] [--levels NS=2,EW=5]

The camera cannot see the contract (declarer, trump, levels, rules): it is taken from
``--record`` or else the ``record.json`` beside rendered footage (``<stem>.record.json`` beside a
video), then the config's rules; ``--rules``/``--declarer``/``--trump``/``--levels`` override
it. ``--json`` prints ``{"events": [...], "audit": {...}}`` (the audit as ``chaodipi audit
--json`` prints it) plus ``"score"`` with ``--score``. Bad input is a one-line ``ValueError``
(exit status 2).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from chaodipi.config import TableConfig, load_config
from chaodipi.replay.scoring import Score, score_events
from chaodipi.table.pipeline import (
    PI_SLOWDOWN,
    StageTimes,
    TablePipeline,
    budget_text,
    contract_from_record,
)
from device import SourceError, open_source
from engine.audit import AuditReport
from engine.cards import SEATS
from engine.report import render_text
from vision.enrolment.deck_model import DECK_HELP, detector_for
from vision.events import read_events
from vision.zone_reads import PX_PER_CM

VIDEO_SUFFIXES = frozenset({".avi", ".mp4", ".mkv", ".mov"})


class ReplayError(ValueError):
    """The replay cannot run on this input; the message is one line naming the fix."""


@dataclass(frozen=True)
class Footage:
    """The files beside a piece of footage (None where absent)."""

    record: Path | None  # the hand record rendered (contract, full-record audit)
    truth: Path | None  # ground-truth events (JSON lines)
    render: Path | None  # render parameters
    injected: Path | None  # planted infractions, ``{"injected": [...]}``


def footage_files(spec: str) -> Footage:
    """What ``chaodipi render`` wrote beside ``spec``: in a frame folder ``record.json``,
    ``ground_truth.jsonl``, ``render.json`` and any ``*.truth.json`` (inside it or as
    ``<folder>.truth.json`` beside it); beside a video ``<stem>.record.json``,
    ``<stem>.truth.jsonl``, ``<stem>.render.json`` and ``<stem>.truth.json``."""
    path = Path(spec).expanduser()

    def found(p: Path) -> Path | None:
        return p if p.is_file() else None

    if path.is_dir():
        injected = sorted(path.glob("*.truth.json"))
        return Footage(
            found(path / "record.json"),
            found(path / "ground_truth.jsonl"),
            found(path / "render.json"),
            injected[0] if injected else found(path.parent / f"{path.name}.truth.json"),
        )
    if path.is_file():
        stem = path.with_suffix("")
        return Footage(
            found(stem.with_name(stem.name + ".record.json")),
            found(stem.with_name(stem.name + ".truth.jsonl")),
            found(stem.with_name(stem.name + ".render.json")),
            found(stem.with_name(stem.name + ".truth.json")),
        )
    return Footage(None, None, None, None)


def read_json(path: Path, what: str) -> Any:
    """Parsed JSON of ``path``; a one-line :class:`ReplayError` when unreadable."""
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise ReplayError(f"cannot read {what} {path}: {e.strerror}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as e:
        raise ReplayError(f"{what} {path} is not JSON ({e}): fix or regenerate it") from None


def read_injected(path: Path) -> list[dict[str, Any]]:
    """The planted infractions of a ``chaodipi simulate --inject`` truth file."""
    data = read_json(path, "injected truth")
    items = data.get("injected") if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise ReplayError(f'{path}: expected {{"injected": [{{"kind", "seat", "trick"}}, …]}}')
    return [dict(i) for i in items]


@dataclass
class ReplayResult:
    """What a replay produced."""

    events: list[dict[str, Any]]
    audit: AuditReport
    record: dict[str, Any]
    timings: StageTimes
    wall_s: float
    camera_fps: float | None = None
    score: Score | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def replay(
    spec: str,
    pipeline: TablePipeline,
    *,
    progress: Callable[[float], None] | None = None,
) -> ReplayResult:
    """Play the source ``spec`` (see ``device.open_source``) through ``pipeline`` to its end.

    Reading and decoding frames is timed as the ``decode`` stage (replay only: a camera
    delivers decoded frames). ``progress`` gets each frame's time.
    """
    try:
        source = open_source(spec)
        source.open()
    except SourceError as e:
        raise ReplayError(str(e)) from None
    start = time.perf_counter()
    first: float | None = None
    last: float | None = None
    n = 0
    try:
        while True:
            t0 = time.perf_counter()
            try:
                frame = source.read()
            except SourceError as e:
                raise ReplayError(str(e)) from None
            pipeline.timings.add("decode", time.perf_counter() - t0)
            if frame is None:
                break
            first = frame.t if first is None else first
            last = frame.t
            n += 1
            pipeline.process(frame)
            if progress is not None:
                progress(frame.t)
    except KeyboardInterrupt:  # a live source runs until stopped: keep what was seen
        pass
    finally:
        source.close()
        pipeline.finish()
        pipeline.close()
    fps = None
    if first is not None and last is not None and last > first:
        fps = (n - 1) / (last - first)
    return ReplayResult(
        list(pipeline.events),
        pipeline.audit(),
        pipeline.record,
        pipeline.timings,
        time.perf_counter() - start,
        fps,
    )


def hand_table(record: Mapping[str, Any]) -> str:
    """The recovered hand: one line a trick, the cards of each seat; a card read in doubt ends
    in ``?`` and its runner-up read, if any (``QC?10C``), a seat whose cards were seen but
    never read shows ``??``."""
    lines = [f"{'trick':>5}  " + "  ".join(f"{s:<18}" for s in SEATS)]
    for number, trick in enumerate(record.get("tricks", []), start=1):
        by_seat = {p["seat"]: _cards_text(p) for p in trick["plays"]}
        by_seat |= {s: "??" for s in trick.get("unread", ())}
        order = "→".join(p["seat"] for p in trick["plays"])
        cells = "  ".join(f"{by_seat.get(s, '-'):<18}" for s in SEATS)
        lines.append(f"{number:>5}  {cells}  ({order})")
    if record.get("kitty"):
        lines.append(f"kitty  {' '.join(record['kitty'])}")
    if len(lines) == 1:
        lines.append("  (no play recovered)")
    return "\n".join(lines)


def _cards_text(play: Mapping[str, Any]) -> str:
    """The play's cards, an unsure one marked ``QC?`` (``QC?10C`` with its runner-up read)."""
    doubt = set(play.get("unsure", ()))
    maybe = play.get("maybe") or {}
    return " ".join(f"{c}?{maybe.get(c, '')}" if c in doubt else c for c in play["cards"])


# ----------------------------------------------------------------------------- the command


def parse_levels(text: str) -> dict[str, str]:
    """``"NS=2,EW=5"`` → ``{"NS": "2", "EW": "5"}``."""
    out: dict[str, str] = {}
    for part in text.split(","):
        side, sep, rank = part.partition("=")
        if not sep or side.strip().upper() not in ("NS", "EW"):
            raise ReplayError(f"--levels {text!r}: write NS=2,EW=5")
        out[side.strip().upper()] = rank.strip().upper()
    if set(out) != {"NS", "EW"}:
        raise ReplayError(f"--levels {text!r}: give both sides, e.g. NS=2,EW=5")
    return out


def contract_for(args: argparse.Namespace, footage: Footage) -> tuple[dict[str, Any], str]:
    """The contract from ``--record`` / the footage's record / the flags, and where it came
    from (for the printout)."""
    contract: dict[str, Any] = {}
    origin = "defaults"
    record_path = args.record or footage.record
    if record_path is not None:
        data = read_json(Path(record_path), "record")
        if not isinstance(data, dict):
            raise ReplayError(f"record {record_path} is not a hand record object")
        contract, origin = contract_from_record(data), str(record_path)
    flags = {
        "rules": args.rules,
        "declarer": args.declarer,
        "trump": args.trump,
        "levels": parse_levels(args.levels) if args.levels else None,
    }
    for key, value in flags.items():
        if value is not None:
            contract[key] = value
            origin = f"{origin} + flags" if "flags" not in origin else origin
    return contract, origin


def build_pipeline(
    args: argparse.Namespace, contract: Mapping[str, Any], config: TableConfig | None
) -> TablePipeline:
    from vision.detector import DEFAULT_MODEL, CardDetector

    chosen = detector_for(args.model, args.deck, "replay")
    model = chosen or (Path(config.model) if config is not None else DEFAULT_MODEL)
    detector = CardDetector(Path(model), threads=args.threads)
    return TablePipeline(
        config,
        detector,
        decision_fps=args.decision_fps,
        px_per_cm=args.px_per_cm,
        contract=contract,
        event_log=args.events,
        skip_moving=args.skip_moving,
    )


def cmd_replay(args: argparse.Namespace) -> int:
    """Run ``replay``."""
    spec = str(args.source)
    try:
        open_source(spec)  # fail on a bad source before loading the model
    except SourceError as e:
        raise ReplayError(str(e)) from None
    footage = footage_files(spec)
    config = load_config(args.config) if args.config else None
    contract, origin = contract_for(args, footage)
    truth_path: Path | None = None
    if args.score is not None:
        truth_path = Path(args.score) if args.score else footage.truth
        if truth_path is None or not truth_path.is_file():
            raise ReplayError(
                f"no ground truth {'at ' + str(truth_path) if truth_path else 'beside ' + spec}: "
                "give --score GROUND_TRUTH.jsonl"
            )
    record_path: Path | None = args.record or footage.record
    if truth_path is not None and record_path is None:
        raise ReplayError("scoring needs the hand record: give --record RECORD.json")
    pipeline = build_pipeline(args, contract, config)
    result = replay(spec, pipeline)
    if truth_path is not None and record_path is not None:
        record = read_json(record_path, "record")
        injected = read_injected(footage.injected) if footage.injected else None
        result.score = score_events(
            result.events, read_events(truth_path), record, injected=injected
        )
    if args.json:
        out: dict[str, Any] = {"events": result.events, "audit": result.audit.to_json()}
        if result.score is not None:
            out["score"] = result.score.to_json()
        out["timing"] = {
            **result.timings.to_json(),
            **result.timings.budget(slowdown=args.pi_slowdown),
        }
        print(json.dumps(out, ensure_ascii=False, indent=2))
        return 0
    print(f"contract from {origin}")
    print(hand_table(result.record))
    print()
    print(render_text(result.audit))
    if result.score is not None:
        print()
        print(result.score.text())
    print()
    print(budget_text(result.timings, result.camera_fps, args.pi_slowdown), file=sys.stderr)
    return 0


def add_replay_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``replay`` to the CLI."""
    p: argparse.ArgumentParser = sub.add_parser(
        "replay", help="run the table pipeline on footage: the recovered hand and its audit"
    )
    p.add_argument("source", help="frame folder, video file, webcam index or stream URL")
    add_pipeline_options(p)
    p.add_argument("--json", action="store_true", help='print {"events", "audit"[, "score"]}')
    p.add_argument(
        "--score",
        nargs="?",
        const="",
        metavar="GROUND_TRUTH",
        help="compare with ground-truth events (default: the ones beside the footage)",
    )
    p.add_argument("--events", type=Path, metavar="OUT.jsonl", help="append the events here")
    p.add_argument("--record", type=Path, help="hand record giving the contract (and for --score)")
    p.add_argument("--declarer", choices=SEATS, help="the declarer (the camera cannot see it)")
    p.add_argument("--trump", choices=("S", "H", "D", "C", "NT"), help="the trump suit")
    p.add_argument("--levels", metavar="NS=R,EW=R", help="both sides' levels, e.g. NS=2,EW=5")
    p.set_defaults(func=cmd_replay)
    return p


def slowdown_factor(text: str) -> float:
    """``--pi-slowdown``: a positive number (argparse prints the one-line error)."""
    try:
        value = float(text)
    except ValueError:
        value = 0.0
    if not value > 0:
        raise argparse.ArgumentTypeError(
            f"{text!r} is no slowdown: give a positive number, e.g. 4 or what "
            "bench/pi_reference.py prints"
        )
    return value


def add_pipeline_options(p: argparse.ArgumentParser, deck_help: str = DECK_HELP) -> None:
    """Options shared by ``replay`` and ``replay-eval`` (``deck_help``: what ``--deck`` does)."""
    from engine.profiles import PROFILE_NAMES

    p.add_argument("--rules", choices=PROFILE_NAMES, help="rule profile (default: the record's)")
    p.add_argument("--model", type=Path, help="detector ONNX (default: the config's or models/)")
    p.add_argument("--deck", type=Path, metavar="DIR", help=deck_help)
    p.add_argument("--config", type=Path, metavar="table.toml", help="table config")
    p.add_argument(
        "--decision-fps", type=float, default=4.0, help="decision frames a second (default 4)"
    )
    p.add_argument(
        "--px-per-cm",
        type=float,
        default=PX_PER_CM,
        help=f"top-down table resolution (default {PX_PER_CM:g})",
    )
    p.add_argument("--threads", type=int, default=1, help="detector threads (default 1)")
    p.add_argument(
        "--skip-moving",
        action="store_true",
        help="no detection while the table moves (cheaper; plays are dated later)",
    )
    p.add_argument(
        "--pi-slowdown",
        type=slowdown_factor,
        default=PI_SLOWDOWN,
        metavar="X",
        help=f"a Pi 5 is X times slower than one core here (default {PI_SLOWDOWN:g}; "
        "bench/pi_reference.py measures it for this machine)",
    )
