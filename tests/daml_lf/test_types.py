"""The type walker: applications flattened, variables substituted, synonyms expanded, data types resolved with
their arguments; on hand-made definitions for the cases a DAR rarely shows, and on every template and choice of
the real DARs (richtypes, Canton Coin and the token standard), through the reader's packages and through a
client's signatures alike."""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from participant.daml_lf import ast
from participant.daml_lf.packages import PackageSet, read_packages
from participant.daml_lf.signatures import definitions_of, signatures_of
from participant.daml_lf.types import (
    Builtin,
    DataDefinition,
    EnumOf,
    InterfaceOf,
    RecordOf,
    SynonymDefinition,
    TypeWalker,
    Unresolved,
    VariantOf,
    applied,
    head_ref,
    of_packages,
    substitute,
)

from .conftest import AMULET
from .test_archive import ALL_DARS

PKG = "a" * 64
TEXT = ast.TBuiltin("TEXT")
INT = ast.TBuiltin("INT64")


def ref(name: str) -> ast.TypeConRef:
    return ast.TypeConRef(PKG, "M", name)


def tvar(name: str, *args: ast.Type) -> ast.TVar:
    return ast.TVar(name, args)


def tlist(element: ast.Type) -> ast.TBuiltin:
    return ast.TBuiltin("LIST", (element,))


@dataclass
class Hand:
    """Definitions written by hand (one package, module M)."""

    data: dict[str, DataDefinition] = field(default_factory=dict)
    synonyms: dict[str, SynonymDefinition] = field(default_factory=dict)

    def data_type(self, ref: ast.TypeConRef, /) -> DataDefinition | None:
        return self.data.get(ref.name) if ref.package_id == PKG else None

    def synonym(self, ref: ast.TypeConRef, /) -> SynonymDefinition | None:
        return self.synonyms.get(ref.name) if ref.package_id == PKG else None


@pytest.fixture
def hand() -> Hand:
    definitions = Hand()
    # data Box a = Box { items : [Choice a], count : Int }
    definitions.data["Box"] = DataDefinition(
        ("a",),
        ast.Record(
            (
                ast.Field("items", tlist(ast.TCon(ref("Choice"), (tvar("a"),)))),
                ast.Field("count", INT),
            )
        ),
    )
    # data Choice a = One a | Many [a] | Nothing'
    definitions.data["Choice"] = DataDefinition(
        ("a",),
        ast.Variant(
            (
                ast.Field("One", tvar("a")),
                ast.Field("Many", tlist(tvar("a"))),
                ast.Field("None", ast.TBuiltin("UNIT")),
            )
        ),
    )
    # data Pair a b = Pair { first : a, second : b }
    definitions.data["Pair"] = DataDefinition(
        ("a", "b"), ast.Record((ast.Field("first", tvar("a")), ast.Field("second", tvar("b"))))
    )
    # data Color = Red | Green;  an interface's data type
    definitions.data["Color"] = DataDefinition((), ast.Enum(("Red", "Green")))
    definitions.data["Asset"] = DataDefinition((), ast.InterfaceCons())
    # type Named a = Pair Text a;  type Names = [Named Int];  type Apply f = f Int (a higher-kinded parameter)
    definitions.synonyms["Named"] = SynonymDefinition(("a",), ast.TCon(ref("Pair"), (TEXT, tvar("a"))))
    definitions.synonyms["Names"] = SynonymDefinition((), tlist(ast.TSyn(ref("Named"), (INT,))))
    definitions.synonyms["Apply"] = SynonymDefinition(("f",), tvar("f", INT))
    return definitions


def test_a_parameterised_record_with_a_list_of_a_variant_of_its_parameter(hand: Hand) -> None:
    walker = TypeWalker(hand)
    box = walker.resolve(ast.TCon(ref("Box"), (TEXT,)))
    assert isinstance(box, RecordOf) and box.args == (TEXT,)
    assert [(f.name, f.type) for f in box.fields] == [
        ("items", tlist(ast.TCon(ref("Choice"), (TEXT,)))),
        ("count", INT),
    ]
    items = walker.resolve(box.fields[0].type)
    assert items == Builtin("LIST", (ast.TCon(ref("Choice"), (TEXT,)),))
    choice = walker.resolve(items.args[0])
    assert isinstance(choice, VariantOf)
    assert choice.constructor("One") == TEXT
    assert choice.constructor("Many") == tlist(TEXT)
    assert choice.constructor("Other") is None


def test_nested_type_applications_are_the_same_type_as_their_flat_form(hand: Hand) -> None:
    walker = TypeWalker(hand)
    nested = ast.TApp(ast.TApp(ast.TCon(ref("Pair")), TEXT), ast.TApp(ast.TCon(ref("Choice")), INT))
    flat = ast.TCon(ref("Pair"), (TEXT, ast.TCon(ref("Choice"), (INT,))))
    assert walker.normal(nested) == flat
    assert walker.resolve(nested) is walker.resolve(flat)  # one instantiation, resolved once
    # a type variable standing for a type constructor, applied: `f Int` with f := Choice
    assert substitute(tvar("f", INT), {"f": ast.TCon(ref("Choice"))}) == ast.TCon(ref("Choice"), (INT,))
    # a type variable bound to an application, applied further: (Pair Text) Int
    assert substitute(ast.TApp(tvar("p"), INT), {"p": ast.TApp(ast.TCon(ref("Pair")), TEXT)}) == ast.TCon(
        ref("Pair"), (TEXT, INT)
    )
    assert applied(ast.TBuiltin("GENMAP", (TEXT,)), (INT,)) == ast.TBuiltin("GENMAP", (TEXT, INT))
    assert head_ref(nested) == ref("Pair") and head_ref(TEXT) is None


def test_synonyms_expand_with_their_arguments_also_inside_others(hand: Hand) -> None:
    walker = TypeWalker(hand)
    names = walker.resolve(ast.TSyn(ref("Names")))
    assert names == Builtin("LIST", (ast.TSyn(ref("Named"), (INT,)),))
    named = walker.resolve(names.args[0])
    assert isinstance(named, RecordOf) and named.ref == ref("Pair")
    assert [(f.name, f.type) for f in named.fields] == [("first", TEXT), ("second", INT)]
    # a synonym over a higher-kinded parameter, applied to a constructor: Apply Choice = Choice Int
    applied_choice = walker.resolve(ast.TSyn(ref("Apply"), (ast.TCon(ref("Choice")),)))
    assert isinstance(applied_choice, VariantOf) and applied_choice.args == (INT,)
    # a synonym given more arguments than it takes passes the rest to what it expands to
    hand.synonyms["PairOf"] = SynonymDefinition((), ast.TCon(ref("Pair")))
    both = walker.resolve(ast.TSyn(ref("PairOf"), (TEXT, INT)))
    assert isinstance(both, RecordOf) and both.args == (TEXT, INT)


def test_what_does_not_resolve_says_why(hand: Hand) -> None:
    walker = TypeWalker(hand)
    partial = walker.resolve(ast.TSyn(ref("Named")))
    assert isinstance(partial, Unresolved) and "partially applied" in partial.why
    missing = walker.resolve(ast.TCon(ast.TypeConRef("b" * 64, "M", "T")))
    assert isinstance(missing, Unresolved) and missing.why == "its package is not read"
    arity = walker.resolve(ast.TCon(ref("Pair"), (TEXT,)))
    assert isinstance(arity, Unresolved) and arity.why == "applied to 1 of its 2 parameters"
    assert isinstance(walker.resolve(tvar("a")), Unresolved)
    assert walker.resolve(ast.TCon(ref("Asset"))) == InterfaceOf(ref("Asset"))
    assert isinstance(walker.resolve(ast.TCon(ref("Color"))), EnumOf)


def test_a_package_read_later_resolves_then(hand: Hand) -> None:
    walker = TypeWalker(hand)
    late = ast.TCon(ref("Late"))
    assert isinstance(walker.resolve(late), Unresolved)
    hand.data["Late"] = DataDefinition((), ast.Enum(("A",)))
    assert isinstance(walker.resolve(late), EnumOf)


class Shapes:
    """A mapper that writes a type out, walking the parts as deep as `depth`."""

    def __init__(self, walker: TypeWalker, depth: int = 3) -> None:
        self.walker, self.depth = walker, depth

    def _in(self, type_: ast.Type) -> str:
        if self.depth == 0:
            return "…"
        return self.walker.map(type_, Shapes(self.walker, self.depth - 1))

    def scalar(self, builtin: str) -> str:
        return builtin

    def numeric(self, scale: int) -> str:
        return f"NUMERIC {scale}"

    def contract_id(self, target: ast.Type) -> str:
        found = head_ref(target)
        return f"CID {found.name if found else '?'}"

    def optional(self, element: ast.Type) -> str:
        return f"OPT({self._in(element)})"

    def list(self, element: ast.Type) -> str:
        return f"LIST({self._in(element)})"

    def text_map(self, value: ast.Type) -> str:
        return f"TEXTMAP({self._in(value)})"

    def gen_map(self, key: ast.Type, value: ast.Type) -> str:
        return f"GENMAP({self._in(key)}, {self._in(value)})"

    def record(self, record: RecordOf) -> str:
        return f"{record.ref.name}{{{', '.join(f'{f.name}: {self._in(f.type)}' for f in record.fields)}}}"

    def variant(self, variant: VariantOf) -> str:
        return (
            f"{variant.ref.name}<{' | '.join(f'{c.name} {self._in(c.type)}' for c in variant.constructors)}>"
        )

    def enum(self, enum: EnumOf) -> str:
        return f"{enum.ref.name}[{', '.join(enum.constructors)}]"

    def unserializable(self, type_: ast.Type, why: str) -> str:
        return f"?({why})"


def test_a_mapper_is_called_for_each_kind(hand: Hand) -> None:
    walker = TypeWalker(hand)
    box = ast.TCon(ref("Box"), (ast.TBuiltin("NUMERIC", (ast.TNat(10),)),))
    assert walker.map(box, Shapes(walker)) == (
        "Box{items: LIST(Choice<One NUMERIC 10 | Many LIST(…) | None UNIT>), count: INT64}"
    )
    others = ast.TCon(
        ref("Pair"),
        (
            ast.TBuiltin("GENMAP", (TEXT, ast.TBuiltin("OPTIONAL", (ast.TCon(ref("Color")),)))),
            ast.TBuiltin("CONTRACT_ID", (ast.TCon(ref("Asset")),)),
        ),
    )
    assert walker.map(others, Shapes(walker)) == (
        "Pair{first: GENMAP(TEXT, OPT(Color[Red, Green])), second: CID Asset}"
    )
    assert walker.map(ast.TBuiltin("ARROW", (TEXT, TEXT)), Shapes(walker)).startswith("?(")
    assert (
        walker.map(ast.TCon(ref("Asset")), Shapes(walker)) == "?(an interface's values are not serializable)"
    )


# --- the real DARs


def test_canton_coins_synonyms_expand(dar_bytes) -> None:
    packages = read_packages(dar_bytes(AMULET))
    amulet = packages.main
    summary = ast.TypeConRef(amulet.package_id, "Splice.AmuletRules", "TransferOutputsSummary")
    for walker in (
        TypeWalker(of_packages(packages)),
        TypeWalker(definitions_of(signatures_of(packages).packages)),
    ):
        resolved = walker.resolve(ast.TSyn(summary))
        assert isinstance(resolved, Builtin) and resolved.name == "LIST"
        assert head_ref(resolved.args[0]) == ast.TypeConRef(
            amulet.package_id, "Splice.AmuletRules", "PreprocessedTransferOutput"
        )
    # a synonym of a synonym (daml-prim's HasCallStack is GHC.Classes' IP applied): expanded to the end
    prim = next(p for p in packages.packages.values() if p.name == "daml-prim")
    walker = TypeWalker(of_packages(packages))
    has_call_stack = walker.normal(
        ast.TSyn(ast.TypeConRef(prim.package_id, "GHC.Stack.Types", "HasCallStack"))
    )
    assert not isinstance(has_call_stack, ast.TSyn)


def _reachable(walker: TypeWalker, roots: list[ast.Type]) -> tuple[int, list[str]]:
    """Every data type instantiation reachable from `roots` (each once); what did not resolve, said."""
    seen: set[tuple] = set()
    unresolved: list[str] = []
    stack = list(roots)
    while stack:
        resolved = walker.resolve(stack.pop())
        if isinstance(resolved, Builtin):
            stack.extend(a for a in resolved.args if not isinstance(a, ast.TNat))
        elif isinstance(resolved, RecordOf | VariantOf):
            key = (resolved.ref, resolved.args)
            if key not in seen:
                seen.add(key)
                parts = resolved.fields if isinstance(resolved, RecordOf) else resolved.constructors
                stack.extend(f.type for f in parts)
        elif isinstance(resolved, Unresolved):
            unresolved.append(f"{resolved.type}: {resolved.why}")
    return len(seen), unresolved


@pytest.mark.parametrize("name", ALL_DARS)
def test_every_template_and_choice_of_a_dar_resolves_whole(dar_bytes, name: str) -> None:
    packages: PackageSet = read_packages(dar_bytes(name))
    signatures = signatures_of(packages)
    by_reader = TypeWalker(of_packages(packages))
    by_client = TypeWalker(definitions_of(signatures.packages))
    roots: list[ast.Type] = []
    for package in signatures.packages.values():
        for template in package.templates.values():
            created = by_client.resolve(ast.TCon(template.ref))
            assert isinstance(created, RecordOf) and created.fields == template.fields
            roots.append(ast.TCon(template.ref))
            roots += [c.argument_type for c in template.choices] + [c.return_type for c in template.choices]
        for interface in package.interfaces.values():
            roots.append(interface.view_type)
            roots += [c.argument_type for c in interface.choices] + [c.return_type for c in interface.choices]
    instances, unresolved = _reachable(by_client, roots)
    assert (instances, unresolved) == _reachable(by_reader, roots)
    # what stays unresolved is only what has no value on the wire: type variables of a choice's result (none in
    # these DARs) and nothing else: every package a type names is in the DAR
    assert unresolved == []
    assert instances > 0 or not roots  # splice-util defines no template
