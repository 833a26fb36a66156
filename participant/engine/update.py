"""The ledger actions a choice body performs (`tx` in a model), with the Daml ledger model's authorization rules.

Authorizers are the submission's actAs parties at the top level, and inside a choice the choice's controllers together
with the exercised contract's signatories. Each action appends its node in pre-order; node ids are positions.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NoReturn

from participant.base import errors
from participant.base.transactions import Contract, CreateNode, ExerciseNode, FetchNode, Node
from participant.daml_lf.eval.budget import BudgetExceeded
from participant.engine import ids
from participant.engine.budget_errors import budget_failure
from participant.engine.coding import encode
from participant.engine.definitions import ChoiceDef, InterfaceDef, TemplateDef
from participant.engine.ledger_view import LedgerView, ViewMark

ASSERTION_FAILED = "DA.Exception.AssertionFailed:AssertionFailed"
PRECONDITION_FAILED = "DA.Exception.PreconditionFailed:PreconditionFailed"


class DamlAssertionError(Exception):
    """Raised by model code (`tx.abort`, `tx.assert_msg`): the standard library's AssertionFailed, uncaught."""


def unhandled_exception(exception_type: str, message: str) -> errors.LedgerError:
    """A Daml exception no handler took, as the reference's error table and Canton's `UnhandledException` give it
    (docs/ledger-api.md §6.4): UNHANDLED_EXCEPTION in category 9 (FAILED_PRECONDITION, 400). The cause is what
    Daml's engine renders for it, "User failure: UNHANDLED_EXCEPTION/<type> (error category 9): <message>", closed
    by the period Canton's rejection adds; the resources name the exception's type (`Module:Name`) and its
    message."""
    category = errors.UNHANDLED_EXCEPTION.category
    return errors.UNHANDLED_EXCEPTION(
        f"UNHANDLED_EXCEPTION/{exception_type} (error category {int(category)}): {message}.",
        resources=[("EXCEPTION_TYPE", exception_type), ("EXCEPTION_VALUE", message)],
    )


def failure_of(error: Exception) -> errors.LedgerError | None:
    """The Canton error a failure raised by model code stands for (or an evaluation that outgrew its budget), or
    None when it is no Daml failure."""
    if isinstance(error, errors.LedgerError):
        return error
    if isinstance(error, BudgetExceeded):
        return budget_failure(error)
    if isinstance(error, DamlAssertionError):
        return unhandled_exception(ASSERTION_FAILED, str(error))
    if isinstance(error, ArithmeticError):  # Daml raises ArithmeticError for overflow and division by zero
        return unhandled_exception("DA.Exception.ArithmeticError:ArithmeticError", str(error))
    return None


def does_not_implement(contract: Contract, interface: InterfaceDef) -> errors.LedgerError:
    """Daml's ContractDoesNotImplementInterface, worded as the engine renders it (type names with the first 8
    characters of their package id)."""

    def short(type_id: str) -> str:
        package_id, _, qualified_name = type_id.partition(":")
        return f"{qualified_name}@{package_id[:8]}"

    interface_id = interface.interface_id
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


@dataclass(frozen=True)
class RollbackPoint:
    nodes: int
    children: int
    view: ViewMark


class Update:
    """What a choice body acts on the ledger with. Templates, choices and values are the engine's (see
    `participant.engine.definitions`). Every ledger action is awaited, since reading contracts may hit the store."""

    def __init__(
        self,
        transaction: TransactionBuilder,
        authorizers: frozenset[str],
        children: list[int],
        exercised_contract_id: str = "",
    ) -> None:
        self._tx = transaction
        self._view = transaction.view
        self.authorizers = authorizers
        self._children = children
        self.exercised_contract_id = exercised_contract_id  # inside a choice: the contract it is exercised on

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

    async def create(self, template: TemplateDef, contract: Any) -> str:
        """Create a contract (a value of the template's `argument_type`); returns its contract id."""
        template_id, package = template.template_id, template.package
        argument = encode(template.argument_type, contract, f"The argument of {template_id}")
        if not template.ensure(contract):
            raise unhandled_exception(PRECONDITION_FAILED, f"Template precondition violated: {template_id}")
        signatories = sorted(set(template.signatories(contract)))
        observers = sorted(set(template.observers(contract)) - set(signatories))
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
        self._view.record_create(created, template, contract)
        return created.contract_id

    async def _claim_key(
        self, template: TemplateDef, contract: Any, signatories: list[str], node_id: int
    ) -> tuple[Any, str]:
        if template.key_type is None:
            return None, ""
        key_value = template.key(contract)
        key_json, key_hash = self._key_hash(template, key_value)
        maintainers = set(template.maintainers(key_value))
        if not maintainers or not maintainers <= set(signatories):
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"node NodeId({node_id}) ({template.template_id}) has maintainers {_parties(maintainers)} "
                f"which are not a subset of the signatories {_parties(signatories)}"
            )
        if await self._view.key_holder(template, key_hash) is not None:
            raise errors.DUPLICATE_CONTRACT_KEY(resources=[("TEMPLATE_ID", template.template_id)])
        return key_json, key_hash

    @staticmethod
    def _key_hash(template: TemplateDef, key_value: Any) -> tuple[Any, str]:
        key_type = template.key_type
        if key_type is None:
            raise errors.INVALID_ARGUMENT(f"Template {template.qualified_name} has no contract key")
        key_json = encode(key_type, key_value, f"The key of {template.template_id}")
        return key_json, ids.contract_key_hash(template.package.name, template.qualified_name, key_json)

    # --- exercise

    async def exercise(
        self, contract_id: str, choice: str | ChoiceDef, argument: Any = None, **arguments: Any
    ) -> Any:
        """Exercise a choice (its name, or the choice itself) with its argument, or the argument's fields as
        keywords; returns the choice's result. A choice itself says which template or interface it expects."""
        if isinstance(choice, str):
            name, expected_template, interface = choice, None, None
        else:
            name, expected_template, interface = choice.name, choice.template, choice.interface
        contract = await self._view.active(contract_id)
        template = self._view.template_of(contract, expected_template)
        if interface is not None and template.instance_of(interface) is None:
            raise does_not_implement(contract, interface)
        target: TemplateDef | InterfaceDef = interface or template
        definition = target.choices.get(name)
        if definition is None:
            raise errors.INVALID_ARGUMENT(f"Invalid template:{target.qualified_name} or choice:{name}")
        if argument is None:
            try:
                argument = definition.argument_type.from_fields(arguments)
            except TypeError as error:
                raise errors.DAML_INTERPRETATION_ERROR(f"Bad argument for choice {name}: {error}") from None
        return await self.exercise_checked(contract, template, definition, argument)

    async def exercise_checked(
        self, contract: Contract, template: TemplateDef, definition: ChoiceDef, argument: Any
    ) -> Any:
        """Exercise with everything resolved: authorize, add the node, consume, run the body. An interface choice
        sees the contract as its interface value."""
        target = self._view.instance(contract, template)
        interface = definition.interface
        if interface is not None:
            target = interface.to_interface(template, target)
        controllers = sorted(set(definition.controllers(target, argument)))
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
            interface_id=None if interface is None else interface.interface_id,
            choice_argument=encode(definition.argument_type, argument, f"The argument of {definition.name}"),
            acting_parties=tuple(controllers),
            consuming=definition.consuming,
            stakeholders=tuple(sorted(contract.stakeholders)),
            signatories=contract.signatories,
            choice_observers=tuple(sorted(set(definition.observers(target, argument)))),
        )
        self._tx.add(node, self._children)
        if definition.consuming:
            self._view.record_consume(contract)  # before the body: the body cannot use the contract again
        authority = definition.authorizers(target, argument)
        if authority is None:
            authority = [*controllers, *contract.signatories]
        inner = Update(self._tx, frozenset(authority), node.children, contract.contract_id)
        result = await definition.run(target, inner, argument)
        node.exercise_result = encode(definition.result_type, result, f"The result of {definition.name}")
        node.last_descendant_node_id = len(self._tx.nodes) - 1
        return result

    async def archive(self, contract_id: str) -> None:
        await self.exercise(contract_id, "Archive")

    # --- fetch

    async def fetch(self, contract_id: str, template: TemplateDef) -> Any:
        contract = await self._view.active(contract_id)
        return self._fetch_node(contract, self._view.template_of(contract, template))

    async def fetch_interface(self, contract_id: str, interface: InterfaceDef) -> tuple[TemplateDef, Any]:
        """Fetch a contract through an interface it implements: its template and argument."""
        contract = await self._view.active(contract_id)
        template = self._view.template_of(contract, None)
        if template.instance_of(interface) is None:
            raise does_not_implement(contract, interface)
        return template, self._fetch_node(contract, template)

    async def instance(self, contract_id: str) -> tuple[TemplateDef, Any]:
        """An active contract's template and argument, read without a fetch node."""
        contract = await self._view.active(contract_id)
        template = self._view.template_of(contract, None)
        return template, self._view.instance(contract, template)

    # --- rollback

    def rollback_point(self) -> RollbackPoint:
        """Where a `try` body starts: `roll_back` to it undoes what the body did."""
        return RollbackPoint(len(self._tx.nodes), len(self._children), self._view.mark())

    def roll_back(self, point: RollbackPoint) -> None:
        """Undo the actions since ``point``: the transaction loses their nodes (Daml's rollback node, whose
        subtree no party's view of the transaction shows, is left out altogether) and the rest of the
        transaction sees the ledger as it was at ``point``. Node ids stay positions: later nodes take the
        dropped ones' places."""
        del self._tx.nodes[point.nodes :]
        del self._children[point.children :]
        self._view.roll_back(point.view)

    def _fetch_node(self, contract: Contract, template: TemplateDef) -> Any:
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

    async def lookup_by_key(self, template: TemplateDef, key: Any) -> str | None:
        """Daml's `lookupByKey`: needs the authority of all maintainers; None when no visible contract has it."""
        key_json, key_hash = self._key_hash(template, key)
        maintainers = set(template.maintainers(key))
        if not maintainers <= self.authorizers:
            raise errors.DAML_AUTHORIZATION_ERROR(
                f"lookup by key of {template.template_id} requires authorizers {_parties(maintainers)}, "
                f"but only {_parties(self.authorizers)} were given"
            )
        holder = await self._view.key_holder(template, key_hash)
        return holder.contract_id if holder is not None and self._view.visible(holder) else None

    async def _holder(self, template: TemplateDef, key: Any) -> Contract:
        key_json, key_hash = self._key_hash(template, key)
        holder = await self._view.key_holder(template, key_hash)
        if holder is None or not self._view.visible(holder):
            raise errors.CONTRACT_KEY_NOT_FOUND(
                json.dumps(key_json), resources=[("TEMPLATE_ID", template.template_id)]
            )
        return holder

    async def fetch_by_key(self, template: TemplateDef, key: Any) -> tuple[str, Any]:
        holder = await self._holder(template, key)
        return holder.contract_id, self._fetch_node(holder, self._view.template_of(holder, template))

    async def exercise_by_key(
        self,
        template: TemplateDef,
        key: Any,
        choice: str | ChoiceDef,
        argument: Any = None,
        **arguments: Any,
    ) -> Any:
        holder = await self._holder(template, key)
        if isinstance(choice, str):
            choice = template.choices.get(choice) or choice
        return await self.exercise(holder.contract_id, choice, argument, **arguments)
