"""The bundled demo footage (``chaodipi/demo/``): where it is and how it is made again.

This module owns the recipe of the clip that ``chaodipi demo`` plays: a hand simulated under
the ``XX`` rules with a 5-second play clock (so one minute of footage holds an over-time play)
and two planted infractions — a revoke and an over-time play — rendered by ``chaodipi render``
in the card design held out of detector training, cut after the fifth trick is swept. The
committed clip was made at 0a2f6c0, where it is the same as running::

    printf 'play_time_limit_s = 5\\n' > rules.toml
    chaodipi simulate --rules XX --seed 1101 --inject revoke,overtime \\
        --overrides rules.toml --out hand.json
    chaodipi render hand.json chaodipi/demo/demo.mp4 --seed 7 --max-seconds 68.4 --size 2304x1296
    cp hand.truth.json chaodipi/demo/demo.truth.json

The simulator has since learnt the draw and the bidding (:mod:`engine.preplay`), which deal
another hand from the same seed: regenerating now makes a clip of that hand, not the committed
one. Regenerate with ``python -m chaodipi.demo.clip [OUT_DIR]`` (default: the package's ``demo/``
folder, whose old clip files are replaced). The output is deterministic for one OpenCV build
(the encoder is OpenCV's MPEG-4 Part 2, ``mp4v``, the codec every OpenCV wheel can write).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path

DEMO_DIR = Path(__file__).resolve().parent
CLIP_NAME = "demo.mp4"
CLIP = DEMO_DIR / CLIP_NAME

RULES = "XX"
SEED = 1101
INJECT = ("revoke", "overtime")
OVERRIDES = {"play_time_limit_s": 5}
RENDER_SEED = 7  # green felt; table, camera pose, layout, hands and lighting
FPS = 10.0
SIZE = (2304, 1296)  # the Pi camera's binned mode: a quarter of the full sensor's bytes
MAX_SECONDS = 68.4  # the fifth trick is swept at 67.7 s; the sixth lead's hand reaches in at 68.5 s

CLIP_SUFFIXES = (".mp4", ".record.json", ".truth.jsonl", ".render.json", ".truth.json")


def clip_files(out_dir: Path) -> list[Path]:
    """The files of the clip in ``out_dir`` (the video and what lies beside it)."""
    stem = Path(CLIP_NAME).stem
    return [out_dir / f"{stem}{suffix}" for suffix in CLIP_SUFFIXES]


def make_clip(out_dir: Path = DEMO_DIR) -> Path:
    """Simulate, render and write the demo clip into ``out_dir``; returns the video's path."""
    from engine.simulate import simulate_hand
    from vision.synth.render import render_hand

    record, injected = simulate_hand(RULES, SEED, INJECT, overrides=OVERRIDES)
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in clip_files(out_dir):
        old.unlink(missing_ok=True)
    video = out_dir / CLIP_NAME
    render_hand(record, video, fps=FPS, size=SIZE, seed=RENDER_SEED, max_seconds=MAX_SECONDS)
    truth = json.dumps({"injected": injected}, ensure_ascii=False, indent=1)
    (out_dir / f"{video.stem}.truth.json").write_text(truth + "\n", encoding="utf-8")
    return video


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m chaodipi.demo.clip", description="regenerate the bundled demo clip"
    )
    parser.add_argument("out_dir", nargs="?", type=Path, default=DEMO_DIR)
    args = parser.parse_args(argv)
    video = make_clip(args.out_dir)
    size_mb = video.stat().st_size / 1e6
    beside = ", ".join(p.name for p in clip_files(video.parent)[1:])
    print(f"wrote {video} ({size_mb:.1f} MB) and {beside}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
