"""Textual's per-widget render cache, no longer kept alive after its widget is gone.

`StylesCache.get_inner_outer` (Textual 8) is an instance method under `functools.lru_cache(1024)`: the cache's key
holds the `StylesCache` itself, and with it every line that widget last drew (`Strip`s, each with caches of its
own). Each widget has one, so the last 1,024 widgets that drew a background stayed in memory after they were
removed: screens and dialogs closed, footers recomposed, forms rebuilt. A session that opens many screens grew by a
gigabyte before the cache was full (Textualize/textual#6665).

The two styles depend on the two colours only; here they are cached by the colours, never by the widget.
"""

from __future__ import annotations

from functools import lru_cache

from textual._styles_cache import StylesCache
from textual.color import Color
from textual.style import Style


@lru_cache(1024)
def _inner_outer(base_background: Color, background: Color) -> tuple[Style, Style]:
    return Style(background=base_background + background), Style(background=base_background)


def _get_inner_outer(self: StylesCache, base_background: Color, background: Color) -> tuple[Style, Style]:
    return _inner_outer(base_background, background)


def drop_widgets_from_style_cache() -> None:
    """Cache Textual's inner and outer background styles by their colours alone (idempotent)."""
    # Textual declares the method as its lru_cache wrapper: a plain function is what replaces the cache
    StylesCache.get_inner_outer = _get_inner_outer  # type: ignore[method-assign, assignment]  # see above
