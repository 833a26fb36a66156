"""The one rule of every truncation (`app.cut`): what is cut says so with `…`, in terminal cells, from the end or
from the start; a window over a wide line marks each edge that cuts through text; a payload summary leaves out
whole pairs and says so."""

from __future__ import annotations

from rich.cells import cell_len

from app.cut import cells, cut, fit, shorten, surely_one_cell_each, window
from app.daml import summary


def test_text_that_fits_is_whole_and_text_that_does_not_ends_or_starts_with_the_mark():
    assert cut("938.91", 6) == "938.91"
    assert cut("938.91", 5) == "938.…"
    assert cut("Splice.Amulet:AmuletRules", 12, keep="end") == "…AmuletRules"
    assert cut("anything", 1) == "…" and cut("anything", 0) == ""
    assert fit("12", 5, right=True) == "   12" and fit("12", 5) == "12   "


def test_widths_are_terminal_cells():
    assert cells("日本語") == 6 and cells("e\u0301") == 1
    assert cut("日本語テキスト", 7) == "日本語…"  # 6 cells and the mark
    assert cut("日本語テキスト", 7, keep="end") == "…キスト"
    assert cells(fit("日本語テキスト", 8)) == 8


def test_what_is_surely_one_cell_each_is_so_for_rich_too():
    # the tables draw a line of these as one segment sliced by characters: Rich must measure them alike
    surely = [chr(c) for c in range(0x30000) if surely_one_cell_each(chr(c))]
    assert "…" in surely and "—" in surely and "▼" in surely and "a" in surely
    assert all(cell_len(c) == 1 for c in surely)
    assert (
        not surely_one_cell_each("\x1b")
        and not surely_one_cell_each("日")
        and not surely_one_cell_each("e\u0301")
    )


def test_an_id_is_shortened_only_when_that_saves_something():
    assert shorten("00" + "a" * 66, 10) == "00aaaaaaaa…"
    assert shorten("0123456789a", 10) == "0123456789a"  # the mark would take the last character's place


def test_a_window_marks_each_edge_that_cuts_through_text():
    line = "  Iou:Iou  amount=938.91  Alice"
    assert window(line, 0, 16) == "  Iou:Iou  amou…"
    assert window(line, 13, 10) == "…unt=938.…"
    assert window(line, 11, 13) == "amount=938.91"  # blanks on both sides: nothing cut
    assert window(line, 25, 20) == " Alice" + " " * 14
    assert window("日本語 x", 1, 4) == "…語 "  # a wide character split by the edge is not drawn in half


def test_a_summary_leaves_out_whole_pairs_and_says_so():
    iou = {"issuer": "Bob::1220ab", "owner": "Alice::1220cd", "currency": "GBP", "amount": "938.9100000000"}
    assert summary(iou, 54) == "issuer=Bob owner=Alice currency=GBP amount=938.91"
    assert summary(iou, 45) == "issuer=Bob owner=Alice currency=GBP …"
    assert summary(iou, 8) == "issuer=…"
    assert summary({"note": "x" * 100}, 12) == "note=xxxxxx…"
