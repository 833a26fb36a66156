"""Messages that cross screens: any screen may ask the app to open a contract or start a command."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.message import Message


@dataclass
class OpenContract(Message):
    """Show a contract in the inspector."""

    contract_id: str


@dataclass
class ComposeCommand(Message):
    """Open the composer with a command prefilled (`kind`: CreateAndExercise, Create, Exercise, ExerciseByKey)."""

    kind: str = "CreateAndExercise"
    template_id: str = ""
    contract_id: str = ""
    arguments: Any = None  # createArguments or contractKey
    choice: str = ""


@dataclass
class ShowTemplateContracts(Message):
    """Show the contracts screen with only the contracts of a template (``packageId:Module:Entity``)."""

    template_id: str


@dataclass
class IdentityChanged(Message):
    """The session acts as another user now: screens reload what depends on it."""


@dataclass
class MoveContract(Message):
    """Open the reassignment screen with a contract chosen, to move it to another synchronizer."""

    contract_id: str
