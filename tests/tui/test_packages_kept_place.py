"""The packages screen keeps the user's place when a reading lists other packages (a DAR uploaded elsewhere while
one browses): the cursor on the same entry and on the same line of the screen, the unfolded nodes unfolded, the
search's selected match the same entry, the details those of the entry under the cursor; an entry that is gone
leaves the cursor to its nearest neighbour. A participant of each test's own, since each uploads a DAR."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from textual.widgets.tree import TreeNode

from app.screens.packages import Entry, PackagesScreen
from participant.daml_lf.archive import read_dar
from tests.conftest import ServerProcess, start_demo_server
from tests.daml_lf.conftest import AMULET, DARS_DIR, RICHTYPES
from tests.tui.conftest import screen_text, wait_for
from tests.tui.helpers import WithoutEndpoints
from tests.tui.test_composer import open_composer
from tests.tui.test_failures import app_with
from tests.tui.test_packages_everywhere import upload_elsewhere
from tests.tui.test_packages_screen import _nodes, _packages, _select

PAYMENTS = (
    "splice/splice-wallet-payments-0.1.14.dar"  # one package the participant lacks: splice-wallet-payments
)
SIZE = (160, 24)  # the tree longer than the screen once unfolded: the scroll matters


@pytest.fixture
def participant(tmp_path) -> Iterator[ServerProcess]:
    """The demo participant with richtypes and splice-amulet, as `tests.client.test_packages.loaded`, of this test
    alone (the test uploads to it)."""
    if not (DARS_DIR / PAYMENTS).is_file():
        pytest.skip(f"the reference DARs are absent: {DARS_DIR}")
    s = start_demo_server(
        tmp_path / "ledger.db", "--dar", str(DARS_DIR / RICHTYPES), "--dar", str(DARS_DIR / AMULET)
    )
    yield s
    s.stop()


def _place(node: TreeNode[Entry] | None) -> tuple[str, ...]:
    """A node as a person names it: the labels from the top down to it."""
    names: list[str] = []
    while node is not None and node.parent is not None:
        names.append(str(node.label))
        node = node.parent
    return tuple(reversed(names))


def _unfolded(screen: PackagesScreen) -> set[tuple[str, ...]]:
    return {_place(n) for n in _nodes(screen.package_tree.root) if n.is_expanded}


def _row(screen: PackagesScreen) -> int:
    tree = screen.package_tree
    return tree.cursor_line - tree.scroll_offset.y


def _top_names(screen: PackagesScreen) -> list[str]:
    return [str(n.label) for n in screen.package_tree.root.children]


async def _shown(app, pilot) -> PackagesScreen:
    """The packages screen, once the readings asked for meanwhile are over (the contracts screen's, the packages
    screen's): what is uploaded next is listed by the next reading, not perhaps by one of those."""
    screen = await _packages(app, pilot)
    await _read_again(pilot, app, screen, again=False)
    return screen


async def _upload_payments(participant: ServerProcess) -> None:
    """splice-wallet-payments uploaded to the participant by another client: the app is not told."""
    await upload_elsewhere(participant.url, (DARS_DIR / PAYMENTS).read_bytes())


async def _read_again(pilot, app, screen: PackagesScreen, *, again: bool = True) -> None:
    """The workspace reads the packages again, as the composer has it do when it starts (and every screen that
    shows packages hears of it)."""
    catalog = await app.workspace.read_packages(again=again)
    await wait_for(pilot, lambda: screen.catalog is catalog, "the reading on the packages screen")
    await pilot.pause()


async def test_a_new_package_keeps_the_cursor_the_unfolded_nodes_and_the_line_on_screen(
    participant, make_app
) -> None:
    app = make_app(participant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _shown(app, pilot)
        # down in the standard library, after where splice-wallet-payments comes: its node pushes the cursor's down
        date = next(
            n.data.entity
            for n in _nodes(screen.package_tree.root)
            if n.data is not None and n.data.is_entity and n.data.package is not None
            if n.data.package.name == "daml-stdlib-DA-Date-Types"
        )
        await _select(pilot, screen, "daml-stdlib-DA-Date-Types", date)
        tree = screen.package_tree
        richtypes = next(n for n in tree.root.children if str(n.label) == "richtypes")
        richtypes.expand()  # unfolded by the user too: stays so
        await pilot.pause()
        # the cursor 5 lines down the screen
        tree.scroll_to(y=tree.cursor_line - 5, animate=False, immediate=True)
        await pilot.pause()
        before = _place(tree.cursor_node)
        unfolded = _unfolded(screen)
        row = _row(screen)
        assert row == 5 and "splice-wallet-payments" not in _top_names(screen)
        assert date in screen_text(app)

        await _upload_payments(participant)
        await _read_again(pilot, app, screen)

        names = _top_names(screen)
        assert "splice-wallet-payments" in names  # in its place: a package of templates, before splice-util
        assert names.index("splice-api-token-transfer-instruction-v1") + 1 == names.index(
            "splice-wallet-payments"
        )
        assert names.index("splice-wallet-payments") + 1 == names.index("splice-util")
        assert _place(tree.cursor_node) == before  # the same entry, a line further down the tree
        assert _unfolded(screen) == unfolded  # nothing folded again, and the new package folded
        assert _row(screen) == row  # on the same line of the screen
        text = screen_text(app)
        assert date in text  # its details still


async def test_a_search_keeps_its_selected_match_and_counts_the_new_ones(participant, make_app) -> None:
    app = make_app(participant)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _shown(app, pilot)
        await pilot.press("slash", *"Accept", "enter")
        await pilot.pause()
        tree = screen.package_tree
        matches = [_place(n) for n in tree.matches]
        last = len(matches)
        await pilot.press("N")  # the last match: the new package's come before it
        await pilot.pause()
        assert _place(tree.cursor_node) == matches[-1]
        assert f"match {last} of {last}" in screen_text(app)

        await _upload_payments(participant)
        await _read_again(pilot, app, screen)

        now = [_place(n) for n in tree.matches]
        assert len(now) > last and any(p[0] == "splice-wallet-payments" for p in now)
        assert _place(tree.cursor_node) == matches[-1]
        k = now.index(matches[-1]) + 1
        text = screen_text(app)
        assert f"match {k} of {len(now)}" in text
        assert matches[-1][-1].split()[-1] in text  # its details
        await pilot.press("n")  # and n goes on from there
        await pilot.pause()
        assert _place(tree.cursor_node) == now[k % len(now)]


async def test_an_entry_gone_leaves_the_cursor_to_its_nearest_neighbour(participant, locations) -> None:
    richtypes = read_dar((DARS_DIR / RICHTYPES).read_bytes()).main.package_id
    transport = WithoutEndpoints([f"/v2/packages/{richtypes}"])  # its archive not served at first
    app = app_with(participant, locations, transport)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _shown(app, pilot)
        tree = screen.package_tree
        folder = next(n for n in tree.root.children if str(n.label) == "unreadable (1)")
        folder.expand()
        await pilot.pause()
        tree.move_cursor(folder.children[0])  # the one that could not be read
        await pilot.pause()
        assert richtypes in screen_text(app)

        transport.paths.clear()  # served now: the next reading lists it with the others, its entry under
        await _read_again(pilot, app, screen)  # "unreadable" gone

        names = _top_names(screen)
        assert "richtypes" in names and "unreadable (1)" not in names
        assert tree.cursor_node is not None and tree.cursor_node is not tree.root.children[0]
        assert str(tree.cursor_node.label).startswith("Daml standard library")  # the folder's neighbour above
        assert "Daml's standard library" in screen_text(app)  # its details, not the unreadable package's


async def test_a_dar_uploaded_elsewhere_shows_when_the_screen_is_shown_again_and_completes_in_compose(
    participant, make_app
) -> None:
    app = make_app(participant)
    async with app.run_test(size=SIZE) as pilot:
        composer = await open_composer(pilot, app)
        await wait_for(pilot, lambda: composer.packages is not None, "the composer's packages")
        composer.set_focus(None)  # out of the form, where 5 is typed
        screen = await _shown(app, pilot)
        await _select(pilot, screen, "splice-util", "")  # a name node, unfolded below
        tree = screen.package_tree
        assert tree.cursor_node is not None
        tree.cursor_node.expand()
        await pilot.pause()
        before, unfolded = _place(tree.cursor_node), _unfolded(screen)

        await _upload_payments(participant)
        # to the contracts and back: the screen looks for new packages when shown again
        await pilot.press("1")
        await wait_for(pilot, lambda: app.screen is not screen, "another screen")
        await pilot.press("5")
        await wait_for(pilot, lambda: "splice-wallet-payments" in _top_names(screen), "the new package")
        await pilot.pause()

        assert _place(tree.cursor_node) == before and _unfolded(screen) == unfolded
        # every screen that lists templates heard of it, the composer while not shown
        assert any(t.startswith("#splice-wallet-payments:") for t in composer.editor.templates())


async def test_a_tree_grown_taller_than_its_window_scrolls_to_keep_the_cursors_line(
    participant, make_app
) -> None:
    app = make_app(participant)
    async with app.run_test(size=(160, 15)) as pilot:
        screen = await _shown(app, pilot)
        tree = screen.package_tree
        model_tests = tree.root.children[0]
        model_tests.expand()  # its one version: the tree fills its window, not more
        await _select(pilot, screen, "splice-util", "")
        assert tree.max_scroll_y == 0 and tree.last_line + 1 == tree.scrollable_content_region.height
        row = _row(screen)

        await _upload_payments(participant)
        await _read_again(pilot, app, screen)  # a name more, before splice-util: a line more than the window

        assert tree.cursor_node is not None and str(tree.cursor_node.label) == "splice-util"
        assert tree.scroll_offset.y == 1 and _row(screen) == row


@pytest.fixture
def richtypes_only(tmp_path) -> Iterator[ServerProcess]:
    """The demo participant with richtypes alone: a narrow tree, which splice-amulet's long names widen."""
    if not (DARS_DIR / AMULET).is_file():
        pytest.skip(f"the reference DARs are absent: {DARS_DIR}")
    s = start_demo_server(tmp_path / "ledger.db", "--dar", str(DARS_DIR / RICHTYPES))
    yield s
    s.stop()


async def test_the_cursor_stays_in_view_when_the_tree_grows_wider(richtypes_only, make_app) -> None:
    app = make_app(richtypes_only)
    async with app.run_test(size=(80, 24)) as pilot:  # the tree over the details: a window of a few lines
        screen = await _shown(app, pilot)
        await pilot.press("slash", *"Re", "enter", "N")  # the last match, on the window's last line
        await pilot.pause()
        tree = screen.package_tree
        before = _place(tree.cursor_node)
        window = tree.scrollable_content_region.height
        assert _row(screen) == window - 1 and not tree.show_horizontal_scrollbar

        await upload_elsewhere(richtypes_only.url, (DARS_DIR / AMULET).read_bytes())
        await _read_again(pilot, app, screen)

        assert _place(tree.cursor_node) == before
        assert tree.show_horizontal_scrollbar  # wider than the window now: the scrollbar takes its last line
        assert (
            0 <= _row(screen) < tree.scrollable_content_region.height
        )  # the cursor's line above it, in view
