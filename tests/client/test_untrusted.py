from app.untrusted import is_safe, visible


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
