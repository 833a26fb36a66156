"""The ledger actions a choice body performs (`tx` in a model), with the Daml ledger model's authorization rules.

Authorizers are the submission's actAs parties at the top level, and inside a choice the choice's controllers together
with the exercised contract's signatories. Each action appends its node in pre-order; node ids are positions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NoReturn, TypeVar

from participant import errors
from participant.engine import ids
from participant.engine.interfaces import Interface
from participant.engine.ledger_view import LedgerView
from participant.engine.records import Record
from participant.engine.templates import ChoiceDef, Template
from participant.engine.values import DamlType
from participant.transactions import Contract, CreateNode, ExerciseNode, FetchNode, Node

T = TypeVar("T", bound=Template)

ASSERTION_FAILED = "DA.Exception.AssertionFailed:AssertionFailed"
PRECONDITION_FAILED = "DA.Exception.PreconditionFailed:PreconditionFailed"


class DamlAssertionError(Exception):
    """Raised by model code (`tx.abort`, `tx.assert_msg`): the submission fails with UNHANDLED_EXCEPTION."""


def unhandled_exception(exception_type: str, message: str) -> errors.LedgerError:
    return errors.UNHANDLED_EXCEPTION(
        f"Unhandled Daml exception: {exception_type}{{ message = {json.dumps(message)} }}",
        resources=[("EXCEPTION_TYPE", exception_type), ("EXCEPTION_VALUE", message)],
    )


def failure_of(error: Exception) -> errors.LedgerError | None:
    """The Canton error a failure raised by model code stands for, or None when it is no Daml failure."""
    if isinstance(error, errors.LedgerError):
        return error
    if isinstance(error, DamlAssertionError):
        return unhandled_exception(ASSERTION_FAILED, str(error))
    if isinstance(error, ArithmeticError):  # Daml raises ArithmeticError for overflow and division by zero
        return unhandled_exception("DA.Exception.ArithmeticError:ArithmeticError", str(error))
    return None


def does_not_implement(contract: Contract, interface: type[Interface]) -> errors.LedgerError:
    """Daml's ContractDoesNotImplementInterface, worded as the engine renders it (type names with the first 8
    characters of their package id)."""

    def short(type_id: str) -> str:
        package_id, _, qualified_name = type_id.partition(":")
        return f"{qualified_name}@{package_id[:8]}"

    interface_id = interface.interface_id()
    return errors.CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE(
        f"Update failed due to contract {contract.contract_id} not implementing an interface\n"
        f"Expected contract to implement interface {short(interface_id)} but contract has type "
        f"{short(contract.template_id)}",
        resources=[
            ("CONTRACT_ID", contract.contract_id),
            ("TEMPLATE_ID", contract.template_id),
            ("INTERFACE_ID", interface_id),
        ],
    )


def _parties(parties: Iterable[str]) -> str:
    return ",".join(sorted(parties))


def _encode(daml_type: DamlType, value: Any, what: str) -> Any:
    """Values computed by model code are encoded without a request to blame: a misfit is an interpretation error."""
    try:
        return daml_type.encode(value)
    except (ValueError, TypeError, AttributeError) as error:
        raise errors.DAML_INTERPRETATION_ERROR(f"{what} is not a valid {daml_type.name}: {error}") from None


@dataclass
class TransactionBuilder:
    """The transaction being built: the view of the ledger plus the nodes so far."""

    view: LedgerView
    ids: ids.IdGenerator
    ledger_time: datetime
    synchronizer_id: str
    nodes: list[Node] = field(default_factory=list)
    roots: list[int] = field(default_factory=list)

    def add(self, node: Node, siblings: list[int]) -> None:
        self.nodes.append(node)
        siblings.append(node.node_id)


class Update:
    """The `tx` a choice body receives. Every ledger action is awaited, since reading contracts may hit the store."""

    def __init__(
        self, transaction: TransactionBuilder, authorizers: frozenset[str], children: list[int]
    ) -> None:
        self._tx = transaction
        self._view = transaction.view
        self.authorizers = authorizers
        self._children = children

    @property
    def ledger_time(self) -> datetime:
        """Daml's `getTime`."""
        return self._tx.ledger_time

    def abort(self, message: str) -> NoReturn:
        raise DamlAssertionError(message)

    def assert_msg(self, message: str, condition: bool) -> None:
        """Daml's `assertMsg message condition`."""
        if not condition:
            raise DamlAssertionError(message)

    def _unauthorized(self, node_id: int, template_id: str, required: Iterable[str]) -> errors.LedgerError:
        return errors.DAML_AUTHORIZATION_ERROR(
            f"node NodeId({node_id}) ({template_id}) requires authorizers {_parties(required)}, "
            f"but only {_parties(self.authorizers)} were given"
        )

    # --- create

    async def create(self, contract: Template) -> str:
        template = type(contract)
        template_id, package = template.template_id(), template.__daml__.package
        argument = _encode(template.daml_type(), contract, f"The argument of {template_id}")
        if not contract.ensure():
            raise unhandled_exception(PRECONDITION_FAILED, f"Template precondition violated: {template_id}")
        signatories = sorted(set(contract.signatory()))
        observers = sorted(set(contract.observer()) - set(signatories))
        node_id = len(self._tx.nodes)
        if not signatories:
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"node NodeId({node_id}) ({template_id}) has no signatories"
            )
        if not set(signatories) <= self.authorizers:
            raise self._unauthorized(node_id, template_id, signatories)
        key_json, key_hash = await self._claim_key(template, contract, signatories, node_id)
        created = Contract(
            contract_id=self._tx.ids.contract_id(),
            template_id=template_id,
            package_name=package.name,
            argument=argument,
            signatories=tuple(signatories),
            observers=tuple(observers),
            key=key_json,
            key_hash=key_hash,
            created_at=self._tx.ledger_time,
            synchronizer_id=self._tx.synchronizer_id,
        )
        self._tx.add(CreateNode(node_id, created), self._children)
        self._view.record_create(created, contract)
        return created.contract_id

    async def _claim_key(
        self, template: type[Template], contract: Template, signatories: list[str], node_id: int
    ) -> tuple[Any, str]:
        if template.key is None:
            return None, ""
        key_value = template.key.of(contract)
        key_json, key_hash = self._key_hash(template, key_value)
        maintainers = set(template.key.maintainer(key_value))
        if not maintainers or not maintainers <= set(signatories):
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"node NodeId({node_id}) ({template.template_id()}) has maintainers {_parties(maintainers)} "
                f"which are not a subset of the signatories {_parties(signatories)}"
            )
        if await self._view.key_holder(template, key_hash) is not None:
            raise errors.DUPLICATE_CONTRACT_KEY(resources=[("TEMPLATE_ID", template.template_id())])
        return key_json, key_hash

    @staticmethod
    def _key_hash(template: type[Template], key_value: Any) -> tuple[Any, str]:
        key_type = template.key_type()
        if key_type is None:
            raise errors.INVALID_ARGUMENT(f"Template {template.__daml__.qualified_name} has no contract key")
        key_json = _encode(key_type, key_value, f"The key of {template.template_id()}")
        return key_json, ids.contract_key_hash(
            template.__daml__.package.name, template.__daml__.qualified_name, key_json
        )

    # --- exercise

    async def exercise(
        self, contract_id: str, choice: str | ChoiceDef, argument: Record | None = None, **arguments: Any
    ) -> Any:
        """Exercise a choice (its name, or the choice itself as `Iou.Iou_Split`) with its argument record or the
        argument fields as keywords; returns the choice's result."""
        expected = choice.template if isinstance(choice, ChoiceDef) else None
        name = choice.name if isinstance(choice, ChoiceDef) else choice
        contract = await self._view.active(contract_id)
        interface = expected if isinstance(expected, type) and issubclass(expected, Interface) else None
        template = self._view.template_of(contract, None if interface else expected)
        if interface is not None and template.instance_of(interface) is None:
            raise does_not_implement(contract, interface)
        target = interface or template
        definition = target.choices().get(name)
        if definition is None:
            raise errors.INVALID_ARGUMENT(
                f"Invalid template:{target.__daml__.qualified_name} or choice:{name}"
            )
        if argument is None:
            try:
                argument = definition.argument(**arguments)
            except TypeError as error:
                raise errors.DAML_INTERPRETATION_ERROR(f"Bad argument for choice {name}: {error}") from None
        return await self.exercise_checked(contract, template, definition, argument)

    async def exercise_checked(
        self, contract: Contract, template: type[Template], definition: ChoiceDef, argument: Record
    ) -> Any:
        """Exercise with everything resolved: authorize, add the node, consume, run the body. An interface choice
        sees the contract as its interface value."""
        instance: Template | Interface = self._view.instance(contract, template)
        interface = definition.template if issubclass(definition.template, Interface) else None
        if interface is not None:
            instance = interface(instance)
        controllers = sorted(set(definition.controllers(instance, argument)))
        node_id = len(self._tx.nodes)
        if not controllers:
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"node NodeId({node_id}) ({contract.template_id}) choice {definition.name} has no controllers"
            )
        if not set(controllers) <= self.authorizers:
            raise self._unauthorized(node_id, contract.template_id, controllers)
        node = ExerciseNode(
            node_id=node_id,
            contract_id=contract.contract_id,
            template_id=contract.template_id,
            package_name=contract.package_name,
            choice=definition.name,
            interface_id=None if interface is None else interface.interface_id(),
            choice_argument=_encode(
                definition.argument.daml_type(), argument, f"The argument of {definition.name}"
            ),
            acting_parties=tuple(controllers),
            consuming=definition.consuming,
            stakeholders=tuple(sorted(contract.stakeholders)),
            signatories=contract.signatories,
            choice_observers=tuple(sorted(set(definition.observers(instance, argument)))),
        )
        self._tx.add(node, self._children)
        if definition.consuming:
            self._view.record_consume(contract)  # before the body: the body cannot use the contract again
        body_authority = frozenset(controllers) | frozenset(contract.signatories)
        inner = Update(self._tx, body_authority, node.children)
        result = await definition.body(instance, inner, **argument.field_values())
        node.exercise_result = _encode(definition.returns, result, f"The result of {definition.name}")
        node.last_descendant_node_id = len(self._tx.nodes) - 1
        return result

    async def archive(self, contract_id: str) -> None:
        await self.exercise(contract_id, "Archive")

    # --- fetch

    async def fetch(self, contract_id: str, template: type[T]) -> T:
        contract = await self._view.active(contract_id)
        return self._fetch_node(contract, self._view.template_of(contract, template))  # type: ignore[return-value]

    def _fetch_node(self, contract: Contract, template: type[Template]) -> Template:
        node_id = len(self._tx.nodes)
        actors = self.authorizers & contract.stakeholders
        if not actors:
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"node NodeId({node_id}) ({contract.template_id}) requires one of the stakeholders "
                f"{_parties(contract.stakeholders)} of the fetched contract to be an authorizer, "
                f"but authorizers were {_parties(self.authorizers)}"
            )
        self._tx.add(
            FetchNode(
                node_id,
                contract.contract_id,
                contract.template_id,
                tuple(sorted(actors)),
                tuple(sorted(contract.stakeholders)),
            ),
            self._children,
        )
        return self._view.instance(contract, template)

    # --- by key

    async def lookup_by_key(self, template: type[Template], key: Any) -> str | None:
        """Daml's `lookupByKey`: needs the authority of all maintainers; None when no visible contract has it."""
        key_json, key_hash = self._key_hash(template, key)
        maintainers = set(template.key.maintainer(key))  # type: ignore[union-attr]
        if not maintainers <= self.authorizers:
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"lookup by key of {template.template_id()} requires authorizers {_parties(maintainers)}, "
                f"but only {_parties(self.authorizers)} were given"
            )
        holder = await self._view.key_holder(template, key_hash)
        return holder.contract_id if holder is not None and self._view.visible(holder) else None

    async def _holder(self, template: type[Template], key: Any) -> Contract:
        key_json, key_hash = self._key_hash(template, key)
        holder = await self._view.key_holder(template, key_hash)
        if holder is None or not self._view.visible(holder):
            raise errors.CONTRACT_KEY_NOT_FOUND(
                json.dumps(key_json), resources=[("TEMPLATE_ID", template.template_id())]
            )
        return holder

    async def fetch_by_key(self, template: type[T], key: Any) -> tuple[str, T]:
        holder = await self._holder(template, key)
        return holder.contract_id, self._fetch_node(holder, self._view.template_of(holder, template))  # type: ignore[return-value]

    async def exercise_by_key(
        self,
        template: type[Template],
        key: Any,
        choice: str | ChoiceDef,
        argument: Record | None = None,
        **arguments: Any,
    ) -> Any:
        holder = await self._holder(template, key)
        if isinstance(choice, str):
            choice = template.choices().get(choice) or choice
        return await self.exercise(holder.contract_id, choice, argument, **arguments)
