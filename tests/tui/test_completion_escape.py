"""Escape in an open completion list closes it and keeps the field's text exactly as typed; only enter (or tab)
takes a completion."""

from __future__ import annotations

import re

import pytest

from app.screens.composer import ComposerScreen
from app.widgets.completing_input import CompletingInput
from app.widgets.request_preview import RequestPreview
from tests.tui.conftest import SIZE, wait_for
from tests.tui.helpers import paste
from tests.tui.test_composer import IOU
from tests.tui.test_composer_keyboard import settled, type_at_once
from tests.tui.test_typed_form import open_composer


async def choice_field(pilot, app) -> tuple[ComposerScreen, CompletingInput]:
    screen = await open_composer(pilot, app)
    while screen.editor.kind != "Exercise":
        await pilot.press("ctrl+t")
    # the template and the contract pasted, not typed: the typing is not what these tests are about, and each key
    # pressed is an idle wait and a layout of the form (90 keys were most of a test's 10 s)
    screen.query_one("#template").focus()
    await paste(pilot, IOU)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.focused is screen.query_one("#contract-id"), "the contract id")
    await paste(pilot, "00" + "ab" * 32)
    await wait_for(pilot, lambda: "Iou_Split" in screen.editor.choices(), "its choices")
    choice = screen.query_one("#choice", CompletingInput)
    choice.focus()
    await wait_for(pilot, lambda: choice.input.has_focus, "the choice field")
    return screen, choice


def body_choice(screen: ComposerScreen) -> list[bytes]:
    return re.findall(rb'"choice":"([^"]*)"', screen.query_one(RequestPreview).body or b"")


@pytest.mark.parametrize(
    "keys",
    [
        ("I", "o", "u", "_"),
        ("I", "o", "u", "_", "down"),
        ("I", "o", "u", "_", "down", "down", "S"),
        ("I", "o", "u", "_", "S", "p"),
    ],
)
async def test_escape_closes_the_list_and_keeps_what_was_typed(demo_server, make_app, keys):
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen, choice = await choice_field(pilot, app)
        typed = "".join(k for k in keys if len(k) == 1)
        type_at_once(app, *keys, "escape")
        await wait_for(
            pilot, lambda: app.keys.idle and choice.value == typed and not choice.is_open, "the keys handled"
        )
        await settled(pilot, screen)
        assert choice.value == typed
        assert not choice.is_open
        assert choice.input.has_focus  # the first escape closes the list only
        type_at_once(app, "escape")
        await wait_for(pilot, lambda: screen.focused is None, "out of the field")
        await settled(pilot, screen)
        assert choice.value == typed
        await wait_for(pilot, lambda: body_choice(screen) == [typed.encode()], "the body to follow the field")


async def test_a_list_closed_with_escape_stays_closed_as_the_ledger_is_read(demo_server, make_app):
    """Escape, then the contracts the form completes from arrive (a read started before): the list stays closed
    and enter takes what was typed, not the first match of a list opened again behind the user's back."""
    app = make_app(demo_server)
    async with app.run_test(size=SIZE) as pilot:
        screen, choice = await choice_field(pilot, app)
        type_at_once(app, *"Iou_", "escape")
        await wait_for(
            pilot, lambda: app.keys.idle and choice.value == "Iou_" and not choice.is_open, "the keys handled"
        )
        editor = screen.editor
        editor.want_contracts(IOU)  # as a ContractId field of the form asks, on its focus
        await wait_for(pilot, lambda: editor.contract_ids(IOU), "the contracts read")
        await pilot.pause()
        assert not choice.is_open
        await pilot.press("enter")
        await settled(pilot, screen)
        assert choice.value == "Iou_"
