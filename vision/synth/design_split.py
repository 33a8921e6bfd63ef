"""The project's design split: which deck designs training may use and which are kept apart
to validate on (``design_split.toml`` beside this module, families kept on one side).

``chaodipi vision synth|crops --deck-root DIR --side train|validation`` draw every deck folder
under ``DIR`` (and the built-in decks) on that side; a figure "on the validation decks" is
measured on renders of the validation side only.
"""

from __future__ import annotations

import functools
import tomllib
from dataclasses import dataclass
from pathlib import Path

from vision.synth.decks import BUILT_IN_DECKS

SPLIT_FILE = Path(__file__).resolve().parent / "design_split.toml"
SIDES = ("train", "validation")


class SplitError(ValueError):
    """The split file or a deck root cannot be used; the message is one line."""


@dataclass(frozen=True)
class DesignSplit:
    """Deck families and the families kept for validation."""

    families: dict[str, tuple[str, ...]]
    validation: frozenset[str]

    def family_of(self, deck: str) -> str:
        """The family a deck (by folder name) belongs to; a deck no family names is its own."""
        for family, decks in self.families.items():
            if deck in decks:
                return family
        return deck

    def side_of(self, deck: str) -> str:
        return "validation" if self.family_of(deck) in self.validation else "train"


@functools.cache
def load_split(path: Path = SPLIT_FILE) -> DesignSplit:
    """The declared split; a one-line :class:`SplitError` if the file is inconsistent."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    families = {str(k): tuple(str(d) for d in v) for k, v in data.get("families", {}).items()}
    seen: dict[str, str] = {}
    for family, decks in families.items():
        for deck in decks:
            if deck in seen:
                raise SplitError(f"{path}: deck {deck} is in families {seen[deck]} and {family}")
            seen[deck] = family
    validation = frozenset(str(v) for v in data.get("validation", []))
    unknown = sorted(validation - set(families))
    if unknown:
        raise SplitError(f"{path}: validation names {unknown[0]!r}, which is no family")
    return DesignSplit(families, validation)


def is_deck_folder(folder: Path) -> bool:
    return folder.is_dir() and not folder.name.startswith((".", "_")) and any(folder.glob("AS.*"))


def decks_on_side(side: str, deck_root: Path | None = None) -> list[str]:
    """The designs on ``side`` of the split: built-in deck names and, under ``deck_root``,
    deck folder paths, in name order."""
    if side not in SIDES:
        raise SplitError(f"side {side!r}: use train or validation")
    split = load_split()
    designs = [name for name in BUILT_IN_DECKS if split.side_of(name) == side]
    if deck_root is not None:
        if not deck_root.is_dir():
            raise SplitError(
                f"deck root {deck_root} is not a folder: give a folder of deck folders"
            )
        folders = sorted(p for p in deck_root.iterdir() if is_deck_folder(p))
        if not folders:
            raise SplitError(f"deck root {deck_root} holds no deck folder (a folder with AS.png)")
        designs += [str(p) for p in folders if split.side_of(p.name) == side]
    return designs
