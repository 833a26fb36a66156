"""Update values, and the runner that performs them against a ledger.

Evaluating an update expression performs nothing: it yields an *update value* (one of the classes below), a
description of the action with its operands already evaluated, as a lambda yields a closure. ``run_update`` then
performs an update value: each ledger action is a call of the ``LedgerActions`` protocol, which the engine
implements; a ``ubind`` block is ``Bind(first, then)``, ``then`` the function of the first action's result that
gives the rest of the block. The runner keeps its own stack of what to do with each result, so a chain of binds,
however long, costs no Python recursion.

``try … catch`` runs its body inside a savepoint of the ledger actions (``begin_try``); a Daml exception thrown
by the body unwinds the stack to the innermost handler, which is applied to the exception: ``Some update`` rolls
the body's actions back (``rollback_try``) and runs the handler's update, ``None`` lets the exception go on.

The runner shares its thread with whatever else the event loop serves: before a ledger action it yields to the loop
once it has run ``SLICE_S`` since it last did, so a long transaction (an Amulet transfer takes about 5 ms) lets
other requests in along the way instead of holding them up until it ends.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .. import ast
from .errors import Crash, DamlThrow
from .machine import Machine
from .values import Any as AnyValue
from .values import FunctionValue, Record, Some


class UpdateValue(FunctionValue):
    """The base of update values: like functions, they are not comparable."""

    __slots__ = ()


@dataclass(frozen=True, slots=True, eq=False)
class Pure(UpdateValue):
    value: Any


@dataclass(frozen=True, slots=True, eq=False)
class Bind(UpdateValue):
    first: UpdateValue
    then: Any  # a function value: the first update's result → the update to run next


@dataclass(frozen=True, slots=True, eq=False)
class Embed(UpdateValue):
    body: Any  # a function of no argument whose value is the update to run


@dataclass(frozen=True, slots=True, eq=False)
class TryCatch(UpdateValue):
    body: Any  # a function of no argument: the update tried
    handler: Any  # AnyException → Optional (Update τ)


@dataclass(frozen=True, slots=True, eq=False)
class Create(UpdateValue):
    template: ast.TypeConRef
    argument: Any


@dataclass(frozen=True, slots=True, eq=False)
class CreateInterface(UpdateValue):
    interface: ast.TypeConRef
    value: AnyValue  # the interface value: the contract with its template's type


@dataclass(frozen=True, slots=True, eq=False)
class Fetch(UpdateValue):
    template: ast.TypeConRef
    contract_id: Any


@dataclass(frozen=True, slots=True, eq=False)
class FetchInterface(UpdateValue):
    interface: ast.TypeConRef
    contract_id: Any


@dataclass(frozen=True, slots=True, eq=False)
class Exercise(UpdateValue):
    template: ast.TypeConRef
    choice: str
    contract_id: Any
    argument: Any


@dataclass(frozen=True, slots=True, eq=False)
class ExerciseInterface(UpdateValue):
    interface: ast.TypeConRef
    choice: str
    contract_id: Any
    argument: Any
    guard: Any  # None, or a function from the interface value to Bool


@dataclass(frozen=True, slots=True, eq=False)
class ExerciseByKey(UpdateValue):
    template: ast.TypeConRef
    choice: str
    key: Any
    argument: Any


@dataclass(frozen=True, slots=True, eq=False)
class FetchByKey(UpdateValue):
    template: ast.TypeConRef
    key: Any


@dataclass(frozen=True, slots=True, eq=False)
class LookupByKey(UpdateValue):
    template: ast.TypeConRef
    key: Any


@dataclass(frozen=True, slots=True, eq=False)
class GetTime(UpdateValue):
    pass


@dataclass(frozen=True, slots=True, eq=False)
class LedgerTimeLt(UpdateValue):
    time: Any


GET_TIME = GetTime()


class LedgerActions(Protocol):
    """What an update does to a ledger; values are the evaluator's runtime values, templates and interfaces
    references to their definitions."""

    async def create(self, template: ast.TypeConRef, argument: Any) -> Any:
        """Create a contract; its contract id."""

    async def fetch(self, template: ast.TypeConRef, contract_id: Any) -> Any:
        """The contract's argument, the contract being of ``template``."""

    async def fetch_interface(self, interface: ast.TypeConRef, contract_id: Any) -> AnyValue:
        """The contract as a value of ``interface`` (its argument with its template's type)."""

    async def exercise(self, template: ast.TypeConRef, choice: str, contract_id: Any, argument: Any) -> Any:
        """Exercise a choice of a template; its result."""

    async def exercise_interface(
        self,
        interface: ast.TypeConRef,
        choice: str,
        contract_id: Any,
        argument: Any,
        guard: Callable[[AnyValue], bool] | None,
    ) -> Any:
        """Exercise an interface's choice; ``guard``, if any, must accept the contract's interface value."""

    async def exercise_by_key(
        self, template: ast.TypeConRef, choice: str, key: Any, argument: Any
    ) -> Any: ...

    async def fetch_by_key(self, template: ast.TypeConRef, key: Any) -> tuple[Any, Any]:
        """The contract id and argument of the contract with ``key``."""

    async def lookup_by_key(self, template: ast.TypeConRef, key: Any) -> Any | None:
        """The contract id of the contract with ``key``, or None."""

    async def get_time(self) -> Any:
        """The ledger time, a ``Timestamp``."""

    async def ledger_time_lt(self, time: Any) -> bool: ...

    def begin_try(self) -> Any:
        """Mark the start of a ``try`` body: a token for ``end_try`` or ``rollback_try``."""

    def end_try(self, token: Any) -> None:
        """The body ran to its end: its actions stand."""

    def rollback_try(self, token: Any) -> None:
        """An exception left the body: its actions are rolled back."""


@dataclass(slots=True)
class _Then:
    function: Any


@dataclass(slots=True)
class _Catch:
    handler: Any
    token: Any


def template_of(value: AnyValue) -> ast.TypeConRef:
    type_ = value.type
    if not isinstance(type_, ast.TCon):
        raise Crash(f"an interface value whose type is not a template: {type_!r}")
    return type_.tycon


SLICE_S = 0.001


async def run_update(
    machine: Machine, update: Any, actions: LedgerActions, tuple2: Callable[[Any, Any], Record]
) -> Any:
    """Perform ``update`` against ``actions``; its result. ``tuple2`` builds the standard library's pair that
    ``fetch_by_key`` returns."""
    stack: list[_Then | _Catch] = []
    current: Any = update
    ran_since = time.perf_counter()
    while True:
        try:
            kind = type(current)
            if kind is Bind:
                stack.append(_Then(current.then))
                current = current.first
                continue
            if kind is Embed:
                current = machine.call(current.body)
                continue
            if kind is TryCatch:
                stack.append(_Catch(current.handler, actions.begin_try()))
                current = machine.call(current.body)
                continue
            if time.perf_counter() - ran_since >= SLICE_S:
                await asyncio.sleep(0)
                ran_since = time.perf_counter()
            result = await _perform(machine, current, actions, tuple2)
            while stack:
                frame = stack.pop()
                if type(frame) is _Then:
                    current = machine.call(frame.function, result)
                    break
                assert type(frame) is _Catch
                actions.end_try(frame.token)
            else:
                return result
        except DamlThrow as thrown:
            current = _handle(machine, stack, actions, thrown)


def _handle(machine: Machine, stack: list[_Then | _Catch], actions: LedgerActions, thrown: DamlThrow) -> Any:
    """The update a handler gives for ``thrown``, the stack unwound to that handler's frame; re-raises the
    exception when no handler takes it."""
    while stack:
        frame = stack.pop()
        if type(frame) is not _Catch:
            continue
        actions.rollback_try(frame.token)
        try:
            handled = machine.call(frame.handler, thrown.payload)
        except DamlThrow as again:  # the handler threw: its exception goes on to the handlers further out
            thrown = again
            continue
        if handled is not None:
            assert type(handled) is Some
            return handled.value
    raise thrown


async def _perform(
    machine: Machine, update: Any, actions: LedgerActions, tuple2: Callable[[Any, Any], Record]
) -> Any:
    kind = type(update)
    if kind is Pure:
        return update.value
    if kind is Create:
        return await actions.create(update.template, update.argument)
    if kind is Exercise:
        return await actions.exercise(update.template, update.choice, update.contract_id, update.argument)
    if kind is Fetch:
        return await actions.fetch(update.template, update.contract_id)
    if kind is CreateInterface:
        return await actions.create(template_of(update.value), update.value.value)
    if kind is FetchInterface:
        return await actions.fetch_interface(update.interface, update.contract_id)
    if kind is ExerciseInterface:
        guard = update.guard
        check = None if guard is None else (lambda value: machine.call(guard, value) is True)
        return await actions.exercise_interface(
            update.interface, update.choice, update.contract_id, update.argument, check
        )
    if kind is ExerciseByKey:
        return await actions.exercise_by_key(update.template, update.choice, update.key, update.argument)
    if kind is FetchByKey:
        contract_id, contract = await actions.fetch_by_key(update.template, update.key)
        return tuple2(contract_id, contract)
    if kind is LookupByKey:
        found = await actions.lookup_by_key(update.template, update.key)
        return None if found is None else Some(found)
    if kind is GetTime:
        return await actions.get_time()
    if kind is LedgerTimeLt:
        return await actions.ledger_time_lt(update.time)
    raise Crash(f"running a value that is not an update: {update!r}")
