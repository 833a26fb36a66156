"""A Daml exception that a nested exercise leaves unhandled is the enclosing update's to catch: `try (exercise
self Divide arg) catch _ -> pure -1` on a contract whose `Divide` divides by zero answers -1, and the rolled-back
exercise is not in the transaction (without a `try` it is UNHANDLED_EXCEPTION, as before)."""

from __future__ import annotations

import httpx

from participant.daml_lf._proto import daml_lf2_pb2 as lf
from participant.server.app import create_app
from tests.conftest import LedgerApi, settings_for
from tests.daml_lf.conftest import RICHTYPES
from tests.engine.hostile_package import HostileBuilder, marker_id

NAME = "nested-catch"


def _package(dar: bytes) -> bytes:
    """Marker's choices `Divide` (result `1 / level`) and `Guarded` (`Divide` on itself, in a `try` whose handler
    answers -1), both taking richtypes' `Profile`."""
    b = HostileBuilder(dar, NAME)
    int64 = b.builtin_type("INT64")
    level = lf.Expr(
        rec_proj=lf.Expr.RecProj(
            tycon=lf.Type.Con(tycon=b.profile()), field_interned_str=b.string("level"), record=b.var("arg")
        )
    )
    divide = lf.Update(pure=lf.Pure(type=int64, expr=b.call("DIV_INT64", b.int64(1), level)))
    b.choice("Divide", int64, lf.Expr(update=divide))
    marker = lf.TypeConId(module=b.module_id(), name_interned_dname=b.marker.tycon_interned_dname)
    nested = lf.Update(
        exercise=lf.Update.Exercise(
            template=marker, choice_interned_str=b.string("Divide"), cid=b.var("self"), arg=b.var("arg")
        )
    )
    handler = lf.Expr(
        optional_some=lf.Expr.OptionalSome(
            type=b.builtin_type("UPDATE", int64),
            value=lf.Expr(update=lf.Update(pure=lf.Pure(type=int64, expr=b.int64(-1)))),
        )
    )
    guarded = lf.Update(
        try_catch=lf.Update.TryCatch(
            return_type=int64,
            try_expr=lf.Expr(update=nested),
            var_interned_str=b.string("e"),
            catch_expr=handler,
        )
    )
    b.choice("Guarded", int64, lf.Expr(update=guarded))
    return b.build()


async def test_a_try_catches_what_a_nested_exercise_threw(tmp_path, dar_bytes):
    app = create_app(settings_for(tmp_path / "ledger.db"))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            api = LedgerApi(http)
            r = await api.call(
                "POST",
                "/v2/dars",
                content=_package(dar_bytes(RICHTYPES)),
                headers={"Content-Type": "application/octet-stream"},
            )
            assert r.status_code == 200, r.text
            alice = await api.party("Alice")
            body = {
                "commands": {
                    "commands": [
                        {
                            "CreateCommand": {
                                "templateId": marker_id(NAME),
                                "createArguments": {"owner": alice},
                            }
                        }
                    ],
                    "commandId": "marker",
                    "actAs": [alice],
                }
            }
            r = await api.post("/v2/commands/submit-and-wait-for-transaction", body, user="Alice")
            assert r.status_code == 200, r.text
            marker = r.json()["transaction"]["events"][0]["CreatedEvent"]["contractId"]
            shape = {
                "eventFormat": {"filtersByParty": {alice: {}}, "verbose": True},
                "transactionShape": "TRANSACTION_SHAPE_LEDGER_EFFECTS",
            }
            profile = {"nickname": "n", "level": "0"}
            r = await api.exercise(
                marker_id(NAME),
                marker,
                "Guarded",
                profile,
                act_as=[alice],
                user="Alice",
                transaction_format=shape,
            )
            assert r.status_code == 200, r.text
            [event] = r.json()["transaction"]["events"]
            assert event["ExercisedEvent"]["choice"] == "Guarded"
            assert event["ExercisedEvent"]["exerciseResult"] == "-1"
            r = await api.exercise(marker_id(NAME), marker, "Divide", profile, act_as=[alice], user="Alice")
            assert r.status_code == 400 and r.json()["code"] == "UNHANDLED_EXCEPTION", r.text
