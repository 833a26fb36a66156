"""What a closed screen drew is freed with it: Textual's render caches of its widgets do not outlive them (a long
session's memory grew by a gigabyte before; `app.widgets.styles_cache`)."""

from __future__ import annotations

import gc
import weakref

from tests.tui.conftest import SIZE, wait_for

OPENED = 4  # help screens opened and closed: a few hundred widgets drawn, far under Textual's 1,024 entries


async def test_the_widgets_of_closed_screens_leave_no_render_cache_behind(demo_server, make_app):
    from app.screens.acs import AcsScreen
    from app.screens.help import HelpScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen) and app.connected, "the contracts")
        caches: list[list[weakref.ref]] = []
        for _ in range(OPENED):
            await pilot.press("question_mark")
            await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), "the help")
            await pilot.pause()  # drawn
            caches.append([weakref.ref(w._styles_cache) for w in app.screen.walk_children(with_self=True)])
            await pilot.press("escape")
            await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts again")
        await pilot.pause()
        gc.collect()
        alive = [sum(cache() is not None for cache in screen) for screen in caches]
        # the first may outlive its closing: a context token of Textual's (`active_message_pump`) refers to it,
        # one screen and no more; every later one is freed
        assert alive[1:] == [0] * (OPENED - 1), f"render caches still in memory, by screen closed: {alive}"


async def test_the_footer_forgets_the_keys_it_composed_before(demo_server, make_app):
    """Each recomposition of the footer (a focus or screen change) bound its new keys to it and kept the old ones
    in its watchers: a long session held every key the footer ever showed."""
    from app.screens.acs import AcsScreen
    from app.widgets.keys import KeyFooter

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen) and app.connected, "the contracts")
        footer = app.screen.query_one(KeyFooter)
        for _ in range(OPENED):
            footer.refresh(recompose=True)
            await pilot._wait_for_screen()
        watched = [node for node, _ in getattr(footer, "__watchers", {}).get("compact", [])]
        assert watched and all(node.is_attached for node in watched), (
            f"{sum(not node.is_attached for node in watched)} removed keys still bound to the footer"
        )
