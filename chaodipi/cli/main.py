"""The ``chaodipi`` command: audit, simulate, demo, profiles, the vision commands and ``run``.

Every bad input ends in one line on stderr naming the problem and the fix, and exit status 2;
a well-formed record exits 0 whatever infractions it holds. That holds for the arguments too
(:class:`OneLineParser`) and, as a last resort, for a file or folder the system refuses (an
``OSError`` a command did not word itself).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tomllib
from collections.abc import Sequence
from pathlib import Path
from typing import Any, NoReturn

from chaodipi.cli.calibrate import add_calibrate_parser, add_markers_parser
from chaodipi.cli.deck import add_deck_parser
from chaodipi.cli.doctor import add_doctor_parser
from chaodipi.cli.render import add_render_parser
from chaodipi.cli.vision_commands import add_vision_parser
from chaodipi.demo.run import add_demo_parser
from chaodipi.hub.command import add_hub_parser
from chaodipi.replay.evaluation import add_replay_eval_parser
from chaodipi.replay.replay import add_replay_parser
from chaodipi.table.service import add_run_parser
from engine.audit import audit
from engine.profiles import (
    KNOB_DOCS,
    PROFILE_NAMES,
    PROFILE_SOURCES,
    ProfileError,
    check_overrides,
    get_profile,
    profiles_markdown,
)
from engine.record import RecordError, load_record, parse_record_text
from engine.report import render_text
from vision.training.train import TrainError


class UsageError(Exception):
    """Bad input from the command line; the message is the one line the user sees."""


class OneLineParser(argparse.ArgumentParser):
    """An argument parser whose errors are one line (the problem and where help is) and exit
    status 2; every subcommand's parser is one too."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: {message} (see {self.prog} --help)\n")


def _read_json(path: str) -> Any:
    source = "stdin" if path == "-" else path
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except OSError as e:
        raise UsageError(
            f"cannot read {path}: {e.strerror}; give a hand record JSON file"
        ) from None
    except UnicodeDecodeError:
        raise UsageError(f"{source} is not UTF-8 text: save the hand record as UTF-8") from None
    if not text.strip():
        raise UsageError(f"{source} is empty: expected a hand record JSON")
    return parse_record_text(text, source)


def load_overrides(path: str) -> dict[str, Any]:
    """Knob overrides from a TOML file (top-level ``knob = value`` or a ``[rules]`` table),
    each checked against its knob's rule (an error names the file and the knob)."""
    try:
        data = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as e:
        raise UsageError(f"cannot read overrides {path}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise UsageError(f"overrides {path} is not UTF-8 text: save it as UTF-8") from None
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"overrides {path} is not valid TOML: {e}") from None
    table = data.get("rules", data)
    if not isinstance(table, dict):
        raise UsageError(f"overrides {path}: [rules] must be a table of knob = value")
    check_overrides(table, f"{path}: rules")
    return dict(table)


def _write_text(path: Path, text: str, what: str) -> None:
    """Write ``text`` to ``path``, creating its folder; a refusal is one :class:`UsageError`."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError as e:
        raise UsageError(f"cannot write {what} {path} ({e.strerror}): give another path") from None


def cmd_audit(args: argparse.Namespace) -> int:
    data = _read_json(args.record)
    if isinstance(data, dict):
        if args.rules:
            data = {**data, "rules": args.rules}
        if args.overrides:
            extra = load_overrides(args.overrides)
            own = data.get("rule_overrides")
            if own is None or isinstance(own, dict):  # else load_record names the bad field
                data = {**data, "rule_overrides": {**(own or {}), **extra}}
    report = audit(load_record(data))
    if args.json:
        print(json.dumps(report.to_json(), ensure_ascii=False, indent=2))
    else:
        print(render_text(report))
    return 0


def cmd_simulate(args: argparse.Namespace) -> int:
    from engine.simulate import INJECTABLE, simulate_hand

    kinds = [k for k in (args.inject or "").split(",") if k]
    for k in kinds:
        if k not in INJECTABLE:
            raise UsageError(f"cannot inject {k!r}: choose from {', '.join(INJECTABLE)}")
    overrides = load_overrides(args.overrides) if args.overrides else None
    record, truth = simulate_hand(
        args.rules, args.seed, kinds, overrides=overrides, with_hands=args.with_hands
    )
    text = json.dumps(record, ensure_ascii=False, indent=1)
    truth_path: Path | None
    if args.out:
        out = Path(args.out)
        _write_text(out, text + "\n", "--out")
        truth_path = Path(args.truth) if args.truth else out.with_suffix(".truth.json")
    else:
        print(text)
        truth_path = Path(args.truth) if args.truth else None
    if kinds:
        truth_text = json.dumps({"injected": truth}, ensure_ascii=False, indent=1)
        if truth_path is None:
            print(truth_text, file=sys.stderr)
        else:
            _write_text(truth_path, truth_text + "\n", "the truth")
    return 0


def cmd_profiles(args: argparse.Namespace) -> int:
    if args.markdown:
        print(profiles_markdown())
        return 0
    if args.name:
        profile = get_profile(args.name)
        sources = PROFILE_SOURCES.get(args.name, {})
        print(f"{profile.name}: {profile.title}")
        for knob in KNOB_DOCS:
            if not hasattr(profile, knob):
                continue
            src = f"  ← {sources[knob]}" if knob in sources else ""
            print(f"  {knob} = {getattr(profile, knob)!r}{src}")
        return 0
    for name in PROFILE_NAMES:
        print(f"{name:3} {get_profile(name).title}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(prog="chaodipi", description="炒地皮 table referee")
    sub = parser.add_subparsers(dest="command", required=True)
    a = sub.add_parser("audit", help="audit a hand record (JSON file, or - for stdin)")
    a.add_argument("record", nargs="?", default="-")
    a.add_argument("--json", action="store_true", help="machine-readable output")
    a.add_argument("--rules", choices=PROFILE_NAMES, help="audit under this profile instead")
    a.add_argument("--overrides", metavar="FILE.toml", help="rule knob overrides")
    a.set_defaults(func=cmd_audit)
    s = sub.add_parser("simulate", help="deal and play a legal hand, write its record")
    s.add_argument("--rules", default="XX", choices=PROFILE_NAMES)
    s.add_argument("--seed", type=int, default=0)
    s.add_argument("--inject", metavar="KIND,…", help="plant infractions (ground truth beside)")
    s.add_argument("--out", metavar="FILE.json")
    s.add_argument("--truth", metavar="FILE.json", help="where the ground truth goes")
    s.add_argument("--overrides", metavar="FILE.toml")
    s.add_argument("--with-hands", action="store_true", help="include the hands (referee entry)")
    s.set_defaults(func=cmd_simulate)
    add_demo_parser(sub)
    p = sub.add_parser("profiles", help="list rule profiles, or show one's knobs and sources")
    p.add_argument("name", nargs="?", choices=PROFILE_NAMES)
    p.add_argument("--markdown", action="store_true", help="all knobs and sources as Markdown")
    p.set_defaults(func=cmd_profiles)
    add_vision_parser(sub)
    add_markers_parser(sub)
    add_calibrate_parser(sub)
    add_deck_parser(sub)
    add_render_parser(sub)
    add_replay_parser(sub)
    add_replay_eval_parser(sub)
    add_run_parser(sub)
    add_hub_parser(sub)
    add_doctor_parser(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        code: int = args.func(args)
        return code
    # ValueError: the vision commands' bad input (missing model, image or dataset)
    except (UsageError, RecordError, ProfileError, TrainError, ValueError) as e:
        print(f"chaodipi {args.command}: {_one_line(str(e))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as e:  # a path the command did not check itself: name it, no traceback
        print(f"chaodipi {args.command}: {_refusal(e)}", file=sys.stderr)
        return 2
    except RecursionError:  # a JSON file a command parsed without bounds (records are bounded)
        print(
            f"chaodipi {args.command}: a file given nests too deeply to read: check the files",
            file=sys.stderr,
        )
        return 2


def _one_line(message: str) -> str:
    return " ".join(message.split("\n"))


def _refusal(e: OSError) -> str:
    """One line for a file or folder the system refused."""
    where = f" {e.filename}" if e.filename else ""
    if isinstance(e, (FileExistsError, NotADirectoryError)):
        return f"cannot use{where}: a file stands where a folder is needed: give another path"
    return f"cannot use{where}: {e.strerror or type(e).__name__}: check the path"


SERVING_COMMANDS = ("run", "demo", "hub")


def entry() -> None:
    """The console command: :func:`main`, then the process's exit.

    A serving command has closed its log and said so when :func:`main` returns; it then ends
    at once (``os._exit``) rather than through the interpreter's teardown, where a native
    library's worker (onnxruntime, OpenCV, the web server's loop) still winding down can crash
    the process on SIGTERM and turn a clean stop into a failed one."""
    code = main()
    if sys.argv[1:2] and sys.argv[1] in SERVING_COMMANDS:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    entry()
