"""The composer's typed forms against a real participant running richtypes.dar: a RichRecord created entirely
through the form (every field type, a variant, an Optional, a TextMap, a ContractId picked from the active
contracts), Relabel exercised through the contract's choice list, bad values shown with their paths and blocking
the submit, the JSON view of the same value and back; and the JSON editors kept for the demo's Python package."""

from __future__ import annotations

from collections.abc import Iterator

import orjson
import pytest
from textual.widgets import Button, Checkbox, Select

from app.compose.form import VariantNode
from app.compose.form_rows import FormRow
from app.screens.composer import ComposerScreen
from app.widgets.completing_input import CompletingInput
from app.widgets.json_editor import JsonEditor
from app.widgets.typed_form import TypedForm
from tests.client.test_packages import loaded  # noqa: F401  (the participant with richtypes and splice-amulet)
from tests.conftest import ServerProcess, start_demo_server
from tests.daml_lf.conftest import RICHTYPES, dars_dir  # noqa: F401  (pytest fixtures, used by name)
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.helpers import paste, text_of
from tests.tui.test_composer import answered_submissions, forms_at_work, outcome, submissions

RICH_RECORD = "#richtypes:RichTypes:RichRecord"
MARKER = "#richtypes:RichTypes:Marker"


@pytest.fixture
def rich_server(tmp_path, dars_dir) -> Iterator[ServerProcess]:  # noqa: F811  (the fixture imported above)
    """The demo participant with richtypes, of each test's own, for the tests that submit: no Marker or RichRecord
    yet (a create's form starts from the newest contract of its template, so one test's creates would show in the
    next one's form)."""
    s = start_demo_server(tmp_path / "ledger.db", "--dar", str(dars_dir / RICHTYPES))
    yield s
    s.stop()


@pytest.fixture(scope="module")
def rich_reader(tmp_path_factory, dars_dir) -> Iterator[ServerProcess]:  # noqa: F811  (the fixture imported above)
    """The same participant, one for the module's tests that submit nothing (a participant's start is seconds)."""
    s = start_demo_server(tmp_path_factory.mktemp("rich") / "ledger.db", "--dar", str(dars_dir / RICHTYPES))
    yield s
    s.stop()


async def open_composer(pilot, app) -> ComposerScreen:
    await wait_for(pilot, lambda: app.connected, "a connection")
    await pilot.press("2")
    await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
    screen: ComposerScreen = app.screen
    await wait_for(pilot, lambda: screen.packages is not None, "the packages read")
    return screen


async def choose_template(pilot, screen: ComposerScreen, kind: str, template: str) -> None:
    while screen.editor.kind != kind:
        await pilot.press("ctrl+t")
    screen.query_one("#template", CompletingInput).value = ""
    screen.query_one("#template").focus()
    await paste(pilot, template)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen.editor.query("#create-form-typed"), f"the form of {template}")
    # the form is built and the newest contract (if any) read: nothing replaces the fields typed into next
    await wait_for(pilot, lambda: not forms_at_work(screen), "the form settled")


def app_workers(screen: ComposerScreen) -> list:
    return [w for w in screen.app.workers if w.is_running]


def row_of(screen: ComposerScreen, path: str, *, outermost: bool = False) -> tuple[TypedForm, FormRow] | None:
    """The form and the row of `path` (the innermost: an Optional's value has the Optional's path), in view or not."""
    for form in screen.query(TypedForm):
        row = form.rows.outermost(path) if outermost else form.rows.find(path)
        if row is not None:
            return form, row
    return None


async def field(pilot, screen: ComposerScreen, path: str) -> FormRow:
    await wait_for(pilot, lambda: row_of(screen, path), f"the field {path}")
    found = row_of(screen, path)
    assert found is not None
    return found[1]


def focus_within(form: TypedForm, row: FormRow) -> bool:
    """The focus is in the widgets of `row` or of a row under it."""
    editor = form.editor
    return editor is not None and editor.row in list(row.walk()) and editor.has_focus_within


async def type_into(pilot, screen: ComposerScreen, path: str, text: str, *, keys: bool = False) -> FormRow:
    """Send the focus to the row of `path` and, once its input has it, paste `text` there (or type it, one key a
    character, with `keys`: for what is about keys).

    The focus is sent from here, not by a key: the app holds the keys behind a key that moves the focus until the
    row's input is made (`app.app.keys`), but nothing holds them behind this call, and a key pressed before the
    form's `on_focus` opened the row went to the form itself and was lost ("yped in the form")."""
    row = await field(pilot, screen, path)
    found = row_of(screen, path)
    assert found is not None
    form = found[0]
    form.focus_path(path)
    await wait_for(pilot, lambda: focus_within(form, row), f"the focus in {path}")
    if keys:
        await pilot.press(*text)
        await pilot.pause()
    elif text:
        await paste(pilot, text)
    return row


async def press_in(pilot, screen: ComposerScreen, path: str, kind: type, *keys: str, index: int = 0) -> None:
    """Open the row of `path` (the outermost: the Optional itself), focus the `index`th control of `kind` on it
    and press `keys` there."""
    await field(pilot, screen, path)
    found = row_of(screen, path, outermost=True)
    assert found is not None
    form, row = found
    form.open_row(row)

    def controls() -> list:
        editor = form.editor
        if editor is None or editor.row is not row:
            return []
        return [c for c in editor.children if isinstance(c, kind) and c.is_mounted]

    await wait_for(pilot, lambda: len(controls()) > index, "its controls")
    control = controls()[index]
    control.focus()
    await wait_for(pilot, lambda: control.has_focus_within, "the focus in the control")
    await pilot.press(*keys)
    await pilot.pause()


async def add_item(pilot, screen: ComposerScreen, path: str, index: int) -> FormRow:
    """Press `+ add` of the list (or map) at `path`: its item `index` appears, with the focus in it."""
    await press_in(pilot, screen, path, Button, "enter")
    item = await field(pilot, screen, f"{path}[{index}]")
    found = row_of(screen, item.path)
    assert found is not None
    await wait_for(pilot, lambda: focus_within(found[0], item), f"the focus in {path}[{index}]")
    return item


def created_of(app) -> dict:
    body = orjson.loads(submissions(app)[-1].response_body)
    events = body["transaction"]["events"]
    return next(e["CreatedEvent"] for e in events if "CreatedEvent" in e)


async def test_a_rich_record_made_entirely_through_the_form_then_relabelled(rich_server, make_app) -> None:
    app = make_app(rich_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        # every template of the package completes, not only those seen on the ledger
        assert {MARKER, RICH_RECORD} <= set(screen.editor.templates())
        assert screen.packages is app.workspace.packages  # read once for every screen, not a copy of its own

        # a Marker first, its owner a short name: the contract a ContractId field picks
        await choose_template(pilot, screen, "Create", MARKER)
        owner = await type_into(pilot, screen, "createArguments.owner", "Alice")
        assert owner.note.startswith("= Alice::")
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "the Marker created")
        marker = created_of(app)
        alice = marker["createArgument"]["owner"]
        assert alice.startswith("Alice::")

        await choose_template(pilot, screen, "Create", RICH_RECORD)
        await type_into(pilot, screen, "createArguments.owner", "Alice")
        await type_into(pilot, screen, "createArguments.count", "42")
        await type_into(pilot, screen, "createArguments.amount", "1234.5")
        await type_into(pilot, screen, "createArguments.label", "first")
        await press_in(pilot, screen, "createArguments.active", Checkbox, "space")
        await type_into(pilot, screen, "createArguments.asOf", "2030-01-31")
        await type_into(pilot, screen, "createArguments.observedAt", "2030-01-31T12:00:00+01:00")
        await press_in(pilot, screen, "createArguments.note", Checkbox, "space")  # some
        await type_into(pilot, screen, "createArguments.note", "a note")
        for i, tag in enumerate(("t1", "t2")):
            await add_item(pilot, screen, "createArguments.tags", i)
            await paste(pilot, tag)
        await press_in(pilot, screen, "createArguments.tags[1]", Button, "enter", index=0)  # ↑
        await add_item(pilot, screen, "createArguments.attributes", 0)
        await paste(pilot, "colour")  # its key has the focus
        await type_into(pilot, screen, "createArguments.attributes[0].value", "blue")
        await type_into(pilot, screen, "createArguments.marker", "")
        await pilot.press("down")  # the active Markers
        completing = screen.query_one("#create-form-typed RowEditor CompletingInput", CompletingInput)
        await wait_for(pilot, lambda: completing.matches() == [marker["contractId"]], "the Marker offered")
        await pilot.press("enter")
        await type_into(pilot, screen, "createArguments.profile.nickname", "al")
        await type_into(pilot, screen, "createArguments.profile.level", "3")
        # the variant: Pending, then Win again, whose form is then filled
        await press_in(pilot, screen, "createArguments.outcome", Select, "enter", "down", "enter")
        form = screen.query_one("#create-form-typed", TypedForm)
        assert form.form.to_json()["outcome"] == {"tag": "Pending", "value": {}}
        await press_in(pilot, screen, "createArguments.outcome", Select, "enter", "up", "enter")
        await type_into(pilot, screen, "createArguments.outcome.Win.prize", "7.5")
        await type_into(pilot, screen, "createArguments.outcome.Win.tier", "gold")
        await type_into(pilot, screen, "createArguments.fee", "0.25")

        answered = answered_submissions(app)
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "the RichRecord created", after=answered)
        record = created_of(app)
        assert record["templateId"].endswith(":RichTypes:RichRecord")
        assert record["createArgument"] == {
            "owner": alice,
            "count": "42",
            "amount": "1234.5000000000",
            "label": "first",
            "active": True,
            "asOf": "2030-01-31",
            "observedAt": "2030-01-31T11:00:00Z",
            "note": "a note",
            "tags": ["t2", "t1"],
            "attributes": {"colour": "blue"},
            "marker": marker["contractId"],
            "profile": {"nickname": "al", "level": "3"},
            "outcome": {"tag": "Win", "value": {"prize": "7.50", "tier": "gold"}},
            "fee": "0.25",
        }

        # Relabel, from the contract's choice list: exactly the template's choices
        await pilot.press("ctrl+t")  # Create -> Exercise
        assert screen.editor.kind == "Exercise"
        screen.query_one("#contract-id").focus()
        await paste(pilot, record["contractId"])
        assert sorted(screen.editor.choices()) == ["Archive", "Relabel"]
        screen.query_one("#choice").focus()
        await paste(pilot, "Relabel")
        await pilot.press("enter")
        await type_into(pilot, screen, "choiceArgument.newLabel", "second")
        answered = answered_submissions(app)
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "Relabel exercised", after=answered)
        relabelled = created_of(app)
        assert relabelled["createArgument"]["label"] == "second"
        assert relabelled["createArgument"]["marker"] == marker["contractId"]


async def test_bad_values_show_their_path_and_block_the_submit(rich_reader, make_app) -> None:
    app = make_app(rich_reader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        fee = await type_into(pilot, screen, "createArguments.fee", "1.234")
        # checked as typed, under the field
        assert fee.problem is not None and "Numeric 2 has at most 2 decimals" in fee.problem
        await add_item(pilot, screen, "createArguments.tags", 0)
        await add_item(pilot, screen, "createArguments.tags", 1)
        await type_into(pilot, screen, "createArguments.outcome.Win.prize", "x")
        sent = len(submissions(app))
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(submissions(app)) == sent  # nothing submitted
        problems = [str(p) for p in screen.problems]
        assert "createArguments.fee: Numeric 2 has at most 2 decimals" in problems
        assert "createArguments.outcome.Win.prize: Numeric 2 is a number, not 'x'" in problems
        assert "createArguments.owner: required: a party (Alice or Alice::1220…)" in problems
        text = screen_text(app)
        assert "createArguments.fee: Numeric 2 has at most 2 decimals" in text  # listed in the preview
        # the refused submit marks every field with a problem, empty ones too
        owner = await field(pilot, screen, "createArguments.owner")
        assert owner.problem is not None and "required" in owner.problem


async def test_the_json_view_is_the_same_value_both_ways(rich_reader, make_app) -> None:
    app = make_app(rich_reader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        await type_into(pilot, screen, "createArguments.label", "typed in the form")
        await type_into(pilot, screen, "createArguments.fee", "1.5")
        await pilot.press("f2")
        json_editor = screen.query_one("#create-arguments", JsonEditor)
        await wait_for(pilot, lambda: json_editor.display, "the JSON editor")
        value = orjson.loads(json_editor.text)
        assert value["label"] == "typed in the form" and value["fee"] == "1.50"
        value["label"] = "typed in the JSON"
        value["tags"] = ["x", "y"]
        value["outcome"] = {"tag": "Pending", "value": {}}
        json_editor.set_text(orjson.dumps(value).decode())
        await pilot.press("f2")
        form = screen.query_one("#create-form-typed", TypedForm)
        await wait_for(pilot, lambda: form.display and screen.editor.form_view, "the form again")
        assert text_of(await field(pilot, screen, "createArguments.tags[1]")) is not None
        back = form.form.to_json()
        assert back["label"] == "typed in the JSON" and back["tags"] == ["x", "y"]
        assert back["outcome"] == {"tag": "Pending", "value": {}} and back["fee"] == "1.50"
        # JSON that does not parse keeps the JSON view and says why
        await pilot.press("f2")
        json_editor.set_text("{ not json")
        await pilot.press("f2")
        await pilot.pause()
        assert not screen.editor.form_view and json_editor.display


async def test_a_template_without_a_signature_keeps_the_json_editor(rich_reader, make_app) -> None:
    app = make_app(rich_reader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        while screen.editor.kind != "Create":
            await pilot.press("ctrl+t")
        screen.query_one("#template").focus()
        await paste(pilot, "#model-tests:Iou:Iou")  # the demo's package, defined in Python
        await pilot.press("enter")
        json_editor = screen.query_one("#create-arguments", JsonEditor)
        # its forms made (the focus then goes to the first field to fill) and its newest contract read
        await wait_for(
            pilot,
            lambda: (
                json_editor.area.has_focus and '"issuer"' in json_editor.text and not forms_at_work(screen)
            ),
            "the template's arguments",
        )
        assert not screen.editor.query(TypedForm)
        assert json_editor.display


async def test_a_command_recalled_from_the_history_fills_the_form_again(rich_server, make_app) -> None:
    from app.screens.command_history import HistoryDialog

    app = make_app(rich_server)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", MARKER)
        await type_into(pilot, screen, "createArguments.owner", "Alice")
        await pilot.press("ctrl+s")
        await outcome(pilot, screen, "-ok", "the Marker created")
        alice = created_of(app)["createArgument"]["owner"]
        owner = await type_into(
            pilot, screen, "createArguments.owner", "Bob", keys=True
        )  # changed after the submit
        assert text_of(owner) == "AliceBob"  # typing goes on from the end: a key does not wipe what is there
        await pilot.press("ctrl+u", *"Bob")
        assert text_of(owner) == "Bob"
        await pilot.press("escape", "ctrl+l")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryDialog), "the history")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the form again")

        def shown_owner() -> str:
            found = row_of(screen, "createArguments.owner")
            return text_of(found[1]) if found else ""

        await wait_for(pilot, lambda: shown_owner() == alice, "the recalled owner in the form")
        assert orjson.loads(screen.editor.state().create_arguments) == {"owner": alice}


async def test_a_contract_s_choices_are_its_template_s_and_its_interfaces(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        while screen.editor.kind != "Exercise":
            await pilot.press("ctrl+t")
        template = "#splice-amulet:Splice.Amulet:FeaturedAppRight"
        screen.query_one("#template").focus()
        await paste(pilot, template)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "FeaturedAppRight_Withdraw" in screen.editor.choices(), "its choices")
        choices = screen.editor.choices()
        # the template's own (Archive once), then the interface's that the template does not have itself
        assert choices.count("Archive") == 1
        assert choices[-1] == "FeaturedAppRight_CreateActivityMarker"
        screen.query_one("#choice").focus()
        await paste(pilot, "FeaturedAppRight_CreateActivityMarker")
        await pilot.press("enter")
        await field(pilot, screen, "choiceArgument.beneficiaries")  # the interface choice's argument, typed
        interface = "#splice-api-featured-app-v1:Splice.Api.FeaturedAppRightV1:FeaturedAppRight"
        assert screen.editor.state().template_id == interface  # exercised through the interface
        choice = screen.query_one("#choice", CompletingInput)
        choice.value = ""
        choice.focus()
        await paste(pilot, "FeaturedAppRight_Withdraw")
        await pilot.press("enter")
        await field(pilot, screen, "choiceArgument.reason")
        assert screen.editor.state().template_id == template


async def test_a_contract_id_typed_short_expands_among_the_contracts_held(rich_reader, make_app) -> None:
    from tests.tui.test_short_ids import held_ids, shared_prefix, unique_prefix

    app = make_app(rich_reader)
    async with app.run_test(size=SIZE) as pilot:
        ids = await held_ids(pilot, app)  # the contracts screen's, in the workspace's cache
        target = ids[len(ids) // 2]
        short = unique_prefix(target, ids)
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        marker = await type_into(pilot, screen, "createArguments.marker", short)
        form = screen.query_one("#create-form-typed", TypedForm)
        await wait_for(pilot, lambda: form.form.to_json()["marker"] == target, "the id expanded")
        assert f"= {target[:24]}" in marker.note
        assert not [p for p in form.form.problems() if p.path == "createArguments.marker"]
        # a beginning that several share is refused, with how many
        prefix, count = shared_prefix(ids)
        form.focus_path(marker.path)
        await wait_for(pilot, lambda: focus_within(form, marker), "the focus in the marker")
        await pilot.press("ctrl+u")
        await paste(pilot, prefix)
        await wait_for(
            pilot,
            lambda: any(
                p.path == "createArguments.marker" and f"ambiguous: {count} matches" in p.message
                for p in form.form.problems()
            ),
            "the ambiguity said",
        )
        assert form.form.to_json()["marker"] == prefix  # kept as typed


async def test_a_list_item_and_a_text_map_row_removed_through_the_form(rich_reader, make_app) -> None:
    app = make_app(rich_reader)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        await choose_template(pilot, screen, "Create", RICH_RECORD)
        for i, tag in enumerate(("a", "b", "c")):
            await add_item(pilot, screen, "createArguments.tags", i)
            await paste(pilot, tag)
        await press_in(pilot, screen, "createArguments.tags[1]", Button, "enter", index=2)  # ✕
        for i, (key, value) in enumerate((("colour", "blue"), ("size", "L"))):
            await add_item(pilot, screen, "createArguments.attributes", i)
            await paste(pilot, key)
            await type_into(pilot, screen, f"createArguments.attributes[{i}].value", value)
        await press_in(pilot, screen, "createArguments.attributes[0]", Button, "enter", index=2)  # ✕
        form = screen.query_one("#create-form-typed", TypedForm)
        value = form.form.to_json()
        assert value["tags"] == ["a", "c"] and value["attributes"] == {"size": "L"}
        # the rows shown are those of the value: no row left of what was removed
        paths = [row.path for row in form.rows.rows]
        assert "createArguments.tags[2]" not in paths and "createArguments.attributes[1].key" not in paths
        assert text_of(await field(pilot, screen, "createArguments.attributes[0].key")) == "size"


async def choose_constructor(pilot, screen: ComposerScreen, path: str, constructor: str) -> None:
    variant = (await field(pilot, screen, path)).node
    assert isinstance(variant, VariantNode)
    names = [name for name, _ in variant.type.constructors]
    steps = names.index(constructor) - names.index(variant.constructor)
    await press_in(
        pilot, screen, path, Select, "enter", *(["down" if steps > 0 else "up"] * abs(steps)), "enter"
    )
    await wait_for(pilot, lambda: variant.constructor == constructor, f"{constructor} chosen")


async def test_the_amulet_transfer_argument_composed_through_the_form(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await open_composer(pilot, app)
        while screen.editor.kind != "Exercise":
            await pilot.press("ctrl+t")
        screen.query_one("#template").focus()
        await paste(pilot, "#splice-amulet:Splice.AmuletRules:AmuletRules")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "AmuletRules_Transfer" in screen.editor.choices(), "its choices")
        screen.query_one("#choice").focus()
        await paste(pilot, "AmuletRules_Transfer")
        await pilot.press("enter")
        transfer = "choiceArgument.transfer"
        await type_into(pilot, screen, f"{transfer}.sender", "Alice")
        await type_into(pilot, screen, f"{transfer}.provider", "Alice")
        await add_item(pilot, screen, f"{transfer}.inputs", 0)
        await choose_constructor(pilot, screen, f"{transfer}.inputs[0]", "InputAmulet")
        amulet = "00" + "ab" * 32
        await type_into(pilot, screen, f"{transfer}.inputs[0].InputAmulet", amulet)
        await add_item(pilot, screen, f"{transfer}.outputs", 0)
        await type_into(pilot, screen, f"{transfer}.outputs[0].receiver", "Bob")
        await type_into(pilot, screen, f"{transfer}.outputs[0].receiverFeeRatio", "0.1")
        await type_into(pilot, screen, f"{transfer}.outputs[0].amount", "10.5")
        form = screen.query_one("#choice-form-typed", TypedForm)
        built = form.form.to_json()["transfer"]
        alice, bob = built["sender"], built["outputs"][0]["receiver"]
        assert alice.startswith("Alice::") and bob.startswith("Bob::")
        assert built["provider"] == alice
        assert built["inputs"] == [{"tag": "InputAmulet", "value": amulet}]
        assert built["outputs"] == [
            {"receiver": bob, "receiverFeeRatio": "0.1000000000", "amount": "10.5000000000", "lock": None}
        ]
        # what the form cannot check yet is listed with its path, nothing of what was filled
        problems = {p.path for p in form.form.problems()}
        assert not {p for p in problems if p.startswith(f"{transfer}.")}
        assert "choiceArgument.context.openMiningRound" in problems
