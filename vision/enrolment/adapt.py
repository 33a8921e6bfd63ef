"""Adapting the card reader to one enrolled deck: ``chaodipi deck adapt DECK --minutes M``.

This module owns the adaptation of the bundled pair to a deck folder (one that ``chaodipi deck
capture`` wrote, or any other): both models are fine-tuned, the **localiser** for a share
``localiser_share`` of the ``M`` minutes (:data:`LOCALISER_SHARE`; a deck's index-less or
star-marked jokers and its own index lettering are what an unseen deck's localiser misses) and
the **classifier** for the rest; ``localiser_share=0`` keeps the bundled localiser.
:func:`adapt_deck`:

1. **Data** in ``DECK/.adapt/`` (:data:`~vision.enrolment.deck_model.WORK_FOLDER`, ignored by git
   through its own ``.gitignore``): held-out stills of the deck alone at the table camera's
   card scale and resolution (:data:`STILLS_SMALL_CARDS`, :data:`STILL_SIZE` px localised in
   one pass: the localiser sees a card as in a zone view, the classifier reads each index at
   the full sensor's pixels a cm; ``split="test"``, another seed); the localiser's scenes in
   the designs ``[DECK, DECK, DECK, procedural]`` (procedural decks in the mix so the models do
   not forget other lettering) at 320 px, half at the table camera's card scale
   (:func:`vision.synth.scenes.synthesize`, ``.adapt/scenes``) with card-free ones among them
   (:data:`CARD_FREE_EVERY`, :func:`vision.synth.negatives.synthesize_negatives`).
   Each part is made once: its recipe (counts, sizes, seed, a digest of the deck's faces) is
   written beside it when it is complete, and a later run with the same recipe reuses it.
2. **Training**: the localiser continues from ``models/baseline/localiser.pt`` at lr0
   :data:`LOCALISER_LR0` (:func:`vision.training.train.train`, one class) for its share of the
   minutes. Then the classifier's crops (:func:`vision.synth.crop_data.synthesize_crops`, made
   once like the rest) are cut from scenes in the same designs, a ``train`` and a ``val``
   split, with a ``none`` crop of each box the *mining pair* finds where no index shows (the
   new localiser beside the bundled classifier, :func:`_miner`: its false alarms on this deck,
   a maker's lettering, court art) and the bundled recipe's negatives
   (:data:`TEXT_NEGATIVES`, :data:`PICTURE_NEGATIVES`, card-free scenes
   :data:`PHANTOM_SCENES_EVERY` with the mining pair's false alarms on them:
   :func:`~vision.synth.crop_data.synthesize_phantom_crops`), and the classifier continues
   from the bundled classifier's weights (``models/baseline/classifier_e.pt``) at lr0
   :data:`LR0` (:func:`vision.training.train.train_classifier`) for the rest of the minutes,
   on the CPU (ultralytics' progress bars). The runs live in ``.adapt/run/localiser`` and
   ``.adapt/run/classifier``; the same command again *continues* an interrupted run from its
   last epoch (with the same wall-clock budget again), and reuses a finished one; another
   recipe starts a new run.
3. **Candidate pair** in ``.adapt/candidate/``: a copy of the new localiser exported at 512 px
   for the mining pair (or of the bundled ``card_detector.onnx``) and the new classifier
   exported and averaged with itself read half-turned, exactly like the bundled
   ``card_classifier.onnx``
   (:func:`vision.training.train.export_onnx`, :func:`~vision.training.train.average_onnx`).
4. **Joker size**: the candidate reads a weakly localised box as a joker (at
   :data:`vision.detector.JOKER_READ_CONF`) only when it is whole-card sized, as the bundled
   pair does (the ratio it carries), or at any size (:data:`ANY_SIZE`: a deck's star-marked
   jokers, whose small marks its localiser scores under its threshold) when that
   :func:`beats` the carried ratio by at least :data:`MIN_ANY_SIZE_GAIN` of recall
   (:func:`any_size_pays`) on *tuning stills*, another 100 of the held-out stills' kind
   (``.adapt/tuning``, seed ``seed + 5``), never on the held-out stills themselves.
   **Joker bar**: then, on the same tuning stills, the candidate reads jokers from the bar the
   bundled pair carries (``set_joker_conf``) or from a lower one (:data:`JOKER_BARS`),
   whichever reads the most identities there while beating the carried bar (:func:`beats`);
   the bar chosen is written into the candidate's localiser (:func:`_choose_joker_bar`).
5. **Scores**: the candidate and the bundled pair on the held-out stills, identity precision /
   recall (:func:`vision.training.evaluate.evaluate`; a pair's score is cached by its files'
   digest).
6. **Decision**: the candidate *beats* the bundled pair when its identity recall is strictly
   higher and its identity precision no lower than the bundled pair's less
   :data:`PRECISION_SLACK` (:func:`beats`). Only then is ``DECK/model/``
   written (the pair and ``report.json``: both scores, minutes, seed, date), replacing any
   earlier one whole; otherwise no model folder is written (an earlier one is left as it was)
   and the bundled pair stays the deck's reader.

Bad input raises a ``ValueError`` subclass with one line: not a deck folder
(:class:`~vision.enrolment.deck_model.DeckModelError`), ``minutes`` not above 0
(:class:`AdaptError`), the ``train`` extra missing (:class:`vision.training.train.TrainError`).
Torch and ultralytics are imported only inside :func:`adapt_deck`.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from vision.calibration import write_bytes_atomic, write_folder_atomic
from vision.enrolment.deck_model import (
    CLASSIFIER_FILE,
    DETECTOR_FILE,
    REPORT_FILE,
    WORK_FOLDER,
    deck_info,
    model_folder,
)
from vision.synth.decks import DeckInfo
from vision.training.train import DEFAULT_MODEL_PATH, REPO_ROOT, TrainError

BASELINE_CLASSIFIER = REPO_ROOT / "models" / "baseline" / "classifier_e.pt"
BASELINE_LOCALISER = REPO_ROOT / "models" / "baseline" / "localiser.pt"
LR0 = 0.0003
"""The fine-tuning rate (the model card's classifier rounds continued from the baseline at it)."""
LOCALISER_LR0 = 0.0005
"""The localiser's fine-tuning rate (the model card's localiser rounds continued at it)."""
DEFAULT_MINUTES = 12.0
"""``--minutes`` when not given: with the data and the scoring a whole run on a fresh deck
takes about 18 minutes on a 2-core machine (17.6 measured), inside the 20 minutes a table
has before its first hand; 16 minutes of training took about 24."""
LOCALISER_SHARE = 0.5
"""The share of the minutes the localiser trains for; the classifier trains for the rest."""
LOCALISER_IMGSZ = 320
"""The localiser's training scenes' size (the model card's); it is exported at 512 px."""
SMALL_CARDS = 0.5
"""Share of the localiser's scenes at the table camera's card scale (the model card's)."""
STILLS_SMALL_CARDS = 1.0
"""Share of the held-out stills at the table camera's card scale: all of them. The pairs are
judged where the table reads them (a close-up reads more surely than a card across the table),
and the model card's bar for an adapted deck is at that scale."""
STILL_SIZE = 1280
"""The held-out stills' side: at :data:`STILLS_SMALL_CARDS` a card is 192–320 px tall, 77–128 px
in the localiser's one 512 px pass (a 12 px a cm zone view: 106) and 22–36 px a cm where the
classifier reads it (the full sensor: 25–28). At 640 px every index was read at about the
binned mode's resolution, half the table's."""
STILL_TILES = 1
"""The held-out stills are localised in one letterboxed pass, as the table localises a zone."""
ANY_SIZE = 0.0
"""The joker size ratio (:func:`vision.training.train.set_joker_size`) that reads a weakly
localised box of any size as a joker: orell's ringed stars, 19–30 px in a 1280 px still, are
smaller than its indices (a ratio of 1 reads none of them)."""
MIN_ANY_SIZE_GAIN = 0.02
"""The identity recall on the tuning stills reading weak boxes of any size as jokers must gain
over the ratio the bundled pair carries (:func:`any_size_pays`). The still reads each card once;
the table reads a fan on every frame of a play, so a weak box read as a joker where none lies,
rare on stills, is read at the table: atlasnye's pair, which gained 0.011 (8 identities of 709)
at any size, read phantom jokers beside two plays of validation hand 9067 that the same pair
carrying the ratio read right. Orell's ringed-star jokers, smaller than its indices and read
by no other rule, gained 0.028."""
JOKER_BARS = (0.65, 0.5)
"""Joker bars a candidate is tried at on the tuning stills beside the one the bundled pair
carries (0.8: the bundled pair's false jokers on real photos, a Bicycle ace's lettering, set
it). A deck's own classifier has seen that deck's jokers, and reads some of them surely enough
yet under 0.8: atlasnye's small joker under a 7H, its "JOKER" strip boxed and read SJ at 0.68
(hand 9019), left the play a card short."""
TUNING_SEED_OFFSET = 3
"""The tuning stills' seed: the held-out stills' seed + this (``seed + 5``)."""
LOCALISER_EXPORT_SIZE = 512
"""The size the bundled localiser is exported at (its metadata ``imgsz``)."""
DECK_WEIGHT = 3
"""The deck's share of the training scenes' designs: ``[DECK] * 3 + ["procedural"]``."""


def training_designs(deck: str) -> list[str]:
    """The designs both models' training scenes are drawn in: ``deck`` (its folder, or ``DECK``
    in a recipe) :data:`DECK_WEIGHT` times and the procedural decks, so that the models do not
    forget other lettering."""
    return [deck] * DECK_WEIGHT + ["procedural"]


JOKER_SHARE = 0.2
"""Share of card groups with jokers mixed in (the model card's crop recipe)."""
TEXT_NEGATIVES = 2
"""Printed-text ``none`` crops a scene (the bundled classifier's recipe, ``--text-negatives``)."""
PICTURE_NEGATIVES = 2
"""Card-sized ``none`` crops a scene and a phantom scene (the bundled classifier's recipe,
``--picture-negatives``): court art, packaging pictures, what a localiser boxes whole."""
PHANTOM_SCENES_EVERY = 4
"""One card-free scene (printed pages, score sheets, packaging, cloths) cut into ``none`` crops
for every this many crop scenes (the bundled classifier's recipe: 1,500 for 6,000). With one
text negative a scene and neither pictures nor card-free scenes, adapted pairs read 2 to 23
phantom cards on the phantom-card set where the bundled pair reads none."""
CARD_FREE_EVERY = 16
"""One card-free scene (empty labels) among the localiser's scenes for every this many (the
bundled localiser's recipe: 600 for 9,600)."""
EPOCH_CAP = 1000
"""The run's nominal epochs: the wall-clock budget ends it long before (ultralytics re-plans
its epochs after the first one)."""


class AdaptError(ValueError):
    """``deck adapt`` cannot run as asked; the message is one line naming the fix."""


@dataclass(frozen=True)
class PairScore:
    """A pair's identity scores on the held-out stills."""

    precision: float | None
    recall: float | None
    perfect_images: float | None
    images: int

    def text(self) -> str:
        def shown(x: float | None) -> str:
            return "n/a" if x is None else f"{x:.3f}"

        return f"{shown(self.precision)} / {shown(self.recall)}"


@dataclass(frozen=True)
class AdaptResult:
    """What one ``deck adapt`` did: the two scores, where the model went (``None``: nowhere,
    the bundled pair is kept), which parts of ``.adapt/`` were reused, and the run's size."""

    deck: Path
    candidate: PairScore
    bundled: PairScore
    model: Path | None
    reused: tuple[str, ...]
    epochs: int
    train_seconds: float
    stills: int
    still_size: int
    localiser_epochs: int = 0
    """The localiser's epochs (0: the bundled localiser was kept); ``epochs`` are the
    classifier's, ``train_seconds`` both models'."""


PRECISION_SLACK = 0.005
"""How much lower the candidate's identity precision may be and it still beats the bundled
pair: a false read or two among the held-out stills' ≈ 900 reads, within their noise (an
orell pair read 0.936 against 0.858 of its held-out identities at 0.988 against 0.989
precision, and was not kept when no loss at all was allowed)."""
BEATS = f"strictly higher identity recall at an identity precision at most {PRECISION_SLACK} lower"


def beats(candidate: PairScore, bundled: PairScore) -> bool:
    """Whether the candidate pair beats the bundled one: strictly higher identity recall at an
    identity precision at most :data:`PRECISION_SLACK` lower (a score that could not be
    measured never beats)."""
    if None in (candidate.recall, candidate.precision, bundled.recall, bundled.precision):
        return False
    assert candidate.recall is not None and candidate.precision is not None
    assert bundled.recall is not None and bundled.precision is not None
    return (
        candidate.recall > bundled.recall
        and candidate.precision >= bundled.precision - PRECISION_SLACK
    )


def any_size_pays(any_size: PairScore, as_carried: PairScore) -> bool:
    """Whether reading weak boxes of any size as jokers is worth what it risks at the table:
    it :func:`beats` the carried ratio on the tuning stills by at least
    :data:`MIN_ANY_SIZE_GAIN` of identity recall."""
    if not beats(any_size, as_carried):
        return False
    assert any_size.recall is not None and as_carried.recall is not None
    return any_size.recall - as_carried.recall >= MIN_ANY_SIZE_GAIN


def default_scenes(minutes: float) -> int:
    """Training scenes for a budget of ``minutes``: about 100 a minute (≈ 1,300 crops, which a
    2-core CPU passes over in ≈ 5 s an epoch), 300 to 6,000."""
    return int(min(6000, max(300, round(100 * minutes))))


def default_localiser_scenes(minutes: float) -> int:
    """The localiser's training scenes for a budget of ``minutes``: about 200 a minute (a
    2-core CPU passes over ≈ 16 scenes of 320 px a second: ≈ 5 epochs), 100 to 4,000."""
    return int(min(4000, max(100, round(200 * minutes))))


def faces_digest(deck: Path) -> str:
    """A digest of the deck's faces and backs (their names and bytes): data made from other
    faces is never reused."""
    info = deck_info(deck)
    h = hashlib.sha256()
    for path in sorted([*info.faces.values(), *info.backs]):
        h.update(path.name.encode())
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def files_digest(paths: Sequence[Path]) -> str:
    h = hashlib.sha256()
    for path in paths:
        h.update(path.read_bytes())
    return h.hexdigest()[:16]


def _pair_digest(detector: Path) -> str:
    """The digest of the pair whose localiser is ``detector``: it and the classifier beside
    it."""
    return files_digest([detector, detector.with_name(CLASSIFIER_FILE)])


def _read_json(path: Path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None


def _write_json(path: Path, data: Any) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    write_bytes_atomic(path, text.encode("utf-8"))


def made_once(
    folder: Path,
    recipe: Mapping[str, Any],
    make: Callable[[], None],
    what: str = "data",
    say: Callable[[str], None] = print,
) -> bool:
    """Make ``folder`` with ``make()`` unless it holds data of this ``recipe`` already
    (``folder/recipe.json``, written only once ``make`` has finished). Returns whether it was
    reused; a partial or other folder is removed first and made again. ``say`` tells which,
    naming the data ``what``."""
    marker = folder / "recipe.json"
    if _read_json(marker) == dict(recipe):
        say(f"{what}: made before, reused ({folder})")
        return True
    say(f"{what}: making them in {folder}")
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    make()
    _write_json(marker, dict(recipe))
    return False


def training_state(run_dir: Path, recipe_file: Path, recipe: Mapping[str, Any]) -> str:
    """What to do with the run in ``run_dir`` for ``recipe``: ``"done"`` (a finished run of
    this recipe: reuse it), ``"resume"`` (an interrupted one: continue from its last epoch) or
    ``"fresh"`` (none, or another recipe's, as ``recipe_file`` says: start over)."""
    if _read_json(recipe_file) != dict(recipe):
        return "fresh"
    if (run_dir / "train_result.json").is_file():
        return "done"
    if (run_dir / "weights" / "last.pt").is_file():
        return "resume"
    return "fresh"


def _score(
    detector: Path,
    stills: Path,
    cache: Path,
    threads: int,
    stills_recipe: Mapping[str, Any],
    joker_size: float | None = None,
    joker_conf: float | None = None,
) -> PairScore:
    """The pair whose localiser is ``detector`` (classifier beside it) on ``stills``, cached in
    ``cache`` by the pair's digest and the stills' recipe; ``joker_size`` and ``joker_conf``
    override the joker size ratio and the joker bar the pair carries."""
    from vision.detector import WEAK_INDEX_LOC_CONF, CardDetector
    from vision.training.evaluate import evaluate

    key = {
        "pair": _pair_digest(detector),
        "stills": dict(stills_recipe),
        "tiles": STILL_TILES,
        "joker_size": joker_size,
        "joker_conf": joker_conf,
        "weak_index_loc_conf": WEAK_INDEX_LOC_CONF,
    }
    cached = _read_json(cache)
    if isinstance(cached, dict) and cached.get("key") == key:
        return PairScore(**cached["score"])
    reader = CardDetector(
        detector,
        threads=threads,
        max_tiles=STILL_TILES,
        joker_size_ratio=joker_size,
        joker_conf=joker_conf,
    )
    result = evaluate(stills, reader)
    score = PairScore(
        precision=result.identity_precision,
        recall=result.identity_recall,
        perfect_images=result.perfect_images,
        images=len(result.images),
    )
    _write_json(cache, {"key": key, "score": asdict(score)})
    return score


@contextlib.contextmanager
def exclusive(work: Path) -> Iterator[None]:
    """Hold ``work/lock`` while working there: a second ``deck adapt`` of the same deck is
    refused in one line rather than training into the same run (the lock goes with the
    process, however it ends)."""
    with open(work / "lock", "w") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise AdaptError(
                f"another deck adapt is working in {work}: wait for it to end, or stop it"
            ) from None
        yield


def _check_train_extra() -> None:
    try:
        from vision.training.train import _import_ultralytics

        _import_ultralytics()
    except TrainError:
        raise TrainError(
            "deck adapt fine-tunes the classifier and needs the train extra: "
            "pip install -e '.[train]'"
        ) from None


def _write_model(deck: Path, candidate: Path, report: Mapping[str, Any]) -> Path:
    """``DECK/model/`` from the candidate pair and ``report``, all at once (built beside it,
    then renamed into place; an earlier one is replaced whole)."""
    target = model_folder(deck)

    def fill(folder: Path) -> None:
        for name in (DETECTOR_FILE, CLASSIFIER_FILE):
            shutil.copyfile(candidate / name, folder / name)
        _write_json(folder / REPORT_FILE, dict(report))

    write_folder_atomic(target, fill)
    return target


def adapt_deck(
    deck: Path,
    minutes: float,
    *,
    seed: int = 0,
    workers: int | None = None,
    scenes: int | None = None,
    val_scenes: int | None = None,
    crop_sizes: Sequence[int] = (320, 640),
    localiser_share: float = LOCALISER_SHARE,
    localiser_scenes: int | None = None,
    stills: int = 100,
    still_size: int = STILL_SIZE,
    batch: int = 128,
    threads: int | None = None,
    bundled: Path = DEFAULT_MODEL_PATH,
    baseline: Path = BASELINE_CLASSIFIER,
    baseline_localiser: Path = BASELINE_LOCALISER,
    say: Callable[[str], None] = print,
) -> AdaptResult:
    """Fine-tune the localiser and the classifier on ``deck`` for ``minutes`` of training
    between them and write ``deck/model/`` when the new pair beats ``bundled`` (see the module
    docstring).

    ``seed`` seeds the data (training crops ``seed``, validation crops ``seed + 1``, held-out
    stills ``seed + 2``, the localiser's scenes ``seed + 3`` and ``seed + 4``, the tuning stills
    ``seed + 5``, the localiser's card-free scenes ``seed + 6`` and ``seed + 7``); ``workers``
    processes render the scenes, stills and crops (default: one a core); ``scenes`` training
    scenes for the classifier's crops (default :func:`default_scenes` of its minutes) and
    ``val_scenes`` validation ones (default a tenth, at least 10), drawn at ``crop_sizes`` px;
    ``localiser_share`` of the minutes trains the localiser (0: the bundled one stays) on
    ``localiser_scenes`` scenes (default :func:`default_localiser_scenes`); ``stills``
    held-out stills (and as many tuning stills) at ``still_size`` px; ``threads`` torch and
    onnxruntime threads (default: every core). ``say`` prints the stages.
    """
    if not minutes > 0:
        raise AdaptError(f"--minutes must be above 0 (got {minutes:g}): e.g. --minutes 12")
    if not 0 <= localiser_share < 1:
        raise AdaptError(
            f"--localiser-share must lie in 0 ... below 1 (got {localiser_share:g}): e.g. 0.5"
        )
    deck = Path(deck).expanduser()
    info = deck_info(deck)
    _check_train_extra()
    threads = threads or os.cpu_count() or 1
    workers = workers or os.cpu_count() or 1
    localiser_minutes = minutes * localiser_share
    classifier_minutes = minutes - localiser_minutes
    n_train = scenes if scenes is not None else default_scenes(classifier_minutes)
    n_val = val_scenes if val_scenes is not None else max(10, n_train // 10)
    n_loc = localiser_scenes or default_localiser_scenes(localiser_minutes)
    work = deck / WORK_FOLDER
    work.mkdir(exist_ok=True)
    (work / ".gitignore").write_text("*\n", encoding="utf-8")
    reused: list[str] = []
    with exclusive(work):  # one adapt at a time in a deck's work folder
        faces = faces_digest(deck)
        designs = training_designs("DECK")
        held_out_seed = seed + 2
        stills_recipe = {
            "stills": stills,
            "seed": held_out_seed,
            "imgsz": still_size,
            "small_cards": STILLS_SMALL_CARDS,
            "jokers": JOKER_SHARE,
            "faces": faces,
        }
        tuning_recipe = dict(stills_recipe, seed=held_out_seed + TUNING_SEED_OFFSET)
        scenes_recipe = {
            "scenes": n_loc,
            "val_scenes": max(10, n_loc // 10),
            "seed": seed + 3,
            "designs": designs,
            "imgsz": LOCALISER_IMGSZ,
            "small_cards": SMALL_CARDS,
            "jokers": JOKER_SHARE,
            "card_free": n_loc // CARD_FREE_EVERY,
            "faces": faces,
        }
        if _make_stills(work / "stills", info, stills_recipe, "held-out stills", workers, say):
            reused.append("stills")
        localiser_weights: Path | None = None
        localiser_run: dict[str, Any] = {}
        if localiser_share > 0:
            _make_scenes(work, info, scenes_recipe, workers, say, reused)
            localiser_recipe = {
                "minutes": localiser_minutes,
                "lr0": LOCALISER_LR0,
                "start": files_digest([baseline_localiser]),
                "scenes": scenes_recipe,
            }
            localiser_weights, localiser_run = _train(
                work, "localiser", localiser_recipe, baseline_localiser, threads, say, reused
            )
        miner, mined_with = _miner(work, localiser_weights, bundled, say)
        crop_recipes = {
            split: {
                "scenes": n,
                "seed": split_seed,
                "designs": designs,
                "sizes": list(crop_sizes),
                "jokers": JOKER_SHARE,
                "text_negatives": TEXT_NEGATIVES,
                "picture_negatives": PICTURE_NEGATIVES,
                "phantom_scenes": n // PHANTOM_SCENES_EVERY,
                "faces": faces,
                "mined_with": mined_with,
            }
            for split, n, split_seed in (("train", n_train, seed), ("val", n_val, seed + 1))
        }
        _make_crops(work, info, crop_recipes, miner, workers, say, reused)
        train_recipe = {
            "minutes": classifier_minutes,
            "lr0": LR0,
            "batch": batch,
            "start": files_digest([baseline]),
            "crops": crop_recipes,
        }
        weights, run = _train(work, "classifier", train_recipe, baseline, threads, say, reused)
        new_localiser = miner if localiser_weights is not None else None
        candidate = _candidate(work, weights, new_localiser, bundled, say, reused)
        joker_size, at_size = _choose_joker_size(
            candidate, bundled, work, info, tuning_recipe, threads, workers, say, reused
        )
        joker_bar = _choose_joker_bar(candidate, work, tuning_recipe, threads, say, at_size)
        say("scoring the bundled pair and the candidate on the held-out stills")
        stills_dir = work / "stills"
        bundled_score = _score(
            bundled, stills_dir, work / "score_bundled.json", threads, stills_recipe
        )
        candidate_score = _score(
            candidate, stills_dir, work / "score_candidate.json", threads, stills_recipe
        )
        epochs = int(run.get("epochs", 0) or 0)
        train_seconds = float(run.get("seconds", 0.0) or 0.0)
        localiser_epochs = int(localiser_run.get("epochs", 0) or 0)
        localiser_seconds = float(localiser_run.get("seconds", 0.0) or 0.0)
        written: Path | None = None
        if beats(candidate_score, bundled_score):
            localiser: str | dict[str, Any] = f"{_shown(bundled)}, copied"
            if localiser_weights is not None:
                localiser = {
                    "scenes": n_loc,
                    "start": _shown(baseline_localiser),
                    "lr0": LOCALISER_LR0,
                    "minutes": localiser_minutes,
                    "epochs": localiser_epochs,
                    "seconds": localiser_seconds,
                }
            report = {
                "deck": info.name,
                "minutes": minutes,
                "seed": seed,
                "date": datetime.now(UTC).isoformat(timespec="seconds"),
                "beats": BEATS,
                "adapted": asdict(candidate_score),
                "bundled": asdict(bundled_score),
                "held_out": {
                    key: stills_recipe[key] for key in ("stills", "imgsz", "small_cards", "seed")
                },
                "training": {
                    "scenes": n_train,
                    "val_scenes": n_val,
                    "designs": designs,
                    "start": _shown(baseline),
                    "lr0": LR0,
                    "minutes": classifier_minutes,
                    "epochs": epochs,
                    "seconds": train_seconds,
                },
                "localiser": localiser,
                "joker_size_ratio": joker_size,
                "joker_bar": joker_bar,
            }
            written = _write_model(deck, candidate.parent, report)
    return AdaptResult(
        deck=deck,
        candidate=candidate_score,
        bundled=bundled_score,
        model=written,
        reused=tuple(reused),
        epochs=epochs,
        train_seconds=train_seconds + localiser_seconds,
        stills=stills,
        still_size=still_size,
        localiser_epochs=localiser_epochs,
    )


def _shown(path: Path) -> str:
    """``path`` relative to the repository when inside it."""
    return str(path.relative_to(REPO_ROOT)) if path.is_relative_to(REPO_ROOT) else str(path)


def _make_crops(
    work: Path,
    info: DeckInfo,
    crop_recipes: Mapping[str, Mapping[str, Any]],
    mine_with: Path,
    workers: int,
    say: Callable[[str], None],
    reused: list[str],
) -> None:
    """The crops (``work/crops/{train,val}/<class>/``, ultralytics' layout; the false alarms
    of the pair ``mine_with`` on the deck's scenes and on card-free ones cut as ``none``), each
    split made once for its recipe."""
    from vision.synth.crop_data import synthesize_crops, synthesize_phantom_crops

    design = str(info.folder.resolve())
    designs = training_designs(design)
    data = work / "crops"
    for split, recipe in crop_recipes.items():

        def make_crops(split: str = split, recipe: Mapping[str, Any] = recipe) -> None:
            synthesize_crops(
                int(recipe["scenes"]),
                data,
                int(recipe["seed"]),
                designs,
                sizes=list(recipe["sizes"]),
                split=split,
                workers=workers,
                joker_share=float(recipe["jokers"]),
                text_negatives=int(recipe["text_negatives"]),
                picture_negatives=int(recipe["picture_negatives"]),
                mine_with=mine_with,
            )
            synthesize_phantom_crops(
                int(recipe["phantom_scenes"]),
                data,
                int(recipe["seed"]),
                split,
                pictures=int(recipe["picture_negatives"]),
                mine_with=mine_with,
            )

        what = f"{split} crops from {recipe['scenes']} scenes of {info.name} and procedural decks"
        if made_once(data / split, recipe, make_crops, what, say):
            reused.append(f"{split} crops")


def _make_stills(
    folder: Path,
    info: DeckInfo,
    recipe: Mapping[str, Any],
    what: str,
    workers: int,
    say: Callable[[str], None],
) -> bool:
    """Renders of the deck alone (``recipe``: count, seed, size, shares) in ``folder``, a YOLO
    dataset made once for its recipe; returns whether it was reused."""
    from vision.synth.scenes import synthesize

    n, size = int(recipe["stills"]), int(recipe["imgsz"])

    def make_stills() -> None:
        synthesize(
            n,
            folder,
            int(recipe["seed"]),
            [str(info.folder.resolve())],
            size,
            "test",
            small_share=float(recipe["small_cards"]),
            joker_share=float(recipe["jokers"]),
            workers=workers,
        )

    return made_once(
        folder, recipe, make_stills, f"{what}: {n} renders of {info.name} at {size} px", say
    )


def _choose_joker_size(
    candidate: Path,
    bundled: Path,
    work: Path,
    info: DeckInfo,
    tuning_recipe: Mapping[str, Any],
    threads: int,
    workers: int,
    say: Callable[[str], None],
    reused: list[str],
) -> tuple[float | None, PairScore | None]:
    """Write :data:`ANY_SIZE` into the candidate localiser when reading weak boxes of any size
    as jokers beats the ratio it carries on the tuning stills (step 4 of the module docstring);
    returns the ratio the candidate carries then (``None``: none, the detector's default) and
    its score on the tuning stills at that ratio (``None``: not read, the ratio carried
    already being :data:`ANY_SIZE`).
    The choice is made afresh each run from the ``bundled`` pair's ratio: a localiser kept from
    an earlier run carries the choice made beside that run's classifier."""
    from vision.detector import CardDetector
    from vision.training.train import carry_pair_settings, set_joker_size

    tuning = work / "tuning"
    if _make_stills(tuning, info, tuning_recipe, "tuning stills", workers, say):
        reused.append("tuning stills")
    carry_pair_settings(bundled, candidate)
    carried = CardDetector(candidate, threads=threads).joker_size
    if carried == ANY_SIZE:
        return ANY_SIZE, None
    as_carried = _score(candidate, tuning, work / "tuning_carried.json", threads, tuning_recipe)
    any_size = _score(
        candidate, tuning, work / "tuning_any_size.json", threads, tuning_recipe, ANY_SIZE
    )
    if any_size_pays(any_size, as_carried):
        set_joker_size(candidate, ANY_SIZE)
        say(
            f"joker size: weak boxes of any size read as jokers ({any_size.text()} on the "
            f"tuning stills against {as_carried.text()} whole-card sized only)"
        )
        return ANY_SIZE, any_size
    say(
        f"joker size: whole-card sized weak boxes only, as the bundled pair ({as_carried.text()} "
        f"on the tuning stills against {any_size.text()} at any size; any size must gain "
        f"{MIN_ANY_SIZE_GAIN:g} of recall)"
    )
    return carried, as_carried


def _choose_joker_bar(
    candidate: Path,
    work: Path,
    tuning_recipe: Mapping[str, Any],
    threads: int,
    say: Callable[[str], None],
    at_carried_bar: PairScore | None = None,
) -> float:
    """Write into the candidate localiser the joker bar, of the one it carries and the lower
    :data:`JOKER_BARS`, that reads the most identities on the tuning stills (made by
    :func:`_choose_joker_size`) while beating the carried bar; returns the bar it carries
    then. A tie keeps the higher bar. ``at_carried_bar``: the candidate's score on the tuning
    stills as it is (the joker-size step's), which is then not read again."""
    from vision.detector import CardDetector
    from vision.training.train import set_joker_conf

    tuning = work / "tuning"
    carried = CardDetector(candidate, threads=threads).joker_bar

    def read_at(bar: float) -> PairScore:
        cache = work / f"tuning_joker_bar_{bar:g}.json"
        return _score(candidate, tuning, cache, threads, tuning_recipe, joker_conf=bar)

    as_carried = at_carried_bar if at_carried_bar is not None else read_at(carried)
    chosen, best = carried, as_carried
    for bar in (b for b in JOKER_BARS if b < carried):
        score = read_at(bar)
        if beats(score, as_carried) and beats(score, best):
            chosen, best = bar, score
    if chosen != carried:
        set_joker_conf(candidate, chosen)
    say(
        f"joker bar: {chosen:g} ({best.text()} on the tuning stills; "
        f"{as_carried.text()} at the carried {carried:g})"
    )
    return chosen


def _make_scenes(
    work: Path,
    info: DeckInfo,
    recipe: Mapping[str, Any],
    workers: int,
    say: Callable[[str], None],
    reused: list[str],
) -> None:
    """The localiser's scenes (``work/scenes``, a YOLO dataset with a ``train`` and a ``val``
    split), made once for ``recipe``."""
    from vision.synth.negatives import synthesize_negatives
    from vision.synth.scenes import synthesize

    folder = work / "scenes"
    designs = training_designs(str(info.folder.resolve()))
    seed, size = int(recipe["seed"]), int(recipe["imgsz"])

    def make_scenes() -> None:
        for split, n, split_seed in (
            ("train", int(recipe["scenes"]), seed),
            ("val", int(recipe["val_scenes"]), seed + 1),
        ):
            synthesize(
                n,
                folder,
                split_seed,
                designs,
                size,
                split,
                small_share=float(recipe["small_cards"]),
                joker_share=float(recipe["jokers"]),
                workers=workers,
            )
        card_free = int(recipe["card_free"])
        for split, n, split_seed in (
            ("train", card_free, seed + 3),
            ("val", card_free // 10, seed + 4),
        ):
            synthesize_negatives(n, folder, split_seed, size, split)

    what = f"localiser scenes: {recipe['scenes']} of {info.name} and procedural decks"
    if made_once(folder, recipe, make_scenes, what, say):
        reused.append("scenes")


def _train(
    work: Path,
    model: str,
    recipe: Mapping[str, Any],
    baseline: Path,
    threads: int,
    say: Callable[[str], None],
    reused: list[str],
) -> tuple[Path, dict[str, Any]]:
    """Train, continue or reuse the run in ``work/run/<model>`` (``localiser`` or
    ``classifier``; :func:`training_state`); its weights and ``train_result.json``."""
    from vision.training.train import train, train_classifier

    project = work / "run"
    run_dir = project / model
    recipe_file = project / f"{model}.recipe.json"  # beside the run: ultralytics empties a new one
    state = training_state(run_dir, recipe_file, recipe)
    minutes = float(recipe["minutes"])
    lr0 = float(recipe["lr0"])
    if state == "done":
        say(f"{model} training: the finished run in {run_dir} is reused")
        reused.append(f"{model} training")
    else:
        how = "continuing the run in" if state == "resume" else "a new run in"
        say(
            f"{model} training: {how} {run_dir}, {minutes:g} min on the CPU from "
            f"{baseline.name} at lr0 {lr0:g}"
        )
        _write_json(recipe_file, recipe)
        common: dict[str, Any] = {
            "epochs": EPOCH_CAP,
            "threads": threads,
            "project": project,
            "name": model,
            "model_yaml": str(baseline),
            "resume": state == "resume",
            "hours": minutes / 60,
            "lr0": lr0,
            "device": "cpu",
        }
        try:
            if model == "localiser":
                train(
                    work / "scenes",
                    imgsz=LOCALISER_IMGSZ,
                    batch=16,
                    single_class=True,
                    **common,
                )
            else:
                train_classifier(work / "crops", batch=int(recipe["batch"]), **common)
        except AssertionError:
            # ultralytics: "training to N epochs is finished, nothing to resume" (stopped
            # between its last epoch and its final check): its weights stand.
            if not (run_dir / "weights" / "best.pt").is_file():
                raise
            _write_json(run_dir / "train_result.json", {"run_dir": str(run_dir)})
    weights = run_dir / "weights" / "best.pt"
    if not weights.is_file():
        weights = run_dir / "weights" / "last.pt"
    return weights, _read_json(run_dir / "train_result.json") or {}


def _miner(
    work: Path, localiser_weights: Path | None, bundled: Path, say: Callable[[str], None]
) -> tuple[Path, str]:
    """The pair whose false alarms are cut as the classifier's ``none`` crops: the localiser
    the candidate will carry (in ``work/miner``, reading weakly localised boxes of any size as
    jokers, :data:`ANY_SIZE`) beside the bundled classifier, or the bundled pair when no
    localiser was trained. What the new localiser boxes on card-free scenes and off the deck's
    indices (a cloth's rings beside a deck whose jokers are ringed stars) is what the new
    classifier must learn to leave unread. Returns its localiser's path (the new localiser's
    one export, which the candidate copies) and a digest of what it was made from, for the
    crops' recipe."""
    if localiser_weights is None:
        return bundled, _pair_digest(bundled)
    from vision.training.train import carry_pair_settings, export_onnx, set_joker_size

    miner = work / "miner"
    localiser = miner / DETECTOR_FILE
    miner.mkdir(exist_ok=True)
    if not _newer(localiser, localiser_weights):
        say(f"mining pair: the new localiser beside the bundled classifier in {miner}")
        export_onnx(localiser_weights, LOCALISER_EXPORT_SIZE, localiser)
        carry_pair_settings(bundled, localiser)
        set_joker_size(localiser, ANY_SIZE)
        shutil.copyfile(bundled.with_name(CLASSIFIER_FILE), miner / CLASSIFIER_FILE)
    return localiser, files_digest([localiser_weights, bundled.with_name(CLASSIFIER_FILE)])


def _candidate(
    work: Path,
    weights: Path,
    new_localiser: Path | None,
    bundled: Path,
    say: Callable[[str], None],
    reused: list[str],
) -> Path:
    """The candidate pair in ``work/candidate``: a copy of the new localiser's export
    ``new_localiser`` (:func:`_miner`'s; or of the bundled localiser when none was trained)
    and the new classifier, exported and averaged with itself read half-turned (as the bundled
    one is); each made again when its source is newer. Returns its localiser's path."""
    from vision.training.train import average_onnx, carry_pair_settings, export_onnx

    candidate = work / "candidate"
    classifier = candidate / CLASSIFIER_FILE
    localiser = candidate / DETECTOR_FILE
    candidate.mkdir(exist_ok=True)
    made = False
    if new_localiser is None:
        shutil.copyfile(bundled, localiser)  # the localiser stays the bundled one
    elif not _newer(localiser, new_localiser):
        say(f"candidate pair: the new localiser in {candidate}")
        shutil.copyfile(new_localiser, localiser)
        carry_pair_settings(bundled, localiser)  # the base pair's joker bar and size ratio
        made = True
    if not _newer(classifier, weights):
        say(f"candidate pair: the new classifier in {candidate}")
        single = export_onnx(weights, 64, candidate / "classifier_single.onnx")
        average_onnx([single, single], classifier, half_turned=[False, True])
        made = True
    if not made:
        reused.append("candidate")
    return localiser


def _newer(target: Path, source: Path) -> bool:
    """Whether ``target`` exists and is no older than ``source`` (made from it)."""
    return target.is_file() and target.stat().st_mtime >= source.stat().st_mtime
