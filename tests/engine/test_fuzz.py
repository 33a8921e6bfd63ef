"""Fuzzing ``chaodipi audit``: no mutated hand record or rule knob crashes it or is misread.

Every outcome is either a report (exit 0, nothing on stderr) or one line on stderr naming the
field and what is allowed (exit 2). The records are simulated hands mutated at random from a
fixed seed (the same mutations every run), fed to the command's ``main`` in-process; a few go
through a real ``chaodipi`` process too.
"""

from __future__ import annotations

import copy
import io
import json
import random
import subprocess
import sys
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest

import chaodipi.cli.main as cli
from engine.cards import ALL_IDENTITIES, RANKS, SEATS, SUITS
from engine.preplay.fields import FIELDS
from engine.profiles import KNOB_RULES, ProfileError
from engine.simulate import simulate_hand

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = ROOT / "engine" / "schema" / "hand-record.schema.json"
SEED = 20240617
MUTATED_RECORDS = 2000

# JSON text a Python value cannot produce: placeholders replaced after json.dumps.
RAW: dict[str, str] = {
    "@@inf@@": "1e400",
    "@@-inf@@": "-1e400",
    "@@nan@@": "NaN",
    "@@infinity@@": "Infinity",
    "@@huge-int@@": "1" + "0" * 400,
    "@@beyond-limit@@": "1000000000001",
    "@@deep@@": "[" * 5000 + "]" * 5000,
    "@@just-too-deep@@": "[" * 33 + "]" * 33,
}
EVIL: list[Any] = [
    *RAW,
    None,
    True,
    False,
    0,
    -1,
    1,
    2,
    3,
    4,
    8,
    12,
    13,
    25,
    200,
    201,
    10**12,
    -0.0,
    1e-9,
    10.0,
    85.5,
    1e300,
    "",
    "A",
    "J",
    "2",
    "10",
    "false",
    "true",
    "null",
    "sideways",
    "clockwise",
    "counterclockwise",
    "NS",
    "N",
    "NT",
    "BJ",
    "10H",
    "1Z",
    "x" * 300,
    "line\nbreak",
    [],
    ["A"],
    ["A", "A"],
    ["10H"],
    ["N", "N"],
    [None],
    [[]],
    list(range(200)),
    {},
    {"NS": 5},
    {"NS": "10"},
    {"NS": ["A"], "EW": []},
    {"N": []},
    {"seat": "N", "cards": ["3S"]},
    {"plays": []},
]
TOP_FIELDS = (
    "format",
    "rules",
    "rule_overrides",
    "levels",
    "declarer",
    "trump",
    "kitty",
    "kitty_unsure",
    "kitty_maybe",
    "kitty_taken_t",
    "kitty_buried_t",
    "hands",
    "first_hand",
    "must_play_done",
    "finished",
    "tricks",
    "meta",
    *FIELDS,  # before play and beside the tricks: draw, before_play, no_bid_flip, takebacks, …
)


@dataclass(frozen=True)
class Outcome:
    code: int
    out: str
    err: str

    @property
    def sound(self) -> bool:
        """A report, or one line naming the problem with exit status 2."""
        if self.code == 0:
            return bool(self.out) and not self.err
        return (
            self.code == 2
            and not self.out
            and self.err.count("\n") == 1
            and self.err.startswith("chaodipi audit: ")
        )


@pytest.fixture(autouse=True, scope="module")
def one_parser() -> Iterator[None]:
    """The command's own parser, built once for the thousands of runs here (building it is
    most of an in-process run's time)."""
    parser = cli.build_parser()
    real, cli.build_parser = cli.build_parser, lambda: parser
    yield
    cli.build_parser = real


def audit_cli(text: str, *flags: str) -> Outcome:
    """``chaodipi audit - FLAGS`` with ``text`` on stdin, in this process."""
    out, err = io.StringIO(), io.StringIO()
    stdin, sys.stdin = sys.stdin, io.StringIO(text)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = cli.main(["audit", "-", *flags])
    finally:
        sys.stdin = stdin
    return Outcome(code, out.getvalue(), err.getvalue())


def as_text(record: Any) -> str:
    text = json.dumps(record, ensure_ascii=False)
    for token, literal in RAW.items():
        text = text.replace(json.dumps(token), literal)
    return text


@cache
def bases() -> tuple[dict[str, Any], ...]:
    """Simulated hands with every optional field of the record somewhere among them."""
    xx, _ = simulate_hand("XX", 3, ["revoke", "overtime", "exposed_card", "takeback"])
    xx["redeals"] = [{"seat": "E", "t": 1.0}]
    hf, _ = simulate_hand("HF", 5, ["failed_throw"], with_hands=True)
    hf |= {"first_hand": True, "must_play_done": {"NS": ["2"], "EW": []}, "finished": True}
    b, _ = simulate_hand("B", 7, ["out_of_turn", "kitty_count", "illegal_chao"])
    camera = copy.deepcopy(xx)
    camera["tricks"] = camera["tricks"][:6]
    camera["tricks"][5]["plays"] = camera["tricks"][5]["plays"][:2]
    camera["tricks"][5]["unread"] = [
        s for s in "NESW" if s not in {p["seat"] for p in camera["tricks"][5]["plays"]}
    ][:1]
    play = camera["tricks"][1]["plays"][2]
    play["unsure"] = play["cards"][:1]
    play["maybe"] = {play["cards"][0]: "BJ" if play["cards"][0] != "BJ" else "SJ"}
    camera["kitty_unsure"] = camera["kitty"][:1]
    camera["kitty_maybe"] = {camera["kitty"][0]: "SJ" if camera["kitty"][0] != "SJ" else "BJ"}
    camera |= {"finished": False, "meta": {"source": "camera"}}
    return xx, hf, b, camera


def places(node: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    """Every path to a value inside ``node`` (dict keys and list indexes)."""
    items = node.items() if isinstance(node, dict) else enumerate(node)
    for key, value in items:
        yield (*path, key)
        if isinstance(value, (dict, list)):
            yield from places(value, (*path, key))


def allowed_value(knob: str, rng: random.Random) -> Any:
    """A random value the knob's rule allows."""
    rule = KNOB_RULES[knob]
    if rule.kind == "bool":
        return rng.random() < 0.5
    if rule.kind == "choice":
        return rng.choice(rule.choices)
    if rule.kind == "levels":
        return rng.sample(RANKS, rng.randint(0, 4))
    if rule.null and rng.random() < 0.2:
        return None
    if rule.values:
        return rng.choice(rule.values)
    value = rng.randint(rule.low, rule.high)
    return value if rule.kind == "int" else value + rng.choice((0.0, 0.5))


def gently(rec: dict[str, Any], rng: random.Random) -> None:
    """A change that keeps the record well-formed but changes the hand: another card, time,
    level, declarer, trump or allowed knob value; a play dropped or two plays swapped."""
    raw = rec.get("tricks")
    tricks = [
        t
        for t in (raw if isinstance(raw, list) else [])
        if isinstance(t, dict) and isinstance(t.get("plays"), list) and t["plays"]
    ]
    op = rng.choice(("card", "time", "drop", "swap", "knob", "contract", "bidding"))
    events = rec.get("before_play")
    if op == "bidding" and isinstance(events, list) and events:
        i, j = rng.randrange(len(events)), rng.randrange(len(events))
        event = events[i] if isinstance(events[i], dict) else {}
        change = rng.choice(("drop", "swap", "card", "seat"))
        if change == "drop":
            del events[i]
        elif change == "swap":
            events[i], events[j] = events[j], events[i]
        elif change == "card" and isinstance(event.get("cards"), list) and event["cards"]:
            event["cards"][rng.randrange(len(event["cards"]))] = rng.choice(ALL_IDENTITIES)
        else:
            event["seat"] = rng.choice(SEATS)
    elif op == "knob" and isinstance(rec.get("rule_overrides"), dict):
        knob = rng.choice(list(KNOB_RULES))
        rec["rule_overrides"][knob] = allowed_value(knob, rng)
    elif op == "contract":
        field = rng.choice(("levels", "declarer", "trump"))
        rec[field] = {
            "levels": {"NS": rng.choice(RANKS), "EW": rng.choice(RANKS)},
            "declarer": rng.choice(SEATS),
            "trump": rng.choice((*SUITS, "NT")),
        }[field]
    elif tricks:
        plays = rng.choice(tricks)["plays"]
        i = rng.randrange(len(plays))
        play = plays[i] if isinstance(plays[i], dict) else {}
        if op == "card" and isinstance(play.get("cards"), list) and play["cards"]:
            play["cards"][rng.randrange(len(play["cards"]))] = rng.choice(ALL_IDENTITIES)
        elif op == "time":
            play["t"] = rng.choice((None, round(rng.uniform(0, 10_000), 1)))
        elif op == "drop":
            del plays[i]
        elif op == "swap":
            j = rng.randrange(len(plays))
            plays[i], plays[j] = plays[j], plays[i]


def mutate(record: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``record`` with one to three random changes: most keep it well-formed (:func:`gently`),
    the others replace, remove, repeat or nest a value, or add a field or a rule knob."""
    rec = copy.deepcopy(record)
    for _ in range(rng.randint(1, 3)):
        op = rng.choice(("gently",) * 6 + ("replace", "remove", "repeat", "nest", "field", "knob"))
        if op == "gently":
            gently(rec, rng)
            continue
        if op == "field":
            rec[rng.choice(TOP_FIELDS)] = copy.deepcopy(rng.choice(EVIL))
            continue
        if op == "knob":
            knob = rng.choice([*KNOB_RULES, "no_such_knob"])
            overrides = rec.get("rule_overrides")
            if isinstance(overrides, dict):
                overrides[knob] = copy.deepcopy(rng.choice(EVIL))
            continue
        spots = list(places(rec))
        if not spots:
            continue
        *parent_path, key = rng.choice(spots)
        parent: Any = rec
        for step in parent_path:
            parent = parent[step]
        if op == "replace":
            parent[key] = copy.deepcopy(rng.choice(EVIL))
        elif op == "remove":
            del parent[key]
        elif op == "repeat" and isinstance(parent, list):
            parent.insert(key, copy.deepcopy(parent[key]))
        elif op == "nest":
            for _ in range(rng.choice((1, 2, 40))):
                parent[key] = [parent[key]]
    return rec


def test_mutated_records_never_crash_the_audit() -> None:
    schema = json.loads(SCHEMA.read_text(encoding="utf-8"))
    rng = random.Random(SEED)
    outcomes = {0: 0, 2: 0}
    unsound: list[tuple[str, Outcome]] = []
    for i in range(MUTATED_RECORDS):
        text = as_text(mutate(rng.choice(bases()), rng))
        outcome = audit_cli(text, *(("--json",) if i % 2 else ()))
        if not outcome.sound:
            unsound.append((text[:300], outcome))
        elif outcome.code == 0 and i % 4 == 0:  # what the engine takes, the schema allows
            jsonschema.validate(json.loads(text), schema)
        outcomes[outcome.code] = outcomes.get(outcome.code, 0) + 1
    assert unsound == [], f"{len(unsound)} unsound outcomes, e.g. {unsound[0]}"
    assert outcomes[0] > MUTATED_RECORDS // 10 and outcomes[2] > MUTATED_RECORDS // 2


def _valid(knob: str, value: Any) -> bool:
    if isinstance(value, str) and value in RAW:
        return False
    try:
        KNOB_RULES[knob].check(value, knob)
    except ProfileError:
        return False
    return True


def test_every_knob_refuses_what_its_rule_refuses_and_audits_what_it_allows() -> None:
    record = bases()[0]
    unsound: list[tuple[str, Any, Outcome]] = []
    for knob, rule in KNOB_RULES.items():
        edges: list[Any] = [rule.low, rule.high, rule.low - 1, rule.high + 1] if rule.high else []
        for value in [*EVIL, *edges]:
            outcome = audit_cli(as_text({**record, "rule_overrides": {knob: value}}))
            expected = 0 if _valid(knob, value) else 2
            deep = value in ("@@deep@@", "@@just-too-deep@@")  # refused for the document
            named = expected == 0 or deep or f"rule_overrides.{knob}" in outcome.err
            if not outcome.sound or outcome.code != expected or not named:
                unsound.append((knob, value, outcome))
    assert unsound == [], f"{len(unsound)} wrong outcomes, e.g. {unsound[:3]}"


@pytest.mark.parametrize("knob", [k for k, r in KNOB_RULES.items() if r.kind in ("int", "float")])
def test_a_hand_simulated_at_either_end_of_a_knobs_range_audits(knob: str) -> None:
    rule = KNOB_RULES[knob]
    for i, value in enumerate((rule.low, rule.high)):
        record, _ = simulate_hand("XX", 40 + i, ["revoke"], overrides={knob: value})
        assert audit_cli(as_text(record)).code == 0, (knob, value)


MISREADS: list[tuple[dict[str, Any], str]] = [
    ({"first_hand": "false"}, "first_hand: must be true or false"),
    ({"first_hand": 0}, "first_hand: must be true or false"),
    ({"finished": "true"}, "finished: must be true or false"),
    ({"must_play_done": {"NS": "10"}}, "must_play_done.NS: must be a list of distinct ranks"),
    ({"must_play_done": {"NS": 5}}, "must_play_done.NS: must be a list of distinct ranks"),
    ({"must_play_done": {"NS": ["J", "J"]}}, "must_play_done.NS: must be a list of distinct"),
    ({"must_play_done": {"NE": ["J"]}}, "must_play_done: must be"),
    ({"rule_overrides": {"direction": "sideways"}}, "rule_overrides.direction: must be one of"),
    ({"rule_overrides": {"kitty_size": None}}, "rule_overrides.kitty_size: must be an integer"),
    ({"rule_overrides": {"points_per_level": 0}}, "rule_overrides.points_per_level: must be"),
    ({"rule_overrides": {"must_play_levels": 1}}, "rule_overrides.must_play_levels: must be"),
    ({"rule_overrides": {"must_play_levels": "A"}}, "rule_overrides.must_play_levels: must be"),
    ({"rule_overrides": {"turnover_points": 85.5}}, "rule_overrides.turnover_points: must be"),
    ({"rule_overrides": {"big_win_points": "200"}}, "rule_overrides.big_win_points: must be"),
    ({"rule_overrides": {"tractor_hollow": "false"}}, "rule_overrides.tractor_hollow: must be"),
    ({"rule_overrides": {"match_best_of": 3.0}}, "rule_overrides.match_best_of: must be"),
    ({"rule_overrides": {"play_time_limit_s": "15"}}, "rule_overrides.play_time_limit_s: must"),
    ({"rule_overrides": []}, "rule_overrides: must be an object"),
    ({"kitty_buried_t": "@@inf@@"}, "kitty_buried_t: must be a finite number within ±10^12"),
    ({"kitty_buried_t": "@@huge-int@@"}, "kitty_buried_t: must be a finite number"),
    ({"kitty_taken_t": -1}, "kitty_taken_t: must be a number of seconds from 0"),
    ({"kitty_taken_t": "12"}, "kitty_taken_t: must be a number of seconds"),
    ({"levels": {"NS": 2, "EW": "5"}}, 'levels.NS: must be one of "2"'),
    ({"declarer": "NE"}, "declarer: must be one of"),
    ({"trump": "HS"}, "trump: must be one of"),
    ({"rules": "xx"}, "rules: must be one of"),
    ({"meta": "camera"}, "meta: must be an object"),
]


@pytest.mark.parametrize(("change", "message"), MISREADS)
def test_a_value_of_the_wrong_kind_is_refused_naming_its_field(
    change: dict[str, Any], message: str
) -> None:
    outcome = audit_cli(as_text({**bases()[1], **change}))
    assert outcome.code == 2 and outcome.sound, outcome
    assert message in outcome.err


def test_a_play_value_of_the_wrong_kind_is_refused_naming_its_place() -> None:
    record = copy.deepcopy(bases()[0])
    record["tricks"][2]["plays"][1]["t"] = "@@-inf@@"
    assert "tricks[2].plays[1].t: must be a finite number" in audit_cli(as_text(record)).err
    record["tricks"][2]["plays"][1]["t"] = "52.3"
    assert "trick 3 play 2 t: must be a number of seconds" in audit_cli(as_text(record)).err
    record["tricks"][2]["plays"][1]["seat"] = "NE"
    assert "trick 3 play 2 seat: must be one of" in audit_cli(as_text(record)).err
    record["tricks"][2]["plays"][1] = {"seat": "N", "cards": ["3S"], "unsrue": ["3S"]}
    assert 'trick 3 play 2: unknown key "unsrue"' in audit_cli(as_text(record)).err


def test_deep_nesting_is_refused_in_one_line() -> None:
    for raw in ("@@deep@@", "@@just-too-deep@@"):
        outcome = audit_cli(as_text({**bases()[0], "meta": raw}))
        assert outcome.sound and "deeper than 32 levels" in outcome.err


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ('{"format": "chaodipi-hand/1", "kitty_buried_t": 1e400}', "kitty_buried_t: must be"),
        ("[" * 100000, "deeper than 32 levels"),
        ('{"format": "chaodipi-hand/1", "rules": "XX"', "is not valid JSON"),
        (None, "is not UTF-8 text"),
    ],
)
def test_the_command_itself_ends_bad_records_in_one_line(
    tmp_path: Path, content: str | None, message: str
) -> None:
    path = tmp_path / "hand.json"
    if content is None:
        path.write_bytes(b"\xff\xfe{}")
    else:
        path.write_text(content, encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "chaodipi.cli.main", "audit", str(path)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert done.returncode == 2 and done.stderr.count("\n") == 1 and not done.stdout
    assert message in done.stderr
