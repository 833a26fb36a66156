"""Packages decoded from the real DARs: bodies decoded lazily (a real choice body, the deepest real body, and one
deeper than Python's recursion limit), keys, and references that do not resolve."""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from google.protobuf import message as protobuf_message
from google.protobuf.internal import api_implementation

from participant.daml_lf import ast
from participant.daml_lf._proto import daml_lf2_lazy_pb2 as lf
from participant.daml_lf._proto import daml_lf2_pb2, daml_lf_pb2
from participant.daml_lf.decode import Context, decode_kind, decode_type
from participant.daml_lf.errors import MalformedArchive, MissingPackage, UnresolvedReference
from participant.daml_lf.expressions import decode_expr
from participant.daml_lf.packages import PackageSet, read_packages
from participant.daml_lf.signatures import read_signatures, show_type

from .conftest import HOLDING, RICHTYPES, rezip


def _walk(expr: ast.Expr) -> Iterator[tuple[int, object]]:
    """Every value inside an expression with the depth of the expression holding it, without recursion."""
    stack: list[tuple[int, object]] = [(1, expr)]
    while stack:
        depth, value = stack.pop()
        yield depth, value
        if isinstance(value, ast.Expr):
            stack.append((depth + 1, value.value))
        elif isinstance(value, ast.Node):
            stack.extend((depth, v) for _, v in value.fields)
        elif isinstance(value, tuple):
            stack.extend((depth, v) for v in value)


def _depth(expr: ast.Expr) -> int:
    return max(depth for depth, value in _walk(expr) if isinstance(value, ast.Expr))


def test_a_real_choice_body_decodes_with_resolved_references(amulet: PackageSet) -> None:
    rules = amulet.main.modules["Splice.AmuletRules"].templates["AmuletRules"]
    transfer = next(c for c in rules.choices if c.name == "AmuletRules_Transfer")
    assert (transfer.self_binder, transfer.arg_binder) == ("self", "arg")
    body = decode_expr(transfer.update)
    assert body == decode_expr(transfer.update)  # plain values: decoding twice gives equal trees
    values = [v for _, v in _walk(body) if isinstance(v, ast.ValueRef)]
    assert values, "the body calls the module's definitions"
    for ref in values:
        assert isinstance(amulet.value(ref), ast.ValueDef)
    variables = {v.value for _, v in _walk(body) if isinstance(v, ast.Expr) and v.kind == "var"}
    assert {"self", "arg"} <= variables


def test_an_interface_instance_view_decodes(amulet: PackageSet) -> None:
    amulet_template = amulet.main.modules["Splice.Amulet"].templates["Amulet"]
    [instance] = amulet_template.implements
    assert instance.interface.qualified_name == "Splice.Api.Token.HoldingV1:Holding"
    view = decode_expr(instance.view)
    called = [v for _, v in _walk(view) if isinstance(v, ast.ValueRef)]
    assert called and all(isinstance(amulet.value(ref), ast.ValueDef) for ref in called)
    assert "this" in {v.value for _, v in _walk(view) if isinstance(v, ast.Expr) and v.kind == "var"}


def test_every_body_of_richtypes_decodes_and_its_references_resolve(richtypes: PackageSet) -> None:
    module = richtypes.main.modules["RichTypes"]
    bodies = [v.body for v in module.values.values()]
    for template in module.templates.values():
        bodies += [template.signatories, template.observers]
        bodies += [c.update for c in template.choices] + [c.controllers for c in template.choices]
    kinds = set()
    for body in bodies:
        for _, value in _walk(decode_expr(body)):
            if isinstance(value, ast.Expr):
                kinds.add(value.kind)
            elif isinstance(value, ast.ValueRef):
                richtypes.value(value)
            elif isinstance(value, ast.TypeConRef):
                richtypes.module(value.package_id, value.module)
    assert {"app", "abs", "val", "var", "rec_con", "update", "builtin"} <= kinds
    # Relabel's body calls the module's definitions; followed through them, it creates a RichRecord
    relabel = next(c for c in module.templates["RichRecord"].choices if c.name == "Relabel")
    created, seen, pending = [], set(), [relabel.update]
    while pending:
        for _, value in _walk(decode_expr(pending.pop())):
            if isinstance(value, ast.Node) and value.message == "Update.Create":
                created.append(show_type(ast.TCon(value.get("template"))))
            elif (
                isinstance(value, ast.ValueRef)
                and value.package_id == richtypes.main_package_id
                and value not in seen
            ):
                seen.add(value)
                pending.append(richtypes.value(value).body)
    assert "RichTypes:RichRecord" in created


def test_the_deepest_real_body_decodes(amulet: PackageSet) -> None:
    prim = next(p for p in amulet.packages.values() if p.name == "daml-prim")
    body = prim.modules["GHC.Show.Text"].values["ctrlChrText"].body
    if api_implementation.Type() == "upb":  # the C decoder refuses it whole: it nests deeper than upb's limit
        with pytest.raises(protobuf_message.DecodeError):
            daml_lf2_pb2.Expr.FromString(body.encoded)
    expr = decode_expr(body)
    assert _depth(expr) > 30
    texts = [v.get("text") for _, v in _walk(expr) if isinstance(v, ast.Node) and v.message == "BuiltinLit"]
    assert {"NUL", "US", "\x00", "\x1f"} <= set(texts)  # the control characters and their names


def test_an_expression_deeper_than_the_recursion_limit_decodes(richtypes: PackageSet) -> None:
    context = next(iter(richtypes.main.modules["RichTypes"].values.values())).body.context
    depth = sys.getrecursionlimit() * 3
    string_index = context.strings.index("owner")
    encoded = lf.Expr(var_interned_str=string_index).SerializeToString()
    for _ in range(depth - 1):  # some x … = Some (Some (… (Some owner)))
        some = lf.Expr.OptionalSome(type=lf.Type(builtin=lf.Type.Builtin(builtin=lf.TEXT)), value=encoded)
        encoded = lf.Expr(optional_some=some).SerializeToString()
    expr = decode_expr(ast.ExprBody(encoded, context))
    assert _depth(expr) == depth
    innermost = expr
    while innermost.kind == "optional_some":
        innermost = innermost.value.get("value")
    assert innermost == ast.Expr("var", "owner")


# --- Keys and references, from real packages re-encoded


def _main_package(data: bytes) -> tuple[str, lf.Package]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        manifest = zf.read("META-INF/MANIFEST.MF").decode()
        main = "".join(line[1:] if line.startswith(" ") else "\n" + line for line in manifest.splitlines())
        path = (
            next(line for line in main.splitlines() if line.startswith("Main-Dalf:")).split(":", 1)[1].strip()
        )
        archive = daml_lf_pb2.Archive.FromString(zf.read(path))
    payload = daml_lf_pb2.ArchivePayload.FromString(archive.payload)
    return path, lf.Package.FromString(payload.daml_lf_2)


def _with_main_package(data: bytes, path: str, package: lf.Package) -> bytes:
    payload = daml_lf_pb2.ArchivePayload(minor="1", daml_lf_2=package.SerializeToString()).SerializeToString()
    archive = daml_lf_pb2.Archive(payload=payload, hash=hashlib.sha256(payload).hexdigest())
    return rezip(data, {path: archive.SerializeToString()})


def _interned(package: lf.Package, text: str) -> int:
    return list(package.interned_strings).index(text)


def test_a_template_key_with_its_maintainers(dar_bytes: Callable[[str], bytes]) -> None:
    data = dar_bytes(RICHTYPES)
    path, package = _main_package(data)
    marker = next(
        t
        for t in package.modules[0].templates
        if package.interned_strings[_last_segment(package, t)] == "Marker"
    )
    marker.key.type.builtin.builtin = lf.PARTY
    marker.key.key_expr = lf.Expr(var_interned_str=_interned(package, "owner")).SerializeToString()
    marker.key.maintainers = marker.signatories
    changed = read_packages(_with_main_package(data, path, package))
    key = changed.main.modules["RichTypes"].templates["Marker"].key
    assert key is not None and show_type(key.type) == "Party"
    assert decode_expr(key.body) == ast.Expr("var", "owner")
    assert decode_expr(key.maintainers) == decode_expr(
        changed.main.modules["RichTypes"].templates["Marker"].signatories
    )
    key_type = (
        read_signatures(_with_main_package(data, path, package)).main.templates["RichTypes:Marker"].key_type
    )
    assert key_type is not None and show_type(key_type) == "Party"


def _last_segment(package: lf.Package, template: lf.DefTemplate) -> int:
    return package.interned_dotted_names[template.tycon_interned_dname].segments_interned_str[-1]


def test_a_missing_data_type_does_not_resolve(dar_bytes: Callable[[str], bytes]) -> None:
    data = dar_bytes(HOLDING)
    path, package = _main_package(data)
    module = package.modules[0]
    view = next(
        d
        for d in module.data_types
        if package.interned_strings[_dname_last(package, d.name_interned_dname)] == "HoldingView"
    )
    module.data_types.remove(view)
    with pytest.raises(UnresolvedReference, match="no data type Splice.Api.Token.HoldingV1:HoldingView"):
        read_packages(_with_main_package(data, path, package))


def test_a_missing_package_does_not_resolve(dar_bytes: Callable[[str], bytes]) -> None:
    data = dar_bytes(HOLDING)
    path, package = _main_package(data)
    metadata = read_packages(data).packages
    metadata_id = next(pid for pid, p in metadata.items() if p.name == "splice-api-token-metadata-v1")
    dalf_path = next(name for name in zipfile.ZipFile(io.BytesIO(data)).namelist() if metadata_id in name)
    manifest = zipfile.ZipFile(io.BytesIO(data)).read("META-INF/MANIFEST.MF").decode()
    unfolded = "".join(line[1:] if line.startswith(" ") else "\n" + line for line in manifest.splitlines())
    kept = unfolded.replace(f", {dalf_path}", "").replace(f"{dalf_path}, ", "")
    stripped = rezip(data, {"META-INF/MANIFEST.MF": kept.strip().encode(), dalf_path: None})
    with pytest.raises(
        MissingPackage, match=f"package {metadata_id} is not among the packages read"
    ) as raised:
        read_packages(stripped)
    assert raised.value.package_id == metadata_id
    # A package read before (a participant's loaded package) resolves it.
    resolved = read_packages(stripped, dependencies={metadata_id: metadata[metadata_id]})
    assert metadata_id not in resolved.packages and metadata_id in resolved.dependencies


def test_a_missing_required_interface_does_not_resolve(dar_bytes: Callable[[str], bytes]) -> None:
    data = dar_bytes(HOLDING)
    path, package = _main_package(data)
    holding = package.modules[0].interfaces[0]
    required = holding.requires.add()
    required.module.CopyFrom(lf.ModuleId(package_id=lf.SelfOrImportedPackageId(self_package_id=lf.Unit())))
    required.module.module_name_interned_dname = package.modules[0].name_interned_dname
    package.interned_strings.append("Absent")
    package.interned_dotted_names.add().segments_interned_str.append(len(package.interned_strings) - 1)
    required.name_interned_dname = len(package.interned_dotted_names) - 1
    with pytest.raises(UnresolvedReference, match="no interface Splice.Api.Token.HoldingV1:Absent"):
        read_packages(_with_main_package(data, path, package))


def _dname_last(package: lf.Package, index: int) -> int:
    return package.interned_dotted_names[index].segments_interned_str[-1]


# --- Interned expressions and unknown enum values, on small packages built here


def _context(**package: Any) -> Context:
    return Context("p" * 64, lf.Package(**package))


def test_an_interned_expression_decodes_as_the_one_it_names() -> None:
    shared = lf.Expr(var_interned_str=0).SerializeToString()
    ctx = _context(interned_strings=["x"], interned_exprs=[shared])
    some = lf.Expr.OptionalSome(
        type=lf.Type(builtin=lf.Type.Builtin(builtin=lf.TEXT)),
        value=lf.Expr(interned_expr=0).SerializeToString(),
    )
    expr = decode_expr(ast.ExprBody(lf.Expr(optional_some=some).SerializeToString(), ctx))
    assert expr.value.get("value") == ast.Expr("var", "x")


def test_interned_expressions_in_a_cycle_are_refused() -> None:
    ctx = _context(
        interned_exprs=[
            lf.Expr(interned_expr=1).SerializeToString(),
            lf.Expr(interned_expr=0).SerializeToString(),
        ]
    )
    with pytest.raises(MalformedArchive, match="cycle"):
        decode_expr(ast.ExprBody(lf.Expr(interned_expr=0).SerializeToString(), ctx))


def test_unknown_builtins_are_refused() -> None:
    ctx = _context()
    with pytest.raises(MalformedArchive, match="unknown value 999 of builtin"):
        # protobuf takes any number for an enum, its stubs only the known values: an unknown one is the point
        decode_expr(ast.ExprBody(lf.Expr(builtin=999).SerializeToString(), ctx))  # type: ignore[arg-type]  # see above
    with pytest.raises(MalformedArchive, match="unknown builtin type 999"):
        decode_type(ctx, lf.Type(builtin=lf.Type.Builtin(builtin=999)))  # type: ignore[arg-type]  # unknown on purpose


def test_interned_kinds() -> None:
    star = lf.Kind(star=lf.Unit())
    ctx = _context(
        interned_kinds=[star, lf.Kind(arrow=lf.Kind.Arrow(params=[star], result=lf.Kind(interned_kind=0)))]
    )
    assert decode_kind(ctx, lf.Kind(interned_kind=1)) == ast.KArrow((ast.KStar(),), ast.KStar())


def test_an_interned_type_that_contains_itself_is_refused() -> None:
    looping = lf.Type(builtin=lf.Type.Builtin(builtin=lf.LIST, args=[lf.Type(interned_type=0)]))
    ctx = _context(interned_types=[looping])
    with pytest.raises(MalformedArchive, match="interned type #0 contains itself"):
        decode_type(ctx, lf.Type(interned_type=0))
