"""Types where values are shown, against a real participant running the richtypes DAR: the inspector's payload in
the record's declared order with each field's type, the template's choices and `x` to exercise one; the contracts
screen's columns from a template's fields before any contract is read; an exercise's result labelled with its
choice's return type."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from app.client import LedgerClient
from app.messages import OpenContract, ShowTemplateContracts
from app.screens.acs import AcsScreen
from app.screens.composer import ComposerScreen
from app.screens.dialogs import ChoiceDialog
from app.screens.inspector import CREATED, InspectorScreen
from app.widgets.contract_table import ContractTable
from app.widgets.payload_tree import PayloadTree
from app.widgets.transaction_view import TransactionView
from participant.api import Command, CreateCommand, ExerciseCommand, JsCommands
from participant.daml_lf.archive import read_dar
from tests.conftest import ServerProcess, start_demo_server
from tests.daml_lf.conftest import RICHTYPES
from tests.tui.conftest import SIZE, known, screen_text, wait_for
from tests.tui.helpers import client_for, party_of

RICH = "#richtypes:RichTypes:RichRecord"
DECLARED = [
    "owner",
    "count",
    "amount",
    "label",
    "active",
    "asOf",
    "observedAt",
    "note",
    "tags",
    "attributes",
    "marker",
    "profile",
    "outcome",
    "fee",
]


@pytest.fixture(scope="module")
def rich_server(tmp_path_factory, dars_dir) -> Iterator[ServerProcess]:
    s = start_demo_server(
        tmp_path_factory.mktemp("rich") / "ledger.db",
        "--dar",
        str(dars_dir / RICHTYPES),
    )
    yield s
    s.stop()


@pytest.fixture(scope="module")
def rich_package(dars_dir) -> str:
    return read_dar((dars_dir / RICHTYPES).read_bytes()).main.package_id


async def _submit(client: LedgerClient, party: str, command: Command):
    return await client.submit_and_wait_for_transaction(
        JsCommands(commands=[command], command_id=f"types-{os.urandom(4).hex()}", act_as=[party])
    )


async def rich_record(client: LedgerClient) -> tuple[str, str]:
    """A RichRecord of the client's party (the payload keys in an order other than the declared one), and that
    party."""
    party = await party_of(client)
    marker = await _submit(
        client,
        party,
        Command(
            create_command=CreateCommand(
                template_id="#richtypes:RichTypes:Marker", create_arguments={"owner": party}
            )
        ),
    )
    payload = {
        "fee": "0.1",
        "owner": party,
        "count": "-42",
        "amount": "1234.5",
        "label": "first",
        "active": True,
        "asOf": "2024-02-29",
        "observedAt": "2024-01-02T03:04:05Z",
        "tags": ["b", "a"],
        "attributes": {"a": "1"},
        "marker": marker.events[0].created_event.contract_id,
        "profile": {"nickname": "al", "level": "3"},
        "outcome": {"tag": "Win", "value": {"prize": "2.5", "tier": "gold"}},
    }
    tx = await _submit(
        client, party, Command(create_command=CreateCommand(template_id=RICH, create_arguments=payload))
    )
    return tx.events[0].created_event.contract_id, party


async def _inspect(app, pilot, contract_id: str) -> InspectorScreen:
    await wait_for(pilot, lambda: app.connected, "the connection")
    app.post_message(OpenContract(contract_id))
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, InspectorScreen) and app.screen.lookup is not None,
        "the inspector",
    )
    tree = app.screen.query_one(PayloadTree)
    await wait_for(pilot, lambda: tree.types is not None, "the packages read")
    await pilot.pause()
    return app.screen


async def test_the_inspector_types_the_payload_lists_the_choices_and_x_exercises_one(
    rich_server, make_app
) -> None:
    contract_id, _ = await rich_record(client_for(rich_server, "Alice"))
    app = make_app(rich_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _inspect(app, pilot, contract_id)
        tree = screen.query_one(PayloadTree)
        [argument] = [n for n in tree.root.children if known(n.data).name == "createArgument"]
        fields = [(known(n.data).name, known(n.data).type_text) for n in argument.children]
        assert [name for name, _ in fields] == DECLARED  # the JSON's order was another
        assert dict(fields)["amount"] == "Numeric 10" and dict(fields)["note"] == "Optional Text"
        assert dict(fields)["marker"] == "ContractId RichTypes:Marker"
        [outcome] = [n for n in argument.children if known(n.data).name == "outcome"]
        tree.populate(outcome)
        assert [(known(n.data).name, known(n.data).type_text) for n in outcome.children] == [
            ("prize", "Numeric 2"),
            ("tier", "Text"),
        ]
        text = screen_text(app)
        assert "amount: 1234.5  : Numeric 10" in text
        assert "Choices" in text and "Relabel" in text and "nonconsuming  newLabel : Text" in text
        assert "Archive" in text and "implements" in text and "no interface" in text

        await pilot.press("x")
        await wait_for(pilot, lambda: isinstance(app.screen, ChoiceDialog), "the choice dialog")
        assert [c.name for _, c in app.screen.choices] == ["Archive", "Relabel"]
        await pilot.press("enter")  # Relabel, the nonconsuming one, is highlighted
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        await pilot.pause()
        form = app.screen.editor.state()
        assert (form.kind, form.contract_id, form.choice) == ("Exercise", contract_id, "Relabel")


async def test_an_exercise_result_is_labelled_with_the_choice_return_type(rich_server, make_app) -> None:
    client = client_for(rich_server, "Alice")
    contract_id, party = await rich_record(client)
    relabelled = await _submit(
        client,
        party,
        Command(
            exercise_command=ExerciseCommand(
                template_id=RICH, contract_id=contract_id, choice="Relabel", choice_argument={"newLabel": "b"}
            )
        ),
    )
    new_id = relabelled.events[0].created_event.contract_id
    app = make_app(rich_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _inspect(app, pilot, new_id)
        await pilot.press("t")
        view = screen.query_one(f"#{CREATED}-view", TransactionView)
        await wait_for(pilot, lambda: view.transaction is not None, "the creating transaction")
        await pilot.pause()
        text = screen_text(app)
        assert "Exercised Relabel" in text and "→ ContractId RichTypes:RichRecord" in text
        assert "exerciseResult: " in text and ": ContractId RichTypes:RichRecord" in text
        assert "choiceArgument" in text and 'newLabel: "b"  : Text' in text


async def test_the_contracts_screen_shows_a_template_s_fields_before_any_contract(
    rich_server, rich_package, make_app
) -> None:
    app = make_app(rich_server, "Charlie")  # who is no stakeholder of any RichRecord
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        await wait_for(pilot, lambda: app.session.packages.current is not None, "the packages read")
        app.post_message(ShowTemplateContracts(f"{rich_package}:RichTypes:RichRecord"))
        screen = app.routes.contracts_screen()
        assert isinstance(screen, AcsScreen)
        table = screen.query_one(ContractTable)
        await wait_for(
            pilot, lambda: "payload.owner" in [c.key for c in table.columns], "the declared columns"
        )
        assert [c.key for c in table.columns][1:6] == [f"payload.{name}" for name in DECLARED[:5]]
        assert table.count == 0
