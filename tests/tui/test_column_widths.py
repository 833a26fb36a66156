"""Columns sized to their values within a width (`app.widgets.column_widths`): whole when they fit, else the widest
cut first to a bound they share, none below its least, the room used to the last cell."""

from __future__ import annotations

from app.widgets.column_widths import fit_widths, wanted_widths


def test_columns_that_fit_are_as_wide_as_their_values():
    assert wanted_widths(("Party", "Local"), [("alice::1220…", "yes")]) == [12, 5]
    assert fit_widths([12, 5], 40, [8, 5]) == [12, 5]


def test_the_widest_are_cut_first_and_the_room_is_used():
    # a long id and a long name share what the short column leaves: both cut to the same bound, the short one whole
    assert fit_widths([75, 44, 5], 60, [16, 12, 5]) == [28, 27, 5]
    assert sum(fit_widths([75, 44, 5], 61, [16, 12, 5])) == 61
    # one wide column only: it alone is cut
    assert fit_widths([75, 10, 5], 40, [16, 8, 5]) == [25, 10, 5]


def test_no_column_goes_below_its_least():
    assert fit_widths([75, 44, 5], 20, [16, 12, 5]) == [16, 12, 5]  # the table scrolls across
    assert fit_widths([3, 44], 20, [16, 12]) == [3, 17]  # a short column's least is what it wants
