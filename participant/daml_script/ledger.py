"""What a script asks of a ledger (`ScriptLedger`), in the interpreter's values and the packages' references.

A runner answers the library's questions through this protocol alone, so the same script runs against the
bundled participant in-process or any participant over HTTP (`json_ledger.JsonLedger`). Values cross as the
interpreter's runtime values (`participant.daml_lf.eval.values`); templates, interfaces and choices as the
packages' references; parties and contract ids as text.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Protocol

from participant.daml_lf import ast


class LedgerFailure(Exception):
    """The ledger refused a request with Canton's error: ``error_id`` (CONTRACT_NOT_FOUND, ...) and its cause."""

    def __init__(
        self, error_id: str, message: str, status: int = 0, resources: dict[str, str] | None = None
    ) -> None:
        super().__init__(f"{error_id}: {message}" if error_id else message)
        self.error_id = error_id
        self.message = message
        self.status = status
        self.resources = resources or {}  # Canton's error resources: EXCEPTION_TYPE, EXCEPTION_VALUE, ...


class NotSupported(Exception):
    """The ledger cannot do what was asked (set its time, vet packages): the message says what and why."""


@dataclass(frozen=True, slots=True)
class ChoiceCall:
    """The choice an exercising command names, and its argument with the argument's type (how it is encoded)."""

    name: str
    argument_type: ast.Type
    argument: Any


@dataclass(frozen=True, slots=True)
class TemplateCmd:
    """What every command names: its template (an exercise's may be the interface whose choice it is), by package
    name (`#name:Module:Entity`, the participant picks the package) or by package id."""

    template: ast.TypeConRef
    by_package_name: bool = field(default=False, kw_only=True)


@dataclass(frozen=True, slots=True)
class CreateCmd(TemplateCmd):
    argument: Any


@dataclass(frozen=True, slots=True)
class ExerciseCmd(TemplateCmd):
    contract_id: str
    choice: ChoiceCall


@dataclass(frozen=True, slots=True)
class ExerciseByKeyCmd(TemplateCmd):
    key: Any
    choice: ChoiceCall


@dataclass(frozen=True, slots=True)
class CreateAndExerciseCmd(TemplateCmd):
    argument: Any
    choice: ChoiceCall


Command = CreateCmd | ExerciseCmd | ExerciseByKeyCmd | CreateAndExerciseCmd


@dataclass(frozen=True, slots=True)
class Disclosed:
    template: ast.TypeConRef
    contract_id: str
    blob: str  # hexadecimal, as the library carries it


@dataclass(frozen=True, slots=True)
class Created:
    template: ast.TypeConRef
    contract_id: str
    argument: Any


@dataclass(frozen=True, slots=True)
class Exercised:
    template: ast.TypeConRef  # the contract's template
    interface: ast.TypeConRef | None  # the interface whose choice it is, if any
    contract_id: str
    choice: str
    argument_type: ast.Type
    argument: Any
    result: Any
    children: list[Created | Exercised] = field(default_factory=list)


TreeEvent = Created | Exercised


@dataclass(frozen=True, slots=True)
class Submitted:
    """A committed transaction: one result per command (a create's contract id, an exercise's result; a
    create-and-exercise gives both) and its tree of created and exercised events."""

    results: list[tuple[str, Any]]  # ("create", contract id) or ("exercise", result)
    roots: list[TreeEvent]
    update_id: str = ""


@dataclass(frozen=True, slots=True)
class User:
    id: str
    primary_party: str | None


@dataclass(frozen=True, slots=True)
class Right:
    kind: str  # ParticipantAdmin, CanActAs, CanReadAs, CanReadAsAnyParty
    party: str | None = None


class ScriptLedger(Protocol):
    async def submit(
        self,
        act_as: list[str],
        read_as: list[str],
        commands: list[Command],
        disclosures: list[Disclosed],
        package_preference: list[str] | None,
    ) -> Submitted:
        """Submit and wait; a refusal raises `LedgerFailure` with the ledger's error id."""

    async def active_contracts(self, parties: list[str], template: ast.TypeConRef) -> list[tuple[str, Any]]:
        """The active contracts of ``template`` the parties see: (contract id, argument)."""

    async def contract(self, parties: list[str], contract_id: str) -> tuple[ast.TypeConRef, Any, str] | None:
        """An active contract the parties see: its template, argument and blob (hexadecimal)."""

    async def interface_views(
        self, parties: list[str], interface: ast.TypeConRef
    ) -> list[tuple[str, Any | None]]:
        """The active contracts implementing ``interface`` the parties see: (contract id, view or None)."""

    async def allocate_party(self, id_hint: str, display_name: str) -> str: ...

    async def known_parties(self) -> list[tuple[str, bool]]:
        """Every party the participant knows, and whether it is local."""

    async def create_user(self, user: User, rights: list[Right]) -> bool:
        """False when the user exists already."""

    async def user(self, user_id: str) -> User | None: ...

    async def delete_user(self, user_id: str) -> bool: ...

    async def users(self) -> list[User]: ...

    async def grant_rights(self, user_id: str, rights: list[Right]) -> list[Right] | None:
        """The rights newly granted; None when there is no such user."""

    async def revoke_rights(self, user_id: str, rights: list[Right]) -> list[Right] | None: ...

    async def rights(self, user_id: str) -> list[Right] | None: ...

    async def get_time(self) -> datetime: ...

    async def set_time(self, time: datetime) -> None:
        """Raises `NotSupported` when the participant's clock cannot be set."""

    async def packages(self) -> list[tuple[str, str]]:
        """(name, version) of every package loaded."""
