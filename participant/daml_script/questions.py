"""Each question of daml-script 3.3 answered as the SDK's runner answers it (``v2/ScriptF.scala``), through the
run's `ScriptLedger`. A question is known by its ``commandName`` and ``commandVersion``; any other ends the script
with an error naming both (a newer library's question, say).
"""

from __future__ import annotations

import asyncio
import re
import secrets
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from participant.daml_lf import ast
from participant.daml_lf.errors import DamlLfError
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.equality import equal
from participant.daml_lf.eval.errors import DamlArithmeticError, DamlThrow, UserError
from participant.daml_script import ledger as lg
from participant.daml_script.failures import ScriptFailure, ScriptThrow
from participant.daml_script.library import Library, NotAScriptProgram, field, optional, template_of_rep

if TYPE_CHECKING:
    from participant.daml_script.run import Run

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_CONTRACT_ID = re.compile(r"\b00[0-9a-f]{64,}\b")

Handler = Callable[["Run", Any, Any], Awaitable[Any]]
_HANDLERS: dict[tuple[str, int], Handler] = {}


def _question(name: str, version: int = 1) -> Callable[[Handler], Handler]:
    def register(handler: Handler) -> Handler:
        _HANDLERS[(name, version)] = handler
        return handler

    return register


async def answer(run: Run, name: str, version: int, payload: Any, locations: Any) -> Any:
    handler = _HANDLERS.get((name, version))
    if handler is None:
        known = sorted({v for n, v in _HANDLERS if n == name})
        why = f" (this runner knows version {', '.join(map(str, known))})" if known else ""
        raise ScriptFailure(f"unknown script question {name} version {version}{why}", run.location(locations))
    return await handler(run, payload, locations)


def to_timestamp(moment: datetime) -> rt.Timestamp:
    return rt.Timestamp((moment - _EPOCH) // _MICROSECOND)


def from_timestamp(micros: int) -> datetime:
    return _EPOCH + timedelta(microseconds=int(micros))


def _parties(value: Any) -> list[str]:
    return [str(p) for p in value]


def _non_empty(value: Any) -> list[str]:
    """A ``NonEmpty Party``: its head and tail."""
    return [str(field(value, "hd")), *map(str, field(value, "tl"))]


# --- Submit


def _choice_name(argument_type: ast.Type) -> str:
    if not isinstance(argument_type, ast.TCon):
        raise ScriptFailure(f"a choice argument whose type is not a choice's: {argument_type!r}")
    return argument_type.tycon.name


def _choice_call(any_choice: Any) -> lg.ChoiceCall:
    """The choice of a library's `AnyChoice`: its argument's type names it."""
    return lg.ChoiceCall(_choice_name(any_choice.type), any_choice.type, any_choice.value)


def _command(library: Library, meta: Any) -> lg.Command:
    command = field(meta, "command")
    by_name = field(meta, "explicitPackageId") is not True
    body = command.value
    kind = command.constructor
    if kind == "Create":
        any_template = field(field(body, "argC"), "getAnyTemplate")
        return lg.CreateCmd(
            template_of_rep(rt.TypeRep(any_template.type)), any_template.value, by_package_name=by_name
        )
    if kind == "Exercise":
        return lg.ExerciseCmd(
            template_of_rep(field(body, "tplId")),
            str(field(body, "cId")),
            _choice_call(field(field(body, "argE"), "getAnyChoice")),
            by_package_name=by_name,
        )
    if kind == "ExerciseByKey":
        key = field(field(body, "keyE"), "getAnyContractKey")
        return lg.ExerciseByKeyCmd(
            template_of_rep(field(body, "tplId")),
            key.value,
            _choice_call(field(field(body, "argE"), "getAnyChoice")),
            by_package_name=by_name,
        )
    if kind == "CreateAndExercise":
        any_template = field(field(body, "tplArgCE"), "getAnyTemplate")
        return lg.CreateAndExerciseCmd(
            template_of_rep(rt.TypeRep(any_template.type)),
            any_template.value,
            _choice_call(field(field(body, "choiceArgCE"), "getAnyChoice")),
            by_package_name=by_name,
        )
    raise ScriptFailure(f"unknown command {kind}")


def _tree_event(library: Library, event: lg.TreeEvent) -> rt.Variant:
    tree = library.question_type("TransactionTree", "TreeEvent")
    if isinstance(event, lg.Created):
        created = library.record(
            library.question_type("TransactionTree", "Created"),
            contractId=library.any_contract_id(event.template, event.contract_id),
            argument=library.any_template(event.template, event.argument),
        )
        return library.variant(tree, "CreatedEvent", created)
    owner = event.interface or event.template
    exercised = library.record(
        library.question_type("TransactionTree", "Exercised"),
        contractId=library.any_contract_id(event.template, event.contract_id),
        choice=event.choice,
        argument=library.any_choice(owner, event.argument_type, event.argument),
        childEvents=rt.list_of([_tree_event(library, child) for child in event.children]),
    )
    return library.variant(tree, "ExercisedEvent", exercised)


def _submitted(library: Library, submitted: lg.Submitted) -> rt.Record:
    result_type = library.question_type("Commands", "CommandResult")
    results = [
        library.variant(result_type, "CreateResult", rt.ContractId(value))
        if kind == "create"
        else library.variant(result_type, "ExerciseResult", value)
        for kind, value in submitted.results
    ]
    tree = library.record(
        library.question_type("TransactionTree", "TransactionTree"),
        rootEvents=rt.list_of([_tree_event(library, event) for event in submitted.roots]),
    )
    return library.tuple2(rt.list_of(results), tree)


def submit_error(library: Library, failure: lg.LedgerFailure) -> rt.Variant:
    """The library's ``SubmitError`` for the ledger's error, by its error id (as the SDK's runner maps gRPC
    errors); an id it has no constructor for is ``UnknownError`` with the whole message."""
    error_type = library.question_type("Submit.Error", "SubmitError")
    error_id, message = failure.error_id, failure.message
    if error_id == "CONTRACT_NOT_FOUND":
        ids = _CONTRACT_ID.findall(message) or [message]
        non_empty = library.record(
            library.tycon("DA.NonEmpty.Types", "NonEmpty"), hd=ids[0], tl=rt.list_of(ids[1:])
        )
        body = library.record(
            library.tycon("Daml.Script.Internal.Questions.Submit.Error", "SubmitError.ContractNotFound"),
            unknownContractIds=non_empty,
            additionalDebuggingInfo=None,
        )
        return library.variant(error_type, "ContractNotFound", body)
    errors_module = "Daml.Script.Internal.Questions.Submit.Error"
    if error_id == "DAML_AUTHORIZATION_ERROR":
        body = library.record(
            library.tycon(errors_module, "SubmitError.AuthorizationError"), authorizationErrorMessage=message
        )
        return library.variant(error_type, "AuthorizationError", body)
    if error_id == "UNHANDLED_EXCEPTION":
        exception = _exception_of(library, failure.resources)
        body = library.record(
            library.tycon(errors_module, "SubmitError.UnhandledException"), exc=optional(exception)
        )
        return library.variant(error_type, "UnhandledException", body)
    if error_id == "TEMPLATE_PRECONDITION_VIOLATED":
        return library.variant(error_type, "TemplatePreconditionViolated", rt.UNIT)
    body = library.record(
        library.tycon("Daml.Script.Internal.Questions.Submit.Error", "SubmitError.UnknownError"),
        unknownErrorMessage=f"{error_id}: {message}" if error_id else message,
    )
    return library.variant(error_type, "UnknownError", body)


def _exception_of(library: Library, resources: dict[str, str]) -> rt.AnyException | None:
    """The exception an UNHANDLED_EXCEPTION names (its resources: the type, and the message as its value), when
    its type is one the message alone rebuilds (a record of one ``message`` field: the standard library's
    ``GeneralError``, ``AssertionFailed``, ``ArithmeticError``, ``PreconditionFailed``); else None, as the SDK's
    runner gives for a ledger that sends no value."""
    type_name, value = resources.get("EXCEPTION_TYPE"), resources.get("EXCEPTION_VALUE")
    if type_name is None or value is None or ":" not in type_name:
        return None
    module, _, name = type_name.rpartition(":")
    try:
        tycon = library.tycon(module, name)
        if library.program.record_fields(tycon) != ("message",):
            return None
    except (NotAScriptProgram, DamlLfError):  # not a type of the script's packages, or not a record
        return None
    return rt.AnyException(ast.TCon(tycon), library.record(tycon, message=value))


@_question("Submit")
async def _submit(run: Run, payload: Any, locations: Any) -> Any:
    library = run.library
    answers = []
    for submission in field(payload, "submissions"):
        behaviour = field(submission, "sErrorBehaviour").constructor
        preference = field(submission, "sPackagePreference")
        disclosures = [
            lg.Disclosed(
                template_of_rep(field(d, "templateId")), str(field(d, "contractId")), str(field(d, "blob"))
            )
            for d in field(submission, "sDisclosures")
        ]
        commands = [_command(library, meta) for meta in field(submission, "sCommands")]
        location = field(submission, "sLocation")
        where = run.location([location.value] if location is not None else locations)
        try:
            submitted = await run.ledger.submit(
                _non_empty(field(submission, "sActAs")),
                _parties(field(submission, "sReadAs")),
                commands,
                disclosures,
                None
                if preference is None
                else [
                    str(field(p, "unpack")) if isinstance(p, rt.Record) else str(p) for p in preference.value
                ],
            )
        except lg.LedgerFailure as failure:
            if behaviour == "MustSucceed":
                raise ScriptFailure(f"Submit failed: {failure}", where) from None
            answers.append(library.left(submit_error(library, failure)))
            continue
        run.transactions += 1
        if behaviour == "MustFail":
            raise ScriptFailure("Expected submit to fail but it succeeded", where)
        answers.append(library.right(_submitted(library, submitted)))
    return rt.list_of(answers)


# --- Scripts within scripts


@_question("TryCommands")
async def _try_commands(run: Run, payload: Any, locations: Any) -> Any:
    try:
        return run.library.right(await run.run_script_value(field(payload, "act")))
    except ScriptFailure as failure:
        return run.library.left(run.library.tuple3("Submit", "FailedCmd", failure.message))


@_question("Catch")
async def _catch(run: Run, payload: Any, locations: Any) -> Any:
    """Run the closure's script; a Daml exception it does not catch is the answer's ``Left``. Other failures
    (a ledger's refusal, the budget) end the script."""
    library = run.library
    try:
        return library.right(await run.run_script_value(run.call(field(payload, "act"), rt.UNIT)))
    except ScriptThrow as thrown:
        return library.left(thrown.exception)
    except DamlThrow as thrown:
        return library.left(thrown.payload)
    except DamlArithmeticError as error:
        exception = library.program.arithmetic_error(error.message)
        if exception is None:
            raise
        return library.left(exception)
    except UserError as error:
        general = _general_error(library, error.message)
        if general is None:
            raise
        return library.left(general)


def _general_error(library: Library, message: str) -> rt.AnyException | None:
    try:
        tycon = library.tycon("DA.Exception.GeneralError", "GeneralError")
    except Exception:
        return None
    return rt.AnyException(ast.TCon(tycon), library.record(tycon, message=message))


@_question("Throw")
async def _throw(run: Run, payload: Any, locations: Any) -> Any:
    raise ScriptThrow(field(payload, "exc"), locations)


# --- Queries


@_question("QueryACS")
async def _query_acs(run: Run, payload: Any, locations: Any) -> Any:
    template = template_of_rep(field(payload, "tplId"))
    found = await run.ledger.active_contracts(_parties(field(payload, "parties")), template)
    library = run.library
    return rt.list_of(
        [
            library.tuple2(rt.ContractId(cid), library.any_template(template, argument))
            for cid, argument in found
        ]
    )


@_question("QueryContractId")
async def _query_contract_id(run: Run, payload: Any, locations: Any) -> Any:
    library = run.library
    found = await run.ledger.contract(_parties(field(payload, "parties")), str(field(payload, "cid")))
    if found is None:
        return None
    template, argument, blob = found
    expected = template_of_rep(field(payload, "tplId"))
    if template.qualified_name != expected.qualified_name:
        return None
    return rt.Some(
        library.tuple3(library.any_template(template, argument), library.template_type_rep(template), blob)
    )


@_question("QueryInterface")
async def _query_interface(run: Run, payload: Any, locations: Any) -> Any:
    interface = template_of_rep(field(payload, "interfaceId"))
    found = await run.ledger.interface_views(_parties(field(payload, "parties")), interface)
    return rt.list_of([run.library.tuple2(rt.ContractId(cid), optional(view)) for cid, view in found])


@_question("QueryInterfaceContractId")
async def _query_interface_contract_id(run: Run, payload: Any, locations: Any) -> Any:
    interface = template_of_rep(field(payload, "interfaceId"))
    wanted = str(field(payload, "cid"))
    found = await run.ledger.interface_views(_parties(field(payload, "parties")), interface)
    return next((optional(view) for cid, view in found if cid == wanted), None)


@_question("QueryContractKey")
async def _query_contract_key(run: Run, payload: Any, locations: Any) -> Any:
    """The ledger is asked for the template's contracts; their keys are computed here, by the template's own key
    expression, and compared with Daml's equality (the JSON API has no lookup by key)."""
    template = template_of_rep(field(payload, "tplId"))
    key = field(field(payload, "key"), "getAnyContractKey").value
    library = run.library
    key_of = library.program.template_function(template, "key")
    for cid, argument in await run.ledger.active_contracts(_parties(field(payload, "parties")), template):
        if equal(run.call(key_of, argument), key):
            return rt.Some(library.tuple2(rt.ContractId(cid), library.any_template(template, argument)))
    return None


# --- Parties


@_question("AllocateParty")
async def _allocate_party(run: Run, payload: Any, locations: Any) -> Any:
    requested, hint = str(field(payload, "requestedName")), str(field(payload, "idHint"))
    if not hint:  # a display name alone gets a suffix, so that two scripts' "alice" are two parties
        hint = f"{requested or 'party'}-{secrets.token_hex(4)}"
    return rt.Party(await run.ledger.allocate_party(hint, requested))


@_question("ListKnownParties")
async def _list_known_parties(run: Run, payload: Any, locations: Any) -> Any:
    library = run.library
    details = library.question_type("PartyManagement", "PartyDetails")
    return rt.list_of(
        [
            library.record(details, party=rt.Party(p), isLocal=local)
            for p, local in await run.ledger.known_parties()
        ]
    )


# --- Users

_USER_ID = re.compile(r"^[a-zA-Z0-9@^$.!`\-#+'~_|:()]{1,128}$")


@_question("ValidateUserId")
async def _validate_user_id(run: Run, payload: Any, locations: Any) -> Any:
    name = str(field(payload, "name"))
    if _USER_ID.match(name):
        return None
    return rt.Some(f'User ID "{name}" does not match regex "[a-zA-Z0-9@^$.!`\\-#+\'~_|:()]{{1,128}}"')


def _user_in(value: Any) -> lg.User:
    primary = field(value, "primaryParty")
    return lg.User(_user_id(field(value, "userId")), None if primary is None else str(primary.value))


def _user_id(value: Any) -> str:
    return str(value.values[0]) if isinstance(value, rt.Record) else str(value)


def _user_out(library: Library, user: lg.User) -> rt.Record:
    return library.record(
        library.question_type("UserManagement", "User"),
        userId=library.record(library.question_type("UserManagement", "UserId"), unpack=user.id),
        primaryParty=optional(None if user.primary_party is None else rt.Party(user.primary_party)),
    )


def _right_in(value: Any) -> lg.Right:
    if isinstance(value, rt.Enum):
        return lg.Right(value.constructor)
    assert isinstance(value, rt.Variant)
    party = None if value.value is rt.UNIT or value.value is None else str(value.value)
    return lg.Right(value.constructor, party)


def _right_out(library: Library, right: lg.Right) -> Any:
    tycon = library.question_type("UserManagement", "UserRight")
    if right.party is None:
        return library.variant(tycon, right.kind, rt.UNIT)
    return library.variant(tycon, right.kind, rt.Party(right.party))


def _rights_out(library: Library, rights: list[lg.Right] | None) -> Any:
    if rights is None:
        return None
    return rt.Some(rt.list_of([_right_out(library, r) for r in rights if r.kind in _SCRIPT_RIGHTS]))


_SCRIPT_RIGHTS = {"ParticipantAdmin", "CanActAs", "CanReadAs", "CanReadAsAnyParty"}


@_question("CreateUser")
async def _create_user(run: Run, payload: Any, locations: Any) -> Any:
    rights = [_right_in(r) for r in field(payload, "rights")]
    created = await run.ledger.create_user(_user_in(field(payload, "user")), rights)
    return rt.Some(rt.UNIT) if created else None


@_question("GetUser")
async def _get_user(run: Run, payload: Any, locations: Any) -> Any:
    user = await run.ledger.user(_user_id(field(payload, "userId")))
    return None if user is None else rt.Some(_user_out(run.library, user))


@_question("DeleteUser")
async def _delete_user(run: Run, payload: Any, locations: Any) -> Any:
    return rt.Some(rt.UNIT) if await run.ledger.delete_user(_user_id(field(payload, "userId"))) else None


@_question("ListAllUsers")
async def _list_all_users(run: Run, payload: Any, locations: Any) -> Any:
    return rt.list_of([_user_out(run.library, user) for user in await run.ledger.users()])


@_question("GrantUserRights")
async def _grant_user_rights(run: Run, payload: Any, locations: Any) -> Any:
    rights = [_right_in(r) for r in field(payload, "rights")]
    return _rights_out(run.library, await run.ledger.grant_rights(_user_id(field(payload, "userId")), rights))


@_question("RevokeUserRights")
async def _revoke_user_rights(run: Run, payload: Any, locations: Any) -> Any:
    rights = [_right_in(r) for r in field(payload, "rights")]
    return _rights_out(
        run.library, await run.ledger.revoke_rights(_user_id(field(payload, "userId")), rights)
    )


@_question("ListUserRights")
async def _list_user_rights(run: Run, payload: Any, locations: Any) -> Any:
    return _rights_out(run.library, await run.ledger.rights(_user_id(field(payload, "userId"))))


# --- Time


@_question("GetTime")
async def _get_time(run: Run, payload: Any, locations: Any) -> Any:
    return to_timestamp(await run.ledger.get_time())


@_question("SetTime")
async def _set_time(run: Run, payload: Any, locations: Any) -> Any:
    try:
        await run.ledger.set_time(from_timestamp(field(payload, "time")))
    except lg.NotSupported as refused:
        raise ScriptFailure(str(refused), run.location(locations)) from None
    return rt.UNIT


@_question("Sleep")
async def _sleep(run: Run, payload: Any, locations: Any) -> Any:
    micros = field(payload, "duration")
    micros = micros.values[0] if isinstance(micros, rt.Record) else micros
    await asyncio.sleep(max(0, int(micros)) / 1_000_000)
    return rt.UNIT


# --- Packages


def _package_names(library: Library, packages: list[tuple[str, str]]) -> Any:
    tycon = library.question_type("Packages", "PackageName")
    return rt.list_of(
        [library.record(tycon, name=name, version=version) for name, version in sorted(set(packages))]
    )


@_question("ListAllPackages")
async def _list_all_packages(run: Run, payload: Any, locations: Any) -> Any:
    return _package_names(run.library, await run.ledger.packages())


@_question("ListVettedPackages")
async def _list_vetted_packages(run: Run, payload: Any, locations: Any) -> Any:
    # Every package a participant of ours has loaded is vetted: it has no vetting of its own.
    return _package_names(run.library, await run.ledger.packages())


async def _vetting(run: Run, payload: Any, locations: Any) -> Any:
    raise ScriptFailure(
        "vetting and unvetting packages is not supported over the JSON Ledger API", run.location(locations)
    )


for _name in ("VetPackages", "UnvetPackages", "VetDar", "UnvetDar"):
    _question(_name)(_vetting)
