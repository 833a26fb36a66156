"""InterfaceFilter through every read path (ACS list, page and websocket, updates and their lookups,
events-by-contract-id, submit-and-wait-for-transaction), interface choices over HTTP, and the errors of both.

The participant serves the bundled model (`IIou`) and the `shapes` test package (`IShape`, with a view that
fails for `Broken`). Every answer is checked against the official spec by the `LedgerApi` helper.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import participant.api as api
from participant.models import iou
from participant.server.app import create_app
from tests.conftest import SECRET, LedgerApi, settings_for, start_server, token, ws_protocols
from tests.engine import shapes_package as shapes
from tests.http.helpers import (
    ACS_DELTA,
    ACS_PAGE,
    IOU,
    LEDGER_EFFECTS,
    acs,
    acs_body,
    assert_error,
    commands,
    create,
    created_events,
    event_format,
    events_of,
    exercise,
    iou_args,
    new_id,
    submit_tx,
    template,
    transaction_format,
)
from tests.spec import validate
from tests.test_answers_parse import read_exactly

ISHAPE = "#shapes:Shapes:IShape"
IIOU = "#model-tests:Iou:IIou"
OK = {"code": 0, "message": "", "details": []}
TIMEOUT = 30  # seconds for the websocket conversation


def interface(interface_id: str = ISHAPE, view: bool = True, blob: bool = False) -> dict:
    return {
        "identifierFilter": {
            "InterfaceFilter": {
                "value": {
                    "interfaceId": interface_id,
                    "includeInterfaceView": view,
                    "includeCreatedEventBlob": blob,
                }
            }
        }
    }


@pytest.fixture
async def shapes_ledger(tmp_path):
    app = create_app(settings_for(tmp_path / "shapes.db", packages=("tests.engine.shapes_package",)))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield LedgerApi(http)


@pytest.fixture
async def made(shapes_ledger) -> dict:
    """Alice's contracts: an Iou, a Square, a Broken (its view fails) and a Plain (no interface)."""
    alice = await shapes_ledger.party("Alice")
    cmds = [
        create(iou_args(alice, alice, "12.5", "CHF")),
        create({"owner": alice, "name": "sq"}, "#shapes:Shapes:Square"),
        create({"owner": alice}, "#shapes:Shapes:Broken"),
        create({"owner": alice}, "#shapes:Shapes:Plain"),
    ]
    events = events_of(await submit_tx(shapes_ledger, commands([alice], *cmds), user="Alice"))
    cid = [e["contractId"] for _, e in events]
    return {
        "alice": alice,
        "iou": cid[0],
        "square": cid[1],
        "broken": cid[2],
        "plain": cid[3],
        "offset": await shapes_ledger.ledger_end(),
    }


def square_view() -> dict:
    return {
        "interfaceId": shapes.IShape.interface_id(),
        "viewStatus": OK,
        "viewValue": {"name": "sq", "sides": "4"},
        "implementationPackageId": shapes.package.package_id,
    }


def by_contract(events: list[dict]) -> dict[str, dict]:
    return {e["contractId"]: e for e in events}


async def acs_events(ledger_api, made, filters: list[dict]) -> dict[str, dict]:
    r = await acs(
        ledger_api, acs_body(made["offset"], event_format(made["alice"], filters=filters)), user="Alice"
    )
    assert r.status_code == 200, r.text
    return by_contract(created_events(r.json()))


# --- the ACS


async def test_acs_interface_filter_with_views(shapes_ledger, made):
    r = await acs(
        shapes_ledger,
        acs_body(made["offset"], event_format(made["alice"], filters=[interface()])),
        user="Alice",
    )
    for entry in r.json():  # a failed view reads with the wire models too, strictly and back
        read_exactly(api.JsGetActiveContractsResponse, entry)
    events = await acs_events(shapes_ledger, made, [interface()])
    assert set(events) == {made["square"], made["broken"]}  # the templates that implement IShape
    assert events[made["square"]]["interfaceViews"] == [square_view()]
    assert events[made["square"]]["createdEventBlob"] == ""
    (broken,) = events[made["broken"]]["interfaceViews"]
    assert broken["interfaceId"] == shapes.IShape.interface_id()
    assert broken["viewValue"] is None and broken["implementationPackageId"] is None
    assert broken["viewStatus"]["code"] == 9 and "view crashed" in broken["viewStatus"]["message"]


async def test_acs_interface_filter_without_views_but_with_blobs(shapes_ledger, made):
    events = await acs_events(shapes_ledger, made, [interface(view=False, blob=True)])
    assert set(events) == {made["square"], made["broken"]}
    assert all(e["interfaceViews"] == [] and e["createdEventBlob"] for e in events.values())


async def test_acs_mixed_template_and_interface_filters(shapes_ledger, made):
    events = await acs_events(
        shapes_ledger, made, [template("#shapes:Shapes:Plain"), interface(), template(IOU)]
    )
    assert set(events) == {made["plain"], made["square"], made["broken"], made["iou"]}
    assert events[made["plain"]]["interfaceViews"] == events[made["iou"]]["interfaceViews"] == []
    assert events[made["square"]]["interfaceViews"] == [square_view()]


async def test_acs_the_iiou_view_of_the_bundled_model(shapes_ledger, made):
    events = await acs_events(shapes_ledger, made, [interface(IIOU)])
    assert set(events) == {made["iou"]}
    assert events[made["iou"]]["interfaceViews"] == [
        {
            "interfaceId": iou.IIou.interface_id(),
            "viewStatus": OK,
            "viewValue": {"icurrency": "CHF", "iamount": "12.5000000000"},
            "implementationPackageId": iou.package.package_id,
        }
    ]


async def test_acs_page_with_an_interface_filter(shapes_ledger, made):
    body = {
        "activeAtOffset": made["offset"],
        "eventFormat": event_format(made["alice"], filters=[interface()]),
    }
    r = await shapes_ledger.call("GET", ACS_PAGE, json=body, user="Alice")
    assert r.status_code == 200, r.text
    events = by_contract(created_events(r.json()["activeContracts"]))
    assert set(events) == {made["square"], made["broken"]}
    assert events[made["square"]]["interfaceViews"] == [square_view()]


async def test_the_fast_path_and_the_general_path_print_the_same_created_event(shapes_ledger, made):
    """The ACS renders entries from pre-rendered text; events-by-contract-id and the update stream build them
    field by field. For the same contract and filter they give the same JSON, keys in the same order."""
    alice = made["alice"]
    for filters in ([interface()], [interface(view=False, blob=True)], [template("#shapes:Shapes:Square")]):
        fmt = event_format(alice, filters=filters)
        from_acs = (await acs_events(shapes_ledger, made, filters))[made["square"]]
        r = await shapes_ledger.post(
            "/v2/events/events-by-contract-id",
            {"contractId": made["square"], "eventFormat": fmt},
            user="Alice",
        )
        from_lookup = r.json()["created"]["createdEvent"]
        r = await shapes_ledger.post(
            "/v2/updates",
            {
                "beginExclusive": 0,
                "endInclusive": made["offset"],
                "updateFormat": {"includeTransactions": {"eventFormat": fmt, "transactionShape": ACS_DELTA}},
            },
            user="Alice",
        )
        streamed = [
            e["CreatedEvent"] for u in r.json() for e in u["update"]["Transaction"]["value"]["events"]
        ]
        from_stream = by_contract(streamed)[made["square"]]
        assert json.dumps(from_acs) == json.dumps(from_lookup) == json.dumps(from_stream)


async def test_acs_websocket_with_an_interface_filter(tmp_path):
    server = start_server(tmp_path / "ws.db", "--hs256-secret", SECRET)
    try:
        async with httpx.AsyncClient(base_url=server.url) as http:
            ledger_api = LedgerApi(http)
            alice = await ledger_api.party("Alice")
            await ledger_api.create_iou(alice, alice, "7", user="Alice")
            offset = await ledger_api.ledger_end()
        url = server.url.replace("http://", "ws://") + "/v2/state/active-contracts"
        body = {"eventFormat": event_format(alice, filters=[interface(IIOU)]), "activeAtOffset": offset}
        messages: list[dict] = []
        protocols = ws_protocols(token("Alice"))
        async with asyncio.timeout(TIMEOUT):
            async with connect(url, subprotocols=protocols) as ws:
                await ws.send(json.dumps(body))
                try:
                    while len(messages) < 10:
                        messages.append(json.loads(await ws.recv()))
                except ConnectionClosed as closed:
                    assert closed.rcvd is not None and closed.rcvd.code == 1000, closed
        for m in messages:
            validate("JsGetActiveContractsResponse", m)
        (view,) = created_events(messages)[0]["interfaceViews"]
        assert view["viewValue"] == {"icurrency": "USD", "iamount": "7.0000000000"}
        assert view["interfaceId"].endswith(":Iou:IIou") and view["viewStatus"] == OK
    finally:
        server.stop()


# --- updates, lookups and submit-and-wait


async def discard(
    ledger_api, made, *, fmt: dict | None = None, template_id: str = ISHAPE, choice: str = "Shape_Discard"
) -> httpx.Response:
    cmds = commands([made["alice"]], exercise(made["square"], choice, {}, template_id))
    return await submit_tx(ledger_api, cmds, user="Alice", fmt=fmt)


async def test_interface_choice_through_submit_and_wait_for_transaction(shapes_ledger, made):
    fmt = transaction_format(made["alice"], shape=LEDGER_EFFECTS, filters=[interface()])
    ((kind, exercised),) = events_of(await discard(shapes_ledger, made, fmt=fmt))
    assert kind == "ExercisedEvent"
    assert exercised["interfaceId"] == shapes.IShape.interface_id()
    assert exercised["templateId"] == shapes.Square.template_id()
    assert exercised["choice"] == "Shape_Discard" and exercised["consuming"]
    assert exercised["implementedInterfaces"] == [shapes.IShape.interface_id()]


async def test_archives_list_implemented_interfaces_only_with_views(shapes_ledger, made):
    r = await discard(shapes_ledger, made, fmt=transaction_format(made["alice"], filters=[interface()]))
    ((kind, archived),) = events_of(r)
    assert kind == "ArchivedEvent" and archived["implementedInterfaces"] == [shapes.IShape.interface_id()]
    offset = r.json()["transaction"]["offset"]
    for filters in ([interface(view=False)], [template("#shapes:Shapes:Square")]):
        fmt = {"includeTransactions": transaction_format(made["alice"], filters=filters)}
        r = await shapes_ledger.post(
            "/v2/updates/update-by-offset", {"offset": offset, "updateFormat": fmt}, user="Alice"
        )
        assert r.status_code == 200, r.text
        archived = r.json()["update"]["Transaction"]["value"]["events"][0]["ArchivedEvent"]
        assert archived["implementedInterfaces"] == []


async def test_updates_and_lookups_carry_views(shapes_ledger, made):
    alice = made["alice"]
    for shape in (ACS_DELTA, LEDGER_EFFECTS):
        fmt = {"includeTransactions": transaction_format(alice, shape=shape, filters=[interface()])}
        r = await shapes_ledger.post(
            "/v2/updates",
            {"beginExclusive": 0, "endInclusive": made["offset"], "updateFormat": fmt},
            user="Alice",
        )
        assert r.status_code == 200, r.text
        (update,) = r.json()
        tx = update["update"]["Transaction"]["value"]
        events = by_contract([e["CreatedEvent"] for e in tx["events"]])
        assert set(events) == {made["square"], made["broken"]}
        assert events[made["square"]]["interfaceViews"] == [square_view()]
        r = await shapes_ledger.post(
            "/v2/updates/update-by-id", {"updateId": tx["updateId"], "updateFormat": fmt}, user="Alice"
        )
        assert r.json()["update"]["Transaction"]["value"] == tx


async def test_a_template_choice_has_no_interface_id(shapes_ledger, made):
    fmt = transaction_format(made["alice"], shape=LEDGER_EFFECTS, filters=[interface()])
    r = await discard(shapes_ledger, made, fmt=fmt, template_id="#shapes:Shapes:Square", choice="Archive")
    ((_, exercised),) = events_of(r)
    assert exercised["interfaceId"] is None and exercised["choice"] == "Archive"
    assert exercised["implementedInterfaces"] == [shapes.IShape.interface_id()]


async def test_the_iiou_archive_choice(shapes_ledger, made):
    fmt = transaction_format(made["alice"], shape=LEDGER_EFFECTS)
    r = await submit_tx(
        shapes_ledger,
        commands([made["alice"]], exercise(made["iou"], "Archive", {}, IIOU)),
        user="Alice",
        fmt=fmt,
    )
    ((_, exercised),) = events_of(r)
    assert (
        exercised["interfaceId"] == iou.IIou.interface_id()
        and exercised["templateId"] == iou.Iou.template_id()
    )
    assert exercised["implementedInterfaces"] == []  # no interface filter asked for it


async def test_events_by_contract_id_with_an_interface_filter(shapes_ledger, made):
    await discard(shapes_ledger, made)
    fmt = event_format(made["alice"], filters=[interface()])
    r = await shapes_ledger.post(
        "/v2/events/events-by-contract-id", {"contractId": made["square"], "eventFormat": fmt}, user="Alice"
    )
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["created"]["createdEvent"]["interfaceViews"] == [square_view()]
    assert body["archived"]["archivedEvent"]["implementedInterfaces"] == [shapes.IShape.interface_id()]
    r = await shapes_ledger.post(
        "/v2/events/events-by-contract-id", {"contractId": made["plain"], "eventFormat": fmt}, user="Alice"
    )
    assert_error(r, 404, "CONTRACT_EVENTS_NOT_FOUND")  # Plain does not implement IShape


async def test_contract_by_id_has_no_filter_and_so_no_views(shapes_ledger, made):
    r = await shapes_ledger.post(
        "/v2/contracts/contract-by-id",
        {"contractId": made["square"], "queryingParties": [made["alice"]]},
        user="Alice",
    )
    assert r.status_code == 200, r.text
    assert r.json()["createdEvent"]["interfaceViews"] == []


# --- errors


@pytest.mark.parametrize(
    "interface_id,status,code",
    [
        ("#shapes:Shapes:INothing", 404, "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME"),
        (
            "#shapes:Shapes:Square",
            404,
            "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
        ),  # a template, not one
        ("#no-such-package:Shapes:IShape", 404, "PACKAGE_NAMES_NOT_FOUND"),
        ("PKGID:Shapes:IShape", 400, "INVALID_FIELD"),  # filters take the package-name form only (3.5)
        ("", 400, "MISSING_FIELD"),
    ],
)
async def test_interface_filter_errors(shapes_ledger, made, interface_id, status, code):
    if interface_id.startswith("PKGID"):
        interface_id = interface_id.replace("PKGID", shapes.package.package_id)
    fmt = event_format(made["alice"], filters=[interface(interface_id)])
    body = assert_error(await acs(shapes_ledger, acs_body(made["offset"], fmt), user="Alice"), status, code)
    if interface_id == "#shapes:Shapes:INothing":
        assert body["cause"] == (
            "The following package-name/interface qualified-name pairs do not reference any "
            "interface-id uploaded on this participant: [(shapes,Shapes:INothing)]."
        )
    r = await shapes_ledger.post(
        "/v2/updates",
        {
            "beginExclusive": 0,
            "endInclusive": made["offset"],
            "updateFormat": {"includeTransactions": {"eventFormat": fmt, "transactionShape": ACS_DELTA}},
        },
        user="Alice",
    )
    assert_error(r, status, code)
    r = await discard(shapes_ledger, made, fmt={"eventFormat": fmt, "transactionShape": ACS_DELTA})
    assert_error(r, status, code)
    assert (await shapes_ledger.ledger_end()) == made["offset"]  # the bad request changed nothing


async def test_interface_filter_needs_read_rights_like_a_template_filter(shapes_ledger, made):
    bob = await shapes_ledger.party("Bob")
    fmt = event_format(made["alice"], filters=[interface()])
    assert_error(await acs(shapes_ledger, acs_body(made["offset"], fmt), user="Bob"), 403, "NA")
    fmt = event_format(bob, filters=[interface()])
    r = await acs(shapes_ledger, acs_body(made["offset"], fmt), user="Bob")
    assert r.status_code == 200 and r.json() == []


async def test_interface_choice_errors(shapes_ledger, made):
    alice = made["alice"]
    r = await submit_tx(
        shapes_ledger, commands([alice], exercise(made["plain"], "Shape_Discard", {}, ISHAPE)), user="Alice"
    )
    body = assert_error(r, 400, "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE")
    assert ["INTERFACE_ID", shapes.IShape.interface_id()] in body["resources"]
    r = await submit_tx(
        shapes_ledger,
        commands([alice], exercise(made["iou"], "Iou_Split", {"splitAmount": "1"}, IIOU)),
        user="Alice",
    )
    body = assert_error(r, 400, "INVALID_ARGUMENT")
    assert body["cause"].endswith("or choice:Iou_Split")
    r = await submit_tx(
        shapes_ledger,
        commands([alice], exercise(made["iou"], "Archive", {}, "#model-tests:Iou:INothing")),
        user="Alice",
    )
    assert_error(r, 404, "TEMPLATES_OR_INTERFACES_NOT_FOUND")
    assert (await shapes_ledger.ledger_end()) == made["offset"]


# --- reassignments


async def test_views_on_assignments_and_in_flight_contracts(shapes_ledger, made):
    """The created event of an assignment, and of a contract in flight in the ACS, carry the views too."""
    alice = made["alice"]
    r = await shapes_ledger.get("/v2/state/connected-synchronizers")
    source, target = [s["synchronizerId"] for s in r.json()["connectedSynchronizers"]][:2]
    fmt = event_format(alice, filters=[interface()])
    wait = "/v2/commands/submit-and-wait-for-reassignment"

    def reassignment(command: dict) -> dict:
        return {
            "reassignmentCommands": {
                "commandId": new_id("re"),
                "submitter": alice,
                "commands": [{"command": command}],
            },
            "eventFormat": fmt,
        }

    r = await shapes_ledger.post(
        wait,
        reassignment(
            {"UnassignCommand": {"value": {"contractId": made["square"], "source": source, "target": target}}}
        ),
        user="Alice",
    )
    assert r.status_code == 200, r.text
    rid = r.json()["reassignment"]["events"][0]["JsUnassignedEvent"]["value"]["reassignmentId"]
    r = await acs(shapes_ledger, acs_body(await shapes_ledger.ledger_end(), fmt), user="Alice")
    in_flight = [
        e["contractEntry"]["JsIncompleteUnassigned"]
        for e in r.json()
        if "JsIncompleteUnassigned" in e["contractEntry"]
    ]
    assert [e["createdEvent"]["interfaceViews"] for e in in_flight] == [[square_view()]]
    r = await shapes_ledger.post(
        wait,
        reassignment(
            {"AssignCommand": {"value": {"reassignmentId": rid, "source": source, "target": target}}}
        ),
        user="Alice",
    )
    assert r.status_code == 200, r.text
    (event,) = r.json()["reassignment"]["events"]
    assert event["JsAssignmentEvent"]["createdEvent"]["interfaceViews"] == [square_view()]
    r = await acs(shapes_ledger, acs_body(await shapes_ledger.ledger_end(), fmt), user="Alice")
    moved = by_contract(created_events(r.json()))[made["square"]]
    assert moved["interfaceViews"] == [square_view()]
