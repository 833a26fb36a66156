"""Protobuf → AST. Packages decode with the derived schema (``Expr`` fields as bytes, see ``_proto/generate.py``):
signatures eagerly, each expression body kept encoded until ``decode_expr`` is asked for it.

``decode_expr`` decodes one expression level at a time with the same derived schema, on an explicit stack: no
protobuf decode and no Python recursion goes deeper than a type, however deep the expression.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

from google.protobuf.descriptor import Descriptor
from google.protobuf.message import DecodeError, Message

from . import ast
from ._proto import daml_lf2_lazy_pb2 as lf
from ._proto import daml_lf2_pb2
from .archive import Dalf
from .errors import MalformedArchive

_BUILTIN_TYPES = {value.number: value.name for value in lf.BuiltinType.DESCRIPTOR.values}


class _Context:
    """One package's interned tables, resolved once: strings, dotted names, kinds and types (on first use)."""

    __slots__ = ("package_id", "strings", "dotted", "imports", "_types", "_type_msgs", "_kinds", "_kind_msgs")

    def __init__(self, package_id: str, package: lf.Package) -> None:
        self.package_id = package_id
        self.strings: tuple[str, ...] = tuple(package.interned_strings)
        self.dotted: tuple[str, ...] = tuple(
            ".".join(self.string(i) for i in name.segments_interned_str)
            for name in package.interned_dotted_names
        )
        self.imports: tuple[str, ...] = tuple(package.package_imports.imported_packages)
        self._type_msgs = package.interned_types
        self._types: list[ast.Type | None] = [None] * len(self._type_msgs)
        self._kind_msgs = package.interned_kinds
        self._kinds: list[ast.Kind | None] = [None] * len(self._kind_msgs)

    def string(self, index: int) -> str:
        return _interned(self.strings, index, "string", self.package_id)

    def dname(self, index: int) -> str:
        return _interned(self.dotted, index, "dotted name", self.package_id)

    def interned_type(self, index: int) -> ast.Type:
        decoded = _interned(self._types, index, "type", self.package_id)
        if decoded is None:
            # An interned type refers only to earlier ones, so this recursion is bounded by a type's depth.
            decoded = self._types[index] = decode_type(self, self._type_msgs[index])
        return decoded

    def interned_kind(self, index: int) -> ast.Kind:
        decoded = _interned(self._kinds, index, "kind", self.package_id)
        if decoded is None:
            decoded = self._kinds[index] = _kind(self, self._kind_msgs[index])
        return decoded


def _interned(table: Any, index: int, what: str, package_id: str) -> Any:
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
    ctx = _Context(dalf.package_id, package)
    metadata = package.metadata
    upgraded = metadata.upgraded_package_id if metadata.HasField("upgraded_package_id") else None
    return ast.Package(
        package_id=dalf.package_id,
        name=ctx.string(metadata.name_interned_str) if package.HasField("metadata") else "",
        version=ctx.string(metadata.version_interned_str) if package.HasField("metadata") else "",
        lf_version=dalf.lf_version,
        modules=_by_name(_module(ctx, module) for module in package.modules),
        upgraded_package_id=ctx.string(upgraded.upgraded_package_id_interned_str) if upgraded else None,
    )


def _by_name(items: Iterable[Any]) -> Mapping[str, Any]:
    return MappingProxyType({item.name: item for item in items})


def _module(ctx: _Context, module: lf.Module) -> ast.Module:
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


def _data_type(ctx: _Context, data: lf.DefDataType) -> ast.DataType:
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


def _template(ctx: _Context, template: lf.DefTemplate) -> ast.Template:
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
                interface=_tycon(ctx, i.interface),
                methods=tuple(
                    (ctx.string(m.method_interned_name), ast.ExprBody(m.value, ctx)) for m in i.body.methods
                ),
                view=ast.ExprBody(i.body.view, ctx),
            )
            for i in template.implements
        ),
    )


def _choice(ctx: _Context, choice: lf.TemplateChoice) -> ast.Choice:
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


def _interface(ctx: _Context, interface: lf.DefInterface) -> ast.Interface:
    return ast.Interface(
        name=ctx.dname(interface.tycon_interned_dname),
        param=ctx.string(interface.param_interned_str),
        methods=tuple(
            ast.InterfaceMethod(ctx.string(m.method_interned_name), decode_type(ctx, m.type))
            for m in interface.methods
        ),
        choices=tuple(_choice(ctx, c) for c in interface.choices),
        view=decode_type(ctx, interface.view),
        requires=tuple(_tycon(ctx, r) for r in interface.requires),
    )


def _optional_body(ctx: _Context, encoded: bytes) -> ast.ExprBody | None:
    # An absent Expr field decodes as empty bytes; a present expression is never empty (it has a Sum).
    return ast.ExprBody(encoded, ctx) if encoded else None


# --- Names, kinds, types


def _package_id(ctx: _Context, ref: lf.SelfOrImportedPackageId) -> str:
    which = ref.WhichOneof("Sum")
    if which == "self_package_id":
        return ctx.package_id
    if which == "imported_package_id_interned_str":
        return ctx.string(ref.imported_package_id_interned_str)
    if which == "package_import_id":
        return _interned(ctx.imports, ref.package_import_id, "package import", ctx.package_id)
    raise MalformedArchive(f"package {ctx.package_id}: package reference without a package")


def _module_ref(ctx: _Context, module: lf.ModuleId) -> tuple[str, str]:
    return _package_id(ctx, module.package_id), ctx.dname(module.module_name_interned_dname)


def _tycon(ctx: _Context, ref: Any) -> ast.TypeConRef:
    """A ``TypeConId`` or ``TypeSynId``."""
    package_id, module = _module_ref(ctx, ref.module)
    return ast.TypeConRef(package_id, module, ctx.dname(ref.name_interned_dname))


def _kind(ctx: _Context, kind: lf.Kind) -> ast.Kind:
    which = kind.WhichOneof("Sum")
    if which == "star":
        return ast.KStar()
    if which == "nat":
        return ast.KNat()
    if which == "arrow":
        return ast.KArrow(tuple(_kind(ctx, k) for k in kind.arrow.params), _kind(ctx, kind.arrow.result))
    if which == "interned_kind":
        return ctx.interned_kind(kind.interned_kind)
    raise MalformedArchive(f"package {ctx.package_id}: kind without a case")


def _type_vars(ctx: _Context, params: Iterable[lf.TypeVarWithKind]) -> tuple[ast.TypeVar, ...]:
    return tuple(ast.TypeVar(ctx.string(p.var_interned_str), _kind(ctx, p.kind)) for p in params)


def _fields(ctx: _Context, fields: Iterable[lf.FieldWithType]) -> tuple[ast.Field, ...]:
    return tuple(ast.Field(ctx.string(f.field_interned_str), decode_type(ctx, f.type)) for f in fields)


def decode_type(ctx: _Context, type_: lf.Type) -> ast.Type:
    which = type_.WhichOneof("Sum")
    if which == "interned_type":
        return ctx.interned_type(type_.interned_type)
    if which == "con":
        return _con(ctx, type_.con)
    if which == "builtin":
        builtin = type_.builtin
        args = tuple(decode_type(ctx, a) for a in builtin.args)
        return ast.TBuiltin(_BUILTIN_TYPES.get(builtin.builtin, str(builtin.builtin)), args)
    if which == "var":
        return ast.TVar(
            ctx.string(type_.var.var_interned_str), tuple(decode_type(ctx, a) for a in type_.var.args)
        )
    if which == "tapp":
        return ast.TApp(decode_type(ctx, type_.tapp.lhs), decode_type(ctx, type_.tapp.rhs))
    if which == "syn":
        return ast.TSyn(_tycon(ctx, type_.syn.tysyn), tuple(decode_type(ctx, a) for a in type_.syn.args))
    if which == "forall":
        return ast.TForall(_type_vars(ctx, type_.forall.vars), decode_type(ctx, type_.forall.body))
    if which == "struct":
        return ast.TStruct(_fields(ctx, type_.struct.fields))
    if which == "nat":
        return ast.TNat(type_.nat)
    raise MalformedArchive(f"package {ctx.package_id}: type without a case")


def _con(ctx: _Context, con: lf.Type.Con) -> ast.TCon:
    return ast.TCon(_tycon(ctx, con.tycon), tuple(decode_type(ctx, a) for a in con.args))


def _location(ctx: _Context, location: lf.Location) -> ast.Location:
    r = location.range
    module = _module_ref(ctx, location.module) if location.HasField("module") else None
    return ast.Location(module, r.start_line, r.start_col, r.end_line, r.end_col)


# --- Expressions


def decode_expr(body: ast.ExprBody) -> ast.Expr:
    """The expression of a body, decoded whole into ``ast.Expr`` nodes.

    Each expression message is decoded on its own (its sub-expressions are bytes in the derived schema) and the
    tree is built bottom-up from an explicit stack, so the depth of the expression costs neither protobuf's nor
    Python's recursion limit.
    """
    ctx: _Context = body.context
    results: list[ast.Expr] = []
    stack: list[tuple[bytes, None] | tuple[None, tuple[lf.Expr, int]]] = [(body.encoded, None)]
    while stack:
        encoded, pending = stack.pop()
        if pending is None:
            assert encoded is not None
            message = _parse_expr(ctx, encoded)
            children: list[bytes] = []
            _collect(_plan(message.DESCRIPTOR), message, children)
            stack.append((None, (message, len(children))))
            stack.extend((child, None) for child in reversed(children))
        else:
            message, count = pending
            kids = iter(results[len(results) - count :])
            del results[len(results) - count :]
            results.append(_build_expr(ctx, message, kids))
    return results[0]


def _parse_expr(ctx: _Context, encoded: bytes) -> lf.Expr:
    try:
        return lf.Expr.FromString(encoded)
    except DecodeError as exc:
        raise MalformedArchive(f"package {ctx.package_id}: an expression does not decode ({exc})") from None


def _build_expr(ctx: _Context, message: lf.Expr, kids: Iterator[ast.Expr]) -> ast.Expr:
    kind = message.WhichOneof("Sum")
    location = _location(ctx, message.location) if message.HasField("location") else None
    if kind is None:
        raise MalformedArchive(f"package {ctx.package_id}: expression without a case")
    if kind == "interned_expr":
        raise MalformedArchive(f"package {ctx.package_id}: interned expressions are not part of Daml-LF 2.1")
    plan = _plan(message.DESCRIPTOR)
    step = next(s for s in plan.steps if s.name == kind)
    return ast.Expr(step.label, _convert_field(ctx, step, getattr(message, kind), kids), location)


# A plan per message type of the derived schema: for each field, how to read it, computed once.

_EXPR = "expr"  # bytes that the full schema types as Expr
_MESSAGE = "message"  # a message converted generically into a Node
_SPECIAL = "special"  # a message with its own AST form (ids, types, kinds, locations)
_STRING = "string"  # an interned string index
_DNAME = "dname"  # an interned dotted name index
_ENUM = "enum"
_SCALAR = "scalar"


@dataclass(frozen=True, slots=True)
class _Step:
    name: str  # the field's name in the schema
    label: str  # its name in the Node: interned-index suffixes dropped
    how: str
    repeated: bool
    oneof: str | None
    message: Descriptor | None
    enum_names: Mapping[int, str] | None


@dataclass(frozen=True, slots=True)
class _Plan:
    name: str
    steps: tuple[_Step, ...]
    may_hold_expr: bool


_PLANS: dict[str, _Plan] = {}
_SPECIAL_MESSAGES = {
    "TypeConId",
    "TypeSynId",
    "ValueId",
    "ModuleId",
    "Type",
    "Type.Con",
    "Kind",
    "Location",
    "Unit",
    "FieldWithType",
    "TypeVarWithKind",
    "VarWithType",
    "SelfOrImportedPackageId",
}
_SUFFIXES = ("_interned_str", "_interned_dname", "_interned_name")


def _plan(descriptor: Descriptor) -> _Plan:
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        plan = _PLANS[descriptor.full_name] = _make_plan(descriptor)
    return plan


def _make_plan(descriptor: Descriptor) -> _Plan:
    name = descriptor.full_name.removeprefix("daml_lf_2_lazy.")
    full = daml_lf2_pb2.DESCRIPTOR.pool.FindMessageTypeByName(f"daml_lf_2.{name}")
    _PLANS[descriptor.full_name] = _Plan(name, (), False)  # placeholder for self-referencing messages
    steps = []
    for field in descriptor.fields:
        full_field = full.fields_by_name[field.name]
        label = field.name
        for suffix in _SUFFIXES:
            label = label.removesuffix(suffix)
        enum_names = None
        if full_field.message_type is not None and full_field.message_type.full_name == "daml_lf_2.Expr":
            how = _EXPR
        elif field.message_type is not None:
            special = field.message_type.full_name.removeprefix("daml_lf_2_lazy.") in _SPECIAL_MESSAGES
            how = _SPECIAL if special else _MESSAGE
        elif field.enum_type is not None:
            how = _ENUM
            enum_names = {value.number: value.name for value in field.enum_type.values}
        elif field.name.endswith("_interned_dname"):
            how = _DNAME
        elif field.name.endswith(("_interned_str", "_interned_name")):
            how = _STRING
        else:
            how = _SCALAR
        steps.append(
            _Step(
                name=field.name,
                label=label,
                how=how,
                repeated=field.is_repeated,
                oneof=field.containing_oneof.name if field.containing_oneof else None,
                message=field.message_type,
                enum_names=enum_names,
            )
        )
    holds = any(s.how == _EXPR or (s.how == _MESSAGE and _plan(s.message).may_hold_expr) for s in steps)
    plan = _Plan(name, tuple(steps), holds)
    _PLANS[descriptor.full_name] = plan
    return plan


def _present(message: Message, step: _Step) -> bool:
    if step.oneof is not None:
        return message.WhichOneof(step.oneof) == step.name
    if step.repeated:
        return True
    if step.how in (_MESSAGE, _SPECIAL):
        return message.HasField(step.name)
    if step.how == _EXPR:
        return bool(getattr(message, step.name))
    return True  # a proto3 scalar: its default (0, "", False) is its value


def _collect(plan: _Plan, message: Message, out: list[bytes]) -> None:
    """The encoded sub-expressions of ``message``, in the order ``_convert`` consumes them."""
    for step in plan.steps:
        if not _present(message, step):
            continue
        if step.how == _EXPR:
            value = getattr(message, step.name)
            if step.repeated:
                out.extend(value)
            else:
                out.append(value)
        elif step.how == _MESSAGE:
            sub_plan = _plan(step.message)
            if sub_plan.may_hold_expr:
                values = getattr(message, step.name)
                for value in values if step.repeated else (values,):
                    _collect(sub_plan, value, out)


def _convert_field(ctx: _Context, step: _Step, value: Any, kids: Iterator[ast.Expr]) -> Any:
    if step.repeated:
        return tuple(_convert_one(ctx, step, item, kids) for item in value)
    return _convert_one(ctx, step, value, kids)


def _convert_one(ctx: _Context, step: _Step, value: Any, kids: Iterator[ast.Expr]) -> Any:
    how = step.how
    if how == _EXPR:
        return next(kids)
    if how == _STRING:
        return ctx.string(value)
    if how == _DNAME:
        return ctx.dname(value)
    if how == _ENUM:
        return step.enum_names.get(value, str(value)) if step.enum_names else value
    if how == _SPECIAL:
        return _special(ctx, value)
    if how == _MESSAGE:
        plan = _plan(step.message)
        return ast.Node(
            plan.name,
            tuple(
                (s.label, _convert_field(ctx, s, getattr(value, s.name), kids))
                for s in plan.steps
                if _present(value, s)
            ),
        )
    return value


def _special(ctx: _Context, value: Any) -> Any:
    name = value.DESCRIPTOR.full_name.removeprefix("daml_lf_2_lazy.")
    if name in ("TypeConId", "TypeSynId"):
        return _tycon(ctx, value)
    if name == "ValueId":
        package_id, module = _module_ref(ctx, value.module)
        return ast.ValueRef(package_id, module, ctx.dname(value.name_interned_dname))
    if name == "ModuleId":
        return _module_ref(ctx, value)
    if name == "SelfOrImportedPackageId":
        return _package_id(ctx, value)
    if name == "Type":
        return decode_type(ctx, value)
    if name == "Type.Con":
        return _con(ctx, value)
    if name == "Kind":
        return _kind(ctx, value)
    if name == "Location":
        return _location(ctx, value)
    if name == "FieldWithType":
        return ast.Field(ctx.string(value.field_interned_str), decode_type(ctx, value.type))
    if name == "VarWithType":
        return ast.Field(ctx.string(value.var_interned_str), decode_type(ctx, value.type))
    if name == "TypeVarWithKind":
        return ast.TypeVar(ctx.string(value.var_interned_str), _kind(ctx, value.kind))
    return True  # Unit: its presence is its meaning
