"""Stroke lettering: every index glyph in each of its printed shapes, any pen, width and slant."""

from __future__ import annotations

import dataclasses

import numpy as np

from vision.synth.lettering import text_mask
from vision.synth.procedural import random_style, render_procedural
from vision.synth.stroke_font import GLYPHS, StrokeFont

RANKS = ("2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A")


def font(**variants: int) -> StrokeFont:
    chosen = tuple((ch, variants.get(ch, 0)) for ch in GLYPHS)
    return StrokeFont(chosen, weight=0.06, width=1.0, slant=0.0)


def test_every_rank_and_joker_letter_is_drawn_with_ink() -> None:
    f = StrokeFont.random(np.random.default_rng(0))
    for text in (*RANKS, "JOKER", "I", "O"):
        assert f.draws(text)
        mask = text_mask(text, f, 40)
        assert mask.shape[0] == 40 and 0.05 < mask.mean() < 0.7, text


def test_a_flat_topped_three_differs_from_a_round_one() -> None:
    round_three = text_mask("3", font(), 48)
    flat_three = text_mask("3", font(**{"3": 1}), 48)
    top_row_ink = [m[:3].mean() for m in (round_three, flat_three)]
    assert top_row_ink[1] > 1.5 * top_row_ink[0]  # the flat top is one long bar


def test_every_variant_of_a_glyph_is_a_different_shape() -> None:
    for ch, (count, _, _) in GLYPHS.items():
        shapes = {text_mask(ch, font(**{ch: v}), 32).round(1).tobytes() for v in range(count)}
        assert len(shapes) == count, ch


def test_pen_weight_thickens_the_strokes() -> None:
    thin = dataclasses.replace(font(), weight=0.03)
    bold = dataclasses.replace(font(), weight=0.13)
    assert text_mask("7", bold, 48).mean() > 2 * text_mask("7", thin, 48).mean()


def test_text_outside_the_alphabet_falls_back_to_a_hershey_font() -> None:
    f = font()
    assert not f.draws("XYZ")
    assert text_mask("XYZ", f, 24).mean() > 0.05


def test_some_procedural_decks_are_lettered_with_a_stroke_font() -> None:
    styles = [random_style(np.random.default_rng(seed)) for seed in range(200)]
    lettered = [s for s in styles if isinstance(s.font, StrokeFont)]
    assert 0.25 < len(lettered) / len(styles) < 0.55
    face = render_procedural(lettered[0], "10S", 300)
    assert len(face.corners) == 2


def test_a_font_may_square_its_bowls_the_way_condensed_lettering_does() -> None:
    oval = text_mask("O", font(), 60)
    square = text_mask("O", dataclasses.replace(font(), squareness=6.0), 60)
    corner = (slice(0, 8), slice(0, 6))  # the bowl's top-left corner: empty unless squared
    assert square[corner].mean() > 2 * oval[corner].mean()
    for text in ("10", "Q"):
        assert not np.array_equal(
            text_mask(text, font(), 60),
            text_mask(text, dataclasses.replace(font(), squareness=6.0), 60),
        )


def test_no_square_bowls_asked_draws_the_fonts_of_older_recipes() -> None:
    older = [StrokeFont.random(np.random.default_rng(s)) for s in range(20)]
    now = [StrokeFont.random(np.random.default_rng(s), 0.0) for s in range(20)]
    assert now == older and all(f.squareness == 2.0 for f in now)
    squared = [StrokeFont.random(np.random.default_rng(s), 1.0) for s in range(20)]
    assert all(3.0 <= f.squareness <= 8.0 for f in squared)
    assert [f.variants for f in squared] == [f.variants for f in older]


def test_every_lettering_font_draws_every_index_at_every_stroke_weight() -> None:
    # Thinning a hairline font (Inter Thin, Lato Hairline) had erased its letters: a deck
    # drawn in it printed blank ranks under a card's label.
    from vision.synth.lettering import font_paths

    for path in font_paths():
        for thickness in (1, 2, 3):
            for text in ("10", "A", "K", "Q", "J", "8", "JOKER"):
                assert text_mask(text, path, 40, 1.0, thickness).max() > 0.5, (path, thickness)
