"""The ledger actions of a Daml-LF update, performed by the engine's `Update`: the evaluator's `LedgerActions`
over the engine's definitions.

Templates and interfaces named by the update are found among the packages of the running code; contract ids cross
as the evaluator's `ContractId` one way and the engine's text the other.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any, Protocol

from participant.base import errors
from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.engine.definitions import InterfaceDef, TemplateDef

if TYPE_CHECKING:
    from participant.daml_lf.eval.updates import LedgerActions
    from participant.engine.update import Update

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


class Definitions(Protocol):
    """Where the engine's definitions of the running code's templates and interfaces are found."""

    def template(self, ref: ast.TypeConRef) -> TemplateDef: ...

    def interface(self, ref: ast.TypeConRef) -> InterfaceDef: ...


@contextmanager
def catchable() -> Iterator[None]:
    """A Daml exception that a nested action (an exercise's body, a create's precondition) did not handle is the
    enclosing update's to catch: it was made the command's error where it left its choice, and is thrown again
    here, where a `try` of the update performing this action may take it."""
    try:
        yield
    except errors.LedgerError as failure:
        if failure.daml_exception is not None:
            raise failure.daml_exception from None
        raise


class EngineActions:
    def __init__(self, definitions: Definitions, update: Update) -> None:
        self.definitions = definitions
        self.update = update

    def _template(self, ref: ast.TypeConRef) -> TemplateDef:
        return self.definitions.template(ref)

    def _interface(self, ref: ast.TypeConRef) -> InterfaceDef:
        return self.definitions.interface(ref)

    async def create(self, template: ast.TypeConRef, argument: Any) -> Any:
        with catchable():
            return rt.ContractId(await self.update.create(self._template(template), argument))

    async def fetch(self, template: ast.TypeConRef, contract_id: Any) -> Any:
        return await self.update.fetch(str(contract_id), self._template(template))

    async def fetch_interface(self, interface: ast.TypeConRef, contract_id: Any) -> rt.Any:
        template, contract = await self.update.fetch_interface(str(contract_id), self._interface(interface))
        return self._interface(interface).to_interface(template, contract)

    async def exercise(self, template: ast.TypeConRef, choice: str, contract_id: Any, argument: Any) -> Any:
        definition = self._template(template).choices[choice]
        with catchable():
            return await self.update.exercise(str(contract_id), definition, argument)

    async def exercise_interface(
        self,
        interface: ast.TypeConRef,
        choice: str,
        contract_id: Any,
        argument: Any,
        guard: Callable[[rt.Any], bool] | None,
    ) -> Any:
        definition = self._interface(interface)
        if guard is not None:
            template, contract = await self.update.instance(str(contract_id))
            if not guard(definition.to_interface(template, contract)):
                raise errors.DAML_INTERPRETATION_ERROR(
                    f"Interpretation error: the guard of choice {choice} rejected contract {contract_id}"
                )
        with catchable():
            return await self.update.exercise(str(contract_id), definition.choices[choice], argument)

    async def exercise_by_key(self, template: ast.TypeConRef, choice: str, key: Any, argument: Any) -> Any:
        definition = self._template(template)
        with catchable():
            return await self.update.exercise_by_key(definition, key, definition.choices[choice], argument)

    async def fetch_by_key(self, template: ast.TypeConRef, key: Any) -> tuple[Any, Any]:
        contract_id, contract = await self.update.fetch_by_key(self._template(template), key)
        return rt.ContractId(contract_id), contract

    async def lookup_by_key(self, template: ast.TypeConRef, key: Any) -> Any | None:
        found = await self.update.lookup_by_key(self._template(template), key)
        return None if found is None else rt.ContractId(found)

    async def get_time(self) -> Any:
        return rt.Timestamp((self.update.ledger_time - _EPOCH) // _MICROSECOND)

    async def ledger_time_lt(self, time: Any) -> bool:
        return bool(await self.get_time() < time)

    # A `try` whose body finishes keeps its actions; one an exception leaves is rolled back.

    def begin_try(self) -> Any:
        return self.update.rollback_point()

    def end_try(self, token: Any) -> None:
        pass

    def rollback_try(self, token: Any) -> None:
        self.update.roll_back(token)


if TYPE_CHECKING:

    def _implements_the_protocol(actions: EngineActions) -> LedgerActions:
        return actions
