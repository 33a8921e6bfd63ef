"""``chaodipi render``: a simulated hand → camera frames, timestamps and ground truth.

Small and fast: a three-trick excerpt of a simulated hand at 320×240, 5 fps, four times faster
than the record (the calibration check renders a few frames at 640×480).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest

from chaodipi.cli.render import add_render_parser
from device.folder_source import FolderSource
from engine.record import RecordError
from engine.simulate import simulate_hand
from vision.calibration import calibrate, to_table
from vision.events import read_events
from vision.synth.render import RenderError, RenderResult, render_hand
from vision.synth.render_plan import LEAD_IN_S, REACH_S
from vision.table_geometry import TableGeometry, ZoneConfig
from vision.zones import Zones

FPS = 5.0
SCALE = 4.0


def excerpt(tricks: int = 3) -> dict[str, Any]:
    """The first tricks of a simulated hand, without its draw phase (played first when kept)."""
    record, _ = simulate_hand("XX", seed=3)
    record["tricks"] = record["tricks"][:tricks]
    record.pop("before_play", None)
    return record


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> RenderResult:
    out = tmp_path_factory.mktemp("render") / "clip"
    return render_hand(excerpt(), out, fps=FPS, size=(320, 240), time_scale=SCALE, seed=1)


def _info(result: RenderResult) -> dict[str, Any]:
    info: dict[str, Any] = json.loads(result.render_path.read_text(encoding="utf-8"))
    return info


def _read(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    assert image is not None, path
    return np.asarray(image)


def test_frames_and_timestamps_are_written(rendered: RenderResult) -> None:
    rows = list(csv.reader((rendered.out / "timestamps.csv").open(encoding="utf-8")))
    assert rows[0] == ["name", "t"]
    assert len(rows) - 1 == rendered.frames > 20
    with FolderSource(rendered.out) as source:
        frames = list(source)
    assert len(frames) == rendered.frames
    assert all(f.t == pytest.approx(f.index / FPS, abs=1e-9) for f in frames)
    assert frames[0].image.shape == (240, 320, 3)
    assert json.loads(rendered.record_path.read_text(encoding="utf-8")) == excerpt()
    info = _info(rendered)
    assert info["design"] == "adrian_kennard" and info["design_held_out_of_training"]
    assert (info["fps"], info["size"], info["seed"]) == (FPS, [320, 240], 1)


def test_ground_truth_follows_the_record(rendered: RenderResult) -> None:
    record = excerpt()
    events = read_events(rendered.truth_path)
    assert [e["seq"] for e in events] == list(range(1, len(events) + 1))
    plays = [e for e in events if e["type"] == "play"]
    want = [(p["seat"], p["cards"]) for t in record["tricks"] for p in t["plays"]]
    assert [(e["seat"], e["cards"]) for e in plays] == want
    assert all(e["t_stable"] is None for e in plays)
    landed = [e["t_landed"] for e in plays]
    assert all(b > a for a, b in itertools.pairwise(landed))
    # Each landing is the first frame at or after the play's video time …
    schedule = _info(rendered)["plays"]
    for e, s in zip(plays, schedule, strict=True):
        assert 0 <= e["t_landed"] - s["t_video"] < 1 / FPS + 1e-9
        assert e["frames"]["landed"] == f"frame_{round(e['t_landed'] * FPS):06d}.jpg"
    # … and video times follow the record's, scaled: exactly within a trick, never shorter
    # between tricks (the sweep needs its time), the first after the lead-in and a reach.
    assert LEAD_IN_S + REACH_S[0] <= schedule[0]["t_video"] <= LEAD_IN_S + REACH_S[1]
    for a, b in itertools.pairwise(schedule):
        gap = (b["t_record"] - a["t_record"]) / SCALE
        video = b["t_video"] - a["t_video"]
        if a["trick"] == b["trick"]:
            assert video == pytest.approx(gap, abs=1e-6)
        else:
            assert video >= gap - 1e-6
    # A trick is cleared after its last play and before the next lead; the kitty comes last.
    kinds = [e["type"] for e in events]
    assert kinds == ["play"] * 4 + ["trick_cleared"] + ["play"] * 4 + ["trick_cleared"] + [
        "play"
    ] * 4 + ["trick_cleared", "kitty"]
    cleared = [e["t"] for e in events if e["type"] == "trick_cleared"]
    assert cleared[0] > landed[3] and cleared[0] < landed[4]
    assert cleared[1] > landed[7] and cleared[1] < landed[8]
    assert events[-1]["cards"] == record["kitty"]
    assert events[-1]["t"] > cleared[-1]


def test_cards_show_in_the_playing_seats_zone(rendered: RenderResult) -> None:
    info = _info(rendered)
    to_image = np.array(info["homography_table_cm_to_image"])
    zones = Zones.from_config(TableGeometry(), ZoneConfig())
    events = [e for e in read_events(rendered.truth_path) if e["type"] == "play"]
    empty = _read(rendered.out / "frame_000000.jpg").astype(np.int16)
    for e in (events[0], events[3], events[5]):
        i = round((e["t_landed"] + 1.0) * FPS)
        frame = _read(rendered.out / f"frame_{i:06d}.jpg").astype(np.int16)
        poly_cm = np.array(zones.seats[e["seat"]], dtype=np.float64).reshape(-1, 1, 2)
        poly = cv2.perspectiveTransform(poly_cm, to_image).reshape(-1, 2)
        mask = np.zeros(frame.shape[:2], np.uint8)
        cv2.fillPoly(mask, [np.round(poly).astype(np.int32)], 1)
        changed = np.abs(frame - empty).max(axis=2) > 40
        share = changed[mask > 0].mean()
        assert share > 0.03, (e["seat"], share)


def test_markers_calibrate_the_first_frame(tmp_path: Path) -> None:
    result = render_hand(
        excerpt(1), tmp_path / "cal", fps=FPS, size=(640, 480), seed=2, max_seconds=0.4
    )
    assert result.frames == 3
    image = _read(tmp_path / "cal" / "frame_000000.jpg")
    cal = calibrate(image, TableGeometry())
    info = _info(result)
    centre_px = cv2.perspectiveTransform(
        np.array([[[45.0, 45.0]]]), np.array(info["homography_table_cm_to_image"])
    ).reshape(2)
    assert np.linalg.norm(to_table(centre_px, cal) - [45.0, 45.0]) < 1.5
    # The stored homography is what calibration finds, over the whole table.
    truth = np.array(info["homography_image_to_table_cm"])
    corners_px = cv2.perspectiveTransform(
        np.array([[[5.0, 5.0]], [[85.0, 5.0]], [[85.0, 85.0]], [[5.0, 85.0]]]),
        np.linalg.inv(truth),
    ).reshape(-1, 2)
    assert np.abs(to_table(corners_px, cal) - [[5, 5], [85, 5], [85, 85], [5, 85]]).max() < 1.5


def test_video_output_puts_the_truth_beside(tmp_path: Path) -> None:
    out = tmp_path / "clip.avi"
    result = render_hand(excerpt(1), out, fps=10, size=(160, 120), max_seconds=3.5)
    assert out.stat().st_size > 0 and result.frames == 36
    cap = cv2.VideoCapture(str(out))
    count = 0
    while cap.read()[0]:
        count += 1
    assert count == 36
    assert (tmp_path / "clip.truth.jsonl").exists()
    assert (tmp_path / "clip.record.json").exists()
    info = json.loads((tmp_path / "clip.render.json").read_text(encoding="utf-8"))
    assert info["output"] == {"path": "clip.avi", "kind": "video"}
    events = read_events(tmp_path / "clip.truth.jsonl")
    assert events and all(e["t_landed"] <= 3.5 for e in events if e["type"] == "play")
    assert events[0]["frames"]["landed"] == str(round(events[0]["t_landed"] * 10))


def _cli(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="chaodipi")
    add_render_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(argv)
    code: int = args.func(args)
    return code


def test_cli_renders_and_rejects_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rec = tmp_path / "hand.json"
    rec.write_text(json.dumps(excerpt(1)), encoding="utf-8")
    out = tmp_path / "frames"
    argv = ["render", str(rec), str(out), "--size", "160x120", "--max-seconds", "1"]
    assert _cli([*argv, "--fps", "10", "--time-scale", "2"]) == 0
    assert "11 frames at 10 fps" in capsys.readouterr().out
    with pytest.raises(RenderError, match="already holds a render"):
        _cli(argv)
    with pytest.raises(RenderError, match="does not exist"):
        _cli(["render", str(tmp_path / "missing.json"), str(tmp_path / "x")])
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "chaodipi-hand/1", "rules": "XX"', encoding="utf-8")
    with pytest.raises(RecordError, match="not valid JSON"):
        _cli(["render", str(bad), str(tmp_path / "y")])
    bad.write_text(json.dumps({**excerpt(1), "declarer": "Q"}), encoding="utf-8")
    with pytest.raises(RecordError, match="declarer"):
        _cli(["render", str(bad), str(tmp_path / "z")])
    for flag, value, message in (
        ("--size", "big", "WIDTHxHEIGHT"),
        ("--fps", "0", "fps must be positive"),
        ("--design", "tarot", "unknown card design"),
    ):
        with pytest.raises(ValueError, match=message):
            _cli(["render", str(rec), str(tmp_path / f"o{flag}"), flag, value])


def test_the_full_sensor_is_drawn_noisier_and_softer_than_the_binned_mode() -> None:
    """A 4608 px wide frame's pixel sums no neighbours: twice the noise and blur in pixels of
    the binned 2304 px mode (same seed, same draws); narrower frames keep the binned figures."""
    from vision.synth.render_scene import Photometric, make_camera

    def look(width: int) -> Photometric:
        rng = np.random.default_rng(9)
        camera = make_camera(rng, (width, 48), TableGeometry())
        return Photometric(rng, camera, duration=1.0)

    binned, full, small = look(2304), look(4608), look(320)
    assert full.blur == pytest.approx(2 * binned.blur)
    assert small.blur == pytest.approx(binned.blur) and small.blur_kernel == (3, 3)

    def noise_sd(p: Photometric) -> float:
        return float(np.std(p.noise_pos.astype(np.float32) - p.noise_neg.astype(np.float32)))

    assert noise_sd(full) == pytest.approx(2 * noise_sd(binned), rel=0.05)


def _with_incident(name: str) -> tuple[dict[str, Any], str, str]:
    """The excerpt with its second trick's second play's first card taken back or shown out
    of play by that seat: (record, seat, card)."""
    record = excerpt()
    play = record["tricks"][1]["plays"][1]
    seat, card = str(play["seat"]), str(play["cards"][0])
    record[name] = [{"seat": seat, "cards": [card], "trick": 2}]
    return record, seat, card


def test_a_takeback_is_planned_in_the_play_area_then_lifted_out_before_the_play() -> None:
    from vision.synth.render_plan import TAKEBACK_REST_S, build_timeline

    record, seat, card = _with_incident("takebacks")
    tl = build_timeline(record, np.random.default_rng(1), fps=10)
    (back,) = [g for g in tl.groups if g.kind == "takeback"]
    play = next(g for g in tl.groups if g.kind == "play" and g.trick == 1 and g.seat == seat)
    assert back.seat == seat and [c.identity for c in back.cards] == [card]
    in_zone = [tl.zones.seat_of((c.x, c.y)) for c in back.at(back.t_land + 0.5) or ()]
    assert in_zone == [seat]  # the card lies in the seat's play area …
    assert back.t_slide0 == pytest.approx(back.t_land + TAKEBACK_REST_S)
    assert back.t_slide1 is not None and back.at(back.t_slide1) is None  # … then leaves it
    assert play.t_land > back.t_slide1  # and the play lands only after
    truth = tl.truth(int(tl.duration * 10) + 1, 10, str)
    seq = [(e.type, getattr(e, "cards", ())) for e in truth if getattr(e, "seat", "") == seat]
    k = seq.index(("takeback", (card,)))
    assert seq[k - 1] == ("play", (card,)) and seq[k + 1][0] == "play"
    (event,) = [e for e in truth if e.type == "takeback"]
    assert back.t_slide0 <= event.t <= back.t_slide1 + 0.1


def test_an_exposed_card_lies_face_up_outside_every_zone_for_seconds() -> None:
    from vision.synth.render_plan import EXPOSED_SHOW_S, build_timeline

    record, seat, card = _with_incident("exposed")
    tl = build_timeline(record, np.random.default_rng(1), fps=10)
    (shown,) = [g for g in tl.groups if g.kind == "exposed"]
    (placed,) = shown.cards
    assert placed.identity == card and tl.zones.seat_of((placed.x, placed.y)) is None
    assert shown.resting(shown.t_land + EXPOSED_SHOW_S - 0.1)
    assert shown.t_slide1 is not None and shown.at(shown.t_slide1) is None
    truth = tl.truth(int(tl.duration * 10) + 1, 10, str)
    (event,) = [e for e in truth if e.type == "exposed_card"]
    assert (event.card, event.seat) == (card, seat)
    assert event.t == pytest.approx(shown.t_land, abs=0.1)


def test_the_ground_truth_of_a_takeback_and_an_exposed_card_audits_as_planted() -> None:
    from engine.simulate import simulate_hand
    from vision.game_feed import GameFeed
    from vision.synth.render_plan import build_timeline

    for kind in ("takeback", "exposed_card"):
        record, injected = simulate_hand("XX", seed=11, inject=[kind])
        tl = build_timeline(record, np.random.default_rng(1), fps=10)
        feed = GameFeed(record["rules"], record["levels"], record["declarer"], record["trump"])
        feed.apply_all(tl.truth(int(tl.duration * 10) + 1, 10, str))
        found = [(i.kind, i.seat, i.trick) for i in feed.audit().infractions]
        assert [(i["kind"], i["seat"], i["trick"]) for i in injected] == found


def test_the_draw_phase_is_played_before_the_first_trick_and_its_truth_written() -> None:
    from vision.synth.render_plan import DECLARE_SHOW_S, KITTY_SIZE, build_timeline

    record, _ = simulate_hand("XX", seed=30, inject=["illegal_chao"])
    steps = record["before_play"]
    shown = [s for s in steps if s["action"] in ("declare", "chao")]
    assert any(s.get("face_down") for s in shown)
    tl = build_timeline(record, np.random.default_rng(1), fps=10)
    # Each declaration and 炒: its cards face up at the seat's edge, outside every zone, …
    ups = [g for g in tl.groups if g.kind == "declaration"]
    assert [(g.seat, [c.identity for c in g.cards]) for g in ups] == [
        (s["seat"], s["cards"]) for s in shown
    ]
    for g in ups:
        assert all(tl.zones.seat_of((c.x, c.y)) is None for c in g.cards)
        assert not any(c.face_down for c in g.cards)
        assert g.resting(g.t_land + DECLARE_SHOW_S - 0.1) and g.t_slide1 is not None
        assert g.at(g.t_slide1) is None  # … for a few seconds, then picked up
        # a face-down placement lay face down there until it was turned up
        down = next(d for d in tl.groups if d.kind == "face_down" and d.t_slide1 == g.t_land)
        assert all(c.face_down for c in down.cards) and down.t_land < g.t_land
    # The kitty: face down in the centre from the start, taken, buried again (8 backs).
    kitty = [g for g in tl.groups if g.kind == "face_down" and len(g.cards) == KITTY_SIZE]
    assert kitty[0].t_land == 0.0
    for g in kitty:
        assert all(c.face_down and tl.zones.seat_of((c.x, c.y)) == "centre" for c in g.cards)
    moves = [(seat, action) for _, seat, action, _ in tl.kitty_moves]
    assert moves == [(s["seat"], s["action"]) for s in steps if s["action"] in ("take", "bury")]
    first_play = min(g.t_land for g in tl.groups if g.kind == "play")
    assert first_play > max(t for t, *_ in tl.kitty_moves)
    assert first_play > max(g.t_slide1 or 0 for g in ups)
    truth = tl.truth(int(tl.duration * 10) + 1, 10, str)
    draw = [e for e in truth if e.type in ("declaration", "kitty_move")]
    assert [e.type for e in draw] == [
        "declaration" if s["action"] in ("declare", "chao") else "kitty_move"
        for s in steps
        if s["action"] != "pass"
    ]
    assert all(e.count == KITTY_SIZE for e in draw if e.type == "kitty_move")
    for e, g in zip([e for e in draw if e.type == "declaration"], ups, strict=True):
        assert e.t == pytest.approx(g.t_land, abs=0.1)


def test_the_ground_truth_of_the_draw_phase_audits_as_planted() -> None:
    from vision.game_feed import GameFeed
    from vision.synth.render_plan import build_timeline

    for kind in ("false_declaration", "illegal_chao"):
        record, injected = simulate_hand("XX", seed=31, inject=[kind])
        tl = build_timeline(record, np.random.default_rng(1), fps=10)
        feed = GameFeed(record["rules"], record["levels"], record["declarer"], record["trump"])
        feed.apply_all(tl.truth(int(tl.duration * 10) + 1, 10, str))
        found = [(i.kind, i.seat, i.trick) for i in feed.audit().infractions]
        assert [(i["kind"], i["seat"], i["trick"]) for i in injected] == found
