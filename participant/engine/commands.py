"""The commands of a submission, as the routes hand them to the engine to interpret (template references still
unresolved: "pkgId:Module:Entity" or "#name:Module:Entity"; arguments in the JSON value encoding of the spec)."""

from __future__ import annotations

from dataclasses import dataclass

from participant.base.transactions import Contract, Json


@dataclass(frozen=True)
class CreateCommand:
    template_id: str
    create_arguments: Json


@dataclass(frozen=True)
class ExerciseCommand:
    template_id: str
    contract_id: str
    choice: str
    choice_argument: Json


@dataclass(frozen=True)
class ExerciseByKeyCommand:
    template_id: str
    contract_key: Json
    choice: str
    choice_argument: Json


@dataclass(frozen=True)
class CreateAndExerciseCommand:
    template_id: str
    create_arguments: Json
    choice: str
    choice_argument: Json


Command = CreateCommand | ExerciseCommand | ExerciseByKeyCommand | CreateAndExerciseCommand


@dataclass(frozen=True)
class Submission:
    commands: tuple[Command, ...]
    act_as: tuple[str, ...]
    read_as: tuple[str, ...] = ()
    disclosed: tuple[Contract, ...] = ()  # already checked against their createdEventBlob by the caller
