import json

from app.untrusted import csv_cell, is_safe, json_safe, visible


def test_terminal_sequences_are_written_out():
    hostile = "pay\x1b]52;c;ZXZpbA==\x07me\x1b[2J\x9b31m"
    shown = visible(hostile)
    assert shown == "pay\\x1b]52;c;ZXZpbA==\\x07me\\x1b[2J\\x9b31m"
    assert is_safe(shown)
    assert not is_safe(hostile)


def test_line_breaks_tabs_and_bidi_overrides_are_escaped():
    assert visible("a\nb\tc\r") == "a\\x0ab\\x09c\\x0d"
    assert visible("abc\u202edcba\u2066") == "abc\\u202edcba\\u2066"
    assert visible("x\u2028y\x7f") == "x\\u2028y\\x7f"


def test_ordinary_text_is_returned_unchanged():
    for text in ["", "Alice::1220abcd", "Zürich — 東京 ✓", "back\\slash", "[b]not markup[/b]"]:
        assert visible(text) is text
        assert is_safe(text)


def test_csv_cells_that_a_spreadsheet_would_run_get_a_quote_and_numbers_do_not():
    for formula in ["=1+1", "+1+cmd", "-2+3", "@SUM(A1)", "-", "+", "=", "-1e5x", "- 5"]:
        assert csv_cell(formula) == "'" + formula
    assert csv_cell("\t=1") == "'\\x09=1" and csv_cell("\r=1") == "'\\x0d=1"
    for number in ["-5.0", "-5.0000000000", "+3", "-42", "0", "1.5e-3", "-7E+2"]:
        assert csv_cell(number) == number
    assert csv_cell("a=b") == "a=b" and csv_cell("Zürich") == "Zürich"


def test_json_text_keeps_its_value_with_del_c1_and_bidi_escaped():
    value = {"k\u202e": ["a\x7fb", "\x9b31m", "x\u2028y", "\x1b]0;t\x07", "Zürich"]}
    text = json_safe(json.dumps(value, ensure_ascii=False))
    assert json.loads(text) == value
    assert is_safe(text)
    plain = '{"a": "Zürich"}'
    assert json_safe(plain) is plain
