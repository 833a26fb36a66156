"""The typed form's list of contracts to pick for a ContractId field uses the width there is, at 80 and 160
columns: each contract on one line, its id to its distinguishing prefix, its template's name and its first values (it
was as narrow as the field, which a long name and type squeeze, each contract wrapped over two lines)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from textual.widgets import OptionList

from app.widgets.completing_input import CompletingInput
from participant.api import Command, CreateCommand, JsCommands
from tests.conftest import ServerProcess, start_demo_server
from tests.daml_lf.conftest import RICHTYPES, dars_dir  # noqa: F401
from tests.tui.conftest import known, screen_text, wait_for
from tests.tui.helpers import client_for, party_of
from tests.tui.test_typed_form import MARKER, RICH_RECORD, choose_template, open_composer, type_into

MARKERS = 3


@pytest.fixture(scope="module")
def markers_server(tmp_path_factory, dars_dir) -> Iterator[ServerProcess]:  # noqa: F811
    s = start_demo_server(
        tmp_path_factory.mktemp("markers") / "ledger.db", "--dar", str(dars_dir / RICHTYPES)
    )
    yield s
    s.stop()


async def created_markers(server: ServerProcess) -> list[str]:
    async with client_for(server) as client:
        party = await party_of(client)
        ids = []
        for _ in range(MARKERS):
            tx = await client.submit_and_wait_for_transaction(
                JsCommands(
                    commands=[
                        Command(
                            create_command=CreateCommand(
                                template_id=MARKER, create_arguments={"owner": party}
                            )
                        )
                    ],
                    command_id=f"marker-{os.urandom(4).hex()}",
                    act_as=[party],
                )
            )
            ids.append(known(tx.events[0].created_event).contract_id)
        return ids


def distinguishing_prefix(contract_id: str, others: list[str]) -> str:
    """The shortest beginning of `contract_id` that no other id shares."""
    for n in range(1, len(contract_id) + 1):
        if not any(o.startswith(contract_id[:n]) for o in others if o != contract_id):
            return contract_id[:n]
    return contract_id


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_contracts_to_pick_use_the_width_there_is(markers_server, make_app, size) -> None:
    ids = await created_markers(markers_server)
    app = make_app(markers_server)
    async with app.run_test(size=size) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        await type_into(pilot, screen, "createArguments.marker", "")
        await pilot.press("down")  # the active Markers
        completing = screen.query_one("#create-form-typed RowEditor CompletingInput", CompletingInput)
        await wait_for(pilot, lambda: set(ids) <= set(completing.matches()), "the Markers offered")
        await pilot.pause()
        options = completing.query_one(OptionList)
        width = size[0]
        lines = screen_text(app).splitlines()
        # wider than the field where its labels need it, within the screen
        assert options.region.width > completing.region.width, (completing.region, options.region)
        assert options.region.right <= width
        for contract_id in ids:
            # each contract on one line: its id to the prefix that tells it apart, its template, its first values
            prefix = distinguishing_prefix(contract_id, ids)
            line = next((line for line in lines if prefix in line), None)
            assert line is not None, prefix
            assert "  RichTypes:Marker  owner=Alice" in line, line


def test_a_label_too_wide_for_the_list_is_cut_with_a_mark() -> None:
    from textual.content import Content

    from app.widgets.completing_input import _cut_content

    label = Content.assemble(("00c4ea3930…", "bold"), "  RichTypes:Marker  owner=Alice")
    assert _cut_content(label, 60) is label
    cut = _cut_content(label, 20)
    assert cut.plain == "00c4ea3930…  RichTy…" and cut.cell_length == 20


def test_a_contracts_first_values_are_cut_with_a_mark() -> None:
    """A long value in a pick list's label says it goes on (`label=the first twenty-four` read as the whole)."""
    from types import SimpleNamespace

    from app.widgets.command_form import _payload_summary

    created = SimpleNamespace(create_argument={"label": "a label much longer than twenty-four", "n": "1"})
    assert _payload_summary(created) == "label=a label much longer tha… n=1"  # type: ignore[arg-type]
