"""Evaluation by identity sets on a tiny hand-made YOLO dataset, with a fake detector; and the
error paths of the ``vision detect`` / ``vision eval`` commands."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from chaodipi.cli.detect_eval import (
    ImageError,
    add_detect_parser,
    add_eval_parser,
    cmd_detect,
    cmd_eval,
)
from vision.classes import CLASS_ID, CLASS_NAMES
from vision.detector import Detection, Tile
from vision.onnx_model import ModelError
from vision.training.evaluate import DatasetError, evaluate, load_class_names

# image file → (fill value, labelled identities, predicted identities)
SCENES = {
    "val/a.png": (10, ["AS", "10H"], ["AS", "10H"]),  # perfect
    "val/b.png": (20, ["AS", "KD"], ["AS", "BJ"]),  # KD missed, BJ wrong
    "c.png": (30, None, []),  # no label file: an empty table, read as empty
    "train/d.jpg": (40, ["2S", "2S"], ["2S"]),  # two copies: the set is {2S}
}


class FakeDetector:
    """Returns fixed detections per image, recognised by the image's fill value."""

    def detect(self, image: np.ndarray) -> list[Detection]:
        value = int(image[0, 0, 0])
        for fill, _, predicted in SCENES.values():
            if abs(fill - value) <= 2:
                return [
                    Detection(name, (10.0 + 30 * i, 10.0, 30.0 + 30 * i, 40.0), 0.5 + 0.1 * i)
                    for i, name in enumerate(predicted)
                ]
        raise AssertionError(f"unknown image {value}")


def make_dataset(root: Path, names_file: str = "classes.txt") -> Path:
    for rel, (fill, labels, _) in SCENES.items():
        image = root / "images" / rel
        image.parent.mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(image), np.full((120, 160, 3), fill, np.uint8))
        if labels is not None:
            label = root / "labels" / Path(rel).with_suffix(".txt")
            label.parent.mkdir(parents=True, exist_ok=True)
            lines = [f"{CLASS_ID[n]} 0.5 0.5 0.2 0.3" for n in labels]
            label.write_text("\n".join(lines) + "\n")
    if names_file == "classes.txt":
        (root / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")
    else:
        body = "".join(f"  {i}: {n}\n" for i, n in enumerate(CLASS_NAMES))
        (root / "data.yaml").write_text(f"path: .\nval: images\nnames:\n{body}")
    return root


@pytest.mark.parametrize("names_file", ["classes.txt", "data.yaml"])
def test_identity_precision_recall_and_perfect_images(tmp_path: Path, names_file: str) -> None:
    dataset = make_dataset(tmp_path / "ds", names_file)
    result = evaluate(dataset, FakeDetector(), None, show_progress=False)
    out = result.to_json()
    assert out["images"] == 4
    assert out["identity_precision"] == pytest.approx(0.8)  # 4 TP, 1 FP
    assert out["identity_recall"] == pytest.approx(0.8)  # 4 TP, 1 FN
    assert out["perfect_images"] == pytest.approx(0.75)
    assert list(out["per_class"]) == ["2S", "10H", "KD", "AS", "BJ"]
    assert out["per_class"]["AS"] == {"tp": 2, "fp": 0, "fn": 0, "precision": 1.0, "recall": 1.0}
    assert out["per_class"]["KD"] == {"tp": 0, "fp": 0, "fn": 1, "precision": None, "recall": 0.0}
    assert out["per_class"]["BJ"] == {"tp": 0, "fp": 1, "fn": 0, "precision": 0.0, "recall": None}
    assert out["mistakes"] == {
        "missed": {"cards": 1, "jokers": 0, "at_border": 0, "localised": 0},  # KD
        "false": {"cards": 0, "jokers": 1, "at_border": 0},  # BJ
    }
    assert json.loads(json.dumps(out)) == out
    assert sorted(r.image for r in result.images if not r.perfect) == ["val/b.png"]
    # (raw score, correct) pairs for calibration: BJ is the one wrong detection.
    assert sorted(c for _, c in result.scored) == [False, True, True, True, True]


def test_identities_only_at_the_image_border_are_also_scored_set_aside(tmp_path: Path) -> None:
    """An index the frame cuts is labelled or not by how much of it shows, and read or not by
    a coin's toss; the table camera never meets one. Both scores are given."""
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / "a.png"), np.full((120, 160, 3), 10, np.uint8))
    (root / "labels" / "a.txt").write_text(
        f"{CLASS_ID['AS']} 0.5 0.5 0.2 0.3\n{CLASS_ID['KD']} 0.05 0.5 0.1 0.3\n"  # KD: cut
    )
    (root / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")

    class Reads:
        def detect(self, image: np.ndarray) -> list[Detection]:
            return [
                Detection("AS", (64.0, 42.0, 96.0, 78.0), 0.9),
                Detection("QC", (0.0, 50.0, 20.0, 80.0), 0.6),  # at the border, wrong
            ]

    out = evaluate(root, Reads(), None, show_progress=False).to_json()
    assert (out["identity_precision"], out["identity_recall"]) == (0.5, 0.5)
    # KD, cut, and boxed: read as QC.
    assert out["mistakes"]["missed"] == {"cards": 1, "jokers": 0, "at_border": 1, "localised": 1}
    assert out["mistakes"]["false"] == {"cards": 1, "jokers": 0, "at_border": 1}  # QC
    away = out["away_from_border"]
    assert away["set_aside"] == 2
    assert (away["identity_precision"], away["identity_recall"]) == (1.0, 1.0)
    assert away["perfect_images"] == 1.0
    with (root / "labels" / "a.txt").open("a") as labels:
        labels.write(f"{CLASS_ID['QH']}\n")  # no box: where it lies is not known
    away = evaluate(root, Reads(), None, show_progress=False).to_json()["away_from_border"]
    assert (away["set_aside"], away["identity_recall"]) == (2, 0.5)  # QH missed, not set aside


def test_identities_no_index_of_which_shows_its_rank_and_suit_are_also_scored_set_aside(
    tmp_path: Path,
) -> None:
    """An 8 whose suit lies under the next card is labelled (60 % of its index shows) but
    says 8 of something: ``hidden/`` lists such labels, and the scores are also given with the
    identities all of whose labelled indices are listed there set aside, read or not."""
    root = tmp_path / "ds"
    for folder in ("images", "labels", "hidden"):
        (root / folder).mkdir(parents=True)
    cv2.imwrite(str(root / "images" / "a.png"), np.full((120, 160, 3), 10, np.uint8))
    as_box, eight_box, kd_other, qh_box = (
        "0.5 0.5 0.2 0.3",
        "0.3 0.3 0.1 0.2",
        "0.7 0.7 0.1 0.2",
        "0.2 0.7 0.1 0.2",
    )
    (root / "labels" / "a.txt").write_text(
        f"{CLASS_ID['AS']} {as_box}\n{CLASS_ID['8C']} {eight_box}\n"
        f"{CLASS_ID['QH']} {qh_box}\n{CLASS_ID['QH']} {kd_other}\n"
    )
    # 8C shows only its 8; one of QH's two corners shows only its Q, the other shows whole.
    (root / "hidden" / "a.txt").write_text(
        f"{CLASS_ID['8C']} {eight_box}\n{CLASS_ID['QH']} {qh_box}\n"
    )
    (root / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")

    class Reads:
        def detect(self, image: np.ndarray) -> list[Detection]:
            return [Detection("AS", (64.0, 42.0, 96.0, 78.0), 0.9)]

    out = evaluate(root, Reads(), None, show_progress=False).to_json()
    assert out["identity_recall"] == pytest.approx(1 / 3, abs=1e-3)  # 8C and QH missed
    legible = out["legible"]
    assert legible["set_aside"] == 1  # 8C; QH shows whole at its other corner
    assert legible["identity_recall"] == 0.5
    (root / "hidden" / "a.txt").unlink()  # a dataset without the list: nothing set aside
    legible = evaluate(root, Reads(), None, show_progress=False).to_json()["legible"]
    assert (legible["set_aside"], legible["identity_recall"]) == (0, pytest.approx(1 / 3, abs=1e-3))


def test_a_miss_the_localiser_boxed_is_told_from_one_it_never_boxed(tmp_path: Path) -> None:
    """A two-stage detector says which boxes its classifier left unread: a missed index boxed
    there is the classifier's miss, one nothing boxed the localiser's."""
    root = tmp_path / "ds"
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir()
    cv2.imwrite(str(root / "images" / "a.png"), np.full((120, 160, 3), 10, np.uint8))
    (root / "labels" / "a.txt").write_text(
        f"{CLASS_ID['AS']} 0.25 0.5 0.1 0.2\n{CLASS_ID['KD']} 0.5 0.5 0.1 0.2\n"
        f"{CLASS_ID['SJ']} 0.75 0.5 0.1 0.2\n"
    )
    (root / "classes.txt").write_text("\n".join(CLASS_NAMES) + "\n")

    class TwoStage:
        reads_source = True

        def detect(
            self, image: np.ndarray, unread: list[tuple[float, float, float, float]] | None = None
        ) -> list[Detection]:
            assert unread is not None
            unread.append((73.0, 49.0, 89.0, 73.0))  # KD's index, boxed, not read surely
            return [Detection("AS", (32.0, 48.0, 48.0, 72.0), 0.9)]  # SJ: never boxed

    out = evaluate(root, TwoStage(), None, show_progress=False).to_json()
    assert out["mistakes"]["missed"] == {"cards": 1, "jokers": 1, "at_border": 0, "localised": 1}


def test_mistakes_and_chart_are_drawn(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "ds")
    out_dir = tmp_path / "mistakes"
    evaluate(dataset, FakeDetector(), out_dir, show_progress=False)
    files = sorted(p.name for p in out_dir.iterdir())
    assert files == ["recall_per_class.png", "val__b.jpg"]
    drawn = cv2.imread(str(out_dir / "val__b.jpg"))
    assert drawn is not None and drawn.shape[1] == 160 and drawn.shape[0] > 120
    chart = cv2.imread(str(out_dir / "recall_per_class.png"))
    assert chart is not None


def test_progress_bar_goes_to_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    evaluate(make_dataset(tmp_path / "ds"), FakeDetector(), None)
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "4/4" in captured.err


def test_unknown_class_names_are_refused_in_one_line(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "ds")
    (dataset / "classes.txt").write_text("ace_of_spades\n2S\n")
    with pytest.raises(DatasetError) as err:
        evaluate(dataset, FakeDetector(), None, show_progress=False)
    assert "\n" not in str(err.value) and "ace_of_spades" in str(err.value)


def test_names_are_case_insensitive_and_inline_yaml_works(tmp_path: Path) -> None:
    (tmp_path / "data.yaml").write_text("names: [as, '10h', BJ]\n")
    assert load_class_names(tmp_path) == ["AS", "10H", "BJ"]
    (tmp_path / "data.yaml").write_text("names: {0: sj, 1: 2c}\n")
    assert load_class_names(tmp_path) == ["SJ", "2C"]


@pytest.mark.parametrize(
    ("setup", "needle"),
    [
        (lambda d: None, "does not exist"),
        (lambda d: (d / "images").mkdir(parents=True), "classes.txt"),
        (lambda d: (d.mkdir(), (d / "classes.txt").write_text("AS\n")), "images/"),
    ],
)
def test_dataset_errors_are_one_line(tmp_path: Path, setup, needle: str) -> None:  # type: ignore[no-untyped-def]
    dataset = tmp_path / "ds"
    setup(dataset)
    with pytest.raises(DatasetError) as err:
        evaluate(dataset, FakeDetector(), None, show_progress=False)
    assert "\n" not in str(err.value) and needle in str(err.value)


def test_bad_label_line_names_file_and_line(tmp_path: Path) -> None:
    dataset = make_dataset(tmp_path / "ds")
    (dataset / "labels" / "val" / "a.txt").write_text("0 0.5 0.5 0.1 0.1\nAS 0.5 0.5 0.1 0.1\n")
    with pytest.raises(DatasetError, match=r"a\.txt:2"):
        evaluate(dataset, FakeDetector(), None, show_progress=False)
    (dataset / "labels" / "val" / "a.txt").write_text("99 0.5 0.5 0.1 0.1\n")
    with pytest.raises(DatasetError, match="class id 99"):
        evaluate(dataset, FakeDetector(), None, show_progress=False)


# --------------------------------------------------------------------------- commands


def _parse(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    add_detect_parser(sub)
    add_eval_parser(sub)
    return parser.parse_args(argv)


def test_detect_command_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(ImageError, match="does not exist"):
        cmd_detect(_parse(["detect", str(tmp_path / "nope.jpg")]))
    junk = tmp_path / "junk.jpg"
    junk.write_text("not an image")
    with pytest.raises(ImageError, match="cannot decode"):
        cmd_detect(_parse(["detect", str(junk)]))
    image = tmp_path / "ok.png"
    cv2.imwrite(str(image), np.zeros((50, 50, 3), np.uint8))
    args = _parse(["detect", str(image), "--model", str(tmp_path / "none.onnx")])
    with pytest.raises(ModelError, match=r"none\.onnx is missing"):
        cmd_detect(args)


def test_eval_command_bad_inputs(tmp_path: Path) -> None:
    with pytest.raises(DatasetError, match="does not exist"):
        cmd_eval(_parse(["eval", str(tmp_path / "nope")]))
    dataset = make_dataset(tmp_path / "ds")
    args = _parse(["eval", str(dataset), "--model", str(tmp_path / "none.onnx")])
    assert args.json is False and args.mistakes is None and args.threads == 1
    with pytest.raises(ModelError):
        cmd_eval(args)


def test_eval_command_sets_how_low_a_localised_joker_may_score(tmp_path: Path) -> None:
    from chaodipi.cli.detect_eval import _detector
    from vision.detector import JOKER_LOC_CONF

    dataset = str(make_dataset(tmp_path / "ds"))
    assert _detector(_parse(["eval", dataset])).joker_loc_conf == JOKER_LOC_CONF
    assert _detector(_parse(["eval", dataset, "--joker-loc-conf", "1"])).joker_loc_conf == 1.0


def test_eval_command_sets_how_big_a_weak_box_must_be_to_be_a_picture_joker(
    tmp_path: Path,
) -> None:
    from chaodipi.cli.detect_eval import _detector
    from vision.detector import DEFAULT_MODEL, CardDetector

    dataset = str(make_dataset(tmp_path / "ds"))
    carried = CardDetector(DEFAULT_MODEL).joker_size
    assert _detector(_parse(["eval", dataset])).joker_size == carried
    args = _parse(["eval", dataset, "--joker-size-ratio", "2.5"])
    assert _detector(args).joker_size == 2.5


def test_eval_tiles_1_reads_a_big_image_in_one_letterboxed_pass_as_the_table_does(
    tmp_path: Path,
) -> None:
    """A still drawn at twice the zone view's scale, localised in one pass, gives the localiser
    the table's card size and the classifier the camera's finer pixels."""
    from chaodipi.cli.detect_eval import _detector

    dataset = str(make_dataset(tmp_path / "ds"))
    automatic = _detector(_parse(["eval", dataset]))
    assert len(automatic.plan(1280, 1280)) > 1
    one_pass = _detector(_parse(["eval", dataset, "--tiles", "1"]))
    assert one_pass.plan(1280, 1280) == [Tile(0, 0, 1280, 1280)]
    with pytest.raises(ValueError, match="--tiles must be 1 or more"):
        _detector(_parse(["eval", dataset, "--tiles", "0"]))


def test_eval_command_prints_summary_and_json(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import chaodipi.cli.detect_eval

    dataset = make_dataset(tmp_path / "ds")
    fake = FakeDetector()
    fake.model_path = tmp_path / "m.onnx"  # type: ignore[attr-defined]
    monkeypatch.setattr(chaodipi.cli.detect_eval, "_detector", lambda args: fake)
    mistakes = tmp_path / "mist"
    assert cmd_eval(_parse(["eval", str(dataset), "--json", "--mistakes", str(mistakes)])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["identity_recall"] == pytest.approx(0.8)
    assert (mistakes / "val__b.jpg").exists()
    assert cmd_eval(_parse(["eval", str(dataset), "--no-mistakes", "--calibrate"])) == 0
    text = capsys.readouterr().out
    assert "perfect images 0.750 (3/4)" in text
    assert "away from the image border (0 identities read" in text
    assert "missed: cards 1, jokers 0 (0 of them only at the image border)" in text
    assert "KD" in text and "calibration not written" in text
    assert not (tmp_path / "m.calibration.json").exists()


def test_detect_command_groups_cards(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import chaodipi.cli.detect_eval

    class TwoAces:
        def detect(self, image: np.ndarray, tiles: int | None = None) -> list[Detection]:
            # Both corners of one AS, one corner of another AS far away, and a 10H.
            return [
                Detection("AS", (10, 10, 30, 42), 0.9),
                Detection("AS", (120, 160, 140, 192), 0.8),
                Detection("AS", (600, 400, 620, 432), 0.7),
                Detection("10H", (300, 10, 320, 42), 0.6),
            ]

    monkeypatch.setattr(chaodipi.cli.detect_eval, "_detector", lambda args: TwoAces())
    image = tmp_path / "table.png"
    cv2.imwrite(str(image), np.zeros((480, 640, 3), np.uint8))
    drawn = tmp_path / "out" / "drawn.png"
    assert cmd_detect(_parse(["detect", str(image), "--draw", str(drawn)])) == 0
    text = capsys.readouterr().out
    assert "3 cards: 10H, AS ×2" in text
    picture = cv2.imread(str(drawn))
    assert picture is not None and picture.shape == (480, 640, 3)
    assert cmd_detect(_parse(["detect", str(image), "--json"])) == 0
    out = json.loads(capsys.readouterr().out)
    assert [c["identity"] for c in out["cards"]] == ["10H", "AS", "AS"]
    assert [len(c["boxes"]) for c in out["cards"]] == [1, 2, 1]
    assert len(out["detections"]) == 4 and out["image"] == str(image)
