"""A screen left before it finished mounting (a number key, or escape, in the moment between the key that opened it
and its first frame): its mount found its own widgets already removed and raised `NoMatches`, ending the app (the
inspector's `#ins-details`, found by the monkey test on a loaded machine). A screen removed before its mount runs
skips it, whichever screen it is."""

from __future__ import annotations

from tests.tui.conftest import SIZE, wait_for


async def _contracts_shown(app, pilot) -> None:
    from app.screens.acs import AcsScreen

    await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen) and app.connected, "the contracts")


async def test_a_screen_left_while_it_mounts_ends_nothing(demo_server, make_app):
    from app.screens.inspector import InspectorScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        contracts = app.screen
        opened = InspectorScreen("00" + "ab" * 33)
        app.push_screen(opened)
        app.routes.go("contracts")  # in the same turn of the loop: before the screen's mount
        await wait_for(
            pilot,
            lambda: app._exception is not None or (app.screen is contracts and not opened.is_attached),
            "the screen gone",
        )
        await pilot.pause()
        assert app._exception is None
