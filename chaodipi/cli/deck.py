"""The ``chaodipi deck`` command: ``deck sheet`` prints the enrolment mat, ``deck capture``
reads a deck's faces off photographs of it into a deck folder, ``deck adapt`` fine-tunes the
card localiser and classifier on that deck and writes ``DECK/model/`` when the result reads it
better.

This module owns those commands' arguments and printing; the mat's layout, the reading and the
adaptation are :mod:`vision.enrolment`'s, the table config :mod:`chaodipi.config`'s.
``chaodipi.cli.main`` wires it in with :func:`add_deck_parser`; each subcommand sets
``func(args) -> int``. Bad input raises a ``ValueError`` subclass with a one-line message (the
CLI prints it, exit 2); slots that cannot be read are first listed on stderr, one line each.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from chaodipi.cli.calibrate import grab_frame
from chaodipi.cli.detect_eval import read_image
from chaodipi.config import load_config
from vision.enrolment.adapt import BEATS, DEFAULT_MINUTES, LOCALISER_SHARE, adapt_deck
from vision.enrolment.capture import PARTIAL, capture_deck
from vision.enrolment.mat import DEFAULT_DPI, HALF_COUNT, SLOT_COUNT, EnrolmentError, write_mat
from vision.table_geometry import TableGeometry


def add_deck_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``deck sheet``, ``deck capture`` and ``deck adapt``: enrol a tournament's deck."""
    p: argparse.ArgumentParser = sub.add_parser(
        "deck", help="enrol a deck design: print the layout mat, read the cards off a photo"
    )
    steps = p.add_subparsers(dest="deck_command", required=True)
    s: argparse.ArgumentParser = steps.add_parser(
        "sheet", help="write the layout mat: 54 numbered card slots on the table (PNG or PDF)"
    )
    s.add_argument("--out", type=Path, required=True, help="mat.png or mat.pdf")
    s.add_argument("--config", type=Path, help="the table's config (default: a 90 x 90 cm table)")
    s.add_argument(
        "--halves",
        action="store_true",
        help="two half-mats of 27 slots for a small table (NAME-1 and NAME-2)",
    )
    s.add_argument(
        "--dpi", type=int, default=DEFAULT_DPI, help=f"resolution (default {DEFAULT_DPI})"
    )
    s.set_defaults(func=cmd_sheet)
    c: argparse.ArgumentParser = steps.add_parser(
        "capture", help="read the cards lying in the mat's slots into a deck folder"
    )
    c.add_argument("--config", type=Path, required=True, help="the table's calibrated config")
    where = c.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--image", type=Path, nargs="+", metavar="FRAME", help="full-resolution frames of the mat"
    )
    where.add_argument("--source", help="camera spec to grab a frame from")
    c.add_argument("--out", type=Path, required=True, help="the deck folder to write")
    c.add_argument(
        "--half",
        type=int,
        choices=(1, 2),
        help="the frames show this half-mat (from deck sheet --halves)",
    )
    c.add_argument("--name", help="the deck's name in deck.toml (default: the folder's name)")
    c.set_defaults(func=cmd_capture)
    a: argparse.ArgumentParser = steps.add_parser(
        "adapt",
        help="fine-tune the card localiser and classifier on a deck folder; write DECK/model/ "
        "only when the pair reads the deck better than the bundled pair",
    )
    a.add_argument("deck", type=Path, metavar="DECK", help="the deck folder (deck capture's)")
    a.add_argument(
        "--minutes",
        type=float,
        default=DEFAULT_MINUTES,
        metavar="M",
        help=f"minutes of training on the CPU (default {DEFAULT_MINUTES:g}: about 18 minutes in "
        "all with making the data and scoring, on 2 cores)",
    )
    a.add_argument(
        "--localiser-share",
        type=float,
        default=LOCALISER_SHARE,
        metavar="S",
        help=f"share of the minutes that trains the localiser, the rest the classifier "
        f"(default {LOCALISER_SHARE:g}; 0 keeps the bundled localiser)",
    )
    a.add_argument("--seed", type=int, default=0, help="seed of the synthetic data (default 0)")
    a.add_argument(
        "--workers",
        type=int,
        default=None,
        help="processes that render the scenes, stills and crops (default: one a core)",
    )
    a.set_defaults(func=cmd_adapt)
    return p


def cmd_sheet(args: argparse.Namespace) -> int:
    """Write the mat and say how to print and lay it."""
    geometry = load_config(args.config).table if args.config else TableGeometry()
    paths = write_mat(args.out, geometry, halves=args.halves, dpi=args.dpi)
    slots = f"{HALF_COUNT} card slots each" if args.halves else f"{SLOT_COUNT} card slots"
    print(
        f"wrote {', '.join(map(str, paths))}: {slots} for a {geometry.width_cm:g} x "
        f"{geometry.height_cm:g} cm table at {args.dpi} dpi; print at 100% (the sheet is the "
        "table's size) and lay it square between the corner markers"
    )
    return 0


def cmd_capture(args: argparse.Namespace) -> int:
    """Read the mat's cards and write the deck folder, or list the slots to fix."""
    cfg = load_config(args.config)
    if cfg.calibration is None:
        raise EnrolmentError(f"{args.config} has no calibration: run chaodipi calibrate first")
    if args.image:
        frames = [(str(path), read_image(path)) for path in args.image]
    else:
        spec = args.source
        frames = [(f"the frame from {spec}", grab_frame(spec))]
    result = capture_deck(
        frames, cfg.calibration, cfg.table, args.out, half=args.half, name=args.name
    )
    if result.problems:
        for line in result.problems:
            print(line, file=sys.stderr)
        n = len(result.problems)
        raise EnrolmentError(
            f"{n} slot{'s' if n > 1 else ''} could not be read, so nothing was written: "
            "fix them and capture again"
        )
    if result.folder is None:
        other = result.waiting_for[0]
        print(
            f"half-mat {args.half}: {result.faces} faces kept in {args.out / PARTIAL}; now lay "
            f"half-mat {other} and capture it with --half {other}"
        )
        return 0
    faces = len(list(result.folder.glob("*.png")))
    jokers = "" if faces == SLOT_COUNT else " (no jokers)"
    print(f"wrote {result.folder}: {faces} faces{jokers} and deck.toml")
    return 0


def cmd_adapt(args: argparse.Namespace) -> int:
    """Adapt the classifier to the deck; print both pairs' scores and what was kept."""
    started = time.monotonic()
    result = adapt_deck(
        args.deck,
        args.minutes,
        seed=args.seed,
        workers=args.workers,
        localiser_share=args.localiser_share,
    )
    print(
        f"held-out renders of {args.deck} ({result.stills} stills at {result.still_size} px, "
        "cards at the table camera's scale), "
        "identity precision / recall:"
    )
    print(f"  bundled pair  {result.bundled.text()}")
    localiser = (
        f"localiser {result.localiser_epochs} epochs, "
        if result.localiser_epochs
        else "bundled localiser, "
    )
    print(
        f"  adapted pair  {result.candidate.text()}  ({localiser}classifier {result.epochs} "
        f"epochs, {result.train_seconds / 60:.1f} min of training, "
        f"{(time.monotonic() - started) / 60:.1f} min in all)"
    )
    if result.model is not None:
        print(f"wrote {result.model}: run, replay, replay-eval and demo read it with --deck")
    else:
        print(
            f"kept the bundled pair: the adapted one does not beat it ({BEATS}), so no model "
            f"folder was written to {args.deck}"
        )
    return 0
