"""The contracts screen's columns against a real participant with the splice DARs: the template column sized to
the names in view (cut from the left when the screen is too narrow, so that the entity stays), and the payload's
fields offered as sort keys in a view of several templates."""

from __future__ import annotations

from app.screens.acs import AcsScreen
from app.widgets.contract_table import ContractTable
from participant.api import Command, CreateCommand, JsCommands
from tests.client.test_packages import dar_ids, loaded  # noqa: F401  (the participant with the two DARs)
from tests.tui.conftest import known, screen_text, wait_for

RIGHT = "Splice.Amulet:FeaturedAppRight"
RULES = "Splice.ExternalPartyAmuletRules:ExternalPartyAmuletRules"


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def _with_splice_contracts(app, pilot) -> AcsScreen:
    """Alice's contracts, with a FeaturedAppRight and an ExternalPartyAmuletRules of hers (dso and provider) among
    the demo's."""
    await wait_for(pilot, lambda: _loaded(app), "the contracts")
    screen: AcsScreen = app.screen
    client, party = app.session.client, app.session.identity.primary_party
    offset = 0
    for name, template, arguments in [
        ("right", f"#splice-amulet:{RIGHT}", {"dso": party, "provider": party}),
        ("rules", f"#splice-amulet:{RULES}", {"dso": party}),
    ]:
        command = Command(create_command=CreateCommand(template_id=template, create_arguments=arguments))
        answer = await client.submit_and_wait_for_transaction(
            JsCommands(commands=[command], command_id=f"columns-{name}-{id(app)}", act_as=[party])
        )
        offset = answer.events[0].created_event.offset
    await pilot.press("e")
    await wait_for(pilot, lambda: (screen.offset or 0) >= offset and not screen.reading, "the new contracts")
    return screen


def _template_cells(screen: AcsScreen) -> set[str]:
    table = screen.query_one(ContractTable)
    (column,) = [c for c in table.columns if c.key == "template"]
    start = 2 + sum(c.width + 1 for c in table.columns[: table.columns.index(column)])
    lines = [table.render_line(y).text for y in range(1, min(table.count, table.size.height - 1) + 1)]
    return {line[start : start + column.width].rstrip() for line in lines}


async def test_the_template_column_is_as_wide_as_its_names_allow(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _with_splice_contracts(app, pilot)
        table = await _splice_rows(pilot, screen)
        right, rules = sorted(_template_cells(screen))
        assert right == RIGHT  # whole at 160 columns (16 cells before)
        # a name longer than 30% of the width is cut from the left: its entity stays
        assert rules.startswith("…") and rules.endswith(":ExternalPartyAmuletRules")
        assert RIGHT in screen_text(app)

    app = make_app(loaded)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the contracts")
        table = await _splice_rows(pilot, app.screen)
        right, rules = sorted(_template_cells(app.screen))
        assert right.startswith("…") and right.endswith(":FeaturedAppRight")
        assert rules.startswith("…") and rules.endswith("PartyAmuletRules")
        template, payload = table.columns[:2]
        assert template.width > 16 and 2 + template.width + 1 + payload.width <= table.size.width  # both seen


async def _splice_rows(pilot, screen: AcsScreen) -> ContractTable:
    """The view filtered to the splice contracts."""
    table = screen.query_one(ContractTable)
    await pilot.press("slash", *"Splice.", "enter")
    await wait_for(pilot, lambda: table.count == 2 and table.row_at(1) is not None, "the splice contracts")
    await pilot.pause()
    return table


async def test_the_payload_fields_are_sort_keys_in_a_view_of_several_templates(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=(160, 48)) as pilot:
        screen = await _with_splice_contracts(app, pilot)
        table = screen.query_one(ContractTable)
        assert not any(c.key == "payload.provider" for c in table.columns)
        await pilot.press("s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", "the sort dialog")
        dialog = app.screen
        keys = [key for _, key in dialog.choices]
        assert {"payload.provider", "payload.dso", "payload.owner", "payload.amount"} <= set(keys)
        dialog.dismiss("payload.provider")
        await wait_for(pilot, lambda: table.sort_key == "payload.provider", "sorted")
        await pilot.press("s")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ChoiceDialog", "the sort dialog again")
        app.screen.dismiss("payload.provider")  # again: descending, the one contract with a provider first
        await wait_for(pilot, lambda: table.descending, "reversed")
        await pilot.press("home")
        await wait_for(pilot, lambda: table.row_at(0) is not None, "the first row")
        first = known(table.row_at(0))
        assert first.template_id.endswith(RIGHT)
        assert "by provider ▼" in screen_text(app)
