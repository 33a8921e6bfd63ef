"""A deck's own card reader: ``chaodipi deck adapt`` and ``--deck DIR``.

``deck adapt DECK`` fine-tunes the localiser and the classifier on synthetic scenes of the deck
(``--localiser-share 0`` keeps the bundled localiser) and writes ``DECK/model/`` only when the
new pair reads the deck's held-out renders better than the bundled pair; its work files stay in
``DECK/.adapt/`` and a second run reuses them. ``--deck DIR`` on ``run``, ``replay``,
``replay-eval`` and ``demo`` reads with ``DIR/model/`` when the deck has one, else with the
bundled pair and one line saying so. The ``--deck`` tests use tiny stand-in models
(``tests.tiny_models``) and train nothing; the end-to-end adaptation needs the ``train`` extra
and is skipped without it.
"""

from __future__ import annotations

import importlib.util
import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from chaodipi.cli.main import build_parser, main
from chaodipi.demo.clip import CLIP
from tests.tiny_models import tiny_classifier, tiny_localiser
from vision.detector import DEFAULT_MODEL, CardDetector
from vision.enrolment.adapt import (
    ANY_SIZE,
    JOKER_BARS,
    MIN_ANY_SIZE_GAIN,
    AdaptError,
    AdaptResult,
    PairScore,
    _choose_joker_bar,
    _choose_joker_size,
    adapt_deck,
    any_size_pays,
    beats,
    exclusive,
    files_digest,
    made_once,
    training_state,
)
from vision.enrolment.deck_model import DeckModelError, deck_info, detector_for
from vision.synth.decks import DECKS_DIR, load_deck

needs_train_extra = pytest.mark.skipif(
    importlib.util.find_spec("ultralytics") is None,
    reason="training needs the train extra: pip install -e '.[train]'",
)


# ---------------------------------------------------------------- stand-ins


@pytest.fixture
def deck(tmp_path: Path) -> Path:
    """A deck folder: the built-in Byron Knoll deck, copied."""
    folder = tmp_path / "club deck"
    shutil.copytree(DECKS_DIR / "byron_knoll", folder)
    return folder


def with_model(deck: Path) -> Path:
    """Give ``deck`` an adapted model folder (tiny stand-in models); its detector's path."""
    folder = deck / "model"
    folder.mkdir()
    tiny_classifier(folder / "card_classifier.onnx", always="AS")
    return tiny_localiser(folder / "card_detector.onnx")


def one_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


# ---------------------------------------------------------------- --deck: which model reads


def test_a_deck_with_a_model_folder_is_read_with_its_own_model(
    deck: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    detector = with_model(deck)
    assert detector_for(None, deck, "run") == detector
    assert capsys.readouterr().err == ""
    load_deck(str(deck.resolve()))  # the model folder leaves it a deck folder


def test_a_deck_without_one_is_read_with_the_bundled_pair_and_one_line_says_so(
    deck: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert detector_for(None, deck, "replay") is None  # the command's default: the bundled pair
    line = one_line(capsys)
    assert line.startswith("chaodipi replay: ")
    assert "no adapted model yet" in line and f"chaodipi deck adapt {deck}" in line


def test_without_deck_the_model_is_as_given(tmp_path: Path) -> None:
    assert detector_for(None, None, "run") is None
    assert detector_for(tmp_path / "m.onnx", None, "run") == tmp_path / "m.onnx"


def test_a_folder_that_is_no_deck_and_deck_with_model_are_refused_in_one_line(
    deck: Path, tmp_path: Path
) -> None:
    with pytest.raises(DeckModelError, match="is not a deck folder") as no_deck:
        detector_for(None, tmp_path / "nowhere", "run")
    (tmp_path / "photos").mkdir()
    (tmp_path / "photos" / "table.jpg").write_bytes(b"")
    with pytest.raises(DeckModelError, match="is not a deck folder") as photos:
        detector_for(None, tmp_path / "photos", "run")
    with pytest.raises(DeckModelError, match="not both") as both:
        detector_for(tmp_path / "m.onnx", deck, "run")
    for error in (no_deck, photos, both):
        assert "\n" not in str(error.value)


@pytest.mark.parametrize(
    "command",
    [
        ["run"],
        ["replay", str(CLIP)],
        ["replay-eval", "--hands", "1"],
        ["demo"],
    ],
)
def test_every_table_command_refuses_a_bad_deck_in_one_line_with_exit_2(
    command: list[str], deck: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = ["--data-dir", str(tmp_path / "data")] if command[0] == "run" else []
    nowhere = str(tmp_path / "no deck")
    assert main([*command, *data, "--deck", nowhere]) == 2
    assert "is not a deck folder" in one_line(capsys)
    assert main([*command, *data, "--deck", str(deck), "--model", str(DEFAULT_MODEL)]) == 2
    assert "not both" in one_line(capsys)


def test_run_uses_the_decks_model(deck: Path, tmp_path: Path) -> None:
    from chaodipi.table.service import build_service

    detector = with_model(deck)
    args = build_parser().parse_args(["run", "--deck", str(deck), "--data-dir", str(tmp_path)])
    service = build_service(args)
    try:
        assert service.model == detector
    finally:
        service.store.close()


def test_replay_reads_with_the_decks_model(deck: Path) -> None:
    from chaodipi.replay.replay import build_pipeline

    detector = with_model(deck)
    args = build_parser().parse_args(["replay", "footage", "--deck", str(deck)])
    reader: Any = build_pipeline(args, {}, None).detector
    assert reader.model_path == detector


def test_replay_eval_renders_the_hands_in_the_deck_and_reads_them_with_its_model(
    deck: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import chaodipi.replay.evaluation as evaluation

    seen: dict[str, Any] = {}

    def run_eval(opts: Any, detector: Any) -> dict[str, Any]:
        seen.update(designs=opts.designs, model=detector.model_path)
        return {}

    monkeypatch.setattr(evaluation, "run_eval", run_eval)
    command = ["replay-eval", "--hands", "1", "--json", "--deck", str(deck)]
    assert main(command) == 0  # no model folder yet: the bundled pair, and one line
    assert seen == {"designs": (str(deck),), "model": DEFAULT_MODEL}
    assert "no adapted model yet" in one_line(capsys)
    detector = with_model(deck)
    assert main(command) == 0
    assert seen == {"designs": (str(deck),), "model": detector}
    assert capsys.readouterr().err == ""
    assert main([*command, "--design", "adrian_kennard"]) == 2
    assert "drop --design" in one_line(capsys)


def test_the_demo_reads_the_clip_with_the_decks_model(
    deck: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import chaodipi.demo.run as demo

    seen: dict[str, Any] = {}

    def run_demo(args: Any, service: Any, model: Path, simulated: bool, *rest: Any) -> int:
        seen.update(model=model, simulated=simulated, service_model=service.model)
        service.store.close()
        return 0

    monkeypatch.setattr(demo, "run_demo", run_demo)
    detector = with_model(deck)
    assert main(["demo", "--deck", str(deck)]) == 0
    assert seen == {"model": detector, "simulated": False, "service_model": detector}


# ---------------------------------------------------------------- deck adapt: refusals, rules


def test_adapt_refuses_bad_input_in_one_line_with_exit_2(
    deck: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["deck", "adapt", str(deck), "--minutes", "0"]) == 2
    assert "--minutes must be above 0" in one_line(capsys)
    assert main(["deck", "adapt", str(deck), "--minutes", "-5"]) == 2
    assert "--minutes must be above 0" in one_line(capsys)
    assert main(["deck", "adapt", str(deck), "--minutes", "5", "--localiser-share", "1"]) == 2
    assert "--localiser-share must lie in 0" in one_line(capsys)
    assert main(["deck", "adapt", str(tmp_path / "no deck"), "--minutes", "1"]) == 2
    assert "is not a deck folder" in one_line(capsys)
    monkeypatch.setitem(sys.modules, "ultralytics", None)  # `import ultralytics` fails
    assert main(["deck", "adapt", str(deck), "--minutes", "1"]) == 2
    assert "pip install -e '.[train]'" in one_line(capsys)
    assert not (deck / ".adapt").exists() and not (deck / "model").exists()


def test_the_candidate_beats_the_bundled_pair_only_with_more_recall_and_as_much_precision() -> None:
    def score(precision: float | None, recall: float | None) -> PairScore:
        return PairScore(precision, recall, None, 100)

    bundled = score(0.95, 0.90)
    assert beats(score(0.95, 0.91), bundled)
    assert beats(score(0.99, 0.95), bundled)
    assert not beats(score(0.95, 0.90), bundled)  # as good is not better
    assert beats(score(0.946, 0.95), bundled)  # a false read or two: the stills' noise
    assert not beats(score(0.944, 0.99), bundled)  # recall bought with precision
    assert not beats(score(None, None), bundled)


def test_weak_boxes_of_any_size_are_read_as_jokers_only_for_a_clear_gain() -> None:
    def score(precision: float, recall: float) -> PairScore:
        return PairScore(precision, recall, None, 100)

    carried = score(0.98, 0.93)
    assert any_size_pays(score(0.98, 0.93 + MIN_ANY_SIZE_GAIN), carried)  # star-marked jokers
    assert not any_size_pays(score(0.98, 0.941), carried)  # a few weak boxes: phantoms at a table
    assert not any_size_pays(score(0.97, 0.99), carried)  # recall bought with precision


def test_data_is_made_once_and_a_partial_folder_made_again(tmp_path: Path) -> None:
    made: list[str] = []

    def make() -> None:
        made.append("made")
        (tmp_path / "crops" / "a.png").write_bytes(b"x")

    recipe = {"scenes": 8, "seed": 0}
    assert made_once(tmp_path / "crops", recipe, make, say=lambda _: None) is False
    assert made_once(tmp_path / "crops", recipe, make, say=lambda _: None) is True
    assert made == ["made"]
    (tmp_path / "crops" / "recipe.json").unlink()  # as if interrupted before it was done
    (tmp_path / "crops" / "stale.png").write_bytes(b"x")
    assert made_once(tmp_path / "crops", recipe, make, say=lambda _: None) is False
    assert not (tmp_path / "crops" / "stale.png").exists()
    assert made_once(tmp_path / "crops", {**recipe, "scenes": 9}, make, say=print) is False
    assert made == ["made"] * 3


def test_an_interrupted_run_is_continued_a_finished_one_reused_another_recipes_redone(
    tmp_path: Path,
) -> None:
    run, recipe_file = tmp_path / "run" / "classifier", tmp_path / "run" / "recipe.json"
    recipe = {"minutes": 30, "seed": 0}
    assert training_state(run, recipe_file, recipe) == "fresh"
    (run / "weights").mkdir(parents=True)
    (run / "weights" / "last.pt").write_bytes(b"")
    assert training_state(run, recipe_file, recipe) == "fresh"  # whose run? not ours
    recipe_file.write_text(json.dumps(recipe))
    assert training_state(run, recipe_file, recipe) == "resume"
    (run / "train_result.json").write_text("{}")
    assert training_state(run, recipe_file, recipe) == "done"
    assert training_state(run, recipe_file, {**recipe, "minutes": 60}) == "fresh"


def test_one_adapt_at_a_time_works_in_a_decks_folder(tmp_path: Path) -> None:
    with (
        exclusive(tmp_path),
        pytest.raises(AdaptError, match="another deck adapt is working") as second,
        exclusive(tmp_path),
    ):
        pass
    assert "\n" not in str(second.value)
    with exclusive(tmp_path):  # free again once the first has ended
        pass


@pytest.mark.parametrize("wrote", [True, False])
def test_adapt_prints_both_scores_and_what_it_kept(
    wrote: bool, deck: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import chaodipi.cli.deck as deck_cli

    def fake(folder: Path, minutes: float, **kwargs: Any) -> AdaptResult:
        return AdaptResult(
            deck=folder,
            candidate=PairScore(0.97, 0.95 if wrote else 0.85, 0.8, 100),
            bundled=PairScore(0.96, 0.90, 0.7, 100),
            model=folder / "model" if wrote else None,
            reused=(),
            epochs=7,
            train_seconds=1800.0,
            stills=100,
            still_size=640,
        )

    monkeypatch.setattr(deck_cli, "adapt_deck", fake)
    assert main(["deck", "adapt", str(deck), "--minutes", "30"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[1].split() == ["bundled", "pair", "0.960", "/", "0.900"]
    assert out[2].split()[:5] == ["adapted", "pair", "0.970", "/", "0.950" if wrote else "0.850"]
    assert len(out) == 4
    assert out[3].startswith("wrote" if wrote else "kept the bundled pair")


# ---------------------------------------------------------------- deck adapt, end to end

TINY_TUNING = {"stills": 3, "seed": 1, "imgsz": 160, "small_cards": 1.0, "jokers": 0.2}


def _bundled_pair_copy(folder: Path) -> Path:
    """A candidate pair that is a copy of the bundled one; its localiser's path."""
    folder.mkdir()
    localiser = folder / "card_detector.onnx"
    shutil.copyfile(DEFAULT_MODEL, localiser)
    shutil.copyfile(
        DEFAULT_MODEL.with_name("card_classifier.onnx"), folder / "card_classifier.onnx"
    )
    return localiser


@needs_train_extra
def test_a_localiser_kept_from_an_earlier_run_has_its_joker_size_chosen_afresh(
    deck: Path, tmp_path: Path
) -> None:
    from vision.training.train import set_joker_size

    localiser = _bundled_pair_copy(tmp_path / "candidate")
    set_joker_size(localiser, ANY_SIZE)  # chosen beside an earlier run's classifier
    said: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    ratio, at_ratio = _choose_joker_size(
        localiser, DEFAULT_MODEL, work, deck_info(deck), TINY_TUNING, 2, 1, said.append, []
    )
    assert [line for line in said if line.startswith("joker size:")]  # both sizes were scored
    assert CardDetector(localiser).joker_size == ratio
    assert at_ratio is not None and at_ratio.images == TINY_TUNING["stills"]


@needs_train_extra
def test_a_candidate_reads_jokers_from_the_bar_the_tuning_stills_choose(
    deck: Path, tmp_path: Path
) -> None:
    localiser = _bundled_pair_copy(tmp_path / "candidate")
    said: list[str] = []
    work = tmp_path / "work"
    work.mkdir()
    _, at_size = _choose_joker_size(
        localiser, DEFAULT_MODEL, work, deck_info(deck), TINY_TUNING, 2, 1, said.append, []
    )
    bar = _choose_joker_bar(localiser, work, TINY_TUNING, 2, said.append, at_size)
    carried = CardDetector(DEFAULT_MODEL).joker_bar
    assert bar in (carried, *JOKER_BARS)
    # the candidate as it stands was read by the joker-size step: not read again at its bar
    assert not (work / f"tuning_joker_bar_{carried:g}.json").exists()
    assert CardDetector(localiser).joker_bar == bar  # the candidate carries the bar chosen
    assert [line for line in said if line.startswith(f"joker bar: {bar:g} ")]


@needs_train_extra
def test_adapt_end_to_end_on_a_tiny_budget_then_a_second_run_reuses_its_work(
    deck: Path,
) -> None:
    said: list[str] = []
    tiny: dict[str, Any] = {
        "scenes": 8,
        "val_scenes": 3,
        "localiser_scenes": 8,
        "crop_sizes": (160,),
        "stills": 6,
        "still_size": 160,
        "batch": 32,
        "threads": 2,
        "say": said.append,
    }
    first = adapt_deck(deck, 0.1, seed=5, **tiny)
    work = deck / ".adapt"
    assert (work / ".gitignore").read_text() == "*\n"
    assert first.epochs >= 1 and first.localiser_epochs >= 1
    assert first.bundled.images == first.candidate.images == 6
    model = deck / "model"
    if first.model is not None:
        assert beats(first.candidate, first.bundled) and first.model == model
        report = json.loads((model / "report.json").read_text())
        assert report["minutes"] == 0.1 and report["seed"] == 5 and report["date"]
        assert report["adapted"]["recall"] == first.candidate.recall
        assert report["bundled"]["recall"] == first.bundled.recall
        assert (model / "card_detector.onnx").read_bytes() != DEFAULT_MODEL.read_bytes()
        assert report["localiser"]["epochs"] == first.localiser_epochs >= 1
        assert (model / "card_classifier.onnx").is_file()
    else:
        assert not beats(first.candidate, first.bundled) and not model.exists()
    assert load_deck(str(deck.resolve())).name  # still a deck folder, whatever was written
    crops = sorted((work / "crops" / "train").rglob("*.png"))
    assert crops
    # The `none` crops are the false alarms of the localiser the candidate carries.
    mined = json.loads((work / "crops" / "train" / "recipe.json").read_text())["mined_with"]
    assert (work / "miner" / "card_detector.onnx").is_file()
    assert mined != files_digest([DEFAULT_MODEL, DEFAULT_MODEL.with_name("card_classifier.onnx")])
    # Both pairs are judged where the table reads: every held-out card at the camera's scale.
    held_out = json.loads((work / "stills" / "recipe.json").read_text())
    assert held_out["small_cards"] == 1.0
    # The joker size is chosen on stills of their kind, never on the held-out ones.
    tuning = json.loads((work / "tuning" / "recipe.json").read_text())
    assert tuning == dict(held_out, seed=held_out["seed"] + 3)
    carried = CardDetector(work / "candidate" / "card_detector.onnx").joker_size
    assert carried in (ANY_SIZE, CardDetector(DEFAULT_MODEL).joker_size)
    if first.model is not None:
        assert report["joker_size_ratio"] == carried
        assert (
            report["joker_bar"] == CardDetector(work / "candidate" / "card_detector.onnx").joker_bar
        )
    stamps = [p.stat().st_mtime_ns for p in crops]

    said.clear()
    second = adapt_deck(deck, 0.1, seed=5, **tiny)
    assert set(second.reused) == {
        "train crops",
        "val crops",
        "stills",
        "tuning stills",
        "scenes",
        "localiser training",
        "classifier training",
        "candidate",
    }
    assert [p.stat().st_mtime_ns for p in crops] == stamps
    assert (second.candidate, second.bundled) == (first.candidate, first.bundled)
    assert (second.model is None) == (first.model is None)
    assert any("reused" in line for line in said)


@needs_train_extra
def test_enrolment_end_to_end_photograph_capture_adapt_and_replay_a_hand_in_the_deck(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import numpy as np

    from tests.vision.test_enrolment import (
        FRAME,
        GEO,
        calibrated_config,
        photograph,
        write_frame,
    )
    from vision.enrolment.mat import mat_layout
    from vision.synth.render_scene import make_camera

    camera, layout = make_camera(np.random.default_rng(3), FRAME, GEO), mat_layout(GEO)
    config = calibrated_config(tmp_path, GEO, photograph(layout, camera, mat=False))
    shot = write_frame(tmp_path / "mat.jpg", photograph(layout, camera, seed=1))
    deck = tmp_path / "spring open"
    capture = ["deck", "capture", "--config", str(config), "--image", str(shot), "--out"]
    assert main([*capture, str(deck)]) == 0
    capsys.readouterr()
    tiny: dict[str, Any] = {"scenes": 6, "val_scenes": 2, "crop_sizes": (160,), "stills": 4}
    tiny["localiser_scenes"] = 6
    result = adapt_deck(deck, 0.05, still_size=160, batch=32, say=lambda _: None, **tiny)
    capsys.readouterr()
    # The footage opens with the draw phase (declarations, the kitty): 30 s reach the first plays.
    replay = ["replay-eval", "--hands", "1", "--max-seconds", "30", "--size", "640x360"]
    replay += ["--out", str(tmp_path / "hands"), "--json", "--deck", str(deck)]
    assert main(replay) == 0
    said = capsys.readouterr()
    summary = json.loads(said.out)
    assert summary["options"]["designs"] == [str(deck)] and summary["plays"]["total"] >= 1
    if result.model is None:  # the bundled pair read it, and one line said why
        assert "no adapted model yet" in said.err
    else:
        assert "no adapted model yet" not in said.err
