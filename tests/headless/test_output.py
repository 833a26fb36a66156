"""The headless output: JSON lines and plain tables, with text from the participant never acting on a terminal."""

from __future__ import annotations

import io
import json

from app.headless.output import Output

HOSTILE = "Bob\x1b]52;c;cHduZWQ=\x07\u202eevil\u0085"


def test_json_lines_keep_the_value_and_escape_what_acts_on_a_terminal():
    stream = io.BytesIO()
    out = Output(stream)
    out.emit({"party": HOSTILE})
    out.emit_raw([{"n": 1}, {"n": 2}])
    out.close()
    text = stream.getvalue().decode()
    assert "\x1b" not in text and "\u202e" not in text and "\u0085" not in text
    assert [json.loads(line) for line in text.splitlines()] == [{"party": HOSTILE}, {"n": 1}, {"n": 2}]


def test_a_table_aligns_its_columns_and_shows_controls_escaped():
    stream = io.BytesIO()
    out = Output(stream, table=[("party", lambda d: d["party"]), ("n", lambda d: d.get("n"))])
    out.emit({"party": HOSTILE, "n": 1})
    out.emit({"party": "Al", "n": None})
    out.close()
    head, first, second = stream.getvalue().decode().splitlines()
    assert "\x1b" not in first and "\\x1b]52" in first and "\\u202e" in first
    assert head.rindex("n") == first.rindex("1") == second.rindex("-")
