"""Which card reader reads an enrolled deck: ``--deck DIR`` on ``run``, ``replay``,
``replay-eval`` and ``demo``.

This module owns the deck folder's model layout and the one resolution the commands share
(:func:`detector_for`). ``chaodipi deck adapt DIR`` (:mod:`vision.enrolment.adapt`) writes the
deck's own reader to ``DIR/model/``: ``card_detector.onnx`` (the localiser fine-tuned on the
deck, or a copy of the bundled one) with its ``card_classifier.onnx`` beside it (the classifier
fine-tuned on the deck), and
``report.json``. Its work files stay in ``DIR/.adapt/``. A deck without ``model/`` is read by
the command's usual model (the bundled pair unless a config names another), with one line on
stderr saying so. Importing this module costs nothing heavy: the commands load it at run time.
"""

from __future__ import annotations

import sys
from pathlib import Path

from vision.synth.decks import MODEL_FOLDER, DeckError, DeckInfo, load_deck

DETECTOR_FILE = "card_detector.onnx"
CLASSIFIER_FILE = "card_classifier.onnx"
REPORT_FILE = "report.json"
DECK_HELP = (
    "an enrolled deck folder: read with its adapted model (DIR/model/, from chaodipi deck "
    "adapt) when it has one, else the bundled pair"
)
"""``--deck``'s help, the same on every command that takes it."""
WORK_FOLDER = ".adapt"
"""Where ``deck adapt`` keeps its data and training run (hidden: a deck folder passes it over)."""


class DeckModelError(ValueError):
    """``--deck`` cannot be used as given; the message is one line naming the fix."""


def deck_info(deck: Path) -> DeckInfo:
    """The deck folder ``deck``, checked (:func:`vision.synth.decks.load_deck` on its full path,
    never a built-in deck's name); :class:`DeckModelError` in one line when it is no deck."""
    try:
        return load_deck(str(Path(deck).expanduser().resolve()))
    except DeckError as e:
        raise DeckModelError(f"{deck} is not a deck folder: {e}") from None


def model_folder(deck: Path) -> Path:
    """``DECK/model/``: the deck's adapted card reader, when ``deck adapt`` has written one."""
    return Path(deck) / MODEL_FOLDER


def detector_for(model: Path | None, deck: Path | None, command: str) -> Path | None:
    """The detector ONNX that ``--model`` and ``--deck`` ask for; ``None``: the command's own
    default (the bundled pair, or the model a table config names).

    Without ``deck``: ``model`` as given. With ``deck`` (a deck folder, else a one-line
    :class:`DeckModelError`; with ``model`` too, refused in one line): the deck's
    ``model/card_detector.onnx`` (its classifier beside it) when ``model/`` exists, else
    ``None`` and one line on stderr, prefixed ``chaodipi COMMAND:``, saying that the deck has no
    adapted model yet and how to make one.
    """
    if deck is None:
        return model
    if model is not None:
        raise DeckModelError(
            "--deck and --model both name a model: give --deck DIR (its adapted model) or "
            "--model FILE, not both"
        )
    deck_info(deck)
    folder = model_folder(deck)
    if folder.is_dir():
        return folder / DETECTOR_FILE
    print(
        f"chaodipi {command}: deck {deck} has no adapted model yet, so the bundled pair reads "
        f"it (or the model a config names): run `chaodipi deck adapt {deck}` to make one",
        file=sys.stderr,
    )
    return None
