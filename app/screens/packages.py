"""The packages screen: the participant's packages read once (`app.packages`), as a tree of package names, versions,
modules and their templates, interfaces and data types, with the signature of the one selected beside it."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Input, Static, Tree
from textual.widgets.tree import TreeNode

from app.cut import shorten
from app.messages import ComposeCommand, IdentityChanged, ShowTemplateContracts
from app.packages import (
    ChoiceSignature,
    DataTypeSignature,
    InterfaceSignature,
    NotDamlLf,
    PackageCatalog,
    PackageSignature,
    Progress,
    TemplateSignature,
    made_of,
    show_type,
    version_key,
)
from app.screens.base import LedgerScreen
from app.untrusted import visible
from app.widgets.keys import FieldInput, KeyFooter
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import visible_lines


@dataclass(frozen=True)
class Entry:
    """What a node of the tree stands for: a package (`entity` empty) or one of its templates, interfaces, data
    types; or a package that is not Daml-LF, or one that could not be read (`reason`)."""

    kind: str  # package, template, interface, data, python, unreadable
    package: PackageSignature | None = None
    entity: str = ""  # "Module:Entity"
    package_id: str = ""
    reason: str = ""
    title: str = ""  # a package without signatures: its name and version


def _text(*parts: tuple[str, str] | str) -> Text:
    """Text from the participant's words and ours, each part's control characters but its line breaks written out
    (never read as markup)."""
    text = Text()
    for part in parts:
        words, style = (part, "") if isinstance(part, str) else part
        text.append(visible_lines(words), style)
    return text


def _listed(catalog: PackageCatalog) -> tuple[set[str], set[str], set[str]]:
    return set(catalog.packages), set(catalog.not_daml_lf), set(catalog.unreadable)


class PackagesScreen(LedgerScreen):
    TITLE_TEXT = "Packages"
    HELP = """\
**Packages** shows the participant's Daml packages: each name, its versions, their modules, and in each module its
templates, interfaces and data types. The signature of the one selected shows beside the tree (under it on a narrow
terminal): a template's fields and their types, its key, its choices (consuming or not, argument and return types)
and the interfaces it implements; an interface's view type, methods, choices and the templates that implement it; a
data type's fields, constructors or values.

The packages are read once, four archives at a time, and kept in the cache directory by package id: the next start
reads them from there. Packages the participant defines in Python (the bundled participant's demo) are listed
without signatures; a package that could not be read says why.

`/` keeps the templates, interfaces and data types whose name, or one of whose choices' names, holds the text
(enter keeps the filter, escape clears it). On a template, `n` starts a Create of it in Compose and `c` shows its
contracts on the contracts screen.
"""

    BINDINGS = [
        Binding("slash", "filter", "Filter", id="packages.filter", key_display="/"),
        Binding("n", "create", "New Create", id="packages.create"),
        Binding("c", "contracts", "Its contracts", id="packages.contracts"),
        Binding("escape", "escape", "Clear filter", show=False, id="packages.escape"),
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
        self.text = ""  # the filter

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="packages")
        yield Static(_text(("Waiting for the participant…", "dim")), id="packages-info")
        with Horizontal(id="packages-body"):
            tree: Tree[Entry] = Tree(Text("Packages"), id="packages-tree")
            tree.show_root = False
            yield tree
            with VerticalScroll(id="packages-details-pane"):
                yield Static("", id="packages-details")
        yield FieldInput(
            free_text=True,
            placeholder="filter: part of a template, interface, data type or choice name (enter keeps, escape "
            "clears)",
            id="packages-filter",
        )
        yield KeyFooter()

    @property
    def tree(self) -> Tree[Entry]:
        return self.query_one("#packages-tree", Tree)

    def on_mount(self) -> None:
        self.follow(self.ledger_app.workspace.subscribe_packages, self._packages_read)
        if self.ledger_app.connected:
            self._load()

    def on_identity_changed(self, _: IdentityChanged) -> None:
        # the packages are the participant's, whoever acts: read again only when they could not be read
        if self.catalog is None or self.catalog.problem or self.catalog.unreadable:
            self._load()

    def worker_failed(self, worker) -> None:
        if worker.group == "packages-load":
            self._info(_text(("The packages could not be read (the notification says why).", "bold red")))

    # --- loading --------------------------------------------------------------------------------------------------

    @work(exclusive=True, group="packages-load", exit_on_error=False)
    async def _load(self) -> None:
        self._info(_text(("Listing the packages…", "dim")))
        catalog = await self.ledger_app.workspace.read_packages(self._progress, again=True)
        if (
            catalog is not self.catalog
        ):  # no new reading: the workspace told the others before this one followed
            self._packages_read(catalog)

    def _packages_read(self, catalog: PackageCatalog) -> None:
        """A new reading of the packages, whichever screen asked (a DAR uploaded from anywhere shows up here); the
        tree is built again only when the packages differ, so a reading that found nothing new keeps the cursor."""
        same = self.catalog is not None and _listed(self.catalog) == _listed(catalog)
        self.catalog = catalog
        self._info(self._summary(catalog))
        if not same:
            self._rebuild()

    def _progress(self, progress: Progress) -> None:
        self._info(
            _text(
                (f"Reading {progress.listed:,} packages: ", "dim"),
                f"{progress.from_cache:,} from the cache, {progress.fetched:,} fetched, "
                f"{progress.decoded:,} decoded"
                + (f", {progress.failed:,} unreadable" if progress.failed else ""),
            )
        )

    def _info(self, text: Text) -> None:
        self.query_one("#packages-info", Static).update(text)

    @staticmethod
    def _summary(catalog: PackageCatalog) -> Text:
        if catalog.problem:
            return _text(("No packages: ", "bold red"), catalog.problem)
        names = {p.name for p in catalog.packages.values()} | {p.name for p in catalog.not_daml_lf.values()}
        progress = catalog.progress
        text = _text(
            f"{len(names):,} package names, {progress.listed:,} packages "
            f"({progress.from_cache:,} from the cache, {progress.fetched:,} fetched)"
        )
        if catalog.unreadable:
            text.append(f" · {len(catalog.unreadable):,} unreadable", "bold yellow")
        return text

    # --- the tree -------------------------------------------------------------------------------------------------

    def _rebuild(self) -> None:
        tree = self.tree
        tree.clear()
        catalog = self.catalog
        if catalog is None:
            return
        needle = self.text.casefold()
        by_name: dict[str, list[PackageSignature | NotDamlLf]] = {}
        for package in [*catalog.packages.values(), *catalog.not_daml_lf.values()]:
            by_name.setdefault(package.name, []).append(package)
        for name in sorted(by_name, key=lambda n: (not _has_contracts(by_name[n]), n.casefold())):
            versions = sorted(by_name[name], key=lambda p: version_key(p.version), reverse=True)
            shown = [(p, self._entities(p, needle)) for p in versions]
            if needle:
                shown = [(p, e) for p, e in shown if e]
            if not shown:
                continue
            name_node = tree.root.add(_text((name, "bold")), _entry_of(shown[0][0]), expand=bool(needle))
            for package, entities in shown:
                self._add_version(name_node, package, entities, expand=bool(needle))
        if catalog.unreadable and not needle:
            node = tree.root.add(_text((f"unreadable ({len(catalog.unreadable)})", "bold yellow")))
            for package_id, reason in sorted(catalog.unreadable.items()):
                node.add_leaf(
                    _text(shorten(package_id, 16)), Entry("unreadable", package_id=package_id, reason=reason)
                )
        if not tree.root.children:
            self._details(self._empty_text(catalog))
        else:
            tree.move_cursor(tree.root.children[0])
            self._show_selected()

    def _empty_text(self, catalog: PackageCatalog) -> Text:
        if catalog.problem:
            return _text(("The packages cannot be shown. ", "bold"), catalog.problem)
        if self.text:
            return _text(f"No template, interface, data type or choice name holds “{self.text}”.")
        return _text("The participant has no packages.")

    @staticmethod
    def _entities(package: PackageSignature | NotDamlLf, needle: str) -> list[Entry]:
        if isinstance(package, NotDamlLf):
            return []
        entries = [
            *(Entry("template", package, name) for name in package.templates),
            *(Entry("interface", package, name) for name in package.interfaces),
            *(Entry("data", package, name) for name in _own_data_types(package)),
        ]
        if needle:
            entries = [e for e in entries if _matches(e, needle)]
        return entries

    def _add_version(
        self,
        parent: TreeNode[Entry],
        package: PackageSignature | NotDamlLf,
        entities: list[Entry],
        *,
        expand: bool,
    ) -> None:
        label = _text(package.version, (f"  {shorten(package.package_id, 8)}", "dim"))
        if isinstance(package, NotDamlLf):
            label.append("  Python, no signatures", "dim italic")
            parent.add_leaf(label, _entry_of(package))
            return
        node = parent.add(label, _entry_of(package), expand=expand)
        modules: dict[str, list[Entry]] = {}
        for entry in entities:
            modules.setdefault(entry.entity.split(":")[0], []).append(entry)
        for module in sorted(modules):
            module_node = node.add(_text(module), Entry("package", package), expand=expand)
            for entry in sorted(modules[module], key=lambda e: (KIND_ORDER[e.kind], e.entity)):
                module_node.add_leaf(
                    _text((f"{KIND_WORD[entry.kind]} ", "dim"), entry.entity.split(":", 1)[1]), entry
                )

    @on(Tree.NodeHighlighted, "#packages-tree")
    def _highlighted(self) -> None:
        self._show_selected()

    @property
    def selected(self) -> Entry | None:
        node = self.tree.cursor_node
        return node.data if node is not None else None

    def _show_selected(self) -> None:
        entry = self.selected
        if entry is None:
            return
        self._details(self._describe(entry))

    def _details(self, text: Text) -> None:
        self.query_one("#packages-details", Static).update(text)

    # --- the details ----------------------------------------------------------------------------------------------

    def _describe(self, entry: Entry) -> Text:
        if entry.kind == "unreadable":
            return _text(
                ("Package ", "bold"), entry.package_id, "\n\n", ("Unreadable: ", "bold yellow"), entry.reason
            )
        if entry.kind == "python":
            return _text(
                (entry.title, "bold"),
                "\n",
                (entry.package_id, "dim"),
                "\n\nNo signatures: ",
                entry.reason,
                ".",
            )
        package = entry.package
        assert package is not None
        if entry.kind == "template":
            return self._template(package, package.templates[entry.entity])
        if entry.kind == "interface":
            return self._interface(package, package.interfaces[entry.entity])
        if entry.kind == "data":
            return self._data_type(package, package.data_types[entry.entity])
        return self._package(package)

    @staticmethod
    def _header(kind: str, package: PackageSignature, entity: str) -> Text:
        return _text(
            (f"{kind} ", "dim"),
            (entity, "bold"),
            "\n",
            (f"#{package.name}:{entity}", "cyan"),
            "\n",
            (f"{package.name} {package.version} · {package.package_id} · LF {package.lf_version}", "dim"),
        )

    def _package(self, package: PackageSignature) -> Text:
        text = _text(
            (f"{package.name} {package.version}", "bold"),
            "\n",
            (f"{package.package_id} · LF {package.lf_version}", "dim"),
            "\n\n",
            f"{len(package.templates)} templates, {len(package.interfaces)} interfaces, "
            f"{len(_own_data_types(package))} other data types",
        )
        return text

    def _template(self, package: PackageSignature, template: TemplateSignature) -> Text:
        text = self._header("template", package, template.qualified_name)
        _section(text, "Fields")
        _pairs(text, [(f.name, show_type(f.type)) for f in template.fields], "(none)")
        _section(text, "Key")
        text.append(visible(show_type(template.key_type)) if template.key_type is not None else "(none)", "")
        _section(text, "Choices")
        _choices(text, template.choices)
        _section(text, "Implements")
        _names(text, [ref.qualified_name for ref in template.implements])
        return text

    def _interface(self, package: PackageSignature, interface: InterfaceSignature) -> Text:
        text = self._header("interface", package, interface.qualified_name)
        _section(text, "View")
        text.append(visible(show_type(interface.view_type)))
        _section(text, "Methods")
        _pairs(text, [(m.name, show_type(m.type)) for m in interface.methods], "(none)")
        _section(text, "Choices")
        _choices(text, interface.choices)
        _section(text, "Implemented by")
        catalog = self.catalog
        implementations = catalog.implementations(interface) if catalog is not None else []
        _names(
            text,
            sorted(
                {
                    f"{catalog.packages[t.ref.package_id].name}:{t.qualified_name}"
                    for t in implementations
                    if catalog is not None
                }
            ),
        )
        return text

    def _data_type(self, package: PackageSignature, data_type: DataTypeSignature) -> Text:
        kind, parts = made_of(data_type)
        header = data_type.qualified_name + "".join(f" {p}" for p in data_type.params)
        text = self._header(f"data ({kind})", package, header)
        if kind == "record":
            _section(text, "Fields")
            _pairs(text, parts, "(none)")
        elif kind == "variant":
            _section(text, "Constructors")
            _pairs(text, parts, "(none)")
        elif kind == "enum":
            _section(text, "Values")
            _names(text, [name for name, _ in parts])
        if not data_type.serializable:
            text.append("\n\nNot serializable: no value of it crosses the Ledger API.", "dim")
        return text

    # --- the filter -----------------------------------------------------------------------------------------------

    def action_filter(self) -> None:
        box = self.query_one("#packages-filter", Input)
        box.add_class("shown")
        box.value = self.text
        box.focus()

    @on(Input.Changed, "#packages-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self.text = event.value.strip()
        self._rebuild()

    @on(Input.Submitted, "#packages-filter")
    def _filter_kept(self, event: Input.Submitted) -> None:
        if not self.text:
            event.input.remove_class("shown")
        self.tree.focus()

    def action_escape(self) -> None:
        box = self.query_one("#packages-filter", Input)
        if self.text or box.has_class("shown"):
            box.value = ""
            box.remove_class("shown")
            self.text = ""
            self._rebuild()
        self.tree.focus()

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


KIND_ORDER = {"template": 0, "interface": 1, "data": 2}
KIND_WORD = {"template": "template", "interface": "interface", "data": "data"}


def _own_data_types(package: PackageSignature) -> list[str]:
    """The data types that are not a template's record or an interface's stand-in."""
    return [
        name
        for name in package.data_types
        if name not in package.templates and name not in package.interfaces
    ]


def _entry_of(package: PackageSignature | NotDamlLf) -> Entry:
    if isinstance(package, NotDamlLf):
        return Entry(
            "python",
            package_id=package.package_id,
            reason=package.reason,
            title=f"{package.name} {package.version}",
        )
    return Entry("package", package)


def _has_contracts(versions: list[PackageSignature | NotDamlLf]) -> bool:
    """Whether a package may have contracts: it defines templates or interfaces, or is the bundled participant's
    Python package (whose templates are not known here). The rest, Daml's standard library among them, define
    data types only and are listed after."""
    return any(isinstance(p, NotDamlLf) or p.templates or p.interfaces for p in versions)


def _matches(entry: Entry, needle: str) -> bool:
    """The entity's name, or one of its choices' names, holds `needle` (casefolded)."""
    if needle in entry.entity.split(":", 1)[1].casefold():
        return True
    package = entry.package
    assert package is not None
    signature = package.templates.get(entry.entity) or package.interfaces.get(entry.entity)
    return signature is not None and any(needle in c.name.casefold() for c in signature.choices)


def _section(text: Text, title: str) -> None:
    text.append(f"\n\n{title}\n", "bold underline")


def _pairs(text: Text, pairs: list[tuple[str, str]], none: str) -> None:
    if not pairs:
        text.append(f"  {none}", "dim")
        return
    width = min(max(len(name) for name, _ in pairs), 24)
    text.append("\n".join(f"  {visible(name).ljust(width)} : {visible(type_)}" for name, type_ in pairs))


def _names(text: Text, names: list[str]) -> None:
    text.append("\n".join(f"  {visible(name)}" for name in names) if names else "  (none)")


def _choices(text: Text, choices: tuple[ChoiceSignature, ...]) -> None:
    if not choices:
        text.append("  (none)", "dim")
        return
    for i, choice in enumerate(sorted(choices, key=lambda c: c.name)):
        if i:
            text.append("\n")
        text.append(f"  {visible(choice.name)}", "bold")
        text.append("  consuming" if choice.consuming else "  non-consuming", "dim")
        text.append(f"\n    argument : {visible(show_type(choice.argument_type))}")
        text.append(f"\n    returns  : {visible(show_type(choice.return_type))}")


__all__ = ["PackagesScreen"]
