"""Synthetic training data: determinism, YOLO label validity, designs and card faces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from vision.classes import CLASS_NAMES
from vision.synth.faces import designs, rect_quad
from vision.synth.lettering import NOT_LETTERING, draws_index, font_paths
from vision.synth.procedural import make_face, random_style, render_procedural
from vision.synth.scenes import (
    SCENE_CHUNK,
    _halves_shown,
    _shown_points,
    render_scene,
    scene_name,
    synthesize,
    with_jokers,
)

IMGSZ = 160


@pytest.fixture(scope="module")
def dataset(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("synth")
    synthesize(6, out, seed=3, designs=["procedural"], imgsz=IMGSZ)
    return out


def test_designs_include_the_three() -> None:
    assert {"procedural", "byron_knoll", "adrian_kennard"} <= set(designs())


def test_same_seed_same_bytes(dataset: Path, tmp_path: Path) -> None:
    synthesize(3, tmp_path, seed=3, designs=["procedural"], imgsz=IMGSZ)
    for i in range(3):
        name = scene_name(3, i)
        a = (dataset / "images" / "train" / f"{name}.jpg").read_bytes()
        b = (tmp_path / "images" / "train" / f"{name}.jpg").read_bytes()
        assert a == b
        la = (dataset / "labels" / "train" / f"{name}.txt").read_text()
        assert la == (tmp_path / "labels" / "train" / f"{name}.txt").read_text()


def test_two_workers_write_the_same_scenes_as_one(dataset: Path, tmp_path: Path) -> None:
    synthesize(SCENE_CHUNK + 1, tmp_path, seed=3, designs=["procedural"], imgsz=IMGSZ, workers=2)
    written = sorted((tmp_path / "images" / "train").iterdir())
    assert len(written) == SCENE_CHUNK + 1
    for i in range(6):
        name = scene_name(3, i)
        for kind, ext in (("images", "jpg"), ("labels", "txt")):
            ours = (tmp_path / kind / "train" / f"{name}.{ext}").read_bytes()
            assert ours == (dataset / kind / "train" / f"{name}.{ext}").read_bytes()


def test_sets_of_two_seeds_share_a_folder_without_overwriting(tmp_path: Path) -> None:
    synthesize(2, tmp_path, seed=3, designs=["procedural"], imgsz=IMGSZ)
    synthesize(2, tmp_path, seed=4, designs=["procedural"], imgsz=IMGSZ)
    images = sorted(p.name for p in (tmp_path / "images" / "train").iterdir())
    assert images == ["s3_000000.jpg", "s3_000001.jpg", "s4_000000.jpg", "s4_000001.jpg"]
    assert len(list((tmp_path / "labels" / "train").iterdir())) == 4


def test_labels_are_valid_yolo_inside_the_image(dataset: Path) -> None:
    n_boxes = 0
    for path in sorted((dataset / "labels" / "train").glob("*.txt")):
        for line in path.read_text().splitlines():
            parts = line.split()
            assert len(parts) == 5
            cls = int(parts[0])
            cx, cy, w, h = map(float, parts[1:])
            assert 0 <= cls < len(CLASS_NAMES)
            assert w > 0 and h > 0
            assert cx - w / 2 >= -1e-6 and cx + w / 2 <= 1 + 1e-6
            assert cy - h / 2 >= -1e-6 and cy + h / 2 <= 1 + 1e-6
            n_boxes += 1
    assert n_boxes >= 1
    yaml = (dataset / "data.yaml").read_text()
    assert "train: images/train" in yaml and "'BJ'" in yaml
    assert (dataset / "classes.txt").read_text().split() == list(CLASS_NAMES)


def test_scene_with_face_up_cards_has_labels() -> None:
    counts = [
        len(render_scene(np.random.default_rng(i), ["procedural"], IMGSZ)[1]) for i in range(8)
    ]
    assert sum(c >= 1 for c in counts) >= 6
    assert max(counts) < 200


def test_faces_have_corner_indices_inside_the_face() -> None:
    rng = np.random.default_rng(0)
    for design in ("procedural", "byron_knoll"):
        for ident in ("10H", "QS", "BJ"):
            face = make_face(design, ident, rng)
            w, h = face.size
            assert len(face.corners) == 2
            for q in face.corners:
                assert q.shape == (4, 2)
                assert (q >= 0).all() and (q[:, 0] <= w).all() and (q[:, 1] <= h).all()
                qh = q[:, 1].max() - q[:, 1].min()
                assert 0.05 * h < qh < 0.6 * h
    assert make_face("adrian_kennard", "SJ", rng).whole_face


def test_some_procedural_decks_print_jokers_without_a_corner_index() -> None:
    """A quarter of the procedural decks draw picture-only jokers: labelled by the whole face."""
    styles = [random_style(np.random.default_rng(seed)) for seed in range(200)]
    picture_only = [s for s in styles if not s.joker_index]
    assert 0.15 < len(picture_only) / len(styles) < 0.35
    for identity in ("BJ", "SJ"):
        face = render_procedural(picture_only[0], identity, 300)
        assert face.whole_face and face.corners == ()
        ink = (face.image[..., :3].astype(int) - np.array(picture_only[0].paper)).any(axis=2)
        assert ink[face.image[..., 3] > 0].mean() > 0.01  # a figure, not a blank card
    numbered = render_procedural(picture_only[0], "10H", 300)
    assert not numbered.whole_face and len(numbered.corners) == 2


def test_small_card_share_draws_scenes_at_the_table_camera_scale() -> None:
    def box_heights(share: float) -> list[float]:
        heights: list[float] = []
        for i in range(6):
            _, boxes = render_scene(np.random.default_rng(i), ["byron_knoll"], 160, 0, share)
            heights += [y1 - y0 for _, _, y0, _, y1 in boxes]
        return heights

    small, large = box_heights(1.0), box_heights(0.0)
    assert small and large
    assert max(small) < 0.2 * 160  # an index of a card at most a quarter of the side
    assert np.median(small) < np.median(large)


def test_joker_share_mixes_jokers_into_fans_and_zero_changes_no_scene() -> None:
    rng = np.random.default_rng(0)
    for k in (1, 2, 3, 6):
        cards = [f"{r}S" for r in ("2", "3", "4", "5", "6", "7")[:k]]
        mixed = with_jokers(rng, cards)
        changed = [a != b for a, b in zip(cards, mixed, strict=True)]
        assert 1 <= sum(changed) <= (1 if k < 3 else 2)
        assert all(c in ("BJ", "SJ") for c, ch in zip(mixed, changed, strict=True) if ch)

    def joker_labels(share: float) -> int:
        jokers = 0
        for i in range(4):
            _, boxes = render_scene(np.random.default_rng(i), ["procedural"], IMGSZ, 0, 0.1, share)
            jokers += sum(CLASS_NAMES[c] in ("BJ", "SJ") for c, *_ in boxes)
        return jokers

    assert joker_labels(1.0) > joker_labels(0.0)
    a, _ = render_scene(np.random.default_rng(5), ["procedural"], IMGSZ, 0)
    b, _ = render_scene(np.random.default_rng(5), ["procedural"], IMGSZ, 0, joker_share=0.0)
    assert (a == b).all()


def test_index_lettering_comes_only_from_fonts_that_draw_every_index_character() -> None:
    fonts = font_paths()
    assert fonts, "matplotlib's fonts at least"
    assert all(draws_index(f) for f in fonts)
    assert not any(word in Path(f).stem for f in fonts for word in NOT_LETTERING)


def test_a_file_that_is_no_font_draws_no_index(tmp_path: Path) -> None:
    not_a_font = tmp_path / "broken.ttf"
    not_a_font.write_bytes(b"not a font")
    assert not draws_index(str(not_a_font))


def test_the_phantom_card_check_set_is_card_free_scenes_with_empty_labels(tmp_path: Path) -> None:
    from vision.synth.negatives import KINDS, synthesize_negatives

    counts = synthesize_negatives(6, tmp_path, seed=3, imgsz=96)
    assert sum(counts.values()) == 6 and set(counts) == set(KINDS)
    labels = sorted((tmp_path / "labels" / "test").glob("*.txt"))
    assert len(labels) == 6 and all(p.read_text() == "" for p in labels)
    again = tmp_path / "again"
    synthesize_negatives(6, again, seed=3, imgsz=96)
    first = (tmp_path / "images" / "test" / "s3_000004.jpg").read_bytes()
    assert (again / "images" / "test" / "s3_000004.jpg").read_bytes() == first


def test_procedural_jokers_carry_every_corner_mark_in_the_big_and_small_jokers_colours() -> None:
    from vision.synth.procedural import JOKER_MARKS, joker_mark, random_style, render_procedural

    drawn: dict[str, tuple[np.ndarray, np.ndarray]] = {}
    for seed in range(400):
        style = random_style(np.random.default_rng(seed))
        if style.joker_index and joker_mark(style) not in drawn:
            faces = [render_procedural(style, c, 400, seed) for c in ("BJ", "SJ")]
            corners = []
            for face in faces:
                xs, ys = zip(*face.corners[0], strict=True)
                box = face.image[int(min(ys)) : int(max(ys)), int(min(xs)) : int(max(xs)), :3]
                corners.append(box.reshape(-1, 3).astype(int))
            drawn[joker_mark(style)] = (corners[0], corners[1])
    assert set(drawn) == set(JOKER_MARKS)
    for big, small in drawn.values():
        big_chroma = (big.max(axis=1) - big.min(axis=1)).max()
        small_ink = (small.max(axis=1) < 100).mean()
        assert big_chroma > 120, "the big joker's mark is in colour"
        assert small_ink > 0.02, "the small joker's mark is dark ink"


def test_four_colour_decks_follow_every_printed_convention_so_no_colour_tells_a_suit() -> None:
    """Poker decks print diamonds blue and clubs green, German bridge decks spades green and
    diamonds yellow, others spades blue: a classifier that saw one convention reads another
    deck's blue spades as diamonds."""
    from vision.synth.procedural import FOUR_COLOUR_CONVENTIONS, random_style

    def ink(rgb: tuple[int, ...]) -> str:
        r, g, b = rgb
        if max(rgb) < 60:
            return "black"
        return (
            "red"
            if r > 150 and g < 100
            else max(("blue", b), ("green", g - r), ("yellow", r + g - 2 * b), key=lambda k: k[1])[
                0
            ]
        )

    seen = set()
    for seed in range(300):
        colors = random_style(np.random.default_rng(seed)).colors
        assert ink(colors["H"]) == "red"
        if colors["D"] != colors["H"]:  # a 4-colour deck
            seen.add(tuple(sorted((suit, ink(colors[suit])) for suit in "SDC")))
    assert seen == {tuple(sorted(c.items())) for c in FOUR_COLOUR_CONVENTIONS}


def test_most_procedural_aces_of_spades_carry_a_makers_lettering_clear_of_their_indices(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Nearly every printed deck's ace of spades carries its maker's name and small print (a
    Bicycle ace's "Bicycle" was boxed and read as a joker on real photos): the procedural ones
    do too, between the two indices' columns, so they are lettering no label names. (Measured
    on plain spades: an ornate one's scrollwork reaches the lettering's band.)"""
    from vision.synth import procedural
    from vision.synth.procedural import MAKER_TEXT_SPAN, random_style, render_procedural

    monkeypatch.setattr(procedural, "ORNATE_ACE_SHARE", 0.0)

    lettered = 0
    for seed in range(30):
        face = render_procedural(random_style(np.random.default_rng(seed)), "AS", 400, seed)
        image = face.image[..., :3].astype(int)
        h, w = image.shape[:2]
        x0, x1 = (round(f * w) for f in MAKER_TEXT_SPAN)
        band = image[round(0.69 * h) : round(0.9 * h), x0:x1]
        paper = np.median(image[round(0.45 * h) : round(0.55 * h), 1:4], axis=(0, 1))
        lettered += bool((np.abs(band - paper).sum(axis=2) > 120).any())
        for quad in face.corners:  # the indices stay outside the lettering's columns
            xs = [x for x, _ in quad]
            assert max(xs) <= x0 + 2 or min(xs) >= x1 - 2
    assert 12 <= lettered <= 28


def test_a_scene_lists_its_cards_visible_faces_a_fans_strips_included() -> None:
    """What the table's whole-card and fan-strip readers look at: each face's visible part,
    most of the card's height long, inside the image."""
    strips = seen = 0
    for i in range(6):
        faces: list[tuple[str, tuple[float, float, float, float]]] = []
        render_scene(np.random.default_rng(i), ["byron_knoll"], IMGSZ, 0, 0.0, faces_seen=faces)
        seen += len(faces)
        for identity, (x0, y0, x1, y1) in faces:
            assert identity in CLASS_NAMES
            assert 0 <= x0 < x1 <= IMGSZ and 0 <= y0 < y1 <= IMGSZ
            strips += min(x1 - x0, y1 - y0) < 0.5 * max(x1 - x0, y1 - y0)
    assert seen and strips  # fans leave strips of the cards under the top one
    a, _ = render_scene(np.random.default_rng(2), ["byron_knoll"], IMGSZ, 0)
    b, _ = render_scene(np.random.default_rng(2), ["byron_knoll"], IMGSZ, 0, faces_seen=[])
    assert (a == b).all()  # asking for the faces changes no pixel


def test_a_scene_lists_the_cards_lying_alone_with_their_four_corners() -> None:
    """Where the zone reader reads a lone card's corner marks: each face card almost all of
    which shows, its corners inside the image and a card's shape apart."""
    seen = 0
    for i in range(8):
        lone: list[tuple[str, np.ndarray]] = []
        render_scene(np.random.default_rng(i), ["byron_knoll"], IMGSZ, 0, 0.0, lone_seen=lone)
        seen += len(lone)
        for identity, corners in lone:
            assert identity in CLASS_NAMES and corners.shape == (4, 2)
            assert (corners >= -1).all() and (corners <= IMGSZ + 1).all()
            sides = sorted(np.linalg.norm(corners - np.roll(corners, 1, axis=0), axis=1))
            assert 1.1 < sides[2] / sides[1] < 1.8  # a card's long side to its short one
    assert seen
    a, _ = render_scene(np.random.default_rng(2), ["byron_knoll"], IMGSZ, 0)
    b, _ = render_scene(np.random.default_rng(2), ["byron_knoll"], IMGSZ, 0, lone_seen=[])
    assert (a == b).all()  # asking for them changes no pixel


def test_a_scene_lists_every_index_that_shows_even_a_glimpse_labelled_ones_included() -> None:
    """Where a box is no false alarm: every labelled index, and the indices under a fan's next
    card that show too little to label."""
    more = 0
    for i in range(6):
        glimpses: list[tuple[float, float, float, float]] = []
        _, boxes = render_scene(np.random.default_rng(i), ["procedural"], IMGSZ, glimpses=glimpses)
        labelled = {(x0, y0, x1, y1) for _, x0, y0, x1, y1 in boxes}
        assert labelled <= set(glimpses)
        more += len(glimpses) > len(labelled)
    assert more  # fans hide most of some indices
    a, _ = render_scene(np.random.default_rng(2), ["procedural"], IMGSZ)
    b, _ = render_scene(np.random.default_rng(2), ["procedural"], IMGSZ, glimpses=[])
    assert (a == b).all()  # asking for them changes no pixel


def test_two_procedural_decks_in_five_print_full_bleed_jokers_their_mark_kept_legible() -> None:
    # Many Western decks fill the joker's face with its picture, a star in a paper disc at the
    # corner: what a joker's strip under a fan then shows is picture, not paper.
    from vision.synth.procedural import (
        JOKER_FULL_BLEED_SHARE,
        joker_full_bleed,
        random_style,
        render_procedural,
    )

    styles = [random_style(np.random.default_rng(seed)) for seed in range(300)]
    full_bleed = [seed for seed, style in enumerate(styles) if joker_full_bleed(style)]
    assert abs(len(full_bleed) / len(styles) - JOKER_FULL_BLEED_SHARE) < 0.1
    pictures = []
    for seed in full_bleed[:40]:
        style = styles[seed]
        for joker in ("BJ", "SJ"):
            face = render_procedural(style, joker, 300, seed)
            image = face.image[..., :3].astype(int)
            h, w = image.shape[:2]
            off_paper = np.abs(image - np.array(style.paper)).sum(axis=-1) > 60
            pictures.append(off_paper[int(0.3 * h) : int(0.7 * h), int(0.2 * w) : int(0.8 * w)])
            assert face.whole_face == (not style.joker_index)
            if face.corners:  # the mark lies on a patch of paper, in ink
                xs, ys = zip(*face.corners[0], strict=True)
                rows, cols = slice(int(min(ys)), int(max(ys))), slice(int(min(xs)), int(max(xs)))
                assert 0.2 < 1 - off_paper[rows, cols].mean() < 0.95
    assert np.median([p.mean() for p in pictures]) > 0.8  # the middle of the face is picture


def test_a_scene_lists_the_labelled_indices_whose_rank_or_suit_hardly_shows() -> None:
    """An index 60 % of which shows is labelled, yet its suit may lie under the next card:
    such labels are listed apart (``hidden/``), each one of the scene's labels."""
    listed = 0
    for i in range(12):
        hidden: list[tuple[int, float, float, float, float]] = []
        _, boxes = render_scene(np.random.default_rng(i), ["byron_knoll"], IMGSZ, 0, hidden=hidden)
        assert set(hidden) <= set(boxes)
        listed += len(hidden)
    assert listed
    a, _ = render_scene(np.random.default_rng(2), ["byron_knoll"], IMGSZ, 0)
    b, _ = render_scene(np.random.default_rng(2), ["byron_knoll"], IMGSZ, 0, hidden=[])
    assert (a == b).all()  # asking for them changes no pixel


def test_an_index_whose_lower_half_lies_under_another_card_shows_half_of_its_marks() -> None:
    size = 100
    quad = rect_quad(20, 20, 40, 60)  # 20 wide, 40 tall: rank above, suit below
    idmap = np.ones((size, size), np.int32)

    def shown(q: np.ndarray) -> tuple[np.ndarray, int]:
        return _shown_points(np.eye(2, 3), q, 1, idmap, np.eye(3), size, size // 2)

    assert _halves_shown(quad, shown) > 0.95
    idmap[44:, :] = 2  # the next card covers the suit, 40 % of the index
    assert _halves_shown(quad, shown) < 0.25
    idmap[:] = 1
    idmap[:, :28] = 2  # the left 40 % covered: rank and suit each still show 60 %
    assert 0.55 < _halves_shown(quad, shown) < 0.7
