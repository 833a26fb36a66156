"""The runner's questions one by one, each asked as the library asks it (a ``Free`` step whose ``continue`` hands
the answer back) of a fresh in-process participant over the JSON Ledger API, with the Canton Coin test DAR's
packages: the answers are the library's own values."""

from __future__ import annotations

import time
from decimal import Decimal
from pathlib import Path
from typing import Any

import httpx
import pytest

from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.budget import Budget
from participant.daml_lf.eval.builtins import Builtin
from participant.daml_lf.eval.machine import BuiltinFunction
from participant.daml_script.dars import Dars
from participant.daml_script.failures import ScriptFailure, ScriptThrow
from participant.daml_script.json_ledger import JsonLedger
from participant.daml_script.library import LOW_LEVEL, Library, field
from participant.daml_script.questions import answer
from participant.daml_script.run import Run
from participant.daml_script.runner import library_of
from participant.server.script_tests import fresh_ledger
from tests.conftest import ADMIN, SECRET, start_server

CHECK_ERROR = "Splice.Scripts.TestAmuletRulesTransferLimits"  # template CheckError with actors : [Party]


class Asker:
    """Asks one question at a time, as the library's ``lift`` does, and gives back the answer."""

    def __init__(self, dars: Dars, ledger: Any) -> None:
        self.library = library_of(dars.code.program)
        self.run = Run(
            dars.code, self.library, ledger, Budget(deadline=time.monotonic() + 60), frozenset(), answer
        )
        library = self.library
        free = library.tycon("Daml.Script.Internal.Free", "Free")
        # `continue`: the answer, as the script's result (`Pure (answer, ())`)
        self.done = BuiltinFunction(
            Builtin("done", 1, lambda value: library.variant(free, "Pure", library.tuple2(value, rt.UNIT)))
        )

    async def ask(self, module: str, question_name: str, /, **payload: Any) -> Any:
        library = self.library
        question = library.record(
            library.tycon(LOW_LEVEL, "Question"),
            commandName=question_name,
            commandVersion=1,
            payload=library.record(library.question_type(module, question_name), **payload),
            locations=rt.NIL,
            **{"continue": self.done},
        )
        step = library.record(library.tycon(LOW_LEVEL, "ScriptF"), unpack=question)
        return await self.run.run_free(
            library.variant(library.tycon("Daml.Script.Internal.Free", "Free"), "Free", step)
        )


def _submission(library: Library, act_as: str, commands: list[Any], behaviour: str) -> rt.Record:
    meta = library.question_type("Commands", "CommandWithMeta")
    return library.record(
        library.question_type("Submit", "Submission"),
        sActAs=library.record(library.tycon("DA.NonEmpty.Types", "NonEmpty"), hd=rt.Party(act_as), tl=rt.NIL),
        sReadAs=rt.NIL,
        sDisclosures=rt.NIL,
        sPackagePreference=None,
        sPrefetchKeys=rt.NIL,
        sErrorBehaviour=library.enum(library.question_type("Submit", "ErrorBehaviour"), behaviour),
        sCommands=rt.list_of([library.record(meta, command=c, explicitPackageId=True) for c in commands]),
        sLocation=None,
    )


def _create_check_error(library: Library, template: ast.TypeConRef, actor: str) -> rt.Variant:
    argument = library.record(template, actors=rt.list_of([rt.Party(actor)]))
    body = library.record(
        library.question_type("Commands", "Command.Create"), argC=library.any_template(template, argument)
    )
    return library.variant(library.question_type("Commands", "Command"), "Create", body)


def _archive(library: Library, template: ast.TypeConRef, contract_id: Any) -> rt.Variant:
    archive = library.tycon("DA.Internal.Template", "Archive")
    body = library.record(
        library.question_type("Commands", "Command.Exercise"),
        tplId=library.template_type_rep(template),
        cId=contract_id,
        argE=library.any_choice(template, ast.TCon(archive), library.record(archive)),
    )
    return library.variant(library.question_type("Commands", "Command"), "Exercise", body)


async def test_parties_and_users(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        library = asker.library
        alice = await asker.ask(
            "PartyManagement", "AllocateParty", requestedName="", idHint="alice", participant=None
        )
        assert type(alice) is rt.Party and alice.startswith("alice::")
        named = await asker.ask(
            "PartyManagement", "AllocateParty", requestedName="bob", idHint="", participant=None
        )
        assert named.startswith("bob-")  # a display name alone gets a suffix
        known = await asker.ask("PartyManagement", "ListKnownParties", participant=None)
        assert {(str(field(d, "party")), field(d, "isLocal")) for d in known} >= {
            (alice, True),
            (named, True),
        }

        assert await asker.ask("UserManagement", "ValidateUserId", name="alice_1") is None
        problem = await asker.ask("UserManagement", "ValidateUserId", name="no spaces")
        assert type(problem) is rt.Some and "does not match" in problem.value

        user_id = library.record(library.question_type("UserManagement", "UserId"), unpack="alice_1")
        user = library.record(
            library.question_type("UserManagement", "User"), userId=user_id, primaryParty=rt.Some(alice)
        )
        right = library.question_type("UserManagement", "UserRight")
        act_as = library.variant(right, "CanActAs", alice)
        created = await asker.ask(
            "UserManagement", "CreateUser", user=user, rights=rt.list_of([act_as]), participant=None
        )
        assert type(created) is rt.Some
        again = await asker.ask("UserManagement", "CreateUser", user=user, rights=rt.NIL, participant=None)
        assert again is None  # the library raises UserAlreadyExists
        found = await asker.ask("UserManagement", "GetUser", userId=user_id, participant=None)
        assert field(field(found.value, "userId"), "unpack") == "alice_1"
        assert field(found.value, "primaryParty").value == alice
        assert "alice_1" in [
            field(field(u, "userId"), "unpack")
            for u in await asker.ask("UserManagement", "ListAllUsers", participant=None)
        ]

        read_as = library.variant(right, "CanReadAs", named)
        granted = await asker.ask(
            "UserManagement",
            "GrantUserRights",
            userId=user_id,
            rights=rt.list_of([read_as]),
            participant=None,
        )
        assert [(r.constructor, r.value) for r in granted.value] == [("CanReadAs", named)]
        rights = await asker.ask("UserManagement", "ListUserRights", userId=user_id, participant=None)
        assert sorted((r.constructor, str(r.value)) for r in rights.value) == sorted(
            [("CanActAs", alice), ("CanReadAs", named)]
        )
        revoked = await asker.ask(
            "UserManagement",
            "RevokeUserRights",
            userId=user_id,
            rights=rt.list_of([read_as]),
            participant=None,
        )
        assert [r.constructor for r in revoked.value] == ["CanReadAs"]
        assert (
            type(await asker.ask("UserManagement", "DeleteUser", userId=user_id, participant=None)) is rt.Some
        )
        assert await asker.ask("UserManagement", "GetUser", userId=user_id, participant=None) is None
        assert await asker.ask("UserManagement", "DeleteUser", userId=user_id, participant=None) is None


async def test_submit_and_queries(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        library = asker.library
        template = library.tycon(CHECK_ERROR, "CheckError")
        alice = await asker.ask(
            "PartyManagement", "AllocateParty", requestedName="", idHint="alice", participant=None
        )

        create = _submission(library, alice, [_create_check_error(library, template, alice)], "MustSucceed")
        [result] = await asker.ask("Submit", "Submit", submissions=rt.list_of([create]))
        assert result.constructor == "Right"
        command_results, tree = result.value.values
        [created] = command_results
        assert created.constructor == "CreateResult" and type(created.value) is rt.ContractId
        [root] = field(tree, "rootEvents")
        assert root.constructor == "CreatedEvent"
        assert field(field(root.value, "contractId"), "contractId") == created.value

        acs = await asker.ask(
            "Query", "QueryACS", parties=rt.list_of([alice]), tplId=library.template_type_rep(template)
        )
        [(contract_id, any_template)] = [entry.values for entry in acs]
        assert contract_id == created.value
        assert field(field(any_template, "getAnyTemplate").value, "actors").head == alice
        found = await asker.ask(
            "Query",
            "QueryContractId",
            parties=rt.list_of([alice]),
            tplId=library.template_type_rep(template),
            cid=contract_id,
        )
        _, rep, blob = found.value.values
        assert rep.values[0].type == ast.TCon(template) and blob  # the blob a disclosure carries

        archive = _submission(library, alice, [_archive(library, template, contract_id)], "MustSucceed")
        [archived] = await asker.ask("Submit", "Submit", submissions=rt.list_of([archive]))
        [exercised] = field(archived.value.values[1], "rootEvents")
        assert exercised.constructor == "ExercisedEvent" and field(exercised.value, "choice") == "Archive"

        again = _submission(library, alice, [_archive(library, template, contract_id)], "Try")
        [refused] = await asker.ask("Submit", "Submit", submissions=rt.list_of([again]))
        assert refused.constructor == "Left" and refused.value.constructor == "ContractNotFound"
        assert field(field(refused.value.value, "unknownContractIds"), "hd") == contract_id

        must_fail = _submission(library, alice, [_create_check_error(library, template, alice)], "MustFail")
        with pytest.raises(ScriptFailure, match="Expected submit to fail but it succeeded"):
            await asker.ask("Submit", "Submit", submissions=rt.list_of([must_fail]))
        assert asker.run.transactions == 3


async def test_time_on_a_wall_clock_participant(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db, static_time=False) as ledger:
        asker = Asker(splice_dars, ledger)
        before = int(time.time() * 1_000_000)
        now = await asker.ask("Time", "GetTime")
        assert type(now) is rt.Timestamp and now >= before
        with pytest.raises(ScriptFailure, match="the participant's time is not settable"):
            await asker.ask("Time", "SetTime", time=rt.Timestamp(0))


async def test_packages(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        names = await asker.ask("Packages", "ListAllPackages")
        assert ("splice-amulet-test", "0.1.8") in [(field(p, "name"), field(p, "version")) for p in names]
        with pytest.raises(ScriptFailure, match="not supported over the JSON Ledger API"):
            await asker.ask("Packages", "VetPackages", packages=rt.NIL)


async def test_over_http_against_a_separately_started_participant(
    splice_dars: Dars, splice_test_dar: Path, tmp_path
):
    """The same runner against `ledger-participant serve --dar` on a loopback port, with a signed admin token."""
    server = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET, "--dar", str(splice_test_dar))
    try:
        async with httpx.AsyncClient(base_url=server.url, headers=ADMIN, timeout=60) as http:
            asker = Asker(splice_dars, JsonLedger(http, splice_dars.code))
            library = asker.library
            alice = await asker.ask(
                "PartyManagement", "AllocateParty", requestedName="", idHint="alice", participant=None
            )
            # With auth, the token's user (here the admin) submits: it needs the right to act as the party.
            admin = library.record(
                library.question_type("UserManagement", "UserId"), unpack="participant_admin"
            )
            act_as = library.variant(library.question_type("UserManagement", "UserRight"), "CanActAs", alice)
            await asker.ask(
                "UserManagement",
                "GrantUserRights",
                userId=admin,
                rights=rt.list_of([act_as]),
                participant=None,
            )
            template = library.tycon(CHECK_ERROR, "CheckError")
            create = _submission(
                library, alice, [_create_check_error(library, template, alice)], "MustSucceed"
            )
            [result] = await asker.ask("Submit", "Submit", submissions=rt.list_of([create]))
            [created] = result.value.values[0]
            acs = await asker.ask(
                "Query", "QueryACS", parties=rt.list_of([alice]), tplId=library.template_type_rep(template)
            )
            assert [entry.values[0] for entry in acs] == [created.value]
            with pytest.raises(ScriptFailure, match="not settable"):
                await asker.ask("Time", "SetTime", time=rt.Timestamp(0))
    finally:
        server.stop()


def _script(library: Library, first_step: Any) -> rt.Record:
    """A ``Script`` value whose ``runScript ()`` is ``first_step``."""
    run = BuiltinFunction(Builtin("runScript", 1, lambda _: first_step))
    return library.record(library.tycon(LOW_LEVEL, "Script"), runScript=run, dummy=rt.UNIT)


def _general_error(library: Library, message: str) -> rt.AnyException:
    tycon = library.tycon("DA.Exception.GeneralError", "GeneralError")
    return rt.AnyException(ast.TCon(tycon), library.record(tycon, message=message))


async def test_catch_and_throw(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        library = asker.library
        free = library.tycon("Daml.Script.Internal.Free", "Free")
        boom = _general_error(library, "boom")
        throw = library.record(
            library.tycon(LOW_LEVEL, "Question"),
            commandName="Throw",
            commandVersion=1,
            payload=library.record(library.question_type("Exceptions", "Throw"), exc=boom),
            locations=rt.NIL,
            **{"continue": asker.done},
        )
        throwing = _script(
            library,
            library.variant(free, "Free", library.record(library.tycon(LOW_LEVEL, "ScriptF"), unpack=throw)),
        )
        passing = _script(library, library.variant(free, "Pure", library.tuple2(42, rt.UNIT)))

        def act(script: rt.Record) -> BuiltinFunction:
            return BuiltinFunction(Builtin("act", 1, lambda _: script))

        caught = await asker.ask("Exceptions", "Catch", act=act(throwing), dummy=rt.UNIT)
        assert caught.constructor == "Left" and caught.value is boom
        returned = await asker.ask("Exceptions", "Catch", act=act(passing), dummy=rt.UNIT)
        assert returned.constructor == "Right" and returned.value == 42

        with pytest.raises(ScriptThrow) as thrown:  # outside any Catch, it ends the script
            await asker.ask("Exceptions", "Throw", exc=boom)
        assert thrown.value.describe(library, asker.run.call) == (
            "Unhandled Daml exception DA.Exception.GeneralError:GeneralError: boom"
        )


def _amount(library: Library, initial: Decimal) -> rt.Record:
    return library.record(
        library.tycon("Splice.Fees", "ExpiringAmount"),
        initialAmount=initial,
        createdAt=library.record(library.tycon("Splice.Types", "Round"), number=0),
        ratePerRound=library.record(library.tycon("Splice.Fees", "RatePerRound"), rate=Decimal("0E-10")),
    )


async def test_interface_queries(splice_dars: Dars, splice_db: Path):
    """An Amulet seen through the token standard's HoldingV1: its view, by query and by contract id."""
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        library = asker.library
        dso = await asker.ask(
            "PartyManagement", "AllocateParty", requestedName="", idHint="dso", participant=None
        )
        amulet_type = library.tycon("Splice.Amulet", "Amulet")
        amount = _amount(library, Decimal("12.5000000000"))
        amulet = library.record(amulet_type, dso=dso, owner=dso, amount=amount)
        body = library.record(
            library.question_type("Commands", "Command.Create"),
            argC=library.any_template(amulet_type, amulet),
        )
        create = library.variant(library.question_type("Commands", "Command"), "Create", body)
        [result] = await asker.ask(
            "Submit", "Submit", submissions=rt.list_of([_submission(library, dso, [create], "MustSucceed")])
        )
        [created] = result.value.values[0]
        holding = library.tycon("Splice.Api.Token.HoldingV1", "Holding")
        [(contract_id, view)] = [
            entry.values
            for entry in await asker.ask(
                "Query",
                "QueryInterface",
                parties=rt.list_of([dso]),
                interfaceId=library.template_type_rep(holding),
            )
        ]
        assert contract_id == created.value
        assert field(view.value, "owner") == dso and field(view.value, "amount") == Decimal("12.5000000000")
        by_id = await asker.ask(
            "Query",
            "QueryInterfaceContractId",
            parties=rt.list_of([dso]),
            interfaceId=library.template_type_rep(holding),
            cid=contract_id,
        )
        assert field(by_id.value, "owner") == dso

        # An Amulet of no amount fails its `ensure`: under Try, the SubmitError carries the exception.
        empty = library.record(amulet_type, dso=dso, owner=dso, amount=_amount(library, Decimal("0E-10")))
        body = library.record(
            library.question_type("Commands", "Command.Create"), argC=library.any_template(amulet_type, empty)
        )
        create = library.variant(library.question_type("Commands", "Command"), "Create", body)
        [refused] = await asker.ask(
            "Submit", "Submit", submissions=rt.list_of([_submission(library, dso, [create], "Try")])
        )
        assert refused.constructor == "Left" and refused.value.constructor == "UnhandledException"
        exception = field(refused.value.value, "exc").value
        assert exception.type.tycon.qualified_name == "DA.Exception.PreconditionFailed:PreconditionFailed"
        assert field(exception.value, "message").startswith("Template precondition violated")


async def test_try_commands_answers_a_failed_submission_left(splice_dars: Dars, splice_db: Path):
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        library = asker.library
        alice = await asker.ask(
            "PartyManagement", "AllocateParty", requestedName="", idHint="alice", participant=None
        )
        template = library.tycon(CHECK_ERROR, "CheckError")
        gone = rt.ContractId("00" + "ab" * 32)
        archive = _submission(library, alice, [_archive(library, template, gone)], "MustSucceed")
        submit = library.record(
            library.tycon(LOW_LEVEL, "Question"),
            commandName="Submit",
            commandVersion=1,
            payload=library.record(
                library.question_type("Submit", "Submit"), submissions=rt.list_of([archive])
            ),
            locations=rt.NIL,
            **{"continue": asker.done},
        )
        free = library.tycon("Daml.Script.Internal.Free", "Free")
        failing = _script(
            library,
            library.variant(free, "Free", library.record(library.tycon(LOW_LEVEL, "ScriptF"), unpack=submit)),
        )
        answer = await asker.ask("Testing", "TryCommands", act=failing)
        assert answer.constructor == "Left"
        command, error_class, message = answer.value.values
        assert (command, error_class) == ("Submit", "FailedCmd") and "CONTRACT_NOT_FOUND" in message


async def test_time_on_a_static_clock(splice_dars: Dars, splice_db: Path):
    """The participant's clock starts at the epoch, moves when the script sets it, and a choice reads it."""
    async with fresh_ledger(splice_dars.code, splice_db) as ledger:
        asker = Asker(splice_dars, ledger)
        assert await asker.ask("Time", "GetTime") == rt.Timestamp(0)
        later = rt.Timestamp(1_700_000_000_000_000)
        assert await asker.ask("Time", "SetTime", time=later) is rt.UNIT
        assert await asker.ask("Time", "GetTime") == later
        relative = library_of(splice_dars.code.program).record(
            asker.library.tycon("DA.Time.Types", "RelTime"), microseconds=1_000
        )
        assert (
            await asker.ask("Time", "Sleep", duration=relative) is rt.UNIT
        )  # the wall clock's, as the SDK's
        assert await asker.ask("Time", "GetTime") == later
