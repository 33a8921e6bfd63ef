"""Training the card detector with ultralytics (the ``train`` extra), offline, on the CPU.

This module owns the recipe: a YOLO11n built from its YAML (no pretrained weights can be
fetched), trained from scratch on a synthetic dataset (``chaodipi vision synth``), resumable
from the run's ``last.pt``, and exported to ONNX for the runtime (:mod:`vision.detector`), which
needs neither ultralytics nor torch. Ultralytics never reaches the network: ``YOLO_OFFLINE``,
no auto-install, a config folder of our own with a bundled font (see
``shared/notes/training-on-cpu.md``).
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[2]
DEFAULT_MODEL_PATH = REPO_ROOT / "models" / "card_detector.onnx"
DEFAULT_CLASSIFIER_PATH = REPO_ROOT / "models" / "card_classifier.onnx"

# Augmentation suited to corner indices: no mirror images (a mirrored "7" is not a card), no
# extra rotation or shear (the scenes are already rotated and warped, and rotated boxes grow).
# From scratch the learning rate must be a training one: ultralytics' "auto" optimizer picks
# AdamW at 0.002·5/(4+nc) ≈ 0.00017 for short runs, a fine-tuning rate that barely moves
# randomly initialised weights (measured: mAP50 0.005 after 6 epochs).
OPTIMIZER: dict[str, Any] = {"optimizer": "AdamW", "lr0": 0.002, "warmup_epochs": 1.0}

AUGMENT: dict[str, Any] = {
    "fliplr": 0.0,
    "flipud": 0.0,
    "degrees": 0.0,
    "shear": 0.0,
    "mosaic": 1.0,
    "close_mosaic": 3,
    "scale": 0.35,
    "translate": 0.1,
    "hsv_h": 0.02,
    "hsv_s": 0.5,
    "hsv_v": 0.4,
}

# The classifier's crops are already jittered and resampled by ``vision.crops``; here only a
# mild random crop (80–100% of the area), colour and erasing (occlusion). Never mirrored.
CLASSIFY_AUGMENT: dict[str, Any] = {
    "fliplr": 0.0,
    "flipud": 0.0,
    "scale": 0.2,
    "auto_augment": None,
    "erasing": 0.2,
    "hsv_h": 0.02,
    "hsv_s": 0.5,
    "hsv_v": 0.4,
}


def _optimizer(lr0: float | None) -> dict[str, Any]:
    """:data:`OPTIMIZER`, with ``lr0`` (when given) in place of its from-scratch rate."""
    return {**OPTIMIZER, **({"lr0": lr0} if lr0 else {})}


class TrainError(RuntimeError):
    """Training cannot start; the message says what is missing and how to fix it."""


@dataclass(frozen=True)
class TrainResult:
    run_dir: str
    best_weights: str
    onnx_path: str | None
    epochs: int
    imgsz: int
    seconds: float
    metrics: dict[str, float]


def prepare_offline(config_dir: Path | None = None) -> Path:
    """Set the switches that keep ultralytics offline; call before importing it."""
    cfg = config_dir or REPO_ROOT / ".cache" / "ultralytics"
    font_dir = cfg / "Ultralytics"
    font_dir.mkdir(parents=True, exist_ok=True)
    os.environ["YOLO_OFFLINE"] = "1"
    os.environ["YOLO_AUTOINSTALL"] = "False"
    os.environ["YOLO_CONFIG_DIR"] = str(cfg)
    os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
    for font in ("Arial.ttf", "Arial.Unicode.ttf"):
        target = font_dir / font
        if not target.exists():
            import matplotlib

            source = Path(matplotlib.get_data_path()) / "fonts" / "ttf" / "DejaVuSans.ttf"
            shutil.copyfile(source, target)
    return cfg


def _import_ultralytics() -> Any:
    prepare_offline()
    try:
        import ultralytics
    except ImportError:
        raise TrainError(
            "ultralytics is not installed: run `pip install -e '.[train]'` (the train extra)"
        ) from None
    return ultralytics


def train(
    data: Path,
    *,
    epochs: int = 30,
    imgsz: int = 320,
    batch: int = 16,
    threads: int = 2,
    project: Path = REPO_ROOT / "runs",
    name: str = "cards",
    model_yaml: str = "yolo11n.yaml",
    export_to: Path | None = None,
    resume: bool = True,
    validate: bool = True,
    fraction: float = 1.0,
    workers: int = 0,
    hours: float | None = None,
    single_class: bool = False,
    lr0: float | None = None,
    device: str = "cpu",
) -> TrainResult:
    """Train (or resume) a detector on the YOLO dataset ``data`` and export it to ONNX.

    ``single_class`` trains a *localiser* (one class, "corner index"; ``vision.classifier``
    reads the identity): the box layers carry over from a ``.pt`` start, the class head is new.

    ``hours`` bounds the run by wall-clock time instead of ``epochs`` (ultralytics fits its
    learning-rate schedule to the time), which keeps a run inside a time budget. ``lr0``
    overrides the from-scratch rate (e.g. a quarter of it to fine-tune a trained model).
    ``export_to`` is where the best weights go as ONNX (``None``: no export; the bundled
    ``models/card_detector.onnx`` is replaced only when named). ``device`` is torch's: ``cpu``,
    or ``0`` for the first CUDA GPU, with ``workers`` data-loading processes.
    """
    yaml_path = data / "data.yaml" if data.is_dir() else data
    if not yaml_path.is_file():
        raise TrainError(f"dataset {data} has no data.yaml: make one with `chaodipi vision synth`")
    settings = {
        "data": str(yaml_path),
        "epochs": epochs,
        "imgsz": imgsz,
        "batch": batch,
        "fraction": fraction,
        "workers": workers,
        "device": device,
        "single_cls": single_class,
        **_optimizer(lr0),
        **AUGMENT,
    }
    return _fit(
        model_yaml, settings, threads, project, name, resume, validate, hours, imgsz, export_to
    )


def train_classifier(
    data: Path,
    *,
    epochs: int = 20,
    imgsz: int = 64,
    batch: int = 128,
    threads: int = 2,
    project: Path = REPO_ROOT / "runs",
    name: str = "card_classifier",
    model_yaml: str = "yolo11n-cls.yaml",
    export_to: Path | None = None,
    resume: bool = True,
    hours: float | None = None,
    lr0: float | None = None,
    device: str = "cpu",
    workers: int = 0,
) -> TrainResult:
    """Train (or resume) the corner-index classifier on ``data`` (``vision crops`` output).

    ``lr0`` overrides the from-scratch rate, e.g. a quarter of it to continue a trained model.
    ``export_to`` as for :func:`train` (the runtime's classifier is built from chosen runs with
    :func:`average_onnx`, read upright and turned, so a plain export never replaces it by itself).
    """
    if not (data / "train").is_dir() or not (data / "val").is_dir():
        raise TrainError(
            f"dataset {data} needs train/ and val/ class folders: "
            "make them with `chaodipi vision crops` (twice: --split train and --split val)"
        )
    settings = {
        "data": str(data),
        "epochs": epochs,
        "imgsz": imgsz,
        "batch": batch,
        "workers": workers,
        "device": device,
        **_optimizer(lr0),
        **CLASSIFY_AUGMENT,
    }
    missing = sorted(
        d.name
        for d in (data / "train").iterdir()
        if d.is_dir() and not (data / "val" / d.name).is_dir()
    )
    if missing:
        raise TrainError(
            f"dataset {data}: val/ has no folder for the classes {' '.join(missing)}: make both "
            "splits with `chaodipi vision crops` (an empty class folder is fine)"
        )
    logging.getLogger("ultralytics").addFilter(VAL_CLASSES_ABSENT)  # ultralytics' own logger
    return _fit(model_yaml, settings, threads, project, name, resume, True, hours, imgsz, export_to)


class _ValClassesAbsent(logging.Filter):
    """Drops ultralytics' "val … found N images in 54 classes (requires 55…)" error: a small val
    split (``deck adapt``'s) may hold no crop of a class, whose folder is then empty; the class
    folders themselves match train's (checked above), so the indices agree."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "classes (requires" not in record.getMessage()


VAL_CLASSES_ABSENT = _ValClassesAbsent()


def _fit(
    model_source: str,
    settings: dict[str, Any],
    threads: int,
    project: Path,
    name: str,
    resume: bool,
    validate: bool,
    hours: float | None,
    imgsz: int,
    export_to: Path | None,
) -> TrainResult:
    """Start or resume one ultralytics run, then export its best weights to ONNX."""
    ultralytics = _import_ultralytics()
    import torch

    def use_threads(_: Any) -> None:
        torch.set_num_threads(threads)  # ultralytics sets cpu_count - 1 on the CPU

    run_dir = project / name
    last = run_dir / "weights" / "last.pt"
    start = time.perf_counter()
    if resume and last.is_file() and not _finished(run_dir, int(settings["epochs"])):
        model = ultralytics.YOLO(str(last))
        model.add_callback("on_pretrain_routine_end", use_threads)
        model.train(resume=True)
    else:
        if run_dir.exists():
            shutil.rmtree(run_dir)
        model = ultralytics.YOLO(model_source)
        model.add_callback("on_pretrain_routine_end", use_threads)
        model.train(
            project=str(project),
            name=name,
            exist_ok=True,
            pretrained=model_source.endswith(".pt"),  # continue from our own weights, else scratch
            amp=False,
            plots=False,
            val=validate,
            seed=0,
            **({"time": hours} if hours else {}),
            deterministic=False,
            verbose=False,
            **settings,
        )
    seconds = time.perf_counter() - start
    best = run_dir / "weights" / "best.pt"
    if not best.is_file():
        best = last
    metrics = _final_metrics(run_dir)
    onnx_path = export_onnx(best, imgsz, export_to) if export_to is not None else None
    result = TrainResult(
        run_dir=str(run_dir),
        best_weights=str(best),
        onnx_path=None if onnx_path is None else str(onnx_path),
        epochs=len(_results_rows(run_dir)) or int(settings["epochs"]),  # --hours stops early
        imgsz=imgsz,
        seconds=round(seconds, 1),
        metrics=metrics,
    )
    (run_dir / "train_result.json").write_text(json.dumps(asdict(result), indent=2), "utf-8")
    return result


def export_onnx(weights: Path, imgsz: int, target: Path) -> Path:
    """Export ``weights`` to ONNX (dynamic batch, for batched tiles) and move it to ``target``.

    Ultralytics writes the ONNX beside the weights it reads, so it reads a copy in a scratch
    folder: exporting ``models/baseline/last.pt`` leaves nothing new in ``models/``.
    """
    ultralytics = _import_ultralytics()
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="chaodipi-export-") as scratch:
        source = Path(scratch) / weights.name
        shutil.copyfile(weights, source)
        model = ultralytics.YOLO(str(source))
        exported = model.export(format="onnx", imgsz=imgsz, dynamic=True, simplify=True, opset=17)
        tmp = target.with_suffix(".onnx.tmp")
        shutil.copyfile(Path(exported), tmp)
    tmp.replace(target)  # atomic: a reader never sees half a model
    return target


def set_joker_conf(model: Path, bar: float) -> Path:
    """Write the joker bar a pair reads at into its localiser ``model`` (ONNX metadata
    :data:`vision.detector.JOKER_CONF_KEY`, which ``CardDetector`` takes when given none), in
    place and atomically. Needs the ``onnx`` package (installed with ultralytics)."""
    from vision.detector import JOKER_CONF_KEY

    if not 0.0 < bar <= 1.0:
        raise ValueError(f"a joker bar is a confidence in (0, 1], not {bar}")
    return _set_metadata(model, {JOKER_CONF_KEY: bar})


def set_joker_size(model: Path, ratio: float) -> Path:
    """Write how much longer than an index a weakly localised box must be to be read as a
    picture joker into the localiser ``model`` (ONNX metadata
    :data:`vision.detector.JOKER_SIZE_KEY`, ``CardDetector.joker_size_ratio`` when given none),
    in place and atomically. 0: a weakly localised box of any size (a deck's own pair that
    reads its star-marked jokers' small boxes, ``deck adapt``)."""
    from vision.detector import JOKER_SIZE_KEY

    if not (ratio == 0.0 or 1.0 <= ratio <= 8.0):
        raise ValueError(
            f"a picture joker's size ratio is 1 to 8 index sides (0: any size), not {ratio}"
        )
    return _set_metadata(model, {JOKER_SIZE_KEY: ratio})


def carry_pair_settings(source: Path, target: Path) -> Path:
    """Write the joker bar and picture-joker size ratio the localiser ``source`` carries (those
    it carries) into the localiser ``target``: a pair made from another keeps its settings."""
    import onnx

    from vision.detector import JOKER_CONF_KEY, JOKER_SIZE_KEY

    carried = {p.key: p.value for p in onnx.load(str(source)).metadata_props}
    settings = {k: float(carried[k]) for k in (JOKER_CONF_KEY, JOKER_SIZE_KEY) if k in carried}
    return _set_metadata(target, settings) if settings else target


def _set_metadata(model: Path, values: dict[str, float]) -> Path:
    """Write ``values`` into the ONNX ``model``'s metadata (each key replaced, not added), in
    one load and one atomic save."""
    import onnx

    proto = onnx.load(str(model))
    kept = [p for p in proto.metadata_props if p.key not in values]
    del proto.metadata_props[:]
    proto.metadata_props.extend(kept)
    for key, value in values.items():
        proto.metadata_props.add(key=key, value=repr(float(value)))
    tmp = model.with_suffix(".onnx.tmp")
    onnx.save(proto, str(tmp))
    tmp.replace(model)
    return model


def average_onnx(
    models: list[Path], target: Path, half_turned: Sequence[bool] | None = None
) -> Path:
    """One ONNX model whose output is the mean of ``models``' outputs on the same input (an
    ensemble of classifiers that read the same 64 px crop). Each model's names are prefixed
    apart; the first model's input, output type and metadata (class names) stand for all.
    ``half_turned[k]`` makes model ``k`` read the crop turned 180° (an NCHW image reversed
    along H and W): a card's corner index reads the same either way up, so the two readings
    are two looks at one index for the price of one (held-out crops, ``cls_v10`` + ``cls_v12``:
    0.854 both upright, 0.876 with the second turned). A model named twice keeps one copy of
    its weights. Needs the ``onnx`` package (installed with ultralytics); the runtime needs
    only onnxruntime."""
    import copy

    import onnx
    from onnx import compose, helper

    if len(models) < 2:
        raise ValueError(f"average_onnx needs two or more models, got {len(models)}")
    turned = list(half_turned) if half_turned is not None else [False] * len(models)
    if len(turned) != len(models):
        raise ValueError(f"half_turned names {len(turned)} models, not {len(models)}")
    first = onnx.load(str(models[0]))
    graph = first.graph
    image = graph.input[0].name
    nodes: list[Any] = []
    initializers: list[Any] = []
    if any(turned):
        # Slice H and W (axes 2, 3) from the last element back past the first, step -1.
        turn = {
            "turn_starts": [-1, -1],
            "turn_ends": [-(2**62), -(2**62)],
            "turn_axes": [2, 3],
            "turn_steps": [-1, -1],
        }
        for name, ints in turn.items():
            initializers.append(helper.make_tensor(name, onnx.TensorProto.INT64, [2], ints))
        nodes.append(helper.make_node("Slice", [image, *turn], ["turned"]))
    outputs = []
    seen: list[bytes] = []
    for k, path in enumerate(models):
        model = onnx.load(str(path)) if k else first
        prefix = f"m{k}_" if k else ""
        weights = path.read_bytes()
        repeat = weights in seen  # the same model again (read turned): its weights are shared
        seen.append(weights)
        if repeat:
            _prefix_all_but_weights(model.graph, prefix)
        elif k:
            model = compose.add_prefix(model, prefix=prefix)
        source = "turned" if turned[k] else image
        for node in model.graph.node:  # every model reads the one shared input (or it turned)
            node.input[:] = [source if x == f"{prefix}{image}" else x for x in node.input]
        nodes += list(model.graph.node)
        if not repeat:
            initializers += list(model.graph.initializer)
        outputs.append(model.graph.output[0].name)
    weight = helper.make_tensor("mean_weight", onnx.TensorProto.FLOAT, [], [1 / len(outputs)])
    nodes += [
        helper.make_node("Sum", outputs, ["mean_sum"]),
        helper.make_node("Mul", ["mean_sum", "mean_weight"], ["mean"]),
    ]
    output = copy.deepcopy(graph.output[0])
    output.name = "mean"
    merged = helper.make_model(
        helper.make_graph(nodes, "mean", [graph.input[0]], [output], [*initializers, weight]),
        opset_imports=first.opset_import,
    )
    merged.ir_version = first.ir_version
    merged.metadata_props.extend(first.metadata_props)
    onnx.checker.check_model(merged)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".onnx.tmp")
    onnx.save(merged, str(tmp))
    tmp.replace(target)
    return target


def _prefix_all_but_weights(graph: Any, prefix: str) -> None:
    """Prefixes a graph's node names and edges, not its initializers: a second copy of a
    model in one graph that reads the first copy's weights."""
    weights = {init.name for init in graph.initializer}

    def renamed(name: str) -> str:
        return name if not name or name in weights else prefix + name

    for node in graph.node:
        node.name = prefix + node.name
        node.input[:] = [renamed(x) for x in node.input]
        node.output[:] = [renamed(x) for x in node.output]
    for output in graph.output:
        output.name = renamed(output.name)


def _finished(run_dir: Path, epochs: int) -> bool:
    rows = _results_rows(run_dir)
    return len(rows) >= epochs


def _results_rows(run_dir: Path) -> list[dict[str, str]]:
    path = run_dir / "results.csv"
    if not path.is_file():
        return []
    lines = path.read_text(encoding="utf-8").strip().splitlines()
    header = [h.strip() for h in lines[0].split(",")]
    return [
        dict(zip(header, (v.strip() for v in line.split(",")), strict=False)) for line in lines[1:]
    ]


def _final_metrics(run_dir: Path) -> dict[str, float]:
    rows = _results_rows(run_dir)
    if not rows:
        return {}
    out: dict[str, float] = {}
    for key, value in rows[-1].items():
        try:
            out[key] = float(value)
        except ValueError:
            continue
    return out
