"""Protobuf → AST. Packages decode with the derived schema (``Expr`` fields as bytes, see ``_proto/generate.py``):
signatures eagerly, each expression body kept encoded until ``expressions.decode_expr`` is asked for it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from google.protobuf.message import DecodeError

from . import ast
from ._proto import daml_lf2_lazy_pb2 as lf
from .archive import Dalf, check_no_unknown_fields
from .errors import MalformedArchive

_DECODING: Any = (
    object()
)  # marks an interned type or kind while it decodes: one that contains itself is refused
_BUILTIN_TYPES = {value.number: value.name for value in lf.BuiltinType.DESCRIPTOR.values}


class Context:
    """One package's interned tables, resolved once: strings, dotted names, kinds and types (on first use)."""

    __slots__ = (
        "package_id",
        "strings",
        "dotted",
        "imports",
        "exprs",
        "_types",
        "_type_msgs",
        "_kinds",
        "_kind_msgs",
    )

    def __init__(self, package_id: str, package: lf.Package) -> None:
        self.package_id = package_id
        self.strings: tuple[str, ...] = tuple(package.interned_strings)
        self.dotted: tuple[str, ...] = tuple(
            ".".join(self.string(i) for i in name.segments_interned_str)
            for name in package.interned_dotted_names
        )
        self.imports: tuple[str, ...] = tuple(package.package_imports.imported_packages)
        self.exprs: tuple[bytes, ...] = tuple(package.interned_exprs)  # encoded, decoded on use
        self._type_msgs = package.interned_types
        self._types: list[ast.Type | None] = [None] * len(self._type_msgs)
        self._kind_msgs = package.interned_kinds
        self._kinds: list[ast.Kind | None] = [None] * len(self._kind_msgs)

    def string(self, index: int) -> str:
        return interned(self.strings, index, "string", self.package_id)

    def dname(self, index: int) -> str:
        return interned(self.dotted, index, "dotted name", self.package_id)

    def interned_type(self, index: int) -> ast.Type:
        decoded = interned(self._types, index, "type", self.package_id)
        if decoded is _DECODING:
            raise MalformedArchive(f"package {self.package_id}: interned type #{index} contains itself")
        if decoded is None:
            # An interned type refers only to earlier ones, so this recursion is bounded by a type's depth.
            self._types[index] = _DECODING
            decoded = self._types[index] = decode_type(self, self._type_msgs[index])
        return decoded

    def interned_expr(self, index: int) -> bytes:
        return interned(self.exprs, index, "expression", self.package_id)

    def interned_kind(self, index: int) -> ast.Kind:
        decoded = interned(self._kinds, index, "kind", self.package_id)
        if decoded is _DECODING:
            raise MalformedArchive(f"package {self.package_id}: interned kind #{index} contains itself")
        if decoded is None:
            self._kinds[index] = _DECODING
            decoded = self._kinds[index] = decode_kind(self, self._kind_msgs[index])
        return decoded


def interned(table: Any, index: int, what: str, package_id: str) -> Any:
    if not 0 <= index < len(table):
        raise MalformedArchive(
            f"package {package_id}: interned {what} #{index} does not exist ({len(table)} entries)"
        )
    return table[index]


# --- Package


def decode_package(dalf: Dalf) -> ast.Package:
    """The package of a DALF: modules with their data types, templates, interfaces, values (bodies left encoded)."""
    try:
        package = lf.Package.FromString(dalf.package)
    except DecodeError as exc:
        raise MalformedArchive(f"{dalf.path}: package {dalf.package_id} does not decode ({exc})") from None
    check_no_unknown_fields(package, dalf.path)
    if not package.HasField("metadata"):  # Canton's words: a package's name and version are not optional
        raise MalformedArchive(
            f"{dalf.path}: package {dalf.package_id}: Package.metadata is required in Daml-LF {dalf.lf_version}"
        )
    ctx = Context(dalf.package_id, package)
    metadata = package.metadata
    upgraded = metadata.upgraded_package_id if metadata.HasField("upgraded_package_id") else None
    return ast.Package(
        package_id=dalf.package_id,
        name=ctx.string(metadata.name_interned_str),
        version=ctx.string(metadata.version_interned_str),
        lf_version=dalf.lf_version,
        modules=_by_name(_module(ctx, module) for module in package.modules),
        upgraded_package_id=ctx.string(upgraded.upgraded_package_id_interned_str) if upgraded else None,
    )


def _by_name(items: Iterable[Any]) -> Mapping[str, Any]:
    return MappingProxyType({item.name: item for item in items})


def _module(ctx: Context, module: lf.Module) -> ast.Module:
    return ast.Module(
        name=ctx.dname(module.name_interned_dname),
        data_types=_by_name(_data_type(ctx, d) for d in module.data_types),
        synonyms=_by_name(
            ast.TypeSynonym(
                ctx.dname(s.name_interned_dname), _type_vars(ctx, s.params), decode_type(ctx, s.type)
            )
            for s in module.synonyms
        ),
        values=_by_name(
            ast.ValueDef(
                ctx.dname(v.name_with_type.name_interned_dname),
                decode_type(ctx, v.name_with_type.type),
                ast.ExprBody(v.expr, ctx),
            )
            for v in module.values
        ),
        templates=_by_name(_template(ctx, t) for t in module.templates),
        interfaces=_by_name(_interface(ctx, i) for i in module.interfaces),
        exceptions=_by_name(
            ast.ExceptionDef(ctx.dname(e.name_interned_dname), ast.ExprBody(e.message, ctx))
            for e in module.exceptions
        ),
    )


def _data_type(ctx: Context, data: lf.DefDataType) -> ast.DataType:
    which = data.WhichOneof("DataCons")
    cons: ast.DataCons
    if which == "record":
        cons = ast.Record(_fields(ctx, data.record.fields))
    elif which == "variant":
        cons = ast.Variant(_fields(ctx, data.variant.fields))
    elif which == "enum":
        cons = ast.Enum(tuple(ctx.string(i) for i in data.enum.constructors_interned_str))
    elif which == "interface":
        cons = ast.InterfaceCons()
    else:
        raise MalformedArchive(f"package {ctx.package_id}: data type without constructors")
    return ast.DataType(
        ctx.dname(data.name_interned_dname), _type_vars(ctx, data.params), data.serializable, cons
    )


def _template(ctx: Context, template: lf.DefTemplate) -> ast.Template:
    key = None
    if template.HasField("key"):
        key = ast.TemplateKey(
            decode_type(ctx, template.key.type),
            ast.ExprBody(template.key.key_expr, ctx),
            ast.ExprBody(template.key.maintainers, ctx),
        )
    return ast.Template(
        name=ctx.dname(template.tycon_interned_dname),
        param=ctx.string(template.param_interned_str),
        precondition=_optional_body(ctx, template.precond),
        signatories=ast.ExprBody(template.signatories, ctx),
        observers=ast.ExprBody(template.observers, ctx),
        choices=tuple(_choice(ctx, c) for c in template.choices),
        key=key,
        implements=tuple(
            ast.InterfaceInstance(
                interface=tycon_ref(ctx, i.interface),
                methods=tuple(
                    (ctx.string(m.method_interned_name), ast.ExprBody(m.value, ctx)) for m in i.body.methods
                ),
                view=ast.ExprBody(i.body.view, ctx),
            )
            for i in template.implements
        ),
    )


def _choice(ctx: Context, choice: lf.TemplateChoice) -> ast.Choice:
    return ast.Choice(
        name=ctx.string(choice.name_interned_str),
        consuming=choice.consuming,
        self_binder=ctx.string(choice.self_binder_interned_str),
        arg_binder=ctx.string(choice.arg_binder.var_interned_str),
        arg_type=decode_type(ctx, choice.arg_binder.type),
        return_type=decode_type(ctx, choice.ret_type),
        controllers=ast.ExprBody(choice.controllers, ctx),
        observers=_optional_body(ctx, choice.observers),
        authorizers=_optional_body(ctx, choice.authorizers),
        update=ast.ExprBody(choice.update, ctx),
    )


def _interface(ctx: Context, interface: lf.DefInterface) -> ast.Interface:
    return ast.Interface(
        name=ctx.dname(interface.tycon_interned_dname),
        param=ctx.string(interface.param_interned_str),
        methods=tuple(
            ast.InterfaceMethod(ctx.string(m.method_interned_name), decode_type(ctx, m.type))
            for m in interface.methods
        ),
        choices=tuple(_choice(ctx, c) for c in interface.choices),
        view=decode_type(ctx, interface.view),
        requires=tuple(tycon_ref(ctx, r) for r in interface.requires),
    )


def _optional_body(ctx: Context, encoded: bytes) -> ast.ExprBody | None:
    # An absent Expr field decodes as empty bytes; a present expression is never empty (it has a Sum).
    return ast.ExprBody(encoded, ctx) if encoded else None


# --- Names, kinds, types


def package_ref(ctx: Context, ref: lf.SelfOrImportedPackageId) -> str:
    which = ref.WhichOneof("Sum")
    if which == "self_package_id":
        return ctx.package_id
    if which == "imported_package_id_interned_str":
        return ctx.string(ref.imported_package_id_interned_str)
    if which == "package_import_id":
        return interned(ctx.imports, ref.package_import_id, "package import", ctx.package_id)
    raise MalformedArchive(f"package {ctx.package_id}: package reference without a package")


def module_ref(ctx: Context, module: lf.ModuleId) -> tuple[str, str]:
    return package_ref(ctx, module.package_id), ctx.dname(module.module_name_interned_dname)


def tycon_ref(ctx: Context, ref: Any) -> ast.TypeConRef:
    """A ``TypeConId`` or ``TypeSynId``."""
    package_id, module = module_ref(ctx, ref.module)
    return ast.TypeConRef(package_id, module, ctx.dname(ref.name_interned_dname))


def decode_kind(ctx: Context, kind: lf.Kind) -> ast.Kind:
    which = kind.WhichOneof("Sum")
    if which == "star":
        return ast.KStar()
    if which == "nat":
        return ast.KNat()
    if which == "arrow":
        return ast.KArrow(
            tuple(decode_kind(ctx, k) for k in kind.arrow.params), decode_kind(ctx, kind.arrow.result)
        )
    if which == "interned_kind":
        return ctx.interned_kind(kind.interned_kind)
    raise MalformedArchive(f"package {ctx.package_id}: kind without a case")


def _type_vars(ctx: Context, params: Iterable[lf.TypeVarWithKind]) -> tuple[ast.TypeVar, ...]:
    return tuple(ast.TypeVar(ctx.string(p.var_interned_str), decode_kind(ctx, p.kind)) for p in params)


def _fields(ctx: Context, fields: Iterable[lf.FieldWithType]) -> tuple[ast.Field, ...]:
    return tuple(ast.Field(ctx.string(f.field_interned_str), decode_type(ctx, f.type)) for f in fields)


def decode_type(ctx: Context, type_: lf.Type) -> ast.Type:
    which = type_.WhichOneof("Sum")
    if which == "interned_type":
        return ctx.interned_type(type_.interned_type)
    if which == "con":
        return decode_con(ctx, type_.con)
    if which == "builtin":
        builtin = type_.builtin
        args = tuple(decode_type(ctx, a) for a in builtin.args)
        name = _BUILTIN_TYPES.get(builtin.builtin)
        if name is None:
            raise MalformedArchive(f"package {ctx.package_id}: unknown builtin type {builtin.builtin}")
        return ast.TBuiltin(name, args)
    if which == "var":
        return ast.TVar(
            ctx.string(type_.var.var_interned_str), tuple(decode_type(ctx, a) for a in type_.var.args)
        )
    if which == "tapp":
        return ast.TApp(decode_type(ctx, type_.tapp.lhs), decode_type(ctx, type_.tapp.rhs))
    if which == "syn":
        return ast.TSyn(tycon_ref(ctx, type_.syn.tysyn), tuple(decode_type(ctx, a) for a in type_.syn.args))
    if which == "forall":
        return ast.TForall(_type_vars(ctx, type_.forall.vars), decode_type(ctx, type_.forall.body))
    if which == "struct":
        return ast.TStruct(_fields(ctx, type_.struct.fields))
    if which == "nat":
        return ast.TNat(type_.nat)
    raise MalformedArchive(f"package {ctx.package_id}: type without a case")


def decode_con(ctx: Context, con: lf.Type.Con) -> ast.TCon:
    return ast.TCon(tycon_ref(ctx, con.tycon), tuple(decode_type(ctx, a) for a in con.args))


def decode_location(ctx: Context, location: lf.Location) -> ast.Location:
    r = location.range
    module = module_ref(ctx, location.module) if location.HasField("module") else None
    return ast.Location(module, r.start_line, r.start_col, r.end_line, r.end_col)
