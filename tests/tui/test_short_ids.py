"""Ids typed short outside the composer, against a real participant with the demo ledger: a contract id's
beginning opens the contract it expands to (ctrl+o) or fills the move form, and one that begins several is
refused with their count, keeping what was typed."""

from __future__ import annotations

from collections import Counter

from textual.widgets import Input

from app.screens.acs import AcsScreen
from app.screens.dialogs import PromptDialog
from app.screens.inspector import InspectorScreen
from app.screens.reassign import ReassignScreen
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, wait_for
from tests.tui.helpers import views_of

SHORTEST = 4


def notified(app) -> str:
    return "\n".join(n.message for n in app._notifications)


async def held_ids(pilot, app) -> list[str]:
    await wait_for(pilot, lambda: app.connected, "the connection")
    acs = app.screen
    assert isinstance(acs, AcsScreen)
    await wait_for(pilot, lambda: acs.query_one(ContractTable).count > 0 and not acs.reading, "the contracts")
    return await views_of(acs).ids_with_prefix("", 100_000)


def unique_prefix(contract_id: str, ids: list[str]) -> str:
    for length in range(SHORTEST, len(contract_id)):
        prefix = contract_id[:length]
        if sum(i.startswith(prefix) for i in ids) == 1:
            return prefix
    raise AssertionError("no prefix of the id is unique")


def shared_prefix(ids: list[str]) -> tuple[str, int]:
    """A beginning of SHORTEST digits that several ids share, and how many."""
    prefix, count = Counter(i[:SHORTEST] for i in ids).most_common(1)[0]
    assert count > 1, "the demo ledger has fewer contracts than beginnings of four digits"
    return prefix, count


async def _prompt(pilot, app, text: str) -> None:
    await pilot.press("ctrl+o")
    await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the open prompt")
    app.screen.query_one("#prompt-input", Input).value = text
    await pilot.press("enter")


async def test_ctrl_o_opens_the_contract_a_beginning_expands_to(demo_server, make_app) -> None:
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        ids = await held_ids(pilot, app)
        target = ids[len(ids) // 2]
        short = unique_prefix(target, ids)
        await _prompt(pilot, app, short)
        await wait_for(pilot, lambda: isinstance(app.screen, InspectorScreen), "the inspector")
        assert app.screen.contract_id == target
        # the expansion is said in a notification posted a message after the inspector opens
        await wait_for(pilot, lambda: f"{short} →" in notified(app), "the expansion said")
        assert f"{short} → {target}" in notified(app)


async def test_ctrl_o_refuses_a_beginning_of_several_and_keeps_it(demo_server, make_app) -> None:
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        prefix, count = shared_prefix(await held_ids(pilot, app))
        await _prompt(pilot, app, prefix)
        await wait_for(pilot, lambda: f"ambiguous: {count} matches" in notified(app), "the ambiguity said")
        await wait_for(pilot, lambda: isinstance(app.screen, PromptDialog), "the prompt again")
        assert app.screen.query_one("#prompt-input", Input).value == prefix


async def test_the_move_form_expands_a_contract_id_s_beginning(demo_server, make_app) -> None:
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        ids = await held_ids(pilot, app)
        target = ids[0]
        await pilot.press("4")
        await wait_for(pilot, lambda: isinstance(app.screen, ReassignScreen), "the reassignment screen")
        screen = app.screen
        field = screen.query_one("#move-contract", Input)
        field.value = unique_prefix(target, ids)
        await wait_for(
            pilot,
            lambda: screen.contract is not None and screen.contract.contract_id == target,
            "the contract expanded and looked up",
        )
        assert f"→ {target}" in str(screen.query_one("#move-contract-info").render())
        prefix, count = shared_prefix(ids)
        field.value = prefix
        await wait_for(pilot, lambda: screen.contract is None, "the ambiguity")
        assert f"ambiguous: {count} matches" in str(screen.query_one("#move-contract-info").render())


def test_the_distinguishing_length_of_ids_is_one_more_than_the_longest_beginning_two_share():
    from app.ids import distinguishing_length

    assert distinguishing_length(["00abcdef", "00abxyz", "0099"], 1) == 5
    assert distinguishing_length(["00abcdef", "00abxyz", "0099"], 10) == 10
    assert distinguishing_length(["00ab"], 3) == 3 and distinguishing_length([], 3) == 3
    assert distinguishing_length(["00ab", "00ab"], 2) == 2  # the same id twice is one id
