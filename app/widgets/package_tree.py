"""The packages screen's tree: package names, their versions, modules, and in each module its templates, interfaces,
data types and scripts (Daml Script values that take no argument). The user's packages come first; Daml's standard library (its many small `daml-prim-*` and
`daml-stdlib-*` packages, which would push the user's own out of sight) is folded under one node after them.

A search keeps the entities whose name, or one of whose choices' names, holds the text; they are its matches, in
the order the tree shows them, and the tree can put its cursor on any of them (unfolding what hides it)."""

from __future__ import annotations

from dataclasses import dataclass

from rich.text import Text
from textual.widgets import Tree
from textual.widgets.tree import TreeNode

from app.counting import count
from app.cut import shorten
from app.packages import NotDamlLf, PackageCatalog, PackageSignature, is_standard_library, version_key
from app.widgets.tree_spot import Place, Places, Spot, return_to, spot_of
from app.widgets.untrusted_text import visible_lines

STANDARD_LIBRARY = "Daml standard library"


@dataclass(frozen=True)
class Entry:
    """What a node of the tree stands for: a package (`entity` empty) or one of its templates, interfaces, data
    types; or a package that is not Daml-LF, or one that could not be read (`reason`)."""

    kind: str  # package, template, interface, data, script, python, unreadable, group
    package: PackageSignature | None = None
    entity: str = ""  # "Module:Entity"
    package_id: str = ""
    reason: str = ""
    title: str = ""  # a package without signatures: its name and version; a group: its name

    @property
    def is_entity(self) -> bool:
        return self.kind in KIND_ORDER


KIND_ORDER = {"template": 0, "interface": 1, "data": 2, "script": 3}

Package = PackageSignature | NotDamlLf


def styled(*parts: tuple[str, str] | str) -> Text:
    """Text from the participant's words and ours, each part's control characters but its line breaks written out
    (never read as markup)."""
    text = Text()
    for part in parts:
        words, style = (part, "") if isinstance(part, str) else part
        text.append(visible_lines(words), style)
    return text


class PackageTree(Tree[Entry]):
    """The catalog as a tree, all of it or only what a search keeps."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(Text("Packages"), id=id)
        self.show_root = False
        self.matches: list[TreeNode[Entry]] = []
        """The entities a search keeps, in the order shown (none without a search)."""
        self.places: Places[Entry] = Places()
        """Each node's place: what finds the same entry in the next build."""
        self._unfolded: dict[Place, bool] = {}

    def spot(self) -> Spot | None:
        """Where the user is: `show` with it keeps the nodes unfolded or folded, and `return_to` the cursor."""
        return spot_of(self, self.places)

    def return_to(self, spot: Spot) -> TreeNode[Entry] | None:
        """The cursor back on the entry it was on before `show` (or its nearest remaining neighbour), on the same
        line of the screen as far as the scroll allows; that node, None when nothing remains."""
        return return_to(self, self.places, spot)

    def show(self, catalog: PackageCatalog, needle: str, spot: Spot | None = None) -> None:
        """Rebuild from `catalog`, keeping what holds `needle` (casefolded; everything when empty); the nodes that
        were there at `spot` unfolded or folded as they were, the new ones as a new tree has them."""
        self.clear()
        self.places.clear()
        self._unfolded = spot.unfolded if spot is not None else {}
        self.matches = []
        by_name: dict[str, list[Package]] = {}
        packages: list[Package] = [*catalog.packages.values(), *catalog.not_daml_lf.values()]
        for package in packages:
            by_name.setdefault(package.name, []).append(package)
        own = [name for name in by_name if not is_standard_library(name)]
        standard = [name for name in by_name if is_standard_library(name)]
        for name in sorted(own, key=lambda n: (not _has_contracts(by_name[n]), n.casefold())):
            self._add_name(self.root, name, by_name[name], needle)
        if standard:
            group = self._add(
                self.root,
                ("group",),
                styled((STANDARD_LIBRARY, "bold"), (f"  {count(len(standard), 'package name')}", "dim")),
                Entry("group", title=STANDARD_LIBRARY),
                unfolded=bool(needle),
            )
            for name in sorted(standard, key=str.casefold):
                self._add_name(group, name, by_name[name], needle)
            if not group.children:
                self.places.drop(group)
                group.remove()
        if catalog.unreadable and not needle:
            node = self._add(
                self.root,
                ("unreadable",),
                styled((f"unreadable ({len(catalog.unreadable)})", "bold yellow")),
                None,
                unfolded=False,
            )
            for package_id, reason in sorted(catalog.unreadable.items()):
                self._add(
                    node,
                    ("unreadable", package_id),
                    styled(shorten(package_id, 16)),
                    Entry("unreadable", package_id=package_id, reason=reason),
                )
        if needle:
            self.matches = [
                node for node in _walk(self.root) if node.data is not None and node.data.is_entity
            ]

    def _add(
        self,
        parent: TreeNode[Entry],
        step: tuple[str, ...],
        label: Text,
        entry: Entry | None,
        *,
        unfolded: bool | None = None,
    ) -> TreeNode[Entry]:
        """A node under `parent`, named among its siblings by `step`; a leaf unless `unfolded` says how a new one
        shows (one that was there before shows as it did)."""
        place = (*self.places.of(parent), step)
        if unfolded is None:
            node = parent.add_leaf(label, entry)
        else:
            node = parent.add(label, entry, expand=self._unfolded.get(place, unfolded))
        self.places.add(node, place)
        return node

    def _add_name(self, parent: TreeNode[Entry], name: str, packages: list[Package], needle: str) -> None:
        versions = sorted(packages, key=lambda p: version_key(p.version), reverse=True)
        shown = [(p, _entities(p, needle)) for p in versions]
        if needle:
            shown = [(p, e) for p, e in shown if e]
        if not shown:
            return
        name_node = self._add(
            parent, ("name", name), styled((name, "bold")), entry_of(shown[0][0]), unfolded=bool(needle)
        )
        for package, entities in shown:
            self._add_version(name_node, package, entities, unfolded=bool(needle))

    def _add_version(
        self, parent: TreeNode[Entry], package: Package, entities: list[Entry], *, unfolded: bool
    ) -> None:
        label = styled(package.version, (f"  {shorten(package.package_id, 8)}", "dim"))
        step = ("version", package.package_id)
        if isinstance(package, NotDamlLf):
            label.append("  Python, no signatures", "dim italic")
            self._add(parent, step, label, entry_of(package))
            return
        node = self._add(parent, step, label, entry_of(package), unfolded=unfolded)
        modules: dict[str, list[Entry]] = {}
        for entry in entities:
            modules.setdefault(entry.entity.split(":")[0], []).append(entry)
        for module in sorted(modules):
            module_node = self._add(
                node, ("module", module), styled(module), Entry("package", package), unfolded=unfolded
            )
            for entry in sorted(modules[module], key=lambda e: (KIND_ORDER[e.kind], e.entity)):
                self._add(
                    module_node,
                    (entry.kind, entry.entity),
                    styled((f"{entry.kind} ", "dim"), entry.entity.split(":", 1)[1]),
                    entry,
                )

    def select(self, node: TreeNode[Entry]) -> None:
        """Put the cursor on `node`, unfolding the nodes above it."""
        parent = node.parent
        while parent is not None:
            parent.expand()
            parent = parent.parent
        # a node's line is known once the tree has laid its lines out again, which reading `last_line` does
        if self.last_line >= 0 and node.line >= 0:
            self.move_cursor(node)


def _walk(node: TreeNode[Entry]):
    for child in node.children:
        yield child
        yield from _walk(child)


def _entities(package: Package, needle: str) -> list[Entry]:
    if isinstance(package, NotDamlLf):
        return []
    entries = [
        *(Entry("template", package, name) for name in package.templates),
        *(Entry("interface", package, name) for name in package.interfaces),
        *(Entry("data", package, name) for name in own_data_types(package)),
        *(Entry("script", package, name) for name in package.scripts),
    ]
    if needle:
        entries = [e for e in entries if _matches(e, needle)]
    return entries


def own_data_types(package: PackageSignature) -> list[str]:
    """The data types that are not a template's record or an interface's stand-in."""
    return [
        name
        for name in package.data_types
        if name not in package.templates and name not in package.interfaces
    ]


def entry_of(package: Package) -> Entry:
    if isinstance(package, NotDamlLf):
        return Entry(
            "python",
            package_id=package.package_id,
            reason=package.reason,
            title=f"{package.name} {package.version}",
        )
    return Entry("package", package)


def _has_contracts(versions: list[Package]) -> bool:
    """Whether a package may have contracts: it defines templates or interfaces, or is the bundled participant's
    Python package (whose templates are not known here). The rest define data types only and are listed after."""
    return any(isinstance(p, NotDamlLf) or p.templates or p.interfaces for p in versions)


def _matches(entry: Entry, needle: str) -> bool:
    """The entity's name, or one of its choices' names, holds `needle` (casefolded)."""
    if needle in entry.entity.split(":", 1)[1].casefold():
        return True
    package = entry.package
    assert package is not None
    signature = package.templates.get(entry.entity) or package.interfaces.get(entry.entity)
    return signature is not None and any(needle in c.name.casefold() for c in signature.choices)


__all__ = ["STANDARD_LIBRARY", "Entry", "PackageTree", "entry_of", "own_data_types", "styled"]
