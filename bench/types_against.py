"""The type walker's mappers against an earlier revision's: over every template and choice (arguments, results,
keys, interface views) of every DAR under a directory, the engine's codec nodes, the composer's form types and
the inspector's labels and typed entries of the new code compared with those of the code at REV, node by node
(a recursive type compared as the graph it is). Prints what was compared and every difference.

    PYTHONPATH=$PWD python bench/types_against.py REV [DARS_DIR]

REV names a revision whose `participant/engine/lf/types.py`, `app/compose/types.py` and `app/value_types.py`
still held their own type walks (for instance ecfb25e, before the walker).
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType
from typing import Any

from app.compose import types as new_compose
from app.value_types import ValueTypes
from participant.daml_lf import ast
from participant.daml_lf.packages import read_packages
from participant.daml_lf.signatures import signatures_of
from participant.engine import values as codec
from participant.engine.lf.types import LfTypes

ROOT = Path(__file__).resolve().parent.parent
OLD = {
    "engine": "participant/engine/lf/types.py",
    "compose": "app/compose/types.py",
    "inspector": "app/value_types.py",
}


def old_module(rev: str, path: str, directory: Path) -> ModuleType:
    source = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{path}"], check=True, capture_output=True, text=True
    ).stdout
    file = directory / path.replace("/", "_")
    file.write_text(source)
    spec = importlib.util.spec_from_file_location(f"old_{file.stem}", file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def roots(signatures: Any) -> list[tuple[str, ast.Type]]:
    """Every type a command or an event of the DAR's packages carries, named."""
    found: list[tuple[str, ast.Type]] = []
    for package in signatures.packages.values():
        for name, template in package.templates.items():
            found.append((f"{name} (create)", ast.TCon(template.ref)))
            if template.key_type is not None:
                found.append((f"{name} (key)", template.key_type))
            for choice in template.choices:
                found.append((f"{name}.{choice.name} (argument)", choice.argument_type))
                found.append((f"{name}.{choice.name} (result)", choice.return_type))
        for name, interface in package.interfaces.items():
            found.append((f"{name} (view)", interface.view_type))
            for choice in interface.choices:
                found.append((f"{name}.{choice.name} (argument)", choice.argument_type))
                found.append((f"{name}.{choice.name} (result)", choice.return_type))
    return found


# --- the engine's codec nodes


def engine_node(types: Any, type_: ast.Type) -> Any:
    try:
        return types.of(type_)
    except Exception as e:  # an unserializable type: compared by the error's class
        return ("refused", type(e).__name__)


def engine_parts(node: Any) -> tuple[Any, list[tuple[str, Any]]]:
    """(what the node itself is, its children by name)."""
    if isinstance(node, tuple):
        return node, []
    local: Any = (type(node).__name__, repr(node.describe()), node.is_optional)
    if isinstance(node, codec.RecordType):
        return local, list(node.fields.items())
    if isinstance(node, codec.VariantType):
        return local, list(node.constructors.items())
    if isinstance(node, codec.EnumType):
        return (*local, tuple(node.constructors)), []
    if isinstance(node, codec.OptionalType):
        return (*local, node.as_array, node.in_optional), [("element", node.element)]
    if isinstance(node, codec.ListType | codec.TextMapType):
        return local, [("element", node.element)]
    if hasattr(node, "key") and hasattr(node, "value"):  # GenMap
        return local, [("key", node.key), ("value", node.value)]
    if hasattr(node, "inner"):  # a conversion to the evaluator's values
        return local, [("inner", node.inner)]
    return local, []


# --- the composer's form types


def compose_parts(node: Any) -> tuple[Any, list[tuple[str, Any]]]:
    local: Any = (type(node).__name__, node.shown)
    name = type(node).__name__
    if name == "RecordT":
        return local, list(node.fields)
    if name == "VariantT":
        return local, list(node.constructors)
    if name == "EnumT":
        return (*local, node.constructors), []
    if name in ("OptionalT", "ListT"):
        return local, [("element", node.element)]
    if name == "TextMapT":
        return local, [("value", node.value)]
    if name == "GenMapT":
        return local, [("key", node.key), ("value", node.value)]
    if name == "ContractIdT":
        return (*local, node.template), []
    if name == "Opaque":
        return (*local, node.why), []
    return local, []


def same_graph(old: Any, new: Any, parts: Any, where: str, differences: list[str]) -> int:
    """Compares two node graphs pair by pair (each pair once: recursive types are cycles); the pairs compared."""
    seen: set[tuple[int, int]] = set()
    stack = [(old, new, where)]
    while stack:
        a, b, path = stack.pop()
        if (id(a), id(b)) in seen:
            continue
        seen.add((id(a), id(b)))
        (local_a, children_a), (local_b, children_b) = parts(a), parts(b)
        if local_a != local_b or [n for n, _ in children_a] != [n for n, _ in children_b]:
            differences.append(
                f"{path}: {local_a} {[n for n, _ in children_a]} / {local_b} {[n for n, _ in children_b]}"
            )
            continue
        stack.extend((ca, cb, f"{path}.{n}") for (n, ca), (_, cb) in zip(children_a, children_b, strict=True))
    return len(seen)


# --- the inspector: labels, and the typed entries of a value made from the form types


def sample(node: Any, depth: int = 0) -> Any:
    """A JSON value of a form type: every field, a variant's first constructor, one element, present optionals."""
    name = type(node).__name__
    if depth > 6:
        return None
    if name == "RecordT":
        return {f: sample(t, depth + 1) for f, t in node.fields}
    if name == "VariantT":
        constructors = node.constructors
        return (
            {"tag": constructors[0][0], "value": sample(constructors[0][1], depth + 1)}
            if constructors
            else {}
        )
    if name == "EnumT":
        return node.constructors[0] if node.constructors else ""
    if name == "OptionalT":
        inner = sample(node.element, depth + 1)
        return [inner] if type(node.element).__name__ == "OptionalT" else inner
    if name == "ListT":
        return [sample(node.element, depth + 1)]
    if name == "TextMapT":
        return {"k": sample(node.value, depth + 1)}
    if name == "GenMapT":
        return [[sample(node.key, depth + 1), sample(node.value, depth + 1)]]
    if name == "Scalar":
        return {"BOOL": True, "UNIT": {}}.get(node.kind, "x")
    return "1"


def entries_walk(types: Any, value: Any, type_: Any, depth: int = 0) -> Any:
    if depth > 8 or type_ is None:
        return None
    entries = types.entries(value, type_)
    if entries is None:
        return ("untyped", types.is_enum(type_), types.show(type_))
    return [
        (
            e.name,
            types.show(e.type) if e.type is not None else None,
            entries_walk(types, e.value, e.type, depth + 1),
        )
        for e in entries
    ]


def main() -> None:
    rev = sys.argv[1]
    dars = Path(sys.argv[2] if len(sys.argv) > 2 else ROOT.parent / "shared" / "dars")
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as tmp:
        old = {key: old_module(rev, path, Path(tmp)) for key, path in OLD.items()}
        differences: list[str] = []
        counts = {"DARs": 0, "types": 0, "engine pairs": 0, "form pairs": 0, "inspector values": 0}
        for dar in sorted(dars.rglob("*.dar")):
            package_set = read_packages(dar.read_bytes())
            signatures = signatures_of(package_set)
            engine_old, engine_new = old["engine"].LfTypes(package_set), LfTypes(package_set)
            form_old = old["compose"].TypeResolver(signatures.packages)
            form_new = new_compose.TypeResolver(signatures.packages)
            shown_old, shown_new = (
                old["inspector"].ValueTypes(signatures.packages),
                ValueTypes(signatures.packages),
            )
            counts["DARs"] += 1
            for name, type_ in roots(signatures):
                where = f"{dar.name}: {name}"
                counts["types"] += 1
                counts["engine pairs"] += same_graph(
                    engine_node(engine_old, type_),
                    engine_node(engine_new, type_),
                    engine_parts,
                    where,
                    differences,
                )
                form_a, form_b = form_old.of(type_), form_new.of(type_)
                counts["form pairs"] += same_graph(form_a, form_b, compose_parts, where, differences)
                if shown_old.fields_text(type_) != shown_new.fields_text(type_):
                    differences.append(
                        f"{where}: fields {shown_old.fields_text(type_)!r} / {shown_new.fields_text(type_)!r}"
                    )
                value = sample(form_b)
                a, b = entries_walk(shown_old, value, type_), entries_walk(shown_new, value, type_)
                counts["inspector values"] += 1
                if a != b:
                    differences.append(f"{where}: entries {a} / {b}")
    for line in differences:
        print(line)
    print(", ".join(f"{n} {what}" for what, n in counts.items()), f"; {len(differences)} differences")
    print(f"{time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
