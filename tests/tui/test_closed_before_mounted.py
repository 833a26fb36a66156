"""A screen left before it finished mounting (a number key, or escape, in the moment between the key that opened it
and its first frame): its mount found its own widgets already removed and raised `NoMatches`, ending the app (the
inspector's `#ins-details`, found by the monkey test on a loaded machine). A screen removed before its mount runs
skips it, whichever screen it is."""

from __future__ import annotations

import asyncio

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


async def test_a_number_key_right_after_a_screen_opened_leaves_it_once_it_has_mounted(demo_server, make_app):
    """Its widgets mount after the screen is pushed, each on its own: the screen popped halfway had them removed
    while they mounted, and Textual's `Tabs` raised in its own mount ("No Tab with id '--content-tab-ins-contract'",
    found by the monkey test). The number key now waits for the screen to finish mounting."""
    from app.screens.inspector import InspectorScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        contracts = app.screen
        mounted_when_left: list[bool] = []
        pop = app.pop_screen

        def recording_pop():
            mounted_when_left.append(app.screen.is_mounted)
            return pop()

        app.pop_screen = recording_pop
        opened = InspectorScreen("00" + "ab" * 33)
        app.push_screen(opened)
        await app.run_action("mode('contracts')")  # in the same turn of the loop as the push
        await wait_for(
            pilot,
            lambda: app._exception is not None or (app.screen is contracts and not opened.is_attached),
            "the screen gone",
        )
        assert app._exception is None
        assert mounted_when_left == [True]


async def test_a_number_key_waiting_for_a_screen_when_the_app_quits_opens_no_mode(demo_server, make_app):
    """The app quitting while a number key waits for a screen to mount ends the wait: the key's move then made a
    mode's stack while Textual closed the stacks ("dictionary changed size during iteration", found by the monkey
    test)."""
    from app.screens.inspector import InspectorScreen

    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        await _contracts_shown(app, pilot)
        app.push_screen(InspectorScreen("00" + "ab" * 33))
        waiting = asyncio.create_task(app.routes.go_once_mounted("transactions"))
        app.exit()
    await waiting
    assert "transactions" not in app._screen_stacks
