"""What the packages screen shows beside its tree for the node selected: a template's fields, key, choices and the
interfaces it implements; an interface's view, methods, choices and who implements it; a data type's fields,
constructors or values; a package's counts; the standard library's group; why a package has no signatures."""

from __future__ import annotations

from rich.text import Text

from app.counting import count
from app.packages import (
    ChoiceSignature,
    DataTypeSignature,
    InterfaceSignature,
    PackageCatalog,
    PackageSignature,
    TemplateSignature,
    made_of,
    show_type,
)
from app.untrusted import visible
from app.widgets.package_tree import Entry, own_data_types, styled


def describe(entry: Entry, catalog: PackageCatalog | None) -> Text:
    if entry.kind == "unreadable":
        return styled(
            ("Package ", "bold"), entry.package_id, "\n\n", ("Unreadable: ", "bold yellow"), entry.reason
        )
    if entry.kind == "python":
        return styled(
            (entry.title, "bold"), "\n", (entry.package_id, "dim"), "\n\nNo signatures: ", entry.reason, "."
        )
    if entry.kind == "group":
        return styled(
            (entry.title, "bold"),
            "\n\nThe packages of Daml's standard library (daml-prim, daml-stdlib and their parts, Daml Script) that "
            "the participant's packages depend on. Their data types are here; they define no templates.",
        )
    package = entry.package
    assert package is not None
    if entry.kind == "template":
        return _template(package, package.templates[entry.entity])
    if entry.kind == "interface":
        return _interface(package, package.interfaces[entry.entity], catalog)
    if entry.kind == "data":
        return _data_type(package, package.data_types[entry.entity])
    if entry.kind == "script":
        return _script(package, entry.entity)
    return _package(package)


def _script(package: PackageSignature, name: str) -> Text:
    text = _header("script", package, name)
    text.append_text(
        styled(
            "\nA Daml Script that takes no argument. ",
            ("r", "bold"),
            " runs it against this participant (after asking: it writes to the ledger).",
        )
    )
    return text


def _header(kind: str, package: PackageSignature, entity: str) -> Text:
    return styled(
        (f"{kind} ", "dim"),
        (entity, "bold"),
        "\n",
        (f"#{package.name}:{entity}", "cyan"),
        "\n",
        (f"{package.name} {package.version} · {package.package_id} · LF {package.lf_version}", "dim"),
    )


def _package(package: PackageSignature) -> Text:
    return styled(
        (f"{package.name} {package.version}", "bold"),
        "\n",
        (f"{package.package_id} · LF {package.lf_version}", "dim"),
        "\n\n",
        f"{count(len(package.templates), 'template')}, {count(len(package.interfaces), 'interface')}, "
        f"{count(len(own_data_types(package)), 'other data type')}",
    )


def _template(package: PackageSignature, template: TemplateSignature) -> Text:
    text = _header("template", package, template.qualified_name)
    _section(text, "Fields")
    _pairs(text, [(f.name, show_type(f.type)) for f in template.fields], "(none)")
    _section(text, "Key")
    text.append(visible(show_type(template.key_type)) if template.key_type is not None else "(none)", "")
    _section(text, "Choices")
    _choices(text, template.choices)
    _section(text, "Implements")
    _names(text, [ref.qualified_name for ref in template.implements])
    return text


def _interface(
    package: PackageSignature, interface: InterfaceSignature, catalog: PackageCatalog | None
) -> Text:
    text = _header("interface", package, interface.qualified_name)
    _section(text, "View")
    text.append(visible(show_type(interface.view_type)))
    _section(text, "Methods")
    _pairs(text, [(m.name, show_type(m.type)) for m in interface.methods], "(none)")
    _section(text, "Choices")
    _choices(text, interface.choices)
    _section(text, "Implemented by")
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


def _data_type(package: PackageSignature, data_type: DataTypeSignature) -> Text:
    kind, parts = made_of(data_type)
    header = data_type.qualified_name + "".join(f" {p}" for p in data_type.params)
    text = _header(f"data ({kind})", package, header)
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


__all__ = ["describe"]
