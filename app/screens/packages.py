"""The packages screen: the participant's packages read once (`app.packages`), as a tree of package names, versions,
modules and their templates, interfaces and data types (`app.widgets.package_tree`), with the signature of the one
selected beside it (`app.widgets.package_details`), and a search that goes from match to match."""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.timer import Timer
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from app.client.errors import LedgerApiError
from app.counting import count
from app.cut import shorten
from app.messages import ComposeCommand, IdentityChanged, ShowTemplateContracts
from app.packages import PackageCatalog, PackageSignature, Progress
from app.screens.base import LedgerScreen
from app.screens.dialogs import ChoiceDialog
from app.untrusted import visible
from app.widgets.keys import FieldInput, KeyFooter
from app.widgets.package_details import describe
from app.widgets.package_tree import Entry, PackageTree, styled
from app.widgets.status_bar import StatusBar

SEARCH = Binding.Group("Next/previous match", compact=True)
TYPING_PAUSE_S = 0.15
# how often the screen, while shown, asks whether the participant lists new packages
NEW_PACKAGES_CHECK_S = 5.0

log = logging.getLogger("ledger_tui")


def _listed(catalog: PackageCatalog) -> tuple[set[str], set[str], set[str]]:
    return set(catalog.packages), set(catalog.not_daml_lf), set(catalog.unreadable)


class PackagesScreen(LedgerScreen):
    TITLE_TEXT = "Packages"
    HELP = """\
**Packages** shows the participant's Daml packages: each name, its versions, their modules, and in each module its
templates, interfaces and data types. The user's packages come first; Daml's standard library (daml-prim,
daml-stdlib and their many small parts, Daml Script) is folded under one node after them. The signature of the one
selected shows beside the tree (under it on a narrow terminal): a template's fields and their types, its key, its
choices (consuming or not, argument and return types) and the interfaces it implements; an interface's view type,
methods, choices and the templates that implement it; a data type's fields, constructors or values.

The packages are read once, four archives at a time, and kept in the cache directory by package id: the next start
reads them from there. While the screen is shown it looks every few seconds for packages uploaded since, from here or
any other client, and adds them to the tree: the cursor stays on its entry and the unfolded nodes stay unfolded.
Packages the participant defines in Python (the bundled participant's demo) are listed
without signatures; a package that could not be read says why.

`/` searches: the tree keeps the templates, interfaces and data types whose name, or one of whose choices' names,
holds the text, and the first of them is selected with its signature shown; `n` and `N` go to the next and the
previous match (the line above the tree says which of how many). Escape clears the search. On a template, `ctrl+n`
starts a Create of it in Compose and `c` shows its contracts on the contracts screen.

A package's scripts (its Daml Script values that take no argument) are listed in their modules. On one, `r` runs it
against this participant once confirmed (it writes to the ledger): the package's code is read from the participant
and run here, as the token's user (granted each party the script allocates), with the participant's clock when it
is static. The details pane follows the run (the transactions so far) and says its result, or its error and the
Daml location it failed at; a notification says so too.
"""

    BINDINGS = [
        Binding("slash", "search", "Search", id="packages.filter", key_display="/"),
        Binding("n", "match(1)", "Next match", id="packages.next", group=SEARCH),
        Binding("N", "match(-1)", "Previous match", id="packages.previous", group=SEARCH),
        Binding("ctrl+n", "create", "New Create", id="packages.create"),
        Binding("c", "contracts", "Its contracts", id="packages.contracts"),
        Binding("r", "run_script", "Run script", id="packages.run"),
        Binding("escape", "escape", "Clear search", show=False, id="packages.escape"),
    ]

    DEFAULT_CSS = """
    PackagesScreen #packages-info { height: auto; max-height: 3; padding: 0 1; background: $boost; }
    PackagesScreen #packages-body { height: 1fr; }
    PackagesScreen #packages-tree { width: 2fr; height: 1fr; }
    PackagesScreen #packages-details-pane { width: 3fr; height: 1fr; border-left: solid $panel; padding: 0 1; }
    PackagesScreen.-narrow #packages-body { layout: vertical; }
    PackagesScreen.-narrow #packages-tree { width: 1fr; height: 1fr; }
    PackagesScreen.-narrow #packages-details-pane { width: 1fr; height: 1fr; border-left: none;
                                                    border-top: solid $panel; }
    PackagesScreen #packages-filter { dock: bottom; display: none; margin-bottom: 1; }
    PackagesScreen #packages-filter.shown { display: block; }
    """
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (120, "-wide")]

    AUTO_FOCUS = "#packages-tree"

    def __init__(self) -> None:
        super().__init__()
        self.catalog: PackageCatalog | None = None
        self.text = ""  # the search
        self.match = 0  # which of the search's matches is selected
        self._typing: Timer | None = None
        self.runs: dict[
            tuple[str, str], Text
        ] = {}  # (package id, script): its last run's state, shown with it

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="packages")
        yield Static(styled(("Waiting for the participant…", "dim")), id="packages-info")
        with Horizontal(id="packages-body"):
            yield PackageTree(id="packages-tree")
            with VerticalScroll(id="packages-details-pane"):
                yield Static("", id="packages-details")
        yield FieldInput(
            free_text=True,
            placeholder="search: part of a template, interface, data type or choice name (enter goes to the first, "
            "escape clears)",
            id="packages-filter",
        )
        yield KeyFooter()

    @property
    def package_tree(self) -> PackageTree:
        return self.query_one("#packages-tree", PackageTree)

    def on_mount(self) -> None:
        self.follow(self.ledger_app.workspace.subscribe_packages, self._packages_read)
        # a DAR uploaded by another client tells no one: while shown, the screen asks whether the list has grown
        self._looking = self.set_interval(NEW_PACKAGES_CHECK_S, self._look_for_new_packages, pause=True)
        if self.ledger_app.connection.connected:
            self._load()

    def on_screen_resume(self) -> None:
        self._look_for_new_packages()
        self._looking.resume()

    def on_screen_suspend(self) -> None:
        self._looking.pause()

    def on_identity_changed(self, _: IdentityChanged) -> None:
        # the packages are the participant's, whoever acts: read again only when they could not be read
        if self.catalog is None or self.catalog.problem or self.catalog.unreadable:
            self._load()

    def worker_failed(self, worker) -> None:
        if worker.group == "packages-load":
            self._info(styled(("The packages could not be read (the notification says why).", "bold red")))

    # --- loading --------------------------------------------------------------------------------------------------

    @work(exclusive=True, group="packages-load", exit_on_error=False)
    async def _load(self) -> None:
        self._info(styled(("Listing the packages…", "dim")))
        catalog = await self.ledger_app.workspace.read_packages(self._progress, again=True)
        if (
            catalog is not self.catalog
        ):  # no new reading: the workspace told the others before this one followed
            self._packages_read(catalog)

    @work(exclusive=True, group="packages-new", exit_on_error=False)
    async def _look_for_new_packages(self) -> None:
        """Have the workspace read the packages again if the participant lists new ones (it tells every screen)."""
        if self.catalog is None or not self.ledger_app.connection.connected:
            return  # not read yet: the first reading comes
        try:
            await self.ledger_app.workspace.read_new_packages()
        except LedgerApiError as e:
            # a look in the background: the next one may pass, and the tree is still right
            log.info("packages: listing them again failed: %s", e.message)

    def _packages_read(self, catalog: PackageCatalog) -> None:
        """A new reading of the packages, whichever screen asked (a DAR uploaded from anywhere shows up here); the
        tree is built again only when the packages differ, so a reading that found nothing new keeps the cursor."""
        same = self.catalog is not None and _listed(self.catalog) == _listed(catalog)
        self.catalog = catalog
        if same:
            self._show_info()
        else:
            self._rebuild(keep_place=True)

    def _progress(self, progress: Progress) -> None:
        self._info(
            styled(
                (f"Reading {count(progress.listed, 'package')}: ", "dim"),
                f"{progress.from_cache:,} from the cache, {progress.fetched:,} fetched, "
                f"{progress.decoded:,} decoded"
                + (f", {progress.failed:,} unreadable" if progress.failed else ""),
            )
        )

    def _info(self, text: Text) -> None:
        self.query_one("#packages-info", Static).update(text)

    def _show_info(self) -> None:
        """The catalog's counts, and with a search, which match is selected of how many."""
        catalog = self.catalog
        if catalog is None:
            return
        text = self._summary(catalog)
        if self.text:
            matches = self.package_tree.matches
            text.append(" · ")
            if matches:
                text.append(f"match {self.match + 1} of {len(matches)}", "bold")
                text.append(" for “")
                text.append_text(styled(self.text))
                text.append("” (n next, N previous)", "dim")
            else:
                text.append("no match for “", "bold yellow")
                text.append_text(styled((self.text, "bold yellow")))
                text.append("”", "bold yellow")
        self._info(text)

    @staticmethod
    def _summary(catalog: PackageCatalog) -> Text:
        if catalog.problem:
            return styled(("No packages: ", "bold red"), catalog.problem)
        names = {p.name for p in catalog.packages.values()} | {p.name for p in catalog.not_daml_lf.values()}
        progress = catalog.progress
        text = styled(
            f"{count(len(names), 'package name')}, {count(progress.listed, 'package')} "
            f"({progress.from_cache:,} from the cache, {progress.fetched:,} fetched)"
        )
        if catalog.unreadable:
            text.append(f" · {len(catalog.unreadable):,} unreadable", "bold yellow")
        return text

    # --- the tree -------------------------------------------------------------------------------------------------

    def _rebuild(self, *, keep_place: bool = False) -> None:
        """Show the catalog, all of it or what the search keeps, with the first match (or the first node) selected;
        or, `keep_place` (the same search, other packages), with the user's place kept: the cursor on the same
        entry (its nearest neighbour when it is gone) on the same line of the screen, the same nodes unfolded."""
        catalog = self.catalog
        if catalog is None:
            return
        tree = self.package_tree
        spot = tree.spot() if keep_place else None
        tree.show(catalog, self.text.casefold(), spot)
        kept = tree.return_to(spot) if spot is not None else None
        if kept is not None:
            self.match = _index(tree.matches, kept, self.match)
            self._show_info()
            self._show_selected()
            return
        self.match = 0
        self._show_info()
        if tree.matches:
            first = tree.matches[0]
            tree.select(first)
            assert first.data is not None  # a match is an entity's node
            self._details(describe(first.data, catalog))
        elif not tree.root.children:
            self._details(self._empty_text(catalog))
        else:
            tree.move_cursor(tree.root.children[0])
            self._show_selected()

    def _empty_text(self, catalog: PackageCatalog) -> Text:
        if catalog.problem:
            return styled(("The packages cannot be shown. ", "bold"), catalog.problem)
        if self.text:
            return styled(f"No template, interface, data type or choice name holds “{self.text}”.")
        return styled("The participant has no packages.")

    @on(Tree.NodeHighlighted, "#packages-tree")
    def _highlighted(self) -> None:
        self._show_selected()

    @property
    def selected(self) -> Entry | None:
        node = self.package_tree.cursor_node
        return node.data if node is not None else None

    def _show_selected(self) -> None:
        entry = self.selected
        if entry is None:
            return
        text = describe(entry, self.catalog)
        if entry.kind == "script" and entry.package is not None:
            run = self.runs.get((entry.package.package_id, entry.entity))
            if run is not None:
                text.append("\n\n")
                text.append_text(run)
        self._details(text)

    def _details(self, text: Text) -> None:
        self.query_one("#packages-details", Static).update(text)

    # --- the search -----------------------------------------------------------------------------------------------

    def action_search(self) -> None:
        box = self.query_one("#packages-filter", Input)
        box.add_class("shown")
        box.value = self.text
        # focused now, not after this turn of the loop: the keys typed right after `/` go into the box
        self.set_focus(box)

    @on(Input.Changed, "#packages-filter")
    def _search_changed(self, event: Input.Changed) -> None:
        # the tree follows the typing once it pauses: rebuilding it for every key of a word kept the keys waiting
        if self._typing is not None:
            self._typing.stop()
        self._typing = self.set_timer(TYPING_PAUSE_S, self._search_typed)

    def _search_typed(self) -> None:
        self._typing = None
        text = self.query_one("#packages-filter", Input).value.strip()
        if text != self.text:
            self.text = text
            self._rebuild()

    @on(Input.Submitted, "#packages-filter")
    def _search_kept(self, event: Input.Submitted) -> None:
        if self._typing is not None:
            self._typing.stop()
        self._search_typed()
        if not self.text:
            event.input.remove_class("shown")
        self.set_focus(self.package_tree)  # now: an `n` typed right after enter goes to the next match
        if self.package_tree.matches:  # back to the first match, wherever the cursor went meanwhile
            self._go_to_match(0)

    def action_match(self, step: int) -> None:
        matches = self.package_tree.matches
        if not matches:
            self.notify(
                "Search first with /." if not self.text else f"Nothing holds “{self.text}”.", timeout=3
            )
            return
        self._go_to_match((self.match + step) % len(matches))

    def _go_to_match(self, index: int) -> None:
        self.match = index
        node = self.package_tree.matches[index]
        self.package_tree.select(node)
        assert node.data is not None  # a match is an entity's node
        self._details(describe(node.data, self.catalog))
        self._show_info()

    def action_escape(self) -> None:
        box = self.query_one("#packages-filter", Input)
        if self._typing is not None:
            self._typing.stop()
            self._typing = None
        if self.text or box.has_class("shown"):
            box.value = ""
            box.remove_class("shown")
            self.text = ""
            self._rebuild()
        self.package_tree.focus()

    # --- from a template ------------------------------------------------------------------------------------------

    def _template_selected(self) -> Entry | None:
        entry = self.selected
        if entry is None or entry.kind != "template":
            self.notify("Select a template first (in a module of a package).", timeout=3)
            return None
        return entry

    def action_create(self) -> None:
        entry = self._template_selected()
        if entry is not None and entry.package is not None:
            self.post_message(
                ComposeCommand(kind="Create", template_id=f"#{entry.package.name}:{entry.entity}")
            )

    def action_contracts(self) -> None:
        entry = self._template_selected()
        if entry is not None and entry.package is not None:
            self.post_message(ShowTemplateContracts(f"{entry.package.package_id}:{entry.entity}"))

    # --- a script -------------------------------------------------------------------------------------------------

    @work(group="packages-script", exit_on_error=False)
    async def action_run_script(self) -> None:
        entry = self.selected
        if entry is None or entry.kind != "script" or entry.package is None:
            self.notify("Select a script first (in a module of a package).", timeout=3)
            return
        catalog = self.catalog
        if catalog is None or not self.ledger_app.connection.connected:
            return
        if self.ledger_app.workspace.readonly:
            self.notify(
                "Read-only session: running a script (which writes to the ledger) is off.", severity="warning"
            )
            return
        package = entry.package
        answer = await self.app.push_screen_wait(
            ChoiceDialog(
                f"Run {entry.entity}?",
                [("Run", True), ("Cancel", False)],
                selected=False,
                hint=f"The script of {package.name} {package.version} runs against this participant: "
                "what it submits is committed to the ledger.",
            )
        )
        if not answer:
            return
        await self._run(entry.entity, package, list(catalog.packages), catalog.archive)

    async def _run(
        self,
        name: str,
        package: PackageSignature,
        package_ids: list[str],
        archive: Callable[[str], Awaitable[bytes]],
    ) -> None:
        # imported here: the interpreter is loaded when a script first runs, not when the client starts
        from app.script_runs import UnreadableDar, participant_code, run_on_participant

        key = (package.package_id, name)
        client = self.ledger_app.session.client

        def state(*parts: tuple[str, str] | str) -> None:
            self.runs[key] = styled(*parts)
            self._show_selected()

        state(("Reading the package's code…", "dim"))
        try:
            code = await participant_code(package.package_id, package_ids, archive)
        except (LedgerApiError, UnreadableDar) as e:
            state(("Not run: ", "bold red"), str(e))
            self.notify(visible(f"{name} was not run: {e}"), severity="error", timeout=8)
            return
        state(("Running…", "dim"))
        try:
            outcome = await run_on_participant(
                client,
                code,
                name,
                committed=lambda n: state((f"Running: {count(n, 'transaction')} so far…", "dim")),
            )
        except Exception:
            # not the script's own failure (that is in its outcome): the participant could not be reached, or
            # refused the token's user; the app's notification says why
            state(("Stopped: ", "bold red"), "the run could not go on (the notification says why).")
            raise
        done = f"{count(outcome.transactions, 'transaction')} in {outcome.seconds:.1f} s"
        if outcome.passed:
            result = (
                "()"
                if outcome.result_type is None
                else _json(code.types.of(outcome.result_type).encode(outcome.result))
            )
            state(("Passed", "bold green"), f": {done}\nResult: {result}")
            self.notify(visible(f"{name} passed: {done}"), timeout=8)
        else:
            where = f" at {outcome.location}" if outcome.location else ""
            state(("Failed", "bold red"), f"{where} after {done}:\n{outcome.error}")
            self.notify(visible(f"{name} failed{where}: {outcome.error}"), severity="error", timeout=12)


def _index(matches: list[TreeNode[Entry]], node: TreeNode[Entry], before: int) -> int:
    """Which of the matches `node` is; when it is none of them, the one selected before, if there still is one."""
    for index, match in enumerate(matches):
        if match is node:
            return index
    return min(before, max(len(matches) - 1, 0))


def _json(value: object) -> str:
    return shorten(json.dumps(value), 2000)


__all__ = ["Entry", "PackagesScreen"]
