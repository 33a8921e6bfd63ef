"""The console's shared markup (web_dashboard/templates/macros.html): one seat <select> for
every form, rendered as the forms had it written out."""

from __future__ import annotations

import re
from pathlib import Path

from flask import Flask, render_template_string

from tests.table_helpers import hand, table
from tests.web.test_web import CONFIG, sign_in
from web_dashboard.app import create_app

SEATS = (
    '  <option value="N" data-i18n="seat.N">北</option>\n'
    '  <option value="E" data-i18n="seat.E">东</option>\n'
    '  <option value="S" data-i18n="seat.S">南</option>\n'
    '  <option value="W" data-i18n="seat.W">西</option>\n'
)


def render(app: Flask, call: str) -> str:
    with app.test_request_context():
        return render_template_string('{% from "macros.html" import seat_select %}' + call)


def test_a_seat_select_lists_the_four_seats_after_an_optional_empty_choice(
    tmp_path: Path,
) -> None:
    live = table(tmp_path, hand(), upto=0)
    app = create_app(live.store, CONFIG)
    plain = render(app, '{{ seat_select("s", "seat", required=true) }}')
    assert plain == f'<select id="s" name="seat" required>\n{SEATS}</select>'
    empty = render(app, '{{ seat_select("d", "declarer", empty=("ref.unchanged", "不变")) }}')
    assert empty == (
        '<select id="d" name="declarer">\n'
        '  <option value="" data-i18n="ref.unchanged">不变</option>\n'
        f"{SEATS}</select>"
    )
    indented = render(app, '    {{ seat_select("s", "seat")|indent(4) }}')
    assert indented.splitlines()[1:] == ["      " + line.strip() for line in SEATS.splitlines()] + [
        "    </select>"
    ]
    live.store.close()


def test_every_seat_select_on_the_console_comes_from_the_macro(tmp_path: Path) -> None:
    live = table(tmp_path, hand(), upto=0)
    c = create_app(live.store, CONFIG).test_client()
    sign_in(c)
    html = c.get("/referee").get_data(as_text=True)
    select = r'<select id="([\w-]+)"[^>]*>\n((?:\s*<option[^\n]*\n)*)\s*</select>'
    selects = re.findall(select, html)
    seats = {i: body for i, body in selects if 'value="N"' in body}
    assert sorted(seats) == sorted(
        ["corr-seat", "bp-seat", "bp-rotation", "bp-draw-first", "cc-seat", "cc-checked",
         "c-declarer", "chaodi-seat"]
    )  # fmt: skip
    for body in seats.values():
        lines = [line.strip() for line in body.strip().splitlines()]
        assert lines[-4:] == [line.strip() for line in SEATS.splitlines()]
    live.store.close()
