"""Decoded expressions → nodes the machine runs, translated once per definition.

Types are erased as the spec's evaluation rules erase them: ``Λα:k. e`` over an erasable kind is ``e`` and its
type application nothing (``EvExpTyAppErasable``); ``Λn:nat. e`` is a value whose body runs when a type is applied
to it (``EvExpTyAppNat``): a closure of no parameter, entered by a type application of a ``nat`` type (a literal, or
a variable bound with kind ``nat``), unless its body is a lambda already. Variables are resolved to
frame slots at compile time, and each lambda becomes a ``machine.Code`` whose closures copy only the variables the
body uses. A frame is ``[captured, arg₁ … argₙ, binder slots …]``: a variable of the function being compiled is
``Local(i)`` (``env[i]``), one of an enclosing function ``Captured(k)`` (``env[0][k]``).

Nodes whose value needs no evaluation step (variables, literals, lambdas) are *atomic*: their ``ev`` never returns
``PENDING``, so a node evaluates its atomic children inline and pushes a continuation only for the others.

``Resolver`` is what the compiler asks about the packages: the rank of a constructor, the position of a field,
a top-level value's entry (``program.py`` implements it over a ``PackageSet``). An update expression evaluates to an
update value (``updates.py``), its operands evaluated: a ``ubind`` block becomes its first update bound to a lambda
of the first binder over the rest of the block. Performing an update value is ``updates.run_update``'s part.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from contextvars import ContextVar
from decimal import Decimal
from typing import Any, Protocol

from .. import ast
from ..errors import MalformedArchive
from . import updates as u
from .builtins import BUILTINS, Builtin, from_any
from .errors import Crash, DamlThrow, EvaluationError
from .machine import PENDING, BuiltinFunction, Closure, Code, Continuation, Machine, apply
from .ordering import compare_types
from .values import (
    FAILURE_CATEGORIES,
    NIL,
    UNIT,
    AnyException,
    Cons,
    Date,
    Enum,
    Record,
    Some,
    Struct,
    Timestamp,
    TypeRep,
    Variant,
)
from .values import Any as AnyValue


class NotEvaluable(EvaluationError):
    """An expression form this evaluator does not run (updates, until the engine runs them), reached at run time."""


class Resolver(Protocol):
    def record_fields(self, tycon: ast.TypeConRef) -> tuple[str, ...]: ...

    def variant_rank(self, tycon: ast.TypeConRef, constructor: str) -> int: ...

    def enum_rank(self, tycon: ast.TypeConRef, constructor: str) -> int: ...

    def top_level(self, ref: ast.ValueRef) -> Node: ...

    def template_function(self, template: ast.TypeConRef, part: str, name: str = "") -> Any: ...

    def implements(self, template: ast.TypeConRef, interface: ast.TypeConRef) -> bool: ...


# --- Nodes


class Node:
    __slots__ = ()
    atomic = False

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        raise NotImplementedError


class Const(Node):
    __slots__ = ("value",)
    atomic = True

    def __init__(self, value: Any) -> None:
        self.value = value

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return self.value


LAST_LOCATION: ContextVar[str | None] = ContextVar("daml_last_location", default=None)
"""The source location of the last located expression evaluated in this context, in the packages whose locations
are kept (``Compiler(locate=...)``): where a failed ``assert`` or ``error`` was, for a script's report."""


class Located(Node):
    """A non-atomic node of a package whose locations are kept: notes its location, then is its node (in the same
    position: a tail call stays one)."""

    __slots__ = ("inner", "location")

    def __init__(self, inner: Node, location: str) -> None:
        self.inner = inner
        self.location = location

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        LAST_LOCATION.set(self.location)
        return self.inner.ev(machine, env)


def _located(node: Node, location: str) -> Node:
    if node.atomic:
        return node
    if type(node) is App:
        return LocatedApp(node, location)
    return Located(node, location)


def location_text(location: ast.Location, module: str) -> str:
    """``Module:line:column``, counted from 1 (Daml-LF counts from 0)."""
    name = location.module[1] if location.module is not None else module
    return f"{name}:{location.start_line + 1}:{location.start_col + 1}"


class Local(Node):
    __slots__ = ("index",)
    atomic = True

    def __init__(self, index: int) -> None:
        self.index = index

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return env[self.index]


class Captured(Node):
    __slots__ = ("index",)
    atomic = True

    def __init__(self, index: int) -> None:
        self.index = index

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return env[0][self.index]


class Lambda(Node):
    __slots__ = ("code", "captures")
    atomic = True

    def __init__(self, code: Code, captures: list[Node]) -> None:
        self.code = code
        self.captures = captures

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return Closure(self.code, tuple([source.ev(machine, env) for source in self.captures]))


class KCollect(Continuation):
    """Evaluates ``nodes`` in order into ``values``, then hands them to ``then``."""

    __slots__ = ("nodes", "index", "values", "env", "then")

    def __init__(
        self, nodes: Sequence[Node], index: int, values: list[Any], env: list[Any], then: Callable[..., Any]
    ) -> None:
        self.nodes = nodes
        self.index = index
        self.values = values
        self.env = env
        self.then = then

    def resume(self, machine: Machine, value: Any) -> Any:
        values = self.values
        values.append(value)
        return _collect(machine, self.env, self.nodes, self.index + 1, values, self.then, self)


def _collect(
    machine: Machine,
    env: list[Any],
    nodes: Sequence[Node],
    index: int,
    values: list[Any],
    then: Callable[..., Any],
    step: KCollect | None = None,
) -> Any:
    count = len(nodes)
    while index < count:
        node = nodes[index]
        if node.atomic:
            values.append(node.ev(machine, env))
            index += 1
            continue
        if step is None:
            step = KCollect(nodes, index, values, env, then)
        else:
            step.index = index
        machine.kont.append(step)
        machine.ctrl = node
        machine.env = env
        return PENDING
    return then(machine, values)


def evaluate_all(machine: Machine, env: list[Any], nodes: Sequence[Node], then: Callable[..., Any]) -> Any:
    """``then(machine, values)`` once every node is evaluated, left to right."""
    return _collect(machine, env, nodes, 0, [], then)


class Strict(Node):
    """A node computing ``build(*values)`` from its children's values, evaluated left to right."""

    __slots__ = ("children", "build", "_then")

    def __init__(self, children: Sequence[Node], build: Callable[..., Any]) -> None:
        self.children = tuple(children)
        self.build = build
        self._then = lambda machine, values: build(*values)

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        children = self.children
        for child in children:
            if not child.atomic:
                return _collect(machine, env, children, 0, [], self._then)
        return self.build(*[child.ev(machine, env) for child in children])


class App(Node):
    __slots__ = ("function", "args", "nodes")

    def __init__(self, function: Node, args: Sequence[Node]) -> None:
        self.function = function
        self.args = tuple(args)
        self.nodes = (function, *args)

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        for node in self.nodes:
            if not node.atomic:
                return _collect(machine, env, self.nodes, 0, [], _apply_collected)
        return apply(
            machine, self.function.ev(machine, env), tuple([arg.ev(machine, env) for arg in self.args])
        )


def _apply_collected(machine: Machine, values: list[Any]) -> Any:
    return apply(machine, values[0], tuple(values[1:]))


class LocatedApp(App):
    """An application of a package whose locations are kept: notes its location again once its arguments are
    evaluated (they note theirs), so that what the function does is placed at the call."""

    __slots__ = ("location", "_then")

    def __init__(self, app: App, location: str) -> None:
        super().__init__(app.function, app.args)
        self.location = location

        def then(machine: Machine, values: list[Any]) -> Any:
            LAST_LOCATION.set(location)
            return apply(machine, values[0], tuple(values[1:]))

        self._then = then

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        LAST_LOCATION.set(self.location)
        for node in self.nodes:
            if not node.atomic:
                return _collect(machine, env, self.nodes, 0, [], self._then)
        return apply(
            machine, self.function.ev(machine, env), tuple([arg.ev(machine, env) for arg in self.args])
        )


class KBind(Continuation):
    __slots__ = ("let", "index", "env")

    def __init__(self, let: Let, index: int, env: list[Any]) -> None:
        self.let = let
        self.index = index
        self.env = env

    def resume(self, machine: Machine, value: Any) -> Any:
        let = self.let
        env = self.env
        env[let.slots[self.index]] = value
        return let.run_from(machine, env, self.index + 1)


class Let(Node):
    __slots__ = ("slots", "bounds", "body")

    def __init__(self, slots: Sequence[int], bounds: Sequence[Node], body: Node) -> None:
        self.slots = tuple(slots)
        self.bounds = tuple(bounds)
        self.body = body

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return self.run_from(machine, env, 0)

    def run_from(self, machine: Machine, env: list[Any], index: int) -> Any:
        bounds = self.bounds
        while index < len(bounds):
            bound = bounds[index]
            if not bound.atomic:
                machine.kont.append(KBind(self, index, env))
                machine.ctrl = bound
                machine.env = env
                return PENDING
            env[self.slots[index]] = bound.ev(machine, env)
            index += 1
        return _tail(machine, self.body, env)


def _tail(machine: Machine, node: Node, env: list[Any]) -> Any:
    if node.atomic:
        return node.ev(machine, env)
    machine.ctrl = node
    machine.env = env
    return PENDING


class KCase(Continuation):
    __slots__ = ("case", "env")

    def __init__(self, case: Case, env: list[Any]) -> None:
        self.case = case
        self.env = env

    def resume(self, machine: Machine, value: Any) -> Any:
        return self.case.match(machine, value, self.env)


class Case(Node):
    """Pattern matching: the alternatives of each pattern form, looked up by the scrutinee's constructor.

    ``variants`` and ``enums`` map constructor names to (binder slot or None, body); the list and optional
    patterns carry their binder slots. The first alternative of a constructor wins, as the spec's first match.
    """

    __slots__ = (
        "scrutinee",
        "variants",
        "enums",
        "true",
        "false",
        "unit",
        "nil",
        "cons",
        "none",
        "some",
        "default",
    )

    def __init__(self, scrutinee: Node) -> None:
        self.scrutinee = scrutinee
        self.variants: dict[str, tuple[int | None, Node]] = {}
        self.enums: dict[str, Node] = {}
        self.true: Node | None = None
        self.false: Node | None = None
        self.unit: Node | None = None
        self.nil: Node | None = None
        self.cons: tuple[int | None, int | None, Node] | None = None
        self.none: Node | None = None
        self.some: tuple[int | None, Node] | None = None
        self.default: Node | None = None

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        scrutinee = self.scrutinee
        if scrutinee.atomic:
            return self.match(machine, scrutinee.ev(machine, env), env)
        machine.kont.append(KCase(self, env))
        machine.ctrl = scrutinee
        machine.env = env
        return PENDING

    def match(self, machine: Machine, value: Any, env: list[Any]) -> Any:
        kind = type(value)
        body: Node | None = None
        if kind is Variant:
            alternative = self.variants.get(value.constructor)
            if alternative is not None:
                slot, body = alternative
                if slot is not None:
                    env[slot] = value.value
        elif kind is Enum:
            body = self.enums.get(value.constructor)
        elif kind is bool:
            body = self.true if value else self.false
        elif kind is Cons:
            if self.cons is not None:
                head, tail, body = self.cons
                if head is not None:
                    env[head] = value.head
                if tail is not None:
                    env[tail] = value.tail
        elif value is NIL:
            body = self.nil
        elif value is None:
            body = self.none
        elif kind is Some:
            if self.some is not None:
                slot, body = self.some
                if slot is not None:
                    env[slot] = value.value
        elif value is UNIT:
            body = self.unit
        if body is None:
            body = self.default
            if body is None:
                raise Crash(f"no alternative of a case matches {value!r}")
        return _tail(machine, body, env)


class Throw(Node):
    __slots__ = ("type", "payload")

    def __init__(self, type_: ast.Type, payload: Node) -> None:
        self.type = type_
        self.payload = payload

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return evaluate_all(machine, env, (self.payload,), self._raise)

    def _raise(self, machine: Machine, values: list[Any]) -> Any:
        raise DamlThrow(AnyException(self.type, values[0]))


class CallWith(Node):
    """Evaluates its children, then applies the function ``target`` picks for their values (interface methods,
    views, template parts: code chosen by the template of a value known only at run time)."""

    __slots__ = ("children", "target", "_then")

    def __init__(self, children: Sequence[Node], target: Callable[..., tuple[Any, tuple[Any, ...]]]) -> None:
        self.children = tuple(children)
        self.target = target
        self._then = lambda machine, values: apply(machine, *target(*values))

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return evaluate_all(machine, env, self.children, self._then)


class EnterTypeAbstraction(Node):
    """``e @n`` for a ``nat`` type ``n``: runs the body of ``e``'s value if it is a type abstraction over a ``nat``
    (a closure of no parameter); any other value is the result as it is (its abstraction was a lambda already)."""

    __slots__ = ("inner",)

    def __init__(self, inner: Node) -> None:
        self.inner = inner

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return evaluate_all(machine, env, (self.inner,), _enter)


def _enter(machine: Machine, values: list[Any]) -> Any:
    value = values[0]
    if type(value) is Closure and value.code.arity == 0:
        return apply(machine, value, ())
    return value


class WronglyTypedContract(EvaluationError):
    """A contract (id) used at a template or interface it is not of."""


class Unsupported(Node):
    __slots__ = ("what",)

    def __init__(self, what: str) -> None:
        self.what = what

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        raise NotEvaluable(f"{self.what} is not evaluated by the pure evaluator")


# --- Struct access: fields sorted by name, positions found at run time (the expression does not type the struct)


def _struct(fields: tuple[str, ...], order: tuple[int, ...]) -> Callable[..., Struct]:
    def build(*values: Any) -> Struct:
        return Struct(fields, tuple([values[i] for i in order]))

    return build


def _struct_proj(field: str) -> Callable[[Struct], Any]:
    def project(struct: Struct) -> Any:
        return struct.values[struct.fields.index(field)]

    return project


def _struct_upd(field: str) -> Callable[[Struct, Any], Struct]:
    def update(struct: Struct, value: Any) -> Struct:
        index = struct.fields.index(field)
        values = list(struct.values)
        values[index] = value
        return Struct(struct.fields, tuple(values))

    return update


def _record_upd(index: int) -> Callable[[Record, Any], Record]:
    def update(record: Record, value: Any) -> Record:
        values = list(record.values)
        values[index] = value
        return Record(record.tycon, record.fields, tuple(values))

    return update


def _from_any_exception(type_: ast.Type) -> Callable[[AnyException], Some | None]:
    def unpack(value: AnyException) -> Some | None:
        return Some(value.value) if compare_types(value.type, type_) == 0 else None

    return unpack


def _template_of(value: AnyValue) -> ast.TypeConRef:
    type_ = value.type
    if not isinstance(type_, ast.TCon):
        raise Crash(f"an interface value of type {type_!r}")
    return type_.tycon


def _cons(*values: Any) -> Any:
    result = values[-1]
    for item in reversed(values[:-1]):
        result = Cons(item, result)
    return result


# --- The compiler


ROUNDING_MODES = ("UP", "DOWN", "CEILING", "FLOOR", "HALF_UP", "HALF_DOWN", "HALF_EVEN", "UNNECESSARY")
_CONSTRUCTORS = {"CON_UNIT": UNIT, "CON_TRUE": True, "CON_FALSE": False}


class _Function:
    """The scope of the function being compiled: its slots by variable name, and what it captures from outside."""

    def __init__(self, parent: _Function | None, params: Sequence[str]) -> None:
        self.parent = parent
        self.names: dict[str, int] = {}
        self.size = 1
        self.captures: list[Node] = []
        self.captured: dict[str, int] = {}
        for name in params:
            self.names[name] = self.new_slot()

    def new_slot(self) -> int:
        self.size += 1
        return self.size - 1

    def lookup(self, name: str) -> Node | None:
        slot = self.names.get(name)
        if slot is not None:
            return Local(slot)
        index = self.captured.get(name)
        if index is not None:
            return Captured(index)
        if self.parent is None:
            return None
        source = self.parent.lookup(name)
        if source is None:
            return None
        self.captured[name] = len(self.captures)
        self.captures.append(source)
        return Captured(self.captured[name])


Compiling = Generator[ast.Expr, Node, Node]
"""A form's compiler: yields its sub-expressions one by one, is sent their nodes, returns its own node."""


class Compiler:
    def __init__(self, resolver: Resolver, where: str, locate: str | None = None) -> None:
        """``locate``: the module of the definition compiled, when its package's locations are kept."""
        self.resolver = resolver
        self.where = where
        self.locate = locate
        self.scope = _Function(None, ())
        self.nat_vars: list[
            tuple[str, bool]
        ] = []  # the type variables in scope, innermost last: of kind nat?

    def compile_closed(self, expr: ast.Expr) -> tuple[Node, int]:
        """A closed expression's node and the size of the frame it runs in."""
        node = self.expr(expr)
        return node, self.scope.size

    def _bind(self, name: str) -> tuple[int, int | None]:
        previous = self.scope.names.get(name)
        slot = self.scope.new_slot()
        self.scope.names[name] = slot
        return slot, previous

    def _unbind(self, name: str, previous: int | None) -> None:
        if previous is None:
            del self.scope.names[name]
        else:
            self.scope.names[name] = previous

    def expr(self, expr: ast.Expr) -> Node:
        """The node of ``expr``, compiled with an explicit stack: the compiler of a form that has sub-expressions
        is a generator that yields each one and is sent its node back, so however deeply an expression nests,
        no Python recursion follows it (as the decoder, which builds these trees without recursion)."""
        stack: list[Compiling] = []
        result = self._start(expr)
        while True:
            if isinstance(result, Node):
                if not stack:
                    return result
                try:
                    result = self._start(stack[-1].send(result))
                except StopIteration as finished:
                    stack.pop()
                    result = finished.value
            else:
                stack.append(result)
                try:
                    result = self._start(next(result))
                except StopIteration as finished:
                    stack.pop()
                    result = finished.value

    def _start(self, expr: ast.Expr) -> Node | Compiling:
        kind = expr.kind
        value = expr.value
        method = getattr(self, "_" + kind, None)
        if method is None:
            return Unsupported(f"the expression form {kind!r}")
        started: Node | Compiling = method(value)
        if self.locate is not None and expr.location is not None:
            location = location_text(expr.location, self.locate)
            if isinstance(started, Node):
                return _located(started, location)
            return self._located(started, location)
        return started

    @staticmethod
    def _located(compiling: Compiling, location: str) -> Compiling:
        return _located((yield from compiling), location)

    def _all(self, exprs: Sequence[ast.Expr]) -> Generator[ast.Expr, Node, list[Node]]:
        nodes: list[Node] = []
        for expr in exprs:
            nodes.append((yield expr))
        return nodes

    def _var(self, name: str) -> Node:
        node = self.scope.lookup(name)
        if node is None:
            raise MalformedArchive(f"{self.where}: the variable {name!r} is not bound")
        return node

    def _val(self, ref: ast.ValueRef) -> Node:
        return self.resolver.top_level(ref)

    def _builtin(self, name: str) -> Node:
        builtin = BUILTINS.get(name)
        if builtin is None:
            return Unsupported(f"the builtin {name}")
        if builtin.arity == 0:
            assert builtin.run is not None
            return Const(builtin.run())
        return Const(BuiltinFunction(builtin))

    def _builtin_con(self, name: str) -> Node:
        return Const(_CONSTRUCTORS[name])

    def _builtin_lit(self, node: ast.Node) -> Node:
        (kind, value), *_ = node.fields
        if kind == "int64":
            return Const(value)
        if kind == "numeric":
            return Const(Decimal(value))
        if kind == "text":
            return Const(value)
        if kind == "date":
            return Const(Date(value))
        if kind == "timestamp":
            return Const(Timestamp(value))
        if kind == "failure_category":
            return Const(FAILURE_CATEGORIES[value])
        if kind == "rounding_mode":
            return Const(ROUNDING_MODES.index(value))
        raise MalformedArchive(f"{self.where}: unknown literal {kind}")

    def _ty_abs(self, node: ast.Node) -> Compiling:
        params: tuple[ast.TypeVar, ...] = node.get("param")
        for param in params:
            self.nat_vars.append((param.name, isinstance(param.kind, ast.KNat)))
        body: ast.Expr = node.get("body")
        if any(isinstance(param.kind, ast.KNat) for param in params) and body.kind != "abs":
            result: Node = yield from self._lambda((), body)
        else:
            result = yield body
        del self.nat_vars[len(self.nat_vars) - len(params) :]
        return result

    def _ty_app(self, node: ast.Node) -> Compiling:
        inner: Node = yield node.get("expr")
        if any(self._is_nat(type_) for type_ in node.get("types")):
            return EnterTypeAbstraction(inner)
        return inner

    def _is_nat(self, type_: ast.Type) -> bool:
        if isinstance(type_, ast.TNat):
            return True
        if isinstance(type_, ast.TVar) and not type_.args:
            for name, is_nat in reversed(self.nat_vars):
                if name == type_.name:
                    return is_nat
        return False

    def _abs(self, node: ast.Node) -> Compiling:
        return (yield from self._lambda(tuple(param.name for param in node.get("param")), node.get("body")))

    def _lambda(self, params: tuple[str, ...], body: ast.Expr) -> Compiling:
        code = Code(len(params), self.where)
        outer = self.scope
        inner = self.scope = _Function(outer, params)
        code.body = yield body
        self.scope = outer
        code.locals = (None,) * (inner.size - 1 - len(params))
        return Lambda(code, inner.captures)

    def _app(self, node: ast.Node) -> Compiling:
        function, *args = yield from self._all([node.get("fun"), *node.get("args")])
        return App(function, args)

    def _let(self, node: ast.Node) -> Compiling:
        slots: list[int] = []
        bounds: list[Node] = []
        restore: list[tuple[str, int | None]] = []
        for binding in node.get("bindings"):
            bounds.append((yield binding.get("bound")))  # each binding sees the ones before it
            name = binding.get("binder").name
            slot, previous = self._bind(name)
            slots.append(slot)
            restore.append((name, previous))
        body = yield node.get("body")
        for name, previous in reversed(restore):
            self._unbind(name, previous)
        return Let(slots, bounds, body)

    def _case(self, node: ast.Node) -> Compiling:
        case = Case((yield node.get("scrut")))
        for alternative in node.get("alts"):
            pattern, shape = alternative.fields[0]
            binders: list[str] = []
            if pattern == "variant":
                binders = [shape.get("binder")]
            elif pattern == "cons":
                binders = [shape.get("var_head"), shape.get("var_tail")]
            elif pattern == "optional_some":
                binders = [shape.get("var_body")]
            bound = [(name, *self._bind(name)) for name in binders]
            body = yield alternative.get("body")
            for name, _, previous in reversed(bound):
                self._unbind(name, previous)
            slots = [slot for _, slot, _ in bound]
            if pattern == "variant":
                case.variants.setdefault(shape.get("variant"), (slots[0], body))
            elif pattern == "enum":
                case.enums.setdefault(shape.get("constructor"), body)
            elif pattern == "builtin_con":
                which = {"CON_TRUE": "true", "CON_FALSE": "false", "CON_UNIT": "unit"}[shape]
                if getattr(case, which) is None:
                    setattr(case, which, body)
            elif pattern == "nil":
                case.nil = case.nil or body
            elif pattern == "cons":
                case.cons = case.cons or (slots[0], slots[1], body)
            elif pattern == "optional_none":
                case.none = case.none or body
            elif pattern == "optional_some":
                case.some = case.some or (slots[0], body)
            elif pattern == "default":
                case.default = case.default or body
            else:
                raise MalformedArchive(f"{self.where}: unknown case pattern {pattern}")
        return case

    def _rec_con(self, node: ast.Node) -> Compiling:
        tycon = node.get("tycon").tycon
        fields = self.resolver.record_fields(tycon)
        given = node.get("fields")
        if tuple(field.get("field") for field in given) != fields:
            raise MalformedArchive(f"{self.where}: a record of {tycon} with fields not as its type's")
        return Strict(
            (yield from self._all([field.get("expr") for field in given])),
            lambda *values: Record(tycon, fields, values),
        )

    def _field_index(self, node: ast.Node) -> int:
        tycon = node.get("tycon").tycon
        field = node.get("field")
        fields = self.resolver.record_fields(tycon)
        if field not in fields:
            raise MalformedArchive(f"{self.where}: record {tycon} has no field {field}")
        return fields.index(field)

    def _rec_proj(self, node: ast.Node) -> Compiling:
        index = self._field_index(node)
        return Strict([(yield node.get("record"))], lambda record: record.values[index])

    def _rec_upd(self, node: ast.Node) -> Compiling:
        index = self._field_index(node)
        return Strict((yield from self._all([node.get("record"), node.get("update")])), _record_upd(index))

    def _variant_con(self, node: ast.Node) -> Compiling:
        tycon = node.get("tycon").tycon
        constructor = node.get("variant_con")
        rank = self.resolver.variant_rank(tycon, constructor)
        return Strict(
            [(yield node.get("variant_arg"))], lambda value: Variant(tycon, constructor, rank, value)
        )

    def _enum_con(self, node: ast.Node) -> Node:
        tycon = node.get("tycon")
        constructor = node.get("enum_con")
        return Const(Enum(tycon, constructor, self.resolver.enum_rank(tycon, constructor)))

    def _struct_con(self, node: ast.Node) -> Compiling:
        given = node.get("fields")
        names = [field.get("field") for field in given]
        order = tuple(sorted(range(len(names)), key=lambda i: names[i]))
        fields = tuple(names[i] for i in order)
        return Strict((yield from self._all([field.get("expr") for field in given])), _struct(fields, order))

    def _struct_proj(self, node: ast.Node) -> Compiling:
        return Strict([(yield node.get("struct"))], _struct_proj(node.get("field")))

    def _struct_upd(self, node: ast.Node) -> Compiling:
        return Strict(
            (yield from self._all([node.get("struct"), node.get("update")])), _struct_upd(node.get("field"))
        )

    def _nil(self, node: ast.Node) -> Node:
        return Const(NIL)

    def _cons(self, node: ast.Node) -> Compiling:
        return Strict((yield from self._all([*node.get("front"), node.get("tail")])), _cons)

    def _optional_none(self, node: ast.Node) -> Node:
        return Const(None)

    def _optional_some(self, node: ast.Node) -> Compiling:
        return Strict([(yield node.get("value"))], Some)

    def _to_any(self, node: ast.Node) -> Compiling:
        type_ = node.get("type")
        return Strict([(yield node.get("expr"))], lambda value: AnyValue(type_, value))

    def _from_any(self, node: ast.Node) -> Compiling:
        type_ = node.get("type")
        return Strict([(yield node.get("expr"))], lambda value: from_any(type_, value))

    def _type_rep(self, type_: ast.Type) -> Node:
        return Const(TypeRep(type_))

    def _to_any_exception(self, node: ast.Node) -> Compiling:
        type_ = node.get("type")
        return Strict([(yield node.get("expr"))], lambda value: AnyException(type_, value))

    def _from_any_exception(self, node: ast.Node) -> Compiling:
        return Strict([(yield node.get("expr"))], _from_any_exception(node.get("type")))

    def _throw(self, node: ast.Node) -> Compiling:
        return Throw(node.get("exception_type"), (yield node.get("exception_expr")))

    # Interfaces: as Speedy, an interface value is the template's argument packed with the template's type (an
    # ``Any``); methods, views and template parts run the code of the template the value carries.

    def _to_interface(self, node: ast.Node) -> Compiling:
        type_ = ast.TCon(node.get("template_type"))
        return Strict([(yield node.get("template_expr"))], lambda value: AnyValue(type_, value))

    def _from_interface(self, node: ast.Node) -> Compiling:
        template = node.get("template_type")

        def unpack(value: AnyValue) -> Some | None:
            return Some(value.value) if _template_of(value) == template else None

        return Strict([(yield node.get("interface_expr"))], unpack)

    def _unsafe_from_interface(self, node: ast.Node) -> Compiling:
        template = node.get("template_type")

        def unpack(contract_id: Any, value: AnyValue) -> Any:
            if _template_of(value) != template:
                raise WronglyTypedContract(
                    f"contract {contract_id} is a {_template_of(value)}, not a {template}"
                )
            return value.value

        return Strict(
            (yield from self._all([node.get("contract_id_expr"), node.get("interface_expr")])), unpack
        )

    def _to_required_interface(self, node: ast.Node) -> Compiling:
        node_: Node = yield node.get("expr")
        return node_

    def _from_required_interface(self, node: ast.Node) -> Compiling:
        requiring = node.get("requiring_interface")
        resolver = self.resolver

        def unpack(value: AnyValue) -> Some | None:
            return Some(value) if resolver.implements(_template_of(value), requiring) else None

        return Strict([(yield node.get("expr"))], unpack)

    def _unsafe_from_required_interface(self, node: ast.Node) -> Compiling:
        requiring = node.get("requiring_interface")
        resolver = self.resolver

        def unpack(contract_id: Any, value: AnyValue) -> Any:
            if not resolver.implements(_template_of(value), requiring):
                raise WronglyTypedContract(f"contract {contract_id} does not implement {requiring}")
            return value

        return Strict(
            (yield from self._all([node.get("contract_id_expr"), node.get("interface_expr")])), unpack
        )

    def _interface_template_type_rep(self, node: ast.Node) -> Compiling:
        return Strict([(yield node.get("expr"))], lambda value: TypeRep(ast.TCon(_template_of(value))))

    def _instance_call(self, interface: ast.TypeConRef, part: str, name: str) -> Callable[..., Any]:
        resolver = self.resolver

        def target(value: AnyValue) -> tuple[Any, tuple[Any, ...]]:
            template = _template_of(value)
            key = f"{interface}:{name}" if part == "method" else str(interface)
            return resolver.template_function(template, part, key), (value.value,)

        return target

    def _call_interface(self, node: ast.Node) -> Compiling:
        target = self._instance_call(node.get("interface_type"), "method", node.get("method"))
        return CallWith([(yield node.get("interface_expr"))], target)

    def _view_interface(self, node: ast.Node) -> Compiling:
        return CallWith([(yield node.get("expr"))], self._instance_call(node.get("interface"), "view", ""))

    def _signatory_interface(self, node: ast.Node) -> Compiling:
        return CallWith([(yield node.get("expr"))], self._template_call("signatories"))

    def _observer_interface(self, node: ast.Node) -> Compiling:
        return CallWith([(yield node.get("expr"))], self._template_call("observers"))

    def _template_call(self, part: str) -> Callable[..., Any]:
        resolver = self.resolver

        def target(value: AnyValue) -> tuple[Any, tuple[Any, ...]]:
            return resolver.template_function(_template_of(value), part), (value.value,)

        return target

    def _choice_part(self, node: ast.Node, part: str) -> Compiling:
        function = self.resolver.template_function(node.get("template"), part, node.get("choice"))
        children = yield from self._all([node.get("contract_expr"), node.get("choice_arg_expr")])
        return CallWith(children, lambda contract, argument: (function, (contract, argument)))

    def _choice_controller(self, node: ast.Node) -> Compiling:
        return (yield from self._choice_part(node, "controllers"))

    def _choice_observer(self, node: ast.Node) -> Compiling:
        return (yield from self._choice_part(node, "choice observers"))

    def _update(self, node: ast.Node) -> Node | Compiling:
        kind, form = node.fields[0]
        method = getattr(self, "_update_" + kind, None)
        if method is None:
            return Unsupported(f"the update {kind!r}")
        started: Node | Compiling = method(form)
        return started

    def _update_pure(self, node: ast.Node) -> Compiling:
        return Strict([(yield node.get("expr"))], u.Pure)

    def _update_block(self, node: ast.Node) -> Compiling:
        first, *rest = node.get("bindings")
        bound: Node = yield first.get("bound")
        body: ast.Expr = node.get("body")
        if rest:
            block = ast.Node("Block", (("bindings", tuple(rest)), ("body", body)))
            body = ast.Expr("update", ast.Node("Update", (("block", block),)))
        then: Node = yield from self._lambda((first.get("binder").name,), body)
        return Strict([bound, then], u.Bind)

    def _update_create(self, node: ast.Node) -> Compiling:
        template = node.get("template")
        return Strict([(yield node.get("expr"))], lambda argument: u.Create(template, argument))

    def _update_create_interface(self, node: ast.Node) -> Compiling:
        interface = node.get("interface")
        return Strict([(yield node.get("expr"))], lambda value: u.CreateInterface(interface, value))

    def _update_exercise(self, node: ast.Node) -> Compiling:
        template, choice = node.get("template"), node.get("choice")
        children = yield from self._all([node.get("cid"), node.get("arg")])
        return Strict(children, lambda cid, argument: u.Exercise(template, choice, cid, argument))

    def _update_exercise_interface(self, node: ast.Node) -> Compiling:
        interface, choice, guard = node.get("interface"), node.get("choice"), node.get("guard")
        children = yield from self._all([node.get("cid"), node.get("arg"), *([guard] if guard else [])])
        return Strict(
            children,
            lambda cid, argument, guard=None: u.ExerciseInterface(interface, choice, cid, argument, guard),
        )

    def _update_exercise_by_key(self, node: ast.Node) -> Compiling:
        template, choice = node.get("template"), node.get("choice")
        children = yield from self._all([node.get("key"), node.get("arg")])
        return Strict(children, lambda key, argument: u.ExerciseByKey(template, choice, key, argument))

    def _update_fetch(self, node: ast.Node) -> Compiling:
        template = node.get("template")
        return Strict([(yield node.get("cid"))], lambda cid: u.Fetch(template, cid))

    def _update_fetch_interface(self, node: ast.Node) -> Compiling:
        interface = node.get("interface")
        return Strict([(yield node.get("cid"))], lambda cid: u.FetchInterface(interface, cid))

    def _update_get_time(self, node: ast.Node) -> Node:
        return Const(u.GET_TIME)

    def _update_ledger_time_lt(self, expr: ast.Expr) -> Compiling:
        return Strict([(yield expr)], u.LedgerTimeLt)

    def _by_key(self, name: str, node: ast.Node, build: Callable[[ast.TypeConRef, Any], Any]) -> Node:
        # In Daml-LF 2 `fetch_by_key @T` and `lookup_by_key @T` are functions of the key.
        template = node.get("template")
        return Const(BuiltinFunction(Builtin(name, 1, lambda key: build(template, key))))

    def _update_fetch_by_key(self, node: ast.Node) -> Node:
        return self._by_key("fetch_by_key", node, u.FetchByKey)

    def _update_lookup_by_key(self, node: ast.Node) -> Node:
        return self._by_key("lookup_by_key", node, u.LookupByKey)

    def _update_embed_expr(self, node: ast.Node) -> Compiling:
        return Strict([(yield from self._lambda((), node.get("body")))], u.Embed)

    def _update_try_catch(self, node: ast.Node) -> Compiling:
        body: Node = yield from self._lambda((), node.get("try_expr"))
        handler: Node = yield from self._lambda((node.get("var"),), node.get("catch_expr"))
        return Strict([body, handler], u.TryCatch)


def compile_expr(
    expr: ast.Expr, resolver: Resolver, where: str, locate: str | None = None
) -> tuple[Node, int]:
    """The node of a closed expression (a definition's body) and the frame size it runs in; with ``locate`` (the
    definition's module), its located expressions note their location as they run (`LAST_LOCATION`)."""
    return Compiler(resolver, where, locate).compile_closed(expr)
