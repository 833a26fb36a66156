"""A ``PackageSet``'s code, compiled on demand: the glue between the decoded packages and the machine.

A top-level value is decoded, compiled and evaluated the first time it is referenced, and its value kept (Daml's
top-level values are constants; a function is a closure value like any other). A reference to it compiles to a
``TopLevel`` node shared by every use, which becomes atomic once its value is known. A value whose evaluation
fails is not kept: the next reference evaluates it again, and fails again.
"""

from __future__ import annotations

from typing import Any

from .. import ast
from ..errors import MalformedArchive
from ..expressions import decode_expr
from ..packages import PackageSet
from .compile import Node, compile_expr
from .errors import Crash
from .machine import PENDING, Continuation, Machine
from .updates import LedgerActions, run_update
from .values import AnyException, Record

_UNSET: Any = object()
_ARITHMETIC_ERROR_MODULE = "DA.Exception.ArithmeticError"
_CHOICE_PARTS = ("controllers", "choice observers", "authorizers")
_NIL = ast.Expr("nil", ast.Node("Expr.Nil", (("type", ast.TBuiltin("PARTY")),)))


class TopLevel(Node):
    __slots__ = ("program", "ref", "value", "body", "size", "atomic")

    def __init__(self, program: Program, ref: ast.ValueRef) -> None:
        self.program = program
        self.ref = ref
        self.value = _UNSET
        self.body: Node | None = None
        self.size = 0
        self.atomic = False

    def compiled(self) -> Node:
        if self.body is None:
            definition = self.program.packages.value(self.ref)
            locate = self.ref.module if self.ref.package_id in self.program.located_packages else None
            self.body, self.size = compile_expr(
                decode_expr(definition.body), self.program, str(self.ref), locate
            )
        return self.body

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        value = self.value
        if value is not _UNSET:
            return value
        body = self.compiled()
        machine.kont.append(_KStore(self))
        machine.ctrl = body
        machine.env = [(), *(None,) * (self.size - 1)]
        return PENDING


class _KStore(Continuation):
    __slots__ = ("top",)

    def __init__(self, top: TopLevel) -> None:
        self.top = top

    def resume(self, machine: Machine, value: Any) -> Any:
        self.top.value = value
        self.top.atomic = True
        return value


class Program:
    """The compiled code of a set of packages, and the ``Resolver`` the compiler asks about their data types."""

    def __init__(self, packages: PackageSet) -> None:
        self.packages = packages
        self._top: dict[ast.ValueRef, TopLevel] = {}
        self._records: dict[ast.TypeConRef, tuple[str, ...]] = {}
        self._ranks: dict[ast.TypeConRef, dict[str, int]] = {}
        self._messages: dict[ast.TypeConRef, Any] = {}
        self._template_functions: dict[tuple[ast.TypeConRef, str, str], Any] = {}
        self._tuple2: tuple[ast.TypeConRef, tuple[str, ...]] | None = None
        self._arithmetic_error: tuple[ast.TypeConRef, tuple[str, ...]] | None = None
        self.located_packages: frozenset[str] = frozenset()
        """Packages whose top-level definitions note their source locations as they run (`compile.Located`): a
        script's own, so that a failure in it can be placed. Set before their definitions are first compiled."""

    def machine(self) -> Machine:
        return Machine(self.exception_message, self.arithmetic_error)

    # --- Running

    def value(self, ref: ast.ValueRef) -> Any:
        """The value of a top-level definition."""
        return self.machine().run(self.top_level(ref), [()])

    def evaluate(self, expr: ast.Expr) -> Any:
        """The value of a closed expression."""
        node, size = compile_expr(expr, self, "expression")
        return self.machine().run(node, [(), *(None,) * (size - 1)])

    def call(self, function: Any, *args: Any) -> Any:
        """``function`` applied to ``args``; with no argument, a type abstraction over a ``nat`` (``Λn:nat. e``)
        applied to its type (types are erased, so which one does not matter)."""
        return self.machine().call(function, *args)

    async def run_update(self, update: Any, actions: LedgerActions) -> Any:
        """Perform an update value against ``actions``; its result."""
        return await run_update(self.machine(), update, actions, self.tuple2)

    def tuple2(self, first: Any, second: Any) -> Record:
        """The standard library's pair ``DA.Types:Tuple2`` of ``first`` and ``second``."""
        if self._tuple2 is None:
            for package in (*self.packages.packages.values(), *self.packages.dependencies.values()):
                module = package.modules.get("DA.Types")
                if module is not None and "Tuple2" in module.data_types:
                    tycon = ast.TypeConRef(package.package_id, "DA.Types", "Tuple2")
                    self._tuple2 = (tycon, self.record_fields(tycon))
                    break
            else:
                raise Crash("no package defines DA.Types:Tuple2")
        tycon, fields = self._tuple2
        return Record(tycon, fields, (first, second))

    def arithmetic_error(self, message: str) -> AnyException | None:
        """The standard library's ``DA.Exception.ArithmeticError:ArithmeticError`` exception with ``message``,
        or None when no package read defines it."""
        if self._arithmetic_error is None:
            for package in (*self.packages.packages.values(), *self.packages.dependencies.values()):
                module = package.modules.get(_ARITHMETIC_ERROR_MODULE)
                if module is not None and "ArithmeticError" in module.exceptions:
                    tycon = ast.TypeConRef(package.package_id, _ARITHMETIC_ERROR_MODULE, "ArithmeticError")
                    self._arithmetic_error = (tycon, self.record_fields(tycon))
                    break
            else:
                return None
        tycon, fields = self._arithmetic_error
        return AnyException(ast.TCon(tycon), Record(tycon, fields, (message,)))

    def choice_update(self, owner: ast.TypeConRef, choice_name: str) -> Any:
        """A choice's body as a function of the contract id, the contract (for an interface's choice, its
        interface value) and the choice argument, whose value is the update the choice performs."""
        key = (owner, "update", choice_name)
        function = self._template_functions.get(key)
        if function is None:
            definition, choice = self._choice(owner, choice_name)
            params = (choice.self_binder, definition.param, choice.arg_binder)
            function = self._closed_function(params, decode_expr(choice.update), f"{owner} {choice_name}")
            self._template_functions[key] = function
        return function

    def _choice(
        self, owner: ast.TypeConRef, choice_name: str
    ) -> tuple[ast.Template | ast.Interface, ast.Choice]:
        module = self.packages.module(owner.package_id, owner.module)
        definition: ast.Template | ast.Interface | None = module.templates.get(owner.name)
        if definition is None:
            definition = module.interfaces.get(owner.name)
        if definition is None:
            raise Crash(f"{owner} is neither a template nor an interface")
        choice = next((c for c in definition.choices if c.name == choice_name), None)
        if choice is None:
            raise Crash(f"{owner} has no choice {choice_name}")
        return definition, choice

    def compile_definition(self, ref: ast.ValueRef) -> None:
        """Compile a definition without running it."""
        self.top_level(ref).compiled()

    def exception_message(self, type_: ast.TCon) -> Any:
        tycon = type_.tycon
        message = self._messages.get(tycon)
        if message is None:
            exception = self.packages.module(tycon.package_id, tycon.module).exceptions.get(tycon.name)
            if exception is None:
                raise Crash(f"{tycon} is not an exception type")
            node, size = compile_expr(decode_expr(exception.message), self, f"{tycon} message")
            message = self._messages[tycon] = self.machine().run(node, [(), *(None,) * (size - 1)])
        return message

    def _closed_function(self, params: tuple[str, ...], body: ast.Expr, where: str) -> Any:
        """The function value of ``λ params. body``: a template's part is an expression of its parameters."""
        lambda_ = ast.Expr(
            "abs",
            ast.Node(
                "Expr.Abs",
                (("param", tuple(ast.Field(name, ast.TBuiltin("UNIT")) for name in params)), ("body", body)),
            ),
        )
        node, size = compile_expr(lambda_, self, where)
        return self.machine().run(node, [(), *(None,) * (size - 1)])

    # --- Resolver

    def template_function(self, template: ast.TypeConRef, part: str, name: str = "") -> Any:
        """The code of a part of ``template`` as a function of the contract: ``part`` is ``signatories``,
        ``observers``, ``precondition``, ``key``, ``method`` or ``view`` (``name`` the interface, and for a method
        ``interface:method``); or a choice's part (see ``choice_function``), ``name`` the choice."""
        if part in _CHOICE_PARTS:
            return self.choice_function(template, part, name)
        key = (template, part, name)
        function = self._template_functions.get(key)
        if function is None:
            definition = self.packages.template(template)
            where = f"{template} {part} {name}".rstrip()
            if part == "signatories":
                body = definition.signatories
            elif part == "observers":
                body = definition.observers
            elif part in ("precondition", "key"):
                found_body = definition.precondition if part == "precondition" else _key(definition).body
                if found_body is None:
                    raise Crash(f"{template} has no {part}")
                body = found_body
            elif part in ("method", "view"):
                interface, _, method = name.rpartition(":") if part == "method" else (name, "", "")
                instance = next((i for i in definition.implements if str(i.interface) == interface), None)
                if instance is None:
                    raise Crash(f"{template} does not implement {interface}")
                if part == "view":
                    body = instance.view
                else:
                    found = dict(instance.methods).get(method)
                    if found is None:
                        raise Crash(f"{template} has no method {method} of {interface}")
                    body = found
            else:
                raise Crash(f"a template has no part {part!r}")
            params = (definition.param,)
            function = self._template_functions[key] = self._closed_function(params, decode_expr(body), where)
        return function

    def maintainers_function(self, template: ast.TypeConRef) -> Any:
        """The function from ``template``'s key to its maintainers (a closed expression of the package)."""
        key = (template, "maintainers", "")
        function = self._template_functions.get(key)
        if function is None:
            body = _key(self.packages.template(template)).maintainers
            node, size = compile_expr(decode_expr(body), self, f"{template} maintainers")
            function = self.machine().run(node, [(), *(None,) * (size - 1)])
            self._template_functions[key] = function
        return function

    def choice_function(self, owner: ast.TypeConRef, part: str, choice_name: str) -> Any:
        """A choice's ``controllers``, ``choice observers`` or ``authorizers`` as a function of the contract (for
        an interface's choice, its interface value) and the choice argument. ``owner`` is the template or the
        interface declaring the choice. A choice without observers has none; asking for the authorizers of one
        without an explicit authority is an error (its authority is the default)."""
        key = (owner, part, choice_name)
        function = self._template_functions.get(key)
        if function is None:
            definition, choice = self._choice(owner, choice_name)
            params = (definition.param, choice.arg_binder)
            where = f"{owner} {part} {choice_name}"
            body = {
                "controllers": choice.controllers,
                "choice observers": choice.observers,
                "authorizers": choice.authorizers,
            }[part]
            if body is not None:
                function = self._closed_function(params, decode_expr(body), where)
            elif part == "choice observers":
                function = self._closed_function(params, _NIL, where)
            else:
                raise Crash(f"{owner} choice {choice_name} has no explicit authority")
            self._template_functions[key] = function
        return function

    def implements(self, template: ast.TypeConRef, interface: ast.TypeConRef) -> bool:
        return any(
            instance.interface == interface for instance in self.packages.template(template).implements
        )

    def top_level(self, ref: ast.ValueRef) -> TopLevel:
        top = self._top.get(ref)
        if top is None:
            self.packages.value(ref)  # an unknown reference fails here, when compiled, not when run
            top = self._top[ref] = TopLevel(self, ref)
        return top

    def record_fields(self, tycon: ast.TypeConRef) -> tuple[str, ...]:
        fields = self._records.get(tycon)
        if fields is None:
            cons = self.packages.data_type(tycon).cons
            if not isinstance(cons, ast.Record):
                raise MalformedArchive(f"{tycon} is not a record type")
            fields = self._records[tycon] = tuple(field.name for field in cons.fields)
        return fields

    def _rank(self, tycon: ast.TypeConRef, constructor: str, kind: type) -> int:
        ranks = self._ranks.get(tycon)
        if ranks is None:
            cons = self.packages.data_type(tycon).cons
            if isinstance(cons, ast.Variant) and kind is ast.Variant:
                names: tuple[str, ...] = tuple(field.name for field in cons.constructors)
            elif isinstance(cons, ast.Enum) and kind is ast.Enum:
                names = cons.constructors
            else:
                raise MalformedArchive(f"{tycon} is not a {kind.__name__.lower()} type")
            ranks = self._ranks[tycon] = {name: rank for rank, name in enumerate(names)}
        rank = ranks.get(constructor)
        if rank is None:
            raise MalformedArchive(f"{tycon} has no constructor {constructor}")
        return rank

    def variant_rank(self, tycon: ast.TypeConRef, constructor: str) -> int:
        return self._rank(tycon, constructor, ast.Variant)

    def enum_rank(self, tycon: ast.TypeConRef, constructor: str) -> int:
        return self._rank(tycon, constructor, ast.Enum)


def _key(template: ast.Template) -> ast.TemplateKey:
    if template.key is None:
        raise Crash(f"template {template.name} has no key")
    return template.key
