"""The training path never rots: a handful of synthetic images, one epoch, small input; and
classifiers averaged into one ONNX model (an ensemble the runtime loads as one file).

Needs the ``train`` extra (ultralytics + torch); skipped where it is not installed.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

needs_train_extra = pytest.mark.skipif(
    importlib.util.find_spec("ultralytics") is None,
    reason="training needs the train extra: pip install -e '.[train]'",
)


@needs_train_extra
def test_one_epoch_on_a_few_synthetic_images_trains_and_exports_an_onnx_model(
    tmp_path: Path,
) -> None:
    from vision.synth.scenes import synthesize
    from vision.training.train import train

    data = tmp_path / "data"
    synthesize(6, data, seed=1, designs=["procedural"], imgsz=96, split="train")
    result = train(
        data,
        epochs=1,
        imgsz=96,
        batch=3,
        threads=1,
        project=tmp_path / "runs",
        name="smoke",
        export_to=tmp_path / "smoke.onnx",
    )
    assert Path(result.best_weights).is_file()
    assert result.onnx_path is not None and Path(result.onnx_path).stat().st_size > 1_000_000


def test_classifiers_averaged_into_one_onnx_read_as_the_mean_of_their_outputs(
    tmp_path: Path,
) -> None:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from vision.training.train import average_onnx

    def scaled(factor: float, path: Path) -> Path:
        """A stand-in classifier: its "probabilities" are its input times ``factor``."""
        k = helper.make_tensor("k", TensorProto.FLOAT, [], [factor])
        graph = helper.make_graph(
            [helper.make_node("Mul", ["images", "k"], ["output0"])],
            "scaled",
            [helper.make_tensor_value_info("images", TensorProto.FLOAT, ["batch", 4])],
            [helper.make_tensor_value_info("output0", TensorProto.FLOAT, ["batch", 4])],
            [k],
        )
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
        model.metadata_props.add(key="names", value="{0: 'AS'}")
        onnx.save(model, str(path))
        return path

    merged = average_onnx(
        [scaled(1.0, tmp_path / "a.onnx"), scaled(3.0, tmp_path / "b.onnx")],
        tmp_path / "mean.onnx",
    )
    session = ort.InferenceSession(str(merged), providers=["CPUExecutionProvider"])
    x = np.arange(8, dtype=np.float32).reshape(2, 4)
    np.testing.assert_allclose(session.run(None, {"images": x})[0], 2.0 * x)
    assert session.get_modelmeta().custom_metadata_map["names"] == "{0: 'AS'}"
    with pytest.raises(ValueError, match="two or more"):
        average_onnx([tmp_path / "a.onnx"], tmp_path / "one.onnx")
    # One model read twice (upright and turned) keeps a single copy of its weights.
    twice = average_onnx([tmp_path / "b.onnx"] * 2, tmp_path / "twice.onnx")
    weights = [init.name for init in onnx.load(str(twice)).graph.initializer]
    assert weights.count("k") == 1 and not any(name.endswith("_k") for name in weights)
    session = ort.InferenceSession(str(twice), providers=["CPUExecutionProvider"])
    np.testing.assert_allclose(session.run(None, {"images": x})[0], 3.0 * x)


def test_an_averaged_classifier_can_read_the_crop_turned_half_way_round(tmp_path: Path) -> None:
    import numpy as np
    import onnx
    import onnxruntime as ort
    from onnx import TensorProto, helper

    from vision.training.train import average_onnx

    def identity(path: Path) -> Path:
        """A stand-in classifier whose "probabilities" are its NCHW input."""
        shape = ["batch", 1, 2, 3]
        graph = helper.make_graph(
            [helper.make_node("Identity", ["images"], ["output0"])],
            "identity",
            [helper.make_tensor_value_info("images", TensorProto.FLOAT, shape)],
            [helper.make_tensor_value_info("output0", TensorProto.FLOAT, shape)],
        )
        onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)]), path)
        return path

    a, b = identity(tmp_path / "a.onnx"), identity(tmp_path / "b.onnx")
    merged = average_onnx([a, b], tmp_path / "mean.onnx", half_turned=[False, True])
    session = ort.InferenceSession(str(merged), providers=["CPUExecutionProvider"])
    x = np.arange(6, dtype=np.float32).reshape(1, 1, 2, 3)
    turned = x[:, :, ::-1, ::-1]
    np.testing.assert_allclose(session.run(None, {"images": x})[0], (x + turned) / 2)
    with pytest.raises(ValueError, match="names 1 models"):
        average_onnx([a, b], tmp_path / "bad.onnx", half_turned=[True])


@pytest.mark.parametrize(
    ("command", "onnx_name"),
    [("train", "card_detector.onnx"), ("train-classifier", "card_classifier.onnx")],
)
def test_a_training_run_exports_into_its_own_folder_unless_told_where(
    tmp_path: Path, command: str, onnx_name: str
) -> None:
    from chaodipi.cli.main import build_parser
    from chaodipi.cli.vision_commands import _run_settings

    parser = build_parser()
    common = ["vision", command, "--data", "d", "--project", str(tmp_path), "--name", "r1"]
    args = parser.parse_args(common)
    assert _run_settings(args)["export_to"] == tmp_path / "r1" / onnx_name
    args = parser.parse_args([*common, "--export", "models/x.onnx"])
    assert _run_settings(args)["export_to"] == Path("models/x.onnx")


def test_a_pair_carries_its_joker_bar_and_an_explicit_bar_overrides_it(tmp_path: Path) -> None:
    from tests.tiny_models import tiny_classifier, tiny_localiser
    from vision.detector import CardDetector
    from vision.training.train import set_joker_conf

    model = tiny_localiser(tmp_path / "card_detector.onnx")
    tiny_classifier(tmp_path / "card_classifier.onnx")
    assert CardDetector(model, conf=0.5).joker_bar == 0.5  # none carried: the read bar
    set_joker_conf(model, 0.95)
    set_joker_conf(model, 0.9)  # written again: replaced, not added
    assert CardDetector(model).joker_bar == 0.9
    assert CardDetector(model, joker_conf=0.6).joker_bar == 0.6
    with pytest.raises(ValueError, match="joker bar"):
        set_joker_conf(model, 1.5)


def test_a_pair_carries_its_picture_joker_size_and_an_explicit_one_overrides_it(
    tmp_path: Path,
) -> None:
    from tests.tiny_models import tiny_classifier, tiny_localiser
    from vision.detector import JOKER_SIZE_RATIO, CardDetector
    from vision.training.train import set_joker_conf, set_joker_size

    model = tiny_localiser(tmp_path / "card_detector.onnx")
    tiny_classifier(tmp_path / "card_classifier.onnx")
    assert CardDetector(model).joker_size == JOKER_SIZE_RATIO  # none carried: the default
    set_joker_conf(model, 0.9)
    set_joker_size(model, 3.0)
    assert CardDetector(model).joker_size == 3.0
    assert CardDetector(model).joker_bar == 0.9, "each setting kept beside the other"
    assert CardDetector(model, joker_size_ratio=2.5).joker_size == 2.5
    with pytest.raises(ValueError, match="size ratio"):
        set_joker_size(model, 0.5)
    set_joker_size(model, 0.0)
    assert CardDetector(model).joker_size == 0.0, "0: a weak box of any size"


def test_a_pair_made_from_another_carries_its_joker_settings(tmp_path: Path) -> None:
    from tests.tiny_models import tiny_classifier, tiny_localiser
    from vision.detector import CardDetector
    from vision.training.train import carry_pair_settings, set_joker_conf, set_joker_size

    base, made = tmp_path / "base", tmp_path / "made"
    for folder in (base, made):
        folder.mkdir()
        tiny_localiser(folder / "card_detector.onnx")
        tiny_classifier(folder / "card_classifier.onnx")
    set_joker_conf(base / "card_detector.onnx", 0.8)
    set_joker_size(base / "card_detector.onnx", 3.0)
    carry_pair_settings(base / "card_detector.onnx", made / "card_detector.onnx")
    detector = CardDetector(made / "card_detector.onnx")
    assert (detector.joker_bar, detector.joker_size) == (0.8, 3.0)
