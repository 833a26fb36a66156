"""Widgets, grouped by the screen area they serve."""
