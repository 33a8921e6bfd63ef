"""Corner-index crops: one geometry for the classifier's training data and its runtime."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from chaodipi.cli.main import main
from vision.classes import CLASS_NAMES
from vision.classifier import CardClassifier
from vision.crops import (
    CLASSIFIER_NAMES,
    CROP_SIZE,
    NONE_CLASS,
    ReadingSource,
    crop,
    crop_mapped,
)
from vision.detector import DEFAULT_MODEL
from vision.onnx_model import ModelError
from vision.synth import procedural
from vision.synth.crop_data import (
    ace_crops_of,
    corner_marks_of,
    false_alarms,
    picture_boxes,
    scene_crops,
    synthesize_crops,
    synthesize_phantom_crops,
)
from vision.synth.procedural import random_style, render_procedural
from vision.synth.text_negatives import _vertical_word, text_negative


def _marked_image() -> np.ndarray:
    image = np.zeros((400, 600, 3), np.uint8)
    image[100:140, 200:230] = 255  # a 30 × 40 white "index"
    return image


def test_a_crop_is_square_centred_on_the_box_with_a_margin() -> None:
    patch = crop(_marked_image(), (200, 100, 230, 140))
    assert patch.shape == (CROP_SIZE, CROP_SIZE, 3)
    white = np.argwhere(patch[:, :, 0] > 128)
    (y0, x0), (y1, x1) = white.min(0), white.max(0)
    # The long side (40 px) fills 1/1.3 of the crop, centred.
    assert abs((y1 - y0 + 1) - CROP_SIZE / 1.3) <= 2
    assert abs((y0 + y1) / 2 - (CROP_SIZE - 1) / 2) <= 1.5
    assert abs((x0 + x1) / 2 - (CROP_SIZE - 1) / 2) <= 1.5


def test_big_boxes_are_area_averaged_to_the_same_geometry() -> None:
    image = np.zeros((2000, 2000, 3), np.uint8)
    image[500:900, 600:900] = 255  # 300 × 400: shrunk more than 2× into the crop
    small = crop(image, (600, 500, 900, 900))
    white = np.argwhere(small[:, :, 0] > 128)
    assert abs((white[:, 0].max() - white[:, 0].min() + 1) - CROP_SIZE / 1.3) <= 2


def test_a_box_at_the_image_edge_is_padded_not_an_error() -> None:
    patch = crop(_marked_image(), (-20, -30, 10, 10))
    assert patch.shape == (CROP_SIZE, CROP_SIZE, 3)


def test_a_crop_can_be_read_from_a_finer_source_through_a_homography() -> None:
    """The pipeline localises on a coarse view and reads from the camera frame: the crop of a
    coarse-view box cut from a source twice as fine shows the same thing, only sharper."""
    coarse = _marked_image()
    fine = np.zeros((800, 1200, 3), np.uint8)
    fine[200:280, 400:460] = 255  # the same index at twice the resolution
    twice = np.array([[2.0, 0, 0.5], [0, 2.0, 0.5], [0, 0, 1]])  # pixel centres onto centres
    box = (200, 100, 230, 140)
    from_fine = crop_mapped(ReadingSource(fine, twice), box)
    assert np.abs(from_fine.astype(int) - crop(coarse, box).astype(int)).mean() < 4
    from_itself = crop_mapped(ReadingSource(coarse, np.eye(3)), box)
    assert np.abs(from_itself.astype(int) - crop(coarse, box).astype(int)).mean() < 1


def test_a_much_finer_source_is_area_averaged_not_aliased() -> None:
    stripes = np.zeros((1600, 1600, 3), np.uint8)
    stripes[:, ::2] = 255  # a pattern finer than any crop pixel: must average to grey
    patch = crop_mapped(ReadingSource(stripes, np.diag([40.0, 40.0, 1.0])), (10, 10, 30, 30))
    assert np.abs(patch.astype(int) - 127).max() < 20


def test_scene_crops_label_every_box_and_add_none_crops() -> None:
    rng = np.random.default_rng(0)
    boxes = [(CLASSIFIER_NAMES.index("10H"), 200.0, 100.0, 230.0, 140.0)]
    labels = [label for label, _ in scene_crops(rng, _marked_image(), boxes, 2, 3)]
    assert labels.count("10H") == 2
    assert labels.count(NONE_CLASS) == 3


def test_a_missing_classifier_is_a_one_line_error_naming_the_file(tmp_path: Path) -> None:
    missing = tmp_path / "card_classifier.onnx"
    with pytest.raises(ModelError) as err:
        CardClassifier(missing)
    message = str(err.value)
    assert "\n" not in message
    assert "card_classifier.onnx" in message and "missing" in message
    assert "chaodipi vision train-classifier" in message


def test_training_the_classifier_needs_train_and_val_folders(tmp_path: Path) -> None:
    from vision.training.train import TrainError, train_classifier

    with pytest.raises(TrainError, match=r"needs train/ and val/ .*chaodipi vision crops"):
        train_classifier(tmp_path)


def test_training_the_classifier_needs_a_val_folder_for_every_class(tmp_path: Path) -> None:
    # an empty class folder is fine (a small val split may hold no crop of a class); a missing
    # one would shift every class index after it
    from vision.training.train import TrainError, train_classifier

    for split, names in (("train", ("2C", "3C", "none")), ("val", ("2C",))):
        for name in names:
            (tmp_path / split / name).mkdir(parents=True)
    with pytest.raises(TrainError, match=r"val/ has no folder for the classes 3C none: make"):
        train_classifier(tmp_path)


def test_text_negatives_are_crops_of_letters_that_are_not_an_index() -> None:
    rng = np.random.default_rng(4)
    patches = [text_negative(rng) for _ in range(12)]
    assert all(p.shape == (CROP_SIZE, CROP_SIZE, 3) and p.dtype == np.uint8 for p in patches)
    assert all(float(p.std()) > 3.0 for p in patches), "each crop shows ink on paper"
    assert _vertical_word(np.random.default_rng(0)) not in "JOKER"


def test_crops_of_a_scene_set_include_printed_text_as_none(tmp_path: Path) -> None:
    written = synthesize_crops(
        2, tmp_path, seed=5, designs=["procedural"], workers=1, text_negatives=3
    )
    text = sorted((tmp_path / "train" / NONE_CLASS).glob("*_t*.png"))
    assert len(text) == 6
    assert written >= 6


class _ScriptedSession:
    """Stands in for onnxruntime: reads a crop as "10H", surely when it is bright at the top."""

    def __init__(self, names: tuple[str, ...]) -> None:
        self.names = names
        self.crops_seen = 0

    def run(self, _outputs: object, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
        blob = next(iter(feeds.values()))
        self.crops_seen += len(blob)
        probs = np.zeros((len(blob), len(self.names)), np.float32)
        for i, image in enumerate(blob):
            sure = float(image[:, : image.shape[1] // 2].mean()) > 0.5
            probs[i, self.names.index("10H")] = 0.98 if sure else 0.6
            probs[i, self.names.index(NONE_CLASS)] = 0.02 if sure else 0.4
        return [probs]


def test_only_unsure_boxes_get_a_second_look(tmp_path: Path) -> None:
    from tests.tiny_models import tiny_classifier

    classifier = CardClassifier(tiny_classifier(tmp_path / "card_classifier.onnx"))
    session = _ScriptedSession(classifier.names)
    classifier.session = session
    classifier.dynamic_batch = True
    image = np.zeros((200, 400, 3), np.uint8)
    image[0:40, 0:200] = 255  # bright only in the upper half of the left box's crop
    sure_box, unsure_box = (80.0, 20.0, 120.0, 60.0), (280.0, 120.0, 320.0, 160.0)
    reads = classifier.classify(image, [sure_box, unsure_box])
    assert [name for name, _ in reads] == ["10H", "10H"]
    assert len(classifier.views) == 4  # the quarter turns
    assert session.crops_seen == 2 + 3, "two first looks, three more for the unsure box"
    assert reads[0][1] == pytest.approx(0.98)
    classifier.second_look_below = 1.0
    session.crops_seen = 0
    classifier.classify(image, [sure_box, unsure_box])
    assert session.crops_seen == 2 * 4, "1.0 looks at every box with every view"


def test_a_read_names_the_runner_up_with_its_probability(tmp_path: Path) -> None:
    from tests.tiny_models import tiny_classifier

    classifier = CardClassifier(tiny_classifier(tmp_path / "card_classifier.onnx"))
    classifier.session = _ScriptedSession(classifier.names)
    classifier.dynamic_batch = True
    image = np.full((200, 400, 3), 255, np.uint8)  # every look is sure: 10H 0.98, none 0.02
    (read,) = classifier.read(image, [(80.0, 20.0, 120.0, 60.0)])
    assert (read.identity, read.runner_up) == ("10H", NONE_CLASS)
    assert read.probability == pytest.approx(0.98)
    assert read.runner_up_probability == pytest.approx(0.02)


def test_eval_crops_scores_the_classifier_alone_per_class_with_its_confusions(
    tmp_path: Path,
) -> None:
    from tests.tiny_models import tiny_classifier
    from vision.training.crop_eval import CropsError, evaluate_crops

    classifier = CardClassifier(tiny_classifier(tmp_path / "card_classifier.onnx"))
    classifier.session = _ScriptedSession(classifier.names)  # reads every crop as 10H
    classifier.dynamic_batch = True
    crops = tmp_path / "crops" / "test"
    for name, count in (("10H", 2), ("QS", 1)):
        (crops / name).mkdir(parents=True)
        for i in range(count):
            cv2.imwrite(str(crops / name / f"{i}.png"), np.full((64, 64, 3), 255, np.uint8))
    result = evaluate_crops(crops, classifier)
    assert (result["crops"], result["accuracy"]) == (3, 0.6667)
    assert result["per_class"]["QS"] == {"n": 1, "right": 0, "accuracy": 0.0}
    assert result["confusions"] == [{"true": "QS", "read": "10H", "n": 1}]
    with pytest.raises(CropsError, match="holds no <class>/ folders of crops"):
        evaluate_crops(tmp_path / "crops", classifier)  # the split folder was not given


def test_picture_crops_are_card_sized_none_crops_never_centred_on_a_whole_joker() -> None:
    rng = np.random.default_rng(3)
    joker = (CLASSIFIER_NAMES.index("BJ"), 100.0, 100.0, 220.0, 260.0)
    index = (CLASSIFIER_NAMES.index("10H"), 400.0, 100.0, 420.0, 130.0)
    labels = [label for label, _ in scene_crops(rng, _marked_image(), [joker, index], 1, 0, 6)]
    assert sorted(labels) == sorted(["BJ", "10H"] + [NONE_CLASS] * 6)
    boxes = picture_boxes(rng, (640, 480), [30.0], [joker[1:]], 200)
    assert all(2.5 * 30 <= b[2] - b[0] <= 8 * 30 for b in boxes)
    centred_on_joker = [
        b
        for b in boxes
        if abs((b[0] + b[2]) / 2 - 160) < 0.35 * (b[2] - b[0])
        and abs((b[1] + b[3]) / 2 - 180) < 0.35 * (b[3] - b[1])
    ]
    assert boxes and not centred_on_joker


def test_face_crops_read_a_jokers_face_as_that_joker_and_any_other_cards_as_none() -> None:
    rng = np.random.default_rng(4)
    faces = [
        ("7C", (10.0, 10.0, 40.0, 130.0)),  # the strip a fan leaves of a 7C
        ("SJ", (40.0, 10.0, 70.0, 130.0)),
        ("KD", (200.0, 50.0, 290.0, 180.0)),  # a king lying alone
    ]
    labels = [label for label, _ in scene_crops(rng, _marked_image(), [], 0, 0, 0, faces, 2)]
    assert sorted(labels) == ["SJ", NONE_CLASS]  # the joker always, then others up to the count
    every = [label for label, _ in scene_crops(rng, _marked_image(), [], 0, 0, 0, faces, 5)]
    assert sorted(every) == ["SJ", NONE_CLASS, NONE_CLASS]


def test_ace_crops_are_an_aces_face_whole_and_its_middle_at_an_indexs_size_clear_of_indices() -> (
    None
):
    rng = np.random.default_rng(5)
    ace, king = (100.0, 20.0, 190.0, 150.0), (200.0, 50.0, 290.0, 180.0)
    index = (102.0, 22.0, 112.0, 40.0)  # the ace's corner index
    boxes = ace_crops_of(rng, [("AS", ace), ("KD", king)], [index], [18.0], 3)
    assert boxes[0] == ace and 2 <= len(boxes) <= 3  # the king is no ace
    for x0, y0, x1, _ in boxes[1:]:
        assert 18.0 <= x1 - x0 <= 45.0 and ace[0] < (x0 + x1) / 2 < ace[2]
        assert x0 > index[2] or y0 > index[3]
    faces = [("AS", ace), ("KD", king)]
    labels = [label for label, _ in scene_crops(rng, _marked_image(), [], 0, 0, 0, faces, 0)]
    assert labels == []  # off unless asked: the recipes written before it draw as they did
    labels = [
        label for label, _ in scene_crops(rng, _marked_image(), [], 0, 0, 0, faces, 0, ace_crops=1)
    ]
    assert labels and set(labels) == {NONE_CLASS}


def test_about_half_the_procedural_aces_of_spades_are_ornate_the_rest_drawn_as_plain_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    style = random_style(np.random.default_rng(111))
    drawn = [render_procedural(style, "AS", 200, seed=k).image for k in range(20)]
    monkeypatch.setattr(procedural, "ORNATE_ACE_SHARE", 0.0)
    plain = [render_procedural(style, "AS", 200, seed=k).image for k in range(20)]
    ornate = sum(not np.array_equal(a, b) for a, b in zip(drawn, plain, strict=True))
    assert 5 <= ornate <= 15


def test_a_pairs_false_alarms_are_its_boxes_that_touch_no_index_that_shows() -> None:
    glimpses = [(100.0, 100.0, 130.0, 140.0), (300.0, 50.0, 310.0, 60.0)]  # one barely shows
    found = [
        (98.0, 99.0, 131.0, 141.0),  # the labelled index
        (295.0, 45.0, 330.0, 90.0),  # the hidden index's glimpse is in it: maybe a real strip
        (400.0, 300.0, 440.0, 350.0),  # lettering far from any card
    ]
    assert false_alarms(found, glimpses) == [(400.0, 300.0, 440.0, 350.0)]


def test_each_false_alarm_is_a_none_crop() -> None:
    rng = np.random.default_rng(6)
    alarms = [(400.0, 300.0, 440.0, 350.0), (20.0, 20.0, 60.0, 60.0)]
    crops = list(scene_crops(rng, _marked_image(), [], 0, 0, 0, alarms=alarms))
    assert [label for label, _ in crops] == [NONE_CLASS, NONE_CLASS]
    assert all(patch.shape[:2] == (CROP_SIZE, CROP_SIZE) for _, patch in crops)


def test_crops_mined_with_the_bundled_pair_are_made_beside_the_others(tmp_path: Path) -> None:
    plain = synthesize_crops(2, tmp_path / "plain", seed=5, designs=["procedural"], workers=1)
    mined = synthesize_crops(
        2,
        tmp_path / "mined",
        seed=5,
        designs=["procedural"],
        workers=1,
        mine_with=DEFAULT_MODEL,
    )
    assert mined >= plain  # the same crops, and a none crop per false alarm the pair made
    names = {p.name for p in (tmp_path / "plain").rglob("*.png")}
    assert names <= {p.name for p in (tmp_path / "mined").rglob("*.png")}


def test_vision_crops_mines_with_a_pair_and_draws_cards_at_the_cameras_scale(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = ["vision", "crops", "--scenes", "2", "--seed", "5", "--workers", "1"]
    command = [*base, "--out", str(tmp_path / "a"), "--small-cards", "1"]
    assert main([*command, "--mine-with", str(DEFAULT_MODEL)]) == 0
    assert "wrote" in capsys.readouterr().out
    assert main([*base, "--out", str(tmp_path / "b"), "--small-cards", "0"]) == 0
    small, big = (sorted((tmp_path / k / "train").rglob("*_0.png")) for k in "ab")
    assert small and big and small[0].read_bytes() != big[0].read_bytes()
    missing = tmp_path / "none.onnx"
    assert main([*base, "--out", str(tmp_path / "c"), "--mine-with", str(missing)]) == 2
    assert "none.onnx" in capsys.readouterr().err  # one line, before anything is drawn
    assert not (tmp_path / "c").exists()


def test_every_box_a_pair_finds_in_a_card_free_scene_is_a_none_crop(tmp_path: Path) -> None:
    plain = synthesize_phantom_crops(3, tmp_path / "plain", seed=77)
    mined = synthesize_phantom_crops(3, tmp_path / "mined", seed=77, mine_with=DEFAULT_MODEL)
    assert mined >= plain
    names = {p.name for p in (tmp_path / "plain" / "train" / NONE_CLASS).iterdir()}
    assert names <= {p.name for p in (tmp_path / "mined" / "train" / NONE_CLASS).iterdir()}
    assert {p.parent.name for p in (tmp_path / "mined").rglob("*.png")} == {NONE_CLASS}


def test_a_lone_cards_corner_marks_are_labelled_the_card_where_its_index_lies_else_none() -> None:
    """What the zone reader reads at a lone card's four corners (a joker's small star, an
    index card's index) is labelled by where the card's labelled indices lie, however the card
    lies: the picture's corners are ``none``."""
    rng = np.random.default_rng(3)
    for angle in (0.0, 90.0, 30.0):
        # a 63 × 88 px card (10 px/cm) turned about its centre, its marks at two corners
        centre = np.array([200.0, 200.0])
        turn = cv2.getRotationMatrix2D((0.0, 0.0), angle, 1.0)[:, :2]
        face = np.array([[-31.5, -44.0], [31.5, -44.0], [31.5, 44.0], [-31.5, 44.0]])
        corners = face @ turn.T + centre
        marks = [np.array(m) @ turn.T + centre for m in ([-24.5, -30.0], [24.5, 30.0])]
        sj = CLASS_NAMES.index("SJ")
        boxes = [(sj, x - 5.0, y - 5.0, x + 5.0, y + 5.0) for x, y in marks]
        boxes.append((CLASS_NAMES.index("AS"), 0.0, 0.0, 10.0, 10.0))  # another card's index
        labelled = corner_marks_of("SJ", corners.astype(np.float32), boxes)
        assert sorted(label for label, _ in labelled) == ["SJ", "SJ", NONE_CLASS, NONE_CLASS]
        for _, (x0, y0, x1, y1) in labelled:
            assert 10 <= x1 - x0 <= 40 and 10 <= y1 - y0 <= 40  # an index's size, not a card's
    image = np.full((400, 400, 3), 90, np.uint8)
    lone = [("SJ", corners.astype(np.float32))]
    crops = list(scene_crops(rng, image, boxes, 0, 0, 0, lone=lone, corner_crops=1))
    assert sorted(label for label, _ in crops) == ["SJ", "SJ", NONE_CLASS, NONE_CLASS]
    assert all(patch.shape[:2] == (CROP_SIZE, CROP_SIZE) for _, patch in crops)
    assert not list(scene_crops(rng, image, boxes, 0, 0, 0, lone=lone, corner_crops=0))
