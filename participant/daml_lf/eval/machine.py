"""The machine that runs compiled Daml-LF code: an explicit continuation stack, so Daml recursion costs no Python
recursion.

A compiled node (``compile.Node``) is run by ``node.ev(machine, env)``, which either returns the node's value at
once or, to evaluate a sub-expression, pushes a continuation (what to do with the sub-expression's value) on
``machine.kont``, sets ``machine.ctrl``/``machine.env`` to the sub-expression and returns ``PENDING``. The loop in
``Machine.run`` then evaluates ``ctrl``; a value is handed to the continuation on top of the stack. A call in tail
position pushes nothing, so a tail-recursive Daml function runs in constant stack; a non-tail recursion grows
``kont``, a Python list, not the interpreter's stack.

``env`` is the frame of the function being run: ``env[0]`` holds the values the closure captured, ``env[1:]`` its
arguments then the slots of its ``let`` and ``case`` binders (see ``compile.py``).

Functions are ``Closure`` (a compiled lambda with its captured values), ``PartialApp`` (a function with some of its
arguments) and ``BuiltinFunction``. Builtins that call back into Daml code (``FOLDL``, ``FOLDR``, ``EQUAL_LIST``,
``ANY_EXCEPTION_MESSAGE``) run here, one element per continuation step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..ast import TCon
from .budget import CHECK_EVERY, MemoryExceeded, current
from .builtins import Builtin
from .errors import Crash, DamlArithmeticError, DamlThrow
from .values import NIL, AnyException, Cons, FunctionValue


class _Pending:
    __slots__ = ()

    def __repr__(self) -> str:
        return "PENDING"


PENDING: Any = _Pending()
"""Returned by ``ev``/``resume`` when the machine must go on with ``machine.ctrl`` in ``machine.env``."""


class Code:
    """A compiled lambda: ``arity`` parameters, ``locals`` more slots for its binders, and its body."""

    __slots__ = ("arity", "locals", "body", "name")

    def __init__(self, arity: int, name: str) -> None:
        self.arity = arity
        self.locals: tuple[None, ...] = ()  # set once the body is compiled
        self.body: Any = None
        self.name = name


class Closure(FunctionValue):
    __slots__ = ("code", "captured")

    def __init__(self, code: Code, captured: tuple[Any, ...]) -> None:
        self.code = code
        self.captured = captured

    def __repr__(self) -> str:
        return f"<closure {self.code.name}/{self.code.arity}>"


class BuiltinFunction(FunctionValue):
    __slots__ = ("builtin",)

    def __init__(self, builtin: Builtin) -> None:
        self.builtin = builtin

    def __repr__(self) -> str:
        return f"<builtin {self.builtin.name}>"


class PartialApp(FunctionValue):
    """A function applied to fewer arguments than it takes."""

    __slots__ = ("function", "args")

    def __init__(self, function: Closure | BuiltinFunction, args: tuple[Any, ...]) -> None:
        self.function = function
        self.args = args

    def __repr__(self) -> str:
        return f"<partial {self.function!r} {len(self.args)}>"


class Continuation:
    __slots__ = ()

    def resume(self, machine: Machine, value: Any) -> Any:
        raise NotImplementedError


class Machine:
    """One evaluation's registers and continuation stack.

    ``exception_message`` gives, for an exception type, the function value of its ``message`` definition: the
    machine needs it for ``ANY_EXCEPTION_MESSAGE`` and gets it from the program that owns the compiled code.
    ``arithmetic_error`` gives the standard library's ``ArithmeticError`` exception with a message, or None when
    the program has no such type: a failed builtin is thrown as that exception, which ``try … catch`` may take.
    """

    __slots__ = ("kont", "ctrl", "env", "exception_message", "arithmetic_error")

    def __init__(
        self,
        exception_message: Callable[[TCon], Any],
        arithmetic_error: Callable[[str], AnyException | None] = lambda message: None,
    ) -> None:
        self.kont: list[Continuation] = []
        self.ctrl: Any = None
        self.env: list[Any] = []
        self.exception_message = exception_message
        self.arithmetic_error = arithmetic_error

    def run(self, node: Any, env: list[Any]) -> Any:
        """The value of ``node`` in ``env``. Re-entrant: a run inside a run leaves the outer stack as it was.

        Under a budget (``budget.current()``) every step counts down to the budget's next check, which raises a
        ``BudgetExceeded`` to end the run; the stack is dropped as on any failure, so nothing half-done stays (a
        top-level value is kept only when its evaluation ends, see ``program.TopLevel``)."""
        kont = self.kont
        base = len(kont)
        budget = current()
        try:
            value = node.ev(self, env)
            if budget is None:
                while True:
                    if value is PENDING:
                        value = self.ctrl.ev(self, self.env)
                    elif len(kont) > base:
                        value = kont.pop().resume(self, value)
                    else:
                        return value
            # Both branches count: a fold of a builtin over a long list resumes without a PENDING step.
            countdown = budget.countdown
            try:
                while True:
                    countdown -= 1
                    if not countdown:
                        countdown = CHECK_EVERY
                        budget.check(len(kont))
                    if value is PENDING:
                        value = self.ctrl.ev(self, self.env)
                    elif len(kont) > base:
                        value = kont.pop().resume(self, value)
                    else:
                        return value
            finally:
                budget.countdown = countdown
        except DamlArithmeticError as error:
            exception = self.arithmetic_error(error.message)
            if exception is None:
                raise
            raise DamlThrow(exception) from None
        except MemoryError:
            # The allocation that failed is undone; what the run made is dropped with its stack below.
            raise MemoryExceeded("the evaluation ran out of memory") from None
        except RecursionError:
            # Python's own stack: exercises nested without end (each nests the engine's calls and a run), or a
            # value deeper than a builtin that recurses can walk.
            raise MemoryExceeded("the evaluation outgrew the interpreter's stack", "stack") from None
        finally:
            del kont[base:]

    def call(self, function: Any, *args: Any) -> Any:
        """``function`` applied to ``args``, run to a value."""
        return self.run(_Apply(function, args), [()])


class _Apply:
    """A node applying a function value already at hand (``Machine.call``)."""

    __slots__ = ("function", "args")

    def __init__(self, function: Any, args: tuple[Any, ...]) -> None:
        self.function = function
        self.args = args

    def ev(self, machine: Machine, env: list[Any]) -> Any:
        return apply(machine, self.function, self.args)


class KApply(Continuation):
    """Apply the value (a function) to the arguments left over by an over-application."""

    __slots__ = ("args",)

    def __init__(self, args: tuple[Any, ...]) -> None:
        self.args = args

    def resume(self, machine: Machine, value: Any) -> Any:
        return apply(machine, value, self.args)


def apply(machine: Machine, function: Any, args: tuple[Any, ...]) -> Any:
    """Apply ``function`` to ``args``: a value, or ``PENDING`` with the machine set to run the function's body."""
    while True:
        kind = type(function)
        if kind is Closure:
            code = function.code
            arity = code.arity
            given = len(args)
            if given == arity:
                frame = [function.captured, *args]
                frame.extend(code.locals)
                machine.ctrl = code.body
                machine.env = frame
                return PENDING
            if given < arity:
                return PartialApp(function, args)
            machine.kont.append(KApply(args[arity:]))
            frame = [function.captured, *args[:arity]]
            frame.extend(code.locals)
            machine.ctrl = code.body
            machine.env = frame
            return PENDING
        if kind is PartialApp:
            args = function.args + args
            function = function.function
            continue
        if kind is BuiltinFunction:
            builtin = function.builtin
            arity = builtin.arity
            given = len(args)
            if given < arity:
                return PartialApp(function, args)
            if given > arity:
                rest = args[arity:]
                args = args[:arity]
                if builtin.run is None:
                    machine.kont.append(KApply(rest))
                    return _MACHINE_BUILTINS[builtin.name](machine, *args)
                function = builtin.run(*args)
                args = rest
                continue
            if builtin.run is None:
                return _MACHINE_BUILTINS[builtin.name](machine, *args)
            return builtin.run(*args)
        raise Crash(f"applying a value that is not a function: {function!r}")


# --- Builtins that apply Daml functions, one step per element


class KFoldl(Continuation):
    __slots__ = ("function", "rest")

    def __init__(self, function: Any, rest: Any) -> None:
        self.function = function
        self.rest = rest

    def resume(self, machine: Machine, value: Any) -> Any:
        rest = self.rest
        if rest is NIL:
            return value
        self.rest = rest.tail
        machine.kont.append(self)
        return apply(machine, self.function, (value, rest.head))


def _foldl(machine: Machine, function: Any, initial: Any, items: Any) -> Any:
    if items is NIL:
        return initial
    machine.kont.append(KFoldl(function, items.tail))
    return apply(machine, function, (initial, items.head))


class KFoldr(Continuation):
    __slots__ = ("function", "items", "index")

    def __init__(self, function: Any, items: list[Any], index: int) -> None:
        self.function = function
        self.items = items
        self.index = index

    def resume(self, machine: Machine, value: Any) -> Any:
        index = self.index
        if index < 0:
            return value
        self.index = index - 1
        machine.kont.append(self)
        return apply(machine, self.function, (self.items[index], value))


def _foldr(machine: Machine, function: Any, initial: Any, items: Any) -> Any:
    # Strict: the last element is combined first, so the list is read into an array and walked from its end.
    elements = list(items)
    if not elements:
        return initial
    last = len(elements) - 1
    machine.kont.append(KFoldr(function, elements, last - 1))
    return apply(machine, function, (elements[last], initial))


class KEqualList(Continuation):
    __slots__ = ("function", "left", "right")

    def __init__(self, function: Any, left: Any, right: Any) -> None:
        self.function = function
        self.left = left
        self.right = right

    def resume(self, machine: Machine, value: Any) -> Any:
        if value is not True:
            return False
        return _equal_list(machine, self.function, self.left, self.right, self)


def _equal_list(
    machine: Machine, function: Any, left: Any, right: Any, step: KEqualList | None = None
) -> Any:
    if left is NIL or right is NIL:
        return left is right
    assert type(left) is Cons and type(right) is Cons
    if step is None:
        step = KEqualList(function, left.tail, right.tail)
    else:
        step.left = left.tail
        step.right = right.tail
    machine.kont.append(step)
    return apply(machine, function, (left.head, right.head))


def _any_exception_message(machine: Machine, exception: AnyException) -> Any:
    type_ = exception.type
    if not isinstance(type_, TCon):
        raise Crash(f"an exception of a type that is not an exception: {type_!r}")
    return apply(machine, machine.exception_message(type_), (exception.value,))


_MACHINE_BUILTINS: dict[str, Callable[..., Any]] = {
    "FOLDL": _foldl,
    "FOLDR": _foldr,
    "EQUAL_LIST": _equal_list,
    "ANY_EXCEPTION_MESSAGE": _any_exception_message,
}
