"""This machine's speed against the Pi-5 rule's reference: yolo11n, ONNX, 640 px, one thread.

    .venv/bin/python bench/pi_reference.py [--runs 30] [--json]

The Pi budget (``chaodipi.table.pipeline.PI_SLOWDOWN``: one core here ≈ 4× a Raspberry Pi 5) was
stated for a development machine on which yolo11n at 640 px took 41.0 ms in onnxruntime on one
thread (``DEV_YOLO11N_640_MS``), against ≈ 170 ms on a Pi 5 (``PI5_YOLO11N_640_MS``,
ultralytics' published figure). Development VMs differ by half as much again, so a pipeline
benchmark is worth as much as the machine it ran on: this times the same network here and gives
the Pi's slowdown *for this machine* (170 ms / the time here), which ``pipeline_bench.py
--reference`` uses in place of the fixed 4×.

The network is built from ultralytics' ``yolo11n.yaml`` (random weights: the arithmetic is the
same as the trained one's; nothing is downloaded) and exported once to
``.cache/bench/yolo11n_640.onnx``; it needs the ``train`` extra (ultralytics, torch).
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from vision.training.train import REPO_ROOT, prepare_offline

PI5_YOLO11N_640_MS = 170.0
DEV_YOLO11N_640_MS = 41.0
REFERENCE_MODEL = REPO_ROOT / ".cache" / "bench" / "yolo11n_640.onnx"


def reference_model(target: Path = REFERENCE_MODEL) -> Path:
    """yolo11n at 640 px as ONNX (built and exported once, then kept at ``target``)."""
    if target.is_file():
        return target
    prepare_offline()
    try:
        from ultralytics import YOLO
    except ImportError:
        raise SystemExit(
            "bench/pi_reference.py: ultralytics is not installed: run "
            "`pip install -e '.[train]'` (the train extra)"
        ) from None
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chaodipi-reference-") as scratch:
        weights = Path(scratch) / "yolo11n.pt"
        YOLO("yolo11n.yaml").save(str(weights))
        exported = YOLO(str(weights)).export(format="onnx", imgsz=640, simplify=True, opset=17)
        shutil.copyfile(Path(exported), target.with_suffix(".tmp"))
    target.with_suffix(".tmp").replace(target)
    return target


def reference_ms(model: Path = REFERENCE_MODEL, runs: int = 30) -> float:
    """Median ms of one 640 px inference of ``model`` on one onnxruntime thread."""
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    image = np.random.default_rng(0).random((1, 3, 640, 640), dtype=np.float32)
    for _ in range(3):
        session.run(None, {name: image})
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        session.run(None, {name: image})
        times.append(1000 * (time.perf_counter() - start))
    return statistics.median(times)


def pi_slowdown(ms_here: float) -> float:
    """How many times slower a Pi 5 is than one core of this machine."""
    return PI5_YOLO11N_640_MS / ms_here


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30, help="timed inferences (median)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    ms = reference_ms(reference_model(), args.runs)
    out = {
        "yolo11n_640_ms": round(ms, 2),
        "vs_reference_machine": round(ms / DEV_YOLO11N_640_MS, 3),
        "pi_slowdown": round(pi_slowdown(ms), 3),
    }
    if args.json:
        print(json.dumps(out, indent=1))
    else:
        print(
            f"yolo11n 640 px, one thread: {ms:.1f} ms here = {out['vs_reference_machine']:.2f}× "
            f"the reference machine's {DEV_YOLO11N_640_MS:g} ms; a Pi 5 "
            f"({PI5_YOLO11N_640_MS:g} ms) is {out['pi_slowdown']:.2f}× slower than this core"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
