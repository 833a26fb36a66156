"""The engine: interprets a submission's commands against the ledger into a `Transaction`, or raises the Canton
error that the participant answers with. It never writes; the caller commits what it returns."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from participant.base import errors
from participant.base.transactions import ContractSource, CreateNode, Transaction
from participant.daml_lf.eval.budget import BudgetExceeded, MemoryExceeded
from participant.engine import ids
from participant.engine.budget_errors import budget_failure
from participant.engine.coding import decode_command
from participant.engine.commands import (
    Command,
    CreateAndExerciseCommand,
    CreateCommand,
    ExerciseByKeyCommand,
    ExerciseCommand,
    Submission,
)
from participant.engine.definitions import ChoiceDef, InterfaceDef, TemplateDef
from participant.engine.ledger_view import LedgerView
from participant.engine.registry import PackageRegistry
from participant.engine.update import DamlAssertionError, TransactionBuilder, Update, failure_of


class Engine:
    def __init__(self, registry: PackageRegistry, *, id_generator: ids.IdGenerator | None = None) -> None:
        self.registry = registry
        self.ids = id_generator or ids.IdGenerator()

    async def interpret(
        self,
        submission: Submission,
        source: ContractSource,
        *,
        ledger_time: datetime,
        synchronizer_id: str,
        prescribed: bool = False,
    ) -> Transaction:
        """Interpret the submission. It runs on the synchronizer its input contracts live on; `synchronizer_id` is
        the one it was told to use (`prescribed`) or, when it reads no contract, the default."""
        if not submission.act_as:
            raise errors.missing_field("act_as")
        readers = frozenset(submission.act_as) | frozenset(submission.read_as)
        view = LedgerView(self.registry, source, readers, submission.disclosed)
        builder = TransactionBuilder(view, self.ids, ledger_time, synchronizer_id)
        top = Update(builder, frozenset(submission.act_as), builder.roots)
        try:
            for command in submission.commands:
                await self._run(command, top)
        except (DamlAssertionError, ArithmeticError, BudgetExceeded) as failure:
            error = failure_of(failure)
            assert error is not None  # Daml failures, or the evaluation's budget spent
            raise error from None
        except RecursionError:
            # Each exercise nests the engine's Python calls: a choice that exercises itself without end reaches
            # Python's stack limit before its deadline. The transaction's stack is spent, as a machine's can be.
            stack = MemoryExceeded("the transaction's exercises nest deeper than the engine's stack", "stack")
            raise budget_failure(stack) from None
        chosen = self._route(view, synchronizer_id, prescribed)
        created = list(view.created.values())
        if chosen != synchronizer_id:  # the contracts it creates live where it runs
            moved = {c.contract_id: replace(c, synchronizer_id=chosen) for c in created}
            created = list(moved.values())
            for node in builder.nodes:
                if isinstance(node, CreateNode):
                    node.contract = moved[node.contract.contract_id]
        return Transaction(
            nodes=builder.nodes,
            roots=builder.roots,
            created=created,
            archived=list(view.consumed),
            ledger_effective_time=ledger_time,
            synchronizer_id=chosen,
        )

    @staticmethod
    def _route(view: LedgerView, synchronizer_id: str, prescribed: bool) -> str:
        """Canton's routing without automatic reassignment: every input contract must live on one synchronizer."""
        inputs = sorted(set(view.input_synchronizers.values()))
        if prescribed:
            elsewhere = [s for s in inputs if s != synchronizer_id]
            if elsewhere:
                raise errors.INVALID_PRESCRIBED_SYNCHRONIZER_ID(
                    f"The needed input contracts are not on {synchronizer_id}, but on {elsewhere[0]}"
                )
            return synchronizer_id
        if len(inputs) > 1:
            raise errors.MULTI_SYNCHRONIZER_SUPPORT_NOT_ENABLED(
                "This transaction requires multi-synchronizer support which is turned off on this participant.\n"
                f" Used contracts reside on synchronizers Set({', '.join(inputs)}). "
            )
        return inputs[0] if inputs else synchronizer_id

    async def _run(self, command: Command, top: Update) -> None:
        if isinstance(command, ExerciseCommand):  # the one command whose templateId may name an interface
            target = self.registry.resolve_exercise_target(command.template_id)
            definition = self._choice(target, command.choice)
            decoded = decode_command(
                definition.argument_type, command.choice_argument or {}, "choiceArgument"
            )
            ids.require_contract_id(command.contract_id)
            await top.exercise(command.contract_id, definition, decoded)
            return
        template = self.registry.resolve_template(command.template_id)
        match command:
            case CreateCommand(create_arguments=arguments):
                await top.create(template, self._contract(template, arguments))
            case ExerciseByKeyCommand(contract_key=key, choice=name, choice_argument=argument):
                definition = self._choice(template, name)
                key_type = template.key_type
                if key_type is None:
                    raise errors.INVALID_ARGUMENT(
                        f"Template {command.template_id} does not have a contract key"
                    )
                key_value = decode_command(key_type, key, "contractKey")
                decoded = decode_command(definition.argument_type, argument or {}, "choiceArgument")
                await top.exercise_by_key(template, key_value, definition, decoded)
            case CreateAndExerciseCommand(create_arguments=arguments, choice=name, choice_argument=argument):
                definition = self._choice(template, name)
                decoded = decode_command(definition.argument_type, argument or {}, "choiceArgument")
                contract_id = await top.create(template, self._contract(template, arguments))
                await top.exercise(contract_id, definition, decoded)
            case _:
                raise errors.INVALID_ARGUMENT(f"Unsupported command {type(command).__name__}")

    @staticmethod
    def _contract(template: TemplateDef, arguments: object) -> Any:
        return decode_command(template.argument_type, arguments, "createArguments")

    @staticmethod
    def _choice(target: TemplateDef | InterfaceDef, name: str) -> ChoiceDef:
        definition = target.choices.get(name)
        if definition is None:
            raise errors.INVALID_ARGUMENT(f"Invalid template:{target.qualified_name} or choice:{name}")
        return definition
