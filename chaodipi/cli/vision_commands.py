"""The ``chaodipi vision …`` command line: argparse builders for the vision subcommands.

This module owns the arguments of the vision commands and hands the work to the modules that
own it (``synth`` → :func:`vision.synth.scenes.synthesize`). ``chaodipi.cli.main`` wires it in with
:func:`add_vision_parser`; the lead adds ``train``, ``detect`` and ``eval`` here.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any


def add_vision_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add the ``vision`` command (with its own subcommands) to a subparsers object."""
    vision: argparse.ArgumentParser = sub.add_parser(
        "vision", help="card vision: synthetic data, training, detection"
    )
    vsub = vision.add_subparsers(dest="vision_command", required=True)
    add_synth_parser(vsub)
    add_crops_parser(vsub)
    add_negatives_parser(vsub)
    add_train_parser(vsub)
    add_train_classifier_parser(vsub)
    from chaodipi.cli.detect_eval import add_detect_parser, add_eval_crops_parser, add_eval_parser

    add_detect_parser(vsub)
    add_eval_parser(vsub)
    add_eval_crops_parser(vsub)
    return vision


def _add_run_arguments(
    p: argparse.ArgumentParser, *, epochs: int, imgsz: int, batch: int, name: str, export: Path
) -> None:
    """The arguments every training command shares (one ultralytics run, resumable).

    The ONNX model goes into the run's folder unless ``--export`` names a target: the bundled
    pair in ``models/`` is built from chosen runs (the classifier read twice, see the model
    card), so a training run never replaces it by itself."""
    from vision.training.train import REPO_ROOT

    p.add_argument("--epochs", type=int, default=epochs)
    p.add_argument("--imgsz", type=int, default=imgsz)
    p.add_argument("--batch", type=int, default=batch)
    p.add_argument("--threads", type=int, default=2, help="torch threads (default 2)")
    p.add_argument(
        "--device", default="cpu", help="torch device: cpu (default), or 0 for the first CUDA GPU"
    )
    p.add_argument(
        "--workers", type=int, default=0, help="data-loading processes (default 0: in-process)"
    )
    p.add_argument("--project", type=Path, default=REPO_ROOT / "runs")
    p.add_argument("--name", default=name, help="run name; an unfinished run resumes")
    p.add_argument(
        "--export",
        type=Path,
        help=f"ONNX target (default: PROJECT/NAME/{export.name}; give "
        f"{export.relative_to(REPO_ROOT).as_posix()} to replace the bundled model)",
    )
    p.set_defaults(export_name=export.name)
    p.add_argument("--fresh", action="store_true", help="start over instead of resuming")
    p.add_argument("--hours", type=float, help="train for this wall-clock time instead")
    p.add_argument(
        "--lr0", type=float, help="initial learning rate (default 0.002; lower to fine-tune)"
    )


def _run_settings(args: argparse.Namespace) -> dict[str, Any]:
    return {
        "epochs": args.epochs,
        "imgsz": args.imgsz,
        "batch": args.batch,
        "threads": args.threads,
        "project": args.project,
        "name": args.name,
        "export_to": args.export or args.project / args.name / args.export_name,
        "resume": not args.fresh,
        "hours": args.hours,
        "model_yaml": args.start_from,
        "lr0": args.lr0,
        "device": args.device,
        "workers": args.workers,
    }


def _report(result: Any) -> int:
    print(f"trained {result.epochs} epochs in {result.seconds:.0f} s: {result.best_weights}")
    print(f"ONNX model: {result.onnx_path}")
    return 0


def add_train_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``train``: train (or resume) the detector on a YOLO dataset and export ONNX."""
    from vision.training.train import DEFAULT_MODEL_PATH

    p: argparse.ArgumentParser = sub.add_parser(
        "train", help="train or resume the card detector, export ONNX"
    )
    p.add_argument("--data", type=Path, required=True, help="dataset folder with data.yaml")
    _add_run_arguments(p, epochs=30, imgsz=320, batch=16, name="cards", export=DEFAULT_MODEL_PATH)
    p.add_argument(
        "--start-from",
        default="yolo11n.yaml",
        help="a .pt of ours to continue from (e.g. models/baseline/last.pt), or a model YAML",
    )
    p.add_argument(
        "--single-class",
        action="store_true",
        help="train a localiser (one class: corner index); the classifier reads identities",
    )
    p.set_defaults(func=run_train)
    return p


def run_train(args: argparse.Namespace) -> int:
    """Run ``vision train``; prints where the weights and the ONNX model went."""
    from vision.training.train import train

    return _report(train(args.data, single_class=args.single_class, **_run_settings(args)))


def add_train_classifier_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``train-classifier``: train the corner-index classifier on crops, export ONNX."""
    from vision.training.train import DEFAULT_CLASSIFIER_PATH

    p: argparse.ArgumentParser = sub.add_parser(
        "train-classifier", help="train or resume the corner-index classifier, export ONNX"
    )
    p.add_argument("--data", type=Path, required=True, help="crops folder with train/ and val/")
    _add_run_arguments(
        p, epochs=20, imgsz=64, batch=128, name="card_classifier", export=DEFAULT_CLASSIFIER_PATH
    )
    p.add_argument("--start-from", default="yolo11n-cls.yaml", help="a .pt of ours, or a YAML")
    p.set_defaults(func=run_train_classifier)
    return p


def run_train_classifier(args: argparse.Namespace) -> int:
    """Run ``vision train-classifier``; prints where the weights and the ONNX model went."""
    from vision.training.train import train_classifier

    return _report(train_classifier(args.data, **_run_settings(args)))


def _add_jokers_argument(p: argparse.ArgumentParser) -> None:
    """``--jokers SHARE``, ``--square-bowls SHARE`` and ``--small-cards SHARE`` (``synth`` and
    ``crops``: :func:`vision.synth.scenes.render_scene`)."""
    p.add_argument(
        "--small-cards",
        type=float,
        default=0.1,
        metavar="SHARE",
        help="share of scenes at the table camera's card scale (default 0.1)",
    )
    p.add_argument(
        "--jokers",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of card groups with jokers mixed in, often under other cards (default 0)",
    )
    p.add_argument(
        "--square-bowls",
        type=float,
        default=0.0,
        metavar="SHARE",
        help="share of procedural stroke fonts whose 0, Q and O are straight-sided (default 0)",
    )


def _add_designs_arguments(p: argparse.ArgumentParser, default: str) -> None:
    p.add_argument(
        "--designs",
        default=default,
        help=f"comma-separated deck designs: procedural, a built-in deck or a deck folder's path; "
        f"NAME*K draws NAME K times as often (default: {default})",
    )
    p.add_argument(
        "--deck-root",
        type=Path,
        metavar="DIR",
        help="also draw every deck folder under DIR on the --side of the design split",
    )
    p.add_argument(
        "--side",
        choices=("train", "validation"),
        default="train",
        help="which side of the design split (vision/synth/design_split.toml) --deck-root "
        "gives (default train)",
    )


def designs_from(args: argparse.Namespace) -> list[str]:
    """The designs ``--designs`` and ``--deck-root``/``--side`` name, weights spelled out."""
    from vision.synth.design_split import decks_on_side

    designs: list[str] = []
    for item in (d.strip() for d in args.designs.split(",")):
        if not item:
            continue
        name, _, times = item.partition("*")
        designs += [name] * (int(times) if times.isdigit() and int(times) > 0 else 1)
    if args.deck_root is not None:
        designs += [d for d in decks_on_side(args.side, args.deck_root) if d not in designs]
    return designs


def add_synth_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``synth``: write synthetic training scenes in ultralytics YOLO format."""
    p: argparse.ArgumentParser = sub.add_parser(
        "synth", help="write synthetic training scenes (YOLO format)"
    )
    p.add_argument("--n", type=int, required=True, help="number of images")
    p.add_argument("--out", type=Path, required=True, help="dataset folder")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_designs_arguments(p, "procedural,byron_knoll,adrian_kennard")
    p.add_argument("--imgsz", type=int, default=320, help="image side in pixels (default 320)")
    p.add_argument("--split", default="train", help="split folder name (default train)")
    _add_jokers_argument(p)
    p.set_defaults(func=run_synth)
    return p


def run_synth(args: argparse.Namespace) -> int:
    """Run ``vision synth`` with parsed arguments; returns the exit status."""
    from vision.synth.scenes import synthesize

    designs = designs_from(args)
    synthesize(
        args.n,
        args.out,
        args.seed,
        designs,
        imgsz=args.imgsz,
        split=args.split,
        small_share=args.small_cards,
        joker_share=args.jokers,
        square_bowls=args.square_bowls,
    )
    print(f"wrote {args.n} images to {args.out / 'images' / args.split}")
    return 0


def add_negatives_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``negatives``: the phantom-card check set (card-free scenes, empty YOLO labels)."""
    p: argparse.ArgumentParser = sub.add_parser(
        "negatives",
        help="write the phantom-card check set: printed pages, score sheets, packaging, cloths",
    )
    p.add_argument("--n", type=int, required=True, help="number of images")
    p.add_argument("--out", type=Path, required=True, help="dataset folder")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    p.add_argument("--imgsz", type=int, default=640, help="image side in pixels (default 640)")
    p.add_argument("--split", default="test", help="split folder name (default test)")
    p.set_defaults(func=run_negatives)
    return p


def run_negatives(args: argparse.Namespace) -> int:
    """Run ``vision negatives``; prints how many images of each kind were written."""
    from vision.synth.negatives import synthesize_negatives

    counts = synthesize_negatives(args.n, args.out, args.seed, args.imgsz, args.split)
    kinds = ", ".join(f"{k} {v}" for k, v in counts.items())
    print(f"wrote {args.n} card-free images ({kinds}) to {args.out / 'images' / args.split}")
    return 0


def add_crops_parser(sub: argparse._SubParsersAction) -> argparse.ArgumentParser:  # type: ignore[type-arg]
    """Add ``crops``: write corner-index crops (classification layout) cut from synthetic scenes."""
    p: argparse.ArgumentParser = sub.add_parser(
        "crops", help="write corner-index crops for the card classifier"
    )
    p.add_argument("--scenes", type=int, required=True, help="number of scenes to render")
    p.add_argument("--out", type=Path, required=True, help="dataset folder")
    p.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    _add_designs_arguments(p, "procedural,byron_knoll")
    p.add_argument("--sizes", default="320,640", help="scene sides in pixels, one drawn per scene")
    p.add_argument("--split", default="train", help="split folder name (default train)")
    p.add_argument("--workers", type=int, default=2, help="rendering processes (default 2)")
    p.add_argument(
        "--text-negatives",
        type=int,
        default=1,
        help="printed-text 'none' crops per scene (words, letter stacks, lone ranks; default 1)",
    )
    p.add_argument(
        "--phantom-scenes",
        type=int,
        default=0,
        metavar="N",
        help="also cut 'none' crops from the lettering of N card-free scenes (score sheets, "
        "printed pages, packaging; default 0)",
    )
    p.add_argument(
        "--picture-negatives",
        type=int,
        default=0,
        metavar="K",
        help="card-sized 'none' crops per scene, and per phantom scene (court art, packaging "
        "pictures: what a localiser boxes whole; default 0)",
    )
    p.add_argument(
        "--face-crops",
        type=int,
        default=0,
        metavar="K",
        help="crops of up to K cards' visible faces per scene (a lone card, a fan's strip), "
        "jokers first: a joker's labelled a joker, any other card's 'none' (default 0)",
    )
    p.add_argument(
        "--corner-crops",
        type=int,
        default=0,
        metavar="K",
        help="the four corner marks of up to K cards lying alone per scene, jokers first, cut "
        "where the table's zone reader reads them: labelled the card where its index or "
        "joker mark lies, else 'none' (default 0)",
    )
    p.add_argument(
        "--ace-crops",
        type=int,
        default=0,
        metavar="K",
        help="up to K aces in view per scene as 'none', whole and at their middle at an "
        "index's size: a big pip, an ornate ace of spades, a maker's lettering (default 0)",
    )
    p.add_argument(
        "--mine-with",
        type=Path,
        default=None,
        metavar="MODEL",
        help="a pair's card_detector.onnx (its classifier beside it): each box it finds where "
        "no corner index shows, and in the phantom scenes each box it finds, becomes a 'none' "
        "crop: its own false alarms (default: none)",
    )
    _add_jokers_argument(p)
    p.set_defaults(func=run_crops)
    return p


def run_crops(args: argparse.Namespace) -> int:
    """Run ``vision crops``; prints how many crops were written."""
    from vision.synth.crop_data import synthesize_crops

    designs = designs_from(args)
    sizes = [int(s) for s in args.sizes.split(",") if s.strip()]
    if args.mine_with is not None:
        from vision.detector import CardDetector

        CardDetector(args.mine_with)  # a bad model is one line (ModelError) before any rendering
    n = synthesize_crops(
        args.scenes,
        args.out,
        args.seed,
        designs,
        sizes,
        args.split,
        workers=args.workers,
        text_negatives=args.text_negatives,
        joker_share=args.jokers,
        square_bowls=args.square_bowls,
        picture_negatives=args.picture_negatives,
        face_crops=args.face_crops,
        mine_with=args.mine_with,
        small_share=args.small_cards,
        corner_crops=args.corner_crops,
        ace_crops=args.ace_crops,
    )
    if args.phantom_scenes:
        from vision.synth.crop_data import synthesize_phantom_crops

        n += synthesize_phantom_crops(
            args.phantom_scenes,
            args.out,
            args.seed,
            args.split,
            pictures=args.picture_negatives,
            mine_with=args.mine_with,
        )
    print(f"wrote {n} crops from {args.scenes} scenes to {args.out / args.split}")
    return 0


def main_synth(argv: list[str] | None = None) -> int:
    """Stand-alone entry: ``python -m chaodipi.cli.vision_commands --n N --out DIR …`` runs
    ``synth``."""
    parser = argparse.ArgumentParser(prog="chaodipi vision synth")
    sub = parser.add_subparsers(dest="vision_command", required=True)
    add_synth_parser(sub)
    args = parser.parse_args(["synth", *(argv or [])])
    return int(args.func(args))


if __name__ == "__main__":
    import sys

    raise SystemExit(main_synth(sys.argv[1:]))
