"""The packages screen against a real participant loaded with richtypes and splice-amulet (and the demo's Python
package): the tree of names, versions, modules and entities, a template's signature, the filter, and the way from a
template to Compose and to its contracts; a participant without the package service says so."""

from __future__ import annotations

from textual.widgets import Input, Tree
from textual.widgets.tree import TreeNode

from app.app import LedgerApp
from app.config import Config
from app.screens.acs import AcsScreen
from app.screens.composer import ComposerScreen
from app.screens.packages import Entry, PackagesScreen
from app.tokens import MintedToken
from tests.client.test_packages import dar_ids, loaded  # noqa: F401  (the participant with the two DARs)
from tests.conftest import SECRET
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.helpers import WithoutEndpoints


async def _packages(app, pilot) -> PackagesScreen:
    await wait_for(pilot, lambda: app.connected, "the connection")
    await pilot.press("5")
    await wait_for(pilot, lambda: isinstance(app.screen, PackagesScreen), "the packages screen")
    screen = app.screen
    await wait_for(pilot, lambda: screen.catalog is not None, "the packages read")
    await pilot.pause()
    return screen


def _nodes(node: TreeNode[Entry]):
    for child in node.children:
        yield child
        yield from _nodes(child)


def _entities(screen: PackagesScreen) -> set[str]:
    return {
        f"{n.data.package.name}:{n.data.entity}"
        for n in _nodes(screen.package_tree.root)
        if n.data is not None and n.data.entity and n.data.package is not None
    }


async def _select(pilot, screen: PackagesScreen, package: str, entity: str) -> None:
    tree = screen.package_tree
    node = next(
        n
        for n in _nodes(tree.root)
        if n.data is not None and n.data.package is not None
        if (n.data.package.name, n.data.entity) == (package, entity)
    )
    parent = node.parent
    while parent is not None:
        parent.expand()
        parent = parent.parent
    await pilot.pause()
    tree.move_cursor(node)
    await pilot.pause()


async def test_the_packages_their_templates_and_a_signature(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        names = {str(n.label) for n in screen.package_tree.root.children}
        assert {"richtypes", "splice-amulet"} <= names
        assert "Python, no signatures" in "\n".join(str(n.label) for n in _nodes(screen.package_tree.root))
        text = screen_text(app)
        assert "package names" in text
        assert "model-tests" in text and "No signatures: defined in Python" in text  # the first, selected

        await _select(pilot, screen, "splice-api-token-holding-v1", "Splice.Api.Token.HoldingV1:Holding")
        text = screen_text(app)
        assert "View" in text and "Splice.Api.Token.HoldingV1:HoldingView" in text
        assert "Implemented by" in text and "splice-amulet:Splice.Amulet:Amulet" in text

        await _select(pilot, screen, "richtypes", "RichTypes:RichRecord")
        text = screen_text(app)
        assert "#richtypes:RichTypes:RichRecord" in text
        assert "owner" in text and "Party" in text and "Numeric 10" in text
        assert "Relabel" in text and "argument : RichTypes:Relabel" in text


async def test_the_filter_keeps_the_names_holding_the_text(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        assert "richtypes:RichTypes:RichRecord" in _entities(screen)
        await pilot.press("slash", *"Transfer", "enter")
        await pilot.pause()
        shown = _entities(screen)
        # AmuletRules is kept by its choice AmuletRules_Transfer
        assert "splice-amulet:Splice.AmuletRules:AmuletRules" in shown
        assert "richtypes:RichTypes:RichRecord" not in shown
        assert all(
            "transfer" in e.lower() or any("transfer" in c.name.lower() for c in _choices_of(screen, e))
            for e in shown
        )
        await pilot.press("slash")
        assert screen.query_one("#packages-filter", Input).value == "Transfer"  # what was typed is kept
        await pilot.press("escape", "escape")
        assert "richtypes:RichTypes:RichRecord" in _entities(screen)


def _choices_of(screen: PackagesScreen, name: str):
    package_name, entity = name.split(":", 1)
    assert screen.catalog is not None
    package = next(p for p in screen.catalog.packages.values() if p.name == package_name)
    signature = package.templates.get(entity) or package.interfaces.get(entity)
    return signature.choices if signature is not None else ()


async def test_a_template_opens_a_create_and_its_contracts(loaded, make_app, dar_ids) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        await _select(pilot, screen, "richtypes", "RichTypes:RichRecord")
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: isinstance(app.screen, ComposerScreen), "the composer")
        await pilot.pause()
        form = app.screen.editor.state()
        assert (form.kind, form.template_id) == ("Create", "#richtypes:RichTypes:RichRecord")

        await app.action_mode("packages")  # the composer's focus is in a field, where 5 is typed
        await wait_for(pilot, lambda: isinstance(app.screen, PackagesScreen), "the packages screen again")
        await pilot.press("c")
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen")
        acs = app.screen
        await wait_for(pilot, lambda: acs.templates, "the template filter")
        assert acs.templates == {f"{dar_ids['richtypes']}:RichTypes:RichRecord"}


async def test_a_participant_without_the_package_service_says_so(loaded, locations) -> None:  # noqa: F811  (the fixture imported above)
    app = LedgerApp(
        config=Config(),
        locations=locations,
        url=loaded.url,
        tokens=MintedToken(SECRET, "Alice"),
        label=loaded.url,
        transport=WithoutEndpoints(["/v2/packages"]),
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        assert not screen.package_tree.root.children
        text = screen_text(app)
        assert "No packages" in text and "does not serve /v2/packages" in text


async def test_a_small_terminal_stacks_the_tree_over_the_details(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _packages(app, pilot)
        await _select(pilot, screen, "richtypes", "RichTypes:RichRecord")
        tree = screen.query_one(Tree).region
        details = screen.query_one("#packages-details-pane").region
        assert details.y >= tree.bottom and tree.width == details.width == 80
        assert "RichTypes:RichRecord" in screen_text(app)


async def test_a_package_that_cannot_be_read_is_named_with_its_reason(loaded, locations, dar_ids) -> None:  # noqa: F811  (the fixture imported above)
    richtypes = dar_ids["richtypes"]
    app = LedgerApp(
        config=Config(),
        locations=locations,
        url=loaded.url,
        tokens=MintedToken(SECRET, "Alice"),
        label=loaded.url,
        transport=WithoutEndpoints([f"/v2/packages/{richtypes}"]),
    )
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        names = [str(n.label) for n in screen.package_tree.root.children]
        assert "richtypes" not in names and "splice-amulet" in names
        assert "unreadable (1)" in names
        assert "1 unreadable" in screen_text(app)
        unreadable = next(n for n in screen.package_tree.root.children if str(n.label) == "unreadable (1)")
        unreadable.expand()
        await pilot.pause()
        screen.package_tree.move_cursor(unreadable.children[0])
        await pilot.pause()
        text = screen_text(app)
        assert richtypes in text and "its archive cannot be fetched" in text


def _selected(screen: PackagesScreen) -> str:
    return _name(screen.selected)


def _name(entry: Entry | None) -> str:
    assert entry is not None and entry.package is not None
    return f"{entry.package.name}:{entry.entity}"


async def test_a_search_selects_its_first_match_and_goes_from_match_to_match(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        await pilot.press("slash", *"RichRecord", "enter")
        await pilot.pause()
        assert screen.package_tree.has_focus
        assert _selected(screen) == "richtypes:RichTypes:RichRecord"
        text = screen_text(app)
        assert (
            "#richtypes:RichTypes:RichRecord" in text and "Numeric 10" in text
        )  # its details, not the package's
        assert "match 1 of 1" in text

        await pilot.press("escape", "slash", *"Transfer", "enter")
        await pilot.pause()
        matches = [_name(n.data) for n in screen.package_tree.matches]
        assert len(matches) >= 3 and _selected(screen) == matches[0]
        await pilot.press("n", "n")
        await pilot.pause()
        assert _selected(screen) == matches[2]
        assert f"match 3 of {len(matches)}" in screen_text(app)
        await pilot.press("N", "N", "N")  # back past the first: the last
        await pilot.pause()
        assert _selected(screen) == matches[-1]
        assert f"match {len(matches)} of {len(matches)}" in screen_text(app)
        assert matches[-1].split(":", 1)[1] in screen_text(app)  # its details


async def test_the_standard_library_is_one_folded_node_after_the_users_packages(loaded, make_app) -> None:  # noqa: F811  (the fixture imported above)
    app = make_app(loaded)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _packages(app, pilot)
        top = [str(n.label) for n in screen.package_tree.root.children]
        group = next(
            n for n in screen.package_tree.root.children if str(n.label).startswith("Daml standard library")
        )
        assert not group.is_expanded
        assert top[-1] == str(group.label)  # after the user's packages (nothing is unreadable here)
        assert not any(name.startswith(("daml-prim", "daml-stdlib", "ghc-stdlib")) for name in top)
        assert {"richtypes", "splice-amulet", "splice-util", "model-tests"} <= set(top)
        inside = {str(n.label) for n in group.children}
        assert {"daml-prim", "daml-stdlib", "daml-prim-DA-Types"} <= inside
        assert all(
            name.startswith(("daml-prim", "daml-stdlib", "ghc-stdlib", "daml-script")) for name in inside
        )
        text = screen_text(app)
        assert "Daml standard library" in text and "daml-prim-DA-Types" not in text  # folded

        await pilot.press(
            "slash", *"NonEmpty", "enter"
        )  # a data type of the standard library: unfolded to it
        await pilot.pause()
        assert _selected(screen).startswith("daml-stdlib-DA-NonEmpty-Types:")
