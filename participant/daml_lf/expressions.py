"""Expression bodies → ``ast.Expr``, on request.

An expression is decoded one message at a time, each read in place in its body's bytes by its span (start, end):
its fields are walked on the wire, every sub-expression found is recorded by its span and replaced by a
placeholder holding its index, and the rest (the message without its sub-expressions, a few bytes) is decoded with
the derived schema; when the node is built, each placeholder is read back as the sub-expression of its index,
decoded by then (no walk over the fields to find them again). No bytes of a subtree are copied per level, so decoding is linear in the size of the body
however deep it is; the tree is built bottom-up from an explicit stack, so no protobuf decode and no Python
recursion goes deeper than a type. The messages inside an expression become ``ast.Node``s by a plan per message
type, read from the schema's descriptors once: interned indexes resolved, ids as references, types as
``ast.Type``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from google.protobuf.message import DecodeError, Message

from . import ast
from ._proto import daml_lf2_lazy_pb2 as lf
from ._proto import daml_lf2_pb2
from .decode import (
    Context,
    decode_con,
    decode_kind,
    decode_location,
    decode_type,
    module_ref,
    package_ref,
    tycon_ref,
)
from .errors import MalformedArchive
from .nesting import MessageDescriptor, read_varint

_Span = tuple[bytes, int, int]  # an encoded expression: the bytes holding it, where it starts and ends


def decode_expr(body: ast.ExprBody) -> ast.Expr:
    """The expression of a body, decoded whole into ``ast.Expr`` nodes.

    Each expression message is split off its sub-expressions in place and decoded on its own, and the tree is
    built bottom-up from an explicit stack, so the depth of the expression costs neither protobuf's nor Python's
    recursion limit, and its size is read once.
    """
    ctx: Context = body.context
    results: list[ast.Expr] = []
    stack: list[tuple[_Span, None] | tuple[None, tuple[lf.Expr, int]]] = [
        ((body.encoded, 0, len(body.encoded)), None)
    ]
    while stack:
        span, pending = stack.pop()
        if pending is None:
            assert span is not None
            message, children = _split_expr(ctx, span)
            hops = 0
            while message.WhichOneof("Sum") == "interned_expr":  # shared by reference: its own message
                hops += 1
                if hops > len(ctx.exprs):
                    raise MalformedArchive(
                        f"package {ctx.package_id}: interned expressions refer to each other in a cycle"
                    )
                shared = ctx.interned_expr(message.interned_expr)
                message, children = _split_expr(ctx, (shared, 0, len(shared)))
            stack.append((None, (message, len(children))))
            stack.extend((child, None) for child in reversed(children))
        else:
            message, count = pending
            kids = results[len(results) - count :]  # by placeholder index
            del results[len(results) - count :]
            results.append(_build_expr(ctx, message, kids))
    return results[0]


def _split_expr(ctx: Context, span: _Span) -> tuple[lf.Expr, list[_Span]]:
    """The expression message at ``span`` decoded without its sub-expressions (each a placeholder holding its
    index), and their spans."""
    children: list[_Span] = []
    try:
        stripped = _strip(span, _plan(lf.Expr.DESCRIPTOR), children)
        return lf.Expr.FromString(stripped), children
    except (DecodeError, IndexError, ValueError) as exc:
        raise MalformedArchive(f"package {ctx.package_id}: an expression does not decode ({exc})") from None


def _strip(span: _Span, plan: _Plan, children: list[_Span]) -> bytes:
    """The message at ``span`` re-encoded with each non-empty sub-expression replaced by a placeholder (the
    varint of its index in ``children``, where its span is appended), walking into the messages that may hold
    expressions. Only the fields that hold expressions are rewritten; a message without any is returned as its
    slice."""
    data, pos, end = span
    parts: list[bytes] = []
    copied_from = pos  # the start of the fields not yet copied: copied together, in one slice
    rewritten = False
    while pos < end:
        field_start = pos
        tag, pos = read_varint(data, pos)
        wire_type = tag & 7
        if wire_type != 2:  # only length-delimited fields can hold expressions
            pos = _skip(data, pos, wire_type)
            continue
        length, pos = read_varint(data, pos)
        value_end = pos + length
        if value_end > end:
            raise ValueError("a field runs past its message")
        step = plan.by_number.get(tag >> 3)
        if step is None or (step.how == _EXPR and length == 0 and not step.repeated and step.oneof is None):
            pos = value_end  # copied as it is (outside a oneof, an empty expression is an absent one)
            continue
        if step.how == _EXPR:
            replacement = _encode_varint(len(children))
            children.append((data, pos, value_end))
        elif step.how == _MESSAGE and step.sub_plan is not None and step.sub_plan.may_hold_expr:
            replacement = _strip((data, pos, value_end), step.sub_plan, children)
        else:
            pos = value_end
            continue
        parts.append(data[copied_from:field_start])
        parts.append(_encode_varint(tag))
        parts.append(_encode_varint(len(replacement)))
        parts.append(replacement)
        copied_from = pos = value_end
        rewritten = True
    if pos != end:
        raise ValueError("a field runs past its message")
    if not rewritten:
        return data[span[1] : end]
    parts.append(data[copied_from:end])
    return b"".join(parts)


def _encode_varint(value: int) -> bytes:
    if value < 0x80:
        return bytes((value,))
    out = bytearray()
    while value >= 0x80:
        out.append((value & 0x7F) | 0x80)
        value >>= 7
    out.append(value)
    return bytes(out)


def _skip(data: bytes, pos: int, wire_type: int) -> int:
    if wire_type == 0:
        while data[pos] & 0x80:
            pos += 1
        return pos + 1
    if wire_type == 1:
        return pos + 8
    if wire_type == 5:
        return pos + 4
    raise ValueError(f"wire type {wire_type}")  # groups, and the types that do not exist


def _build_expr(ctx: Context, message: lf.Expr, kids: list[ast.Expr]) -> ast.Expr:
    """The node of ``message``, its sub-expressions' placeholders replaced by ``kids``, decoded already."""
    kind = message.WhichOneof("Sum")
    location = decode_location(ctx, message.location) if message.HasField("location") else None
    if kind is None:
        raise MalformedArchive(f"package {ctx.package_id}: expression without a case")
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


@dataclass(slots=True)
class _Step:
    number: int
    name: str  # the field's name in the schema
    label: str  # its name in the Node: interned-index suffixes dropped
    how: str
    repeated: bool
    oneof: str | None
    message: MessageDescriptor | None
    enum_names: Mapping[int, str] | None
    sub_plan: _Plan | None = None  # the plan of ``message``, for a field converted generically


@dataclass(frozen=True, slots=True)
class _Plan:
    name: str
    steps: tuple[_Step, ...]
    may_hold_expr: bool
    by_number: Mapping[int, _Step]


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


def _plan(descriptor: MessageDescriptor) -> _Plan:
    plan = _PLANS.get(descriptor.full_name)
    if plan is None:
        plan = _PLANS[descriptor.full_name] = _make_plan(descriptor)
    return plan


def _make_plan(descriptor: MessageDescriptor) -> _Plan:
    # Messages inside an expression reach each other only through Expr fields (bytes here) or the special ones
    # (types, kinds), so making the plans of the messages a message holds always ends.
    name = descriptor.full_name.removeprefix("daml_lf_2_lazy.")
    full = daml_lf2_pb2.DESCRIPTOR.pool.FindMessageTypeByName(f"daml_lf_2.{name}")
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
                number=field.number,
                name=field.name,
                label=label,
                how=how,
                repeated=field.is_repeated,
                oneof=field.containing_oneof.name if field.containing_oneof else None,
                message=field.message_type,
                enum_names=enum_names,
            )
        )
    for step in steps:
        if step.how == _MESSAGE:
            assert step.message is not None  # a field is _MESSAGE for its message type
            step.sub_plan = _plan(step.message)
    holds = any(s.how == _EXPR or (s.sub_plan is not None and s.sub_plan.may_hold_expr) for s in steps)
    plan = _Plan(name, tuple(steps), holds, {s.number: s for s in steps})
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


def _convert_field(ctx: Context, step: _Step, value: Any, kids: list[ast.Expr]) -> Any:
    if step.repeated:
        return tuple(_convert_one(ctx, step, item, kids) for item in value)
    return _convert_one(ctx, step, value, kids)


def _convert_one(ctx: Context, step: _Step, value: Any, kids: list[ast.Expr]) -> Any:
    how = step.how
    if how == _EXPR:  # a placeholder: the varint of the sub-expression's index
        return kids[value[0] if len(value) == 1 else read_varint(value, 0)[0]]
    if how == _STRING:
        return ctx.string(value)
    if how == _DNAME:
        return ctx.dname(value)
    if how == _ENUM:
        assert step.enum_names is not None
        name = step.enum_names.get(value)
        if name is None:
            raise MalformedArchive(f"package {ctx.package_id}: unknown value {value} of {step.name}")
        return name
    if how == _SPECIAL:
        return _special(ctx, value)
    if how == _MESSAGE:
        plan = step.sub_plan
        assert plan is not None  # made with the step's plan
        return ast.Node(
            plan.name,
            tuple(
                (s.label, _convert_field(ctx, s, getattr(value, s.name), kids))
                for s in plan.steps
                if _present(value, s)
            ),
        )
    return value


def _special(ctx: Context, value: Any) -> Any:
    name = value.DESCRIPTOR.full_name.removeprefix("daml_lf_2_lazy.")
    if name in ("TypeConId", "TypeSynId"):
        return tycon_ref(ctx, value)
    if name == "ValueId":
        package_id, module = module_ref(ctx, value.module)
        return ast.ValueRef(package_id, module, ctx.dname(value.name_interned_dname))
    if name == "ModuleId":
        return module_ref(ctx, value)
    if name == "SelfOrImportedPackageId":
        return package_ref(ctx, value)
    if name == "Type":
        return decode_type(ctx, value)
    if name == "Type.Con":
        return decode_con(ctx, value)
    if name == "Kind":
        return decode_kind(ctx, value)
    if name == "Location":
        return decode_location(ctx, value)
    if name == "FieldWithType":
        return ast.Field(ctx.string(value.field_interned_str), decode_type(ctx, value.type))
    if name == "VarWithType":
        return ast.Field(ctx.string(value.var_interned_str), decode_type(ctx, value.type))
    if name == "TypeVarWithKind":
        return ast.TypeVar(ctx.string(value.var_interned_str), decode_kind(ctx, value.kind))
    return True  # Unit: its presence is its meaning
