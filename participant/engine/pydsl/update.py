"""The `tx` a DSL choice body receives: the engine's update context, addressed with the model's classes
(`tx.fetch(cid, Iou)`, `tx.create(Iou(...))`, `tx.exercise_by_key(Account, key, "Deposit", amount=...)`)."""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar, cast

from participant.engine import update as engine

if TYPE_CHECKING:
    from participant.engine.definitions import ChoiceDef
    from participant.engine.pydsl.records import Record
    from participant.engine.pydsl.templates import Template
    from participant.engine.pydsl.types import ContractId

T = TypeVar("T", bound="Template")


class Update:
    """Daml's `Update`: every ledger action is awaited, since reading contracts may hit the store."""

    def __init__(self, update: engine.Update) -> None:
        self._update = update

    @property
    def ledger_time(self) -> datetime:
        """Daml's `getTime`."""
        return self._update.ledger_time

    @property
    def authorizers(self) -> frozenset[str]:
        return self._update.authorizers

    def abort(self, message: str) -> NoReturn:
        self._update.abort(message)

    def assert_msg(self, message: str, condition: bool) -> None:
        """Daml's `assertMsg message condition`."""
        self._update.assert_msg(message, condition)

    # A contract id is its string; `ContractId[T]` tells the type checker which template's, known here from the
    # contract or the template given, hence the casts.

    async def create(self, contract: T) -> ContractId[T]:
        return cast("ContractId[T]", await self._update.create(type(contract).__daml__, contract))

    async def exercise(
        self, contract_id: str, choice: str | ChoiceDef, argument: Record | None = None, **arguments: Any
    ) -> Any:
        """Exercise a choice (its name, or the choice itself as `Iou.Iou_Split`) with its argument record or the
        argument fields as keywords; returns the choice's result."""
        return await self._update.exercise(contract_id, choice, argument, **arguments)

    async def archive(self, contract_id: str) -> None:
        await self._update.archive(contract_id)

    async def fetch(self, contract_id: str, template: type[T]) -> T:
        return await self._update.fetch(contract_id, template.__daml__)

    async def lookup_by_key(self, template: type[T], key: Any) -> ContractId[T] | None:
        """Daml's `lookupByKey`: None when no visible contract has the key."""
        return cast("ContractId[T] | None", await self._update.lookup_by_key(template.__daml__, key))

    async def fetch_by_key(self, template: type[T], key: Any) -> tuple[ContractId[T], T]:
        contract_id, contract = await self._update.fetch_by_key(template.__daml__, key)
        return cast("ContractId[T]", contract_id), contract

    async def exercise_by_key(
        self,
        template: type[Template],
        key: Any,
        choice: str | ChoiceDef,
        argument: Record | None = None,
        **arguments: Any,
    ) -> Any:
        return await self._update.exercise_by_key(template.__daml__, key, choice, argument, **arguments)
