"""How the classifier reads the cards' visible faces: what the table asks it about a card-sized
blob no index explains and about a fan's strip (``vision/zone_reads.py``, ``vision/fan_strips.py``).

Renders synthetic scenes at the table camera's card scale with jokers mixed into the fans
(``vision.synth.scenes.render_scene``), cuts every face card's visible part the way the table
does (the index crop of its box, ``CardClassifier.classify``) and counts, for whole faces and
for strips (a visible part narrower than ``STRIP_SHAPE`` of its length) apart: jokers read as
that joker at ``STRIP_JOKER_CONF`` or more, as the other joker, or not at all; other cards
read as a joker.

    python bench/face_reads.py --deck-root ROOT --side validation [--n 150] [--seed 77]
        [--classifier models/card_classifier.onnx] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import cv2
import numpy as np

from vision.classes import JOKERS
from vision.classifier import DEFAULT_CLASSIFIER, CardClassifier
from vision.fan_strips import STRIP_JOKER_CONF
from vision.synth.design_split import decks_on_side
from vision.synth.scenes import progress, render_scene

STRIP_SHAPE = 0.6


def face_reads(
    classifier: CardClassifier, designs: list[str], n: int, seed: int
) -> dict[str, dict[str, dict[str, int]]]:
    """``{whole|strip: {BJ|SJ|card: {read as: count}}}`` over ``n`` scenes."""
    tally: Counter[tuple[str, str, str]] = Counter()
    bar = iter(progress(n, "scenes"))
    for i in range(n):
        rng = np.random.default_rng(seed * 1_000_003 + i)
        faces: list[tuple[str, tuple[float, float, float, float]]] = []
        image, _ = render_scene(
            rng, designs, 640, seed, small_share=1.0, joker_share=0.6, faces_seen=faces
        )
        next(bar, None)
        if not faces:
            continue
        reads = classifier.classify(cv2.cvtColor(image, cv2.COLOR_RGB2BGR), [b for _, b in faces])
        for (identity, (x0, y0, x1, y1)), (read, probability) in zip(faces, reads, strict=True):
            shape = min(x1 - x0, y1 - y0) / max(x1 - x0, y1 - y0, 1e-6)
            kind = "strip" if shape < STRIP_SHAPE else "whole"
            truth = identity if identity in JOKERS else "card"
            said = read if read in JOKERS and probability >= STRIP_JOKER_CONF else "no joker"
            tally[(kind, truth, said)] += 1
    table: dict[str, dict[str, dict[str, int]]] = {}
    for (kind, truth, said), count in sorted(tally.items()):
        table.setdefault(kind, {}).setdefault(truth, {})[said] = count
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deck-root", type=Path, required=True, help="folder of deck folders")
    parser.add_argument("--side", choices=("train", "validation"), default="validation")
    parser.add_argument("--n", type=int, default=150, help="scenes")
    parser.add_argument("--seed", type=int, default=77)
    parser.add_argument("--classifier", type=Path, default=DEFAULT_CLASSIFIER)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not args.deck_root.is_dir():
        print(f"--deck-root {args.deck_root}: no such folder (give the deck folders' folder)")
        return 2
    designs = decks_on_side(args.side, args.deck_root)
    table = face_reads(CardClassifier(args.classifier), designs, args.n, args.seed)
    if args.json:
        print(json.dumps(table, indent=1))
        return 0
    for kind, rows in table.items():
        for truth, reads in rows.items():
            said = ", ".join(f"{read} {count}" for read, count in reads.items())
            print(f"{kind:5s} {truth:4s} {sum(reads.values()):4d}: {said}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
