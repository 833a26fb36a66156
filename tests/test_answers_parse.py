"""Every answer of every endpoint parses with the wire models a client reads it with (`participant.api`).

Each 200 answer is read as a client reads it (`Model.read`: lenient) and strictly (`model_validate_json`), and
dumping the strict model gives back exactly what the server sent: the model has every key the server prints and
the server every key the model knows. Every JSON error body reads as a `JsCantonError` the same way. The answers
are also checked against the official spec, by the `LedgerApi` helper, so where a model and the server disagree the
spec decides. One real server serves the whole module; the requests run against the history built once below.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

import httpx
import pydantic
import pytest
from starlette.routing import Route, WebSocketRoute
from websockets.asyncio.client import connect
from websockets.exceptions import ConnectionClosed

import participant.api as api
from participant.api import WireModel
from participant.routes import all_routes
from participant.routes.lazy import LazyRoutes
from participant.services.unsupported import ENDPOINTS
from tests.conftest import SECRET, LedgerApi, bearer, start_server, token, ws_protocols
from tests.daml_lf.conftest import DARS_DIR, RICHTYPES
from tests.http.helpers import (
    IOU,
    LEDGER_EFFECTS,
    TRANSFER,
    commands,
    create,
    event_format,
    exercise,
    iou_args,
    template,
    transaction_format,
    update_format,
)

ACCOUNT = "#keyed-example:Accounts:Account"
IIOU = "#model-tests:Iou:IIou"
BANK = "#keyed-example:Accounts:Bank"
TIMEOUT = 30  # seconds any one request or websocket conversation may take
LIST_LIMIT = 3  # the server's list limit: small, so that the 413 answer is cheap to provoke

EVERY_RIGHT = [
    {"kind": {"CanActAs": {"value": {"party": "{alice}"}}}},
    {"kind": {"CanReadAs": {"value": {"party": "{bob}"}}}},
    {"kind": {"CanExecuteAs": {"value": {"party": "{alice}"}}}},
    {"kind": {"CanReadAsAnyParty": {"value": {}}}},
    {"kind": {"CanExecuteAsAnyParty": {"value": {}}}},
    {"kind": {"ParticipantAdmin": {"value": {}}}},
    {"kind": {"IdentityProviderAdmin": {"value": {}}}},
]


# --- reading an answer as a client does ----------------------------------------------------------------------


def differences(got, sent, path: str = "") -> list[str]:
    """Where two JSON values differ, as paths (more telling than pytest's diff of two large dicts)."""
    if isinstance(got, dict) and isinstance(sent, dict):
        out = [f"{path}.{k}: {'dumped' if k in got else 'sent'} only" for k in set(got) ^ set(sent)]
        for k in set(got) & set(sent):
            out += differences(got[k], sent[k], f"{path}.{k}")
        return out
    if isinstance(got, list) and isinstance(sent, list) and len(got) == len(sent):
        return [
            d
            for i, (g, s) in enumerate(zip(got, sent, strict=True))
            for d in differences(g, s, f"{path}[{i}]")
        ]
    return [] if got == sent and type(got) is type(sent) else [f"{path}: dumped {got!r}, sent {sent!r}"]


W = TypeVar("W", bound=WireModel)


def read_exactly(model: type[W], item) -> W:
    """Lenient and strict reads agree, and the strict model dumps back to the very JSON it was read from."""
    text = json.dumps(item)
    lenient = model.read(text)
    strict = model.model_validate_json(text)
    assert lenient == strict, (lenient, strict)
    assert differences(json.loads(strict.model_dump_json()), item) == []
    return strict


def read_answer(model: type[W], r: httpx.Response, *, each: bool = False) -> list[W]:
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("application/json"), r.headers
    body = r.json()
    if each:
        assert isinstance(body, list) and body, body  # something to read
        return [read_exactly(model, item) for item in body]
    return [read_exactly(model, body)]


def read_error(r: httpx.Response, status: int, code: str) -> api.JsCantonError:
    assert r.status_code == status, (r.status_code, r.text)
    assert r.headers["content-type"].startswith("application/json"), r.headers
    error = read_exactly(api.JsCantonError, r.json())
    assert error.code == code, error
    return error


# --- the history every request reads -------------------------------------------------------------------------


@dataclass
class World:
    url: str
    db: Path
    alice: str = ""
    bob: str = ""
    ids: dict[str, str] = field(default_factory=dict)  # contract ids by name (and reassignment ids)
    syncs: list[str] = field(default_factory=list)  # the connected synchronizers' ids
    txs: dict[str, dict] = field(default_factory=dict)  # transactions (ACS-delta, as submitted) by name
    end: int = 0

    def fill(self, template_: object) -> Any:
        """`{alice}`/`{bob}` in the strings of a JSON value, replaced by the parties."""
        return json.loads(json.dumps(template_).replace("{alice}", self.alice).replace("{bob}", self.bob))


def _submit(http: httpx.Client, user: str, cmds: dict, fmt: dict | None = None) -> dict:
    body: dict = {"commands": cmds}
    if fmt is not None:
        body["transactionFormat"] = fmt
    r = http.post("/v2/commands/submit-and-wait-for-transaction", json=body, headers=bearer(user))
    assert r.status_code == 200, r.text
    return r.json()["transaction"]


def _created(tx: dict, index: int = 0) -> str:
    return [e["CreatedEvent"]["contractId"] for e in tx["events"] if "CreatedEvent" in e][index]


def _unassign(cid: str, source: str, target: str) -> dict:
    return {
        "command": {"UnassignCommand": {"value": {"contractId": cid, "source": source, "target": target}}}
    }


def _assign(rid: str, source: str, target: str) -> dict:
    return {
        "command": {"AssignCommand": {"value": {"reassignmentId": rid, "source": source, "target": target}}}
    }


def _reassignment(submitter: str, *cmds: dict) -> dict:
    return {
        "reassignmentCommands": {
            "commandId": f"re-{os.urandom(6).hex()}",
            "submitter": submitter,
            "commands": list(cmds),
        }
    }


def _build(w: World, http: httpx.Client) -> None:
    admin = bearer("participant_admin")
    for name in ("Alice", "Bob"):
        r = http.post(
            "/v2/parties",
            json={
                "partyIdHint": name,
                "localMetadata": {"resourceVersion": "", "annotations": {"team": name.lower()}},
            },
            headers=admin,
        )
        assert r.status_code == 200, r.text
        party = r.json()["partyDetails"]["party"]
        rights = [{"kind": {"CanActAs": {"value": {"party": party}}}}]
        r = http.post(
            "/v2/users", json={"user": {"id": name, "primaryParty": party}, "rights": rights}, headers=admin
        )
        assert r.status_code == 200, r.text
        setattr(w, name.lower(), party)
    r = http.post(
        "/v2/users",
        json={"user": {"id": "auditor"}, "rights": [{"kind": {"CanReadAsAnyParty": {"value": {}}}}]},
        headers=admin,
    )
    assert r.status_code == 200, r.text
    a, b = w.alice, w.bob
    blob = transaction_format(a, filters=[template(IOU, blob=True)])
    w.txs["shared"] = _submit(
        http, "Alice", commands([a], create(iou_args(a, a, "10.0", observers=[b]))), blob
    )
    w.ids["shared"] = _created(w.txs["shared"])
    w.txs["offer"] = _submit(
        http, "Alice", commands([a], exercise(w.ids["shared"], "Iou_Transfer", {"newOwner": b}))
    )
    w.ids["offer"] = _created(w.txs["offer"])
    w.txs["accept"] = _submit(
        http, "Bob", commands([b], exercise(w.ids["offer"], "IouTransfer_Accept", template_id=TRANSFER))
    )
    w.ids["bobs"] = _created(w.txs["accept"])
    w.txs["mine"] = _submit(http, "Alice", commands([a], create(iou_args(a, a, "7.5", "CHF"))))
    w.ids["mine"] = _created(w.txs["mine"])
    for amount in ("1.0", "2.0", "3.0"):  # more than the list limit, for the websocket
        _submit(http, "Alice", commands([a], create(iou_args(a, a, amount, "EUR"))))
    # A non-consuming choice, and one whose body fetches and archives (nested exercises in ledger effects).
    w.txs["check"] = _submit(
        http, "Alice", commands([a], exercise(w.ids["mine"], "DateCheckAddDays", {"payload": "2026-01-31"}))
    )
    split = _submit(
        http, "Alice", commands([a], exercise(w.ids["mine"], "Iou_Split", {"splitAmount": "2.5"}))
    )
    w.txs["merge"] = _submit(
        http,
        "Alice",
        commands([a], exercise(_created(split, 0), "Iou_Merge", {"otherCid": _created(split, 1)})),
    )
    w.ids["merged"] = _created(w.txs["merge"])
    # A contract with a key, an enum and an optional variant.
    bank = _submit(http, "Alice", commands([a], create({"bank": a, "customer": a}, BANK)))
    w.txs["account"] = _submit(
        http, "Alice", commands([a], exercise(_created(bank), "Open", {"label": "main"}, template_id=BANK))
    )
    w.ids["account"] = next(
        e["CreatedEvent"]["contractId"]
        for e in w.txs["account"]["events"]
        if "CreatedEvent" in e and e["CreatedEvent"]["contractKey"] is not None
    )
    # Reassignments: one Iou moved to the second synchronizer, another left in flight.
    w.syncs = [
        s["synchronizerId"]
        for s in http.get("/v2/state/connected-synchronizers", headers=admin).json()["connectedSynchronizers"]
    ]
    for name in ("moved", "in-flight"):
        cid = _created(_submit(http, "Alice", commands([a], create(iou_args(a, a, "4.0", "GBP")))))
        w.ids[name] = cid
        r = http.post(
            "/v2/commands/submit-and-wait-for-reassignment",
            headers=bearer("Alice"),
            json={**_reassignment(a, _unassign(cid, *w.syncs)), "eventFormat": event_format(a)},
        )
        assert r.status_code == 200, r.text
        w.txs[f"{name}-out"] = r.json()["reassignment"]
        w.ids[f"{name}-rid"] = r.json()["reassignment"]["events"][0]["JsUnassignedEvent"]["value"][
            "reassignmentId"
        ]
    r = http.post(
        "/v2/commands/submit-and-wait-for-reassignment",
        headers=bearer("Alice"),
        json={**_reassignment(a, _assign(w.ids["moved-rid"], *w.syncs)), "eventFormat": event_format(a)},
    )
    assert r.status_code == 200, r.text
    w.txs["moved-in"] = r.json()["reassignment"]
    # A user with metadata and every kind of right.
    r = http.post(
        "/v2/users",
        headers=admin,
        json={
            "user": {
                "id": "everything",
                "primaryParty": a,
                "isDeactivated": False,
                "identityProviderId": "",
                "metadata": {"resourceVersion": "", "annotations": {"desk": "rates", "floor": "3"}},
            },
            "rights": w.fill(EVERY_RIGHT),
        },
    )
    assert r.status_code == 200, r.text
    r = http.post("/v2/idps", headers=admin, json={"identityProviderConfig": _idp("corp")})
    assert r.status_code == 200, r.text
    w.end = http.get("/v2/state/ledger-end", headers=admin).json()["offset"]


def _idp(idp_id: str) -> dict:
    return {
        "identityProviderId": idp_id,
        "isDeactivated": False,
        "issuer": f"https://{idp_id}.example",
        "jwksUrl": f"https://{idp_id}.example/jwks",
        "audience": "ledger",
    }


def _fresh_idp(w: World) -> str:
    idp_id = f"idp-{os.urandom(4).hex()}"
    r = httpx.post(
        f"{w.url}/v2/idps",
        json={"identityProviderConfig": _idp(idp_id)},
        headers=bearer("participant_admin"),
        timeout=TIMEOUT,
    )
    assert r.status_code == 200, r.text
    return idp_id


def _package_id(w: World) -> str:
    return w.txs["shared"]["events"][0]["CreatedEvent"]["templateId"].split(":")[0]


def _mask(*paths: str) -> dict:
    return {"paths": list(paths), "unknownFields": {"fields": {}}}


@pytest.fixture(scope="module")
def world(tmp_path_factory):
    db = tmp_path_factory.mktemp("answers") / "ledger.db"
    server = start_server(
        db,
        "--hs256-secret",
        SECRET,
        "--max-list-elements",
        str(LIST_LIMIT),
        "--package",
        "participant.models.keyed",
    )
    try:
        w = World(server.url, db)
        with httpx.Client(base_url=server.url, timeout=TIMEOUT) as http:
            _build(w, http)
        yield w
    finally:
        server.stop()


@pytest.fixture
async def ledger_api(world):
    async with httpx.AsyncClient(base_url=world.url, timeout=TIMEOUT) as http:
        yield LedgerApi(http)


_OCTETS = {"Content-Type": "application/octet-stream"}


def _richtypes_dar() -> bytes:
    """A real DAR (the Daml SDK's), from the reference DARs beside the repository; the test skips without them."""
    path = DARS_DIR / RICHTYPES
    if not path.is_file():
        pytest.skip(f"the reference DARs are absent: {DARS_DIR}")
    return path.read_bytes()


# --- the 200 answers: one case per endpoint and interesting shape -------------------------------------------


@dataclass(frozen=True)
class Case:
    id: str
    method: str
    route: str  # as routed, e.g. /v2/users/{user_id}
    model: type[WireModel]
    request: Callable[[World], dict]  # keyword arguments of `LedgerApi.call`: path, json, params, user
    each: bool = False  # a JSON array of `model`
    check: Callable[[World, list], bool | None] | None = None  # False (or a failed assert) fails the case


def _acs(w: World, party: str, **fmt) -> dict:
    return {"activeAtOffset": w.end, "eventFormat": event_format(party, **fmt)}


def _kinds(tx) -> list[str]:
    return [e.tag for e in tx.events]


def _check_blob(w: World, entries: list) -> None:
    events = [e.contract_entry.value.created_event for e in entries]
    assert any(ev.created_event_blob for ev in events)


def _check_keyed(w: World, answers: list) -> None:
    (answer,) = answers
    event = answer.created_event
    assert event.contract_key == {"_1": w.alice, "_2": "main"} and event.contract_key_hash
    assert event.create_argument["kind"] == "Checking"


def _check_entry_kinds(w: World, answers: list) -> None:
    (answer,) = answers
    kinds = {e.contract_entry.tag for e in answer.active_contracts}
    assert kinds == {"JsActiveContract", "JsIncompleteUnassigned"}, kinds
    moved = [
        e.contract_entry.value
        for e in answer.active_contracts
        if e.contract_entry.tag == "JsActiveContract"
        and e.contract_entry.value.created_event.contract_id == w.ids["moved"]
    ]
    assert moved[0].synchronizer_id == w.syncs[1] and moved[0].reassignment_counter == 1


def _check_reassignment(kind: str) -> Callable[[World, list], None]:
    def check(w: World, answers: list) -> None:
        (answer,) = answers
        r = answer.reassignment if hasattr(answer, "reassignment") else answer.update.value.value
        assert [e.tag for e in r.events] == [kind]

    return check


def _reassign_case(w: World, path: str) -> dict:
    cid = _created(
        _submit(
            httpx.Client(base_url=w.url, timeout=TIMEOUT),
            "Alice",
            commands([w.alice], create(iou_args(w.alice, w.alice, "3.0"))),
        )
    )
    body = _reassignment(w.alice, _unassign(cid, *w.syncs))
    if path.endswith("for-reassignment"):
        body["eventFormat"] = event_format(w.alice)
    return {"path": path, "user": "Alice", "json": body}


def _check_shapes(kinds: list[str]) -> Callable[[World, list], None]:
    def check(w: World, answers: list) -> None:
        (answer,) = answers
        tx = answer.transaction if hasattr(answer, "transaction") else answer.update.value.value
        assert _kinds(tx) == kinds, _kinds(tx)

    return check


def _legacy(party: str) -> dict:
    return {"filtersByParty": event_format(party)["filtersByParty"], "filtersForAnyParty": None}


def _check_tree(kinds: list[str]) -> Callable[[World, list], None]:
    """The first tree's events, in node order."""

    def check(w: World, answers: list) -> None:
        answer = answers[0]
        tree = (
            getattr(answer, "transaction", None)
            or getattr(answer, "transaction_tree", None)
            or answer.update.value.value
        )
        got = [tree.events_by_id[k].tag for k in sorted(tree.events_by_id, key=int)]
        assert got == kinds, got

    return check


def _page_token_of_another_request(w: World) -> dict:
    body = {"maxPageSize": 1, "updateFormat": update_format(w.alice)}
    first = httpx.post(
        f"{w.url}/v2/updates/get-updates-page", json=body, headers=bearer("Alice"), timeout=TIMEOUT
    )
    assert first.status_code == 200, first.text
    return {
        "path": "/v2/updates/get-updates-page",
        "user": "Alice",
        "json": {**body, "maxPageSize": 2, "pageToken": first.json()["nextPageToken"]},
    }


def _check_rights(w: World, answers: list) -> None:
    (answer,) = answers
    rights = (
        getattr(answer, "rights", None)
        or getattr(answer, "newly_granted_rights", None)
        or answer.newly_revoked_rights
    )
    assert {r.kind.tag for r in rights} >= {
        "CanActAs",
        "CanReadAs",
        "CanExecuteAs",
        "CanReadAsAnyParty",
        "CanExecuteAsAnyParty",
        "ParticipantAdmin",
        "IdentityProviderAdmin",
    }


def _check_metadata(w: World, answers: list) -> None:
    (answer,) = answers
    assert answer.user.metadata.annotations == {"desk": "rates", "floor": "3"}


def _submit_case(w: World, cmd: dict, fmt: dict | None = None) -> dict:
    body: dict = {"commands": commands([w.alice], cmd)}
    if fmt is not None:
        body["transactionFormat"] = fmt
    return {"path": "/v2/commands/submit-and-wait-for-transaction", "json": body, "user": "Alice"}


def _grant(w: World, path_user: str) -> dict:
    return {
        "path": f"/v2/users/{path_user}/rights",
        "user": "participant_admin",
        "json": {"userId": path_user, "rights": w.fill(EVERY_RIGHT), "identityProviderId": ""},
    }


def _fresh_user(w: World, rights: list | None = None) -> str:
    """A user of its own for a case that changes users, so that cases stay independent (every right unless told)."""
    user_id = f"u-{os.urandom(4).hex()}"
    rights = w.fill(EVERY_RIGHT) if rights is None else rights
    r = httpx.post(
        f"{w.url}/v2/users",
        json={"user": {"id": user_id}, "rights": rights},
        headers=bearer("participant_admin"),
        timeout=TIMEOUT,
    )
    assert r.status_code == 200, r.text
    return user_id


def _iiou(view: bool = True) -> dict:
    return {
        "identifierFilter": {
            "InterfaceFilter": {
                "value": {"interfaceId": IIOU, "includeInterfaceView": view, "includeCreatedEventBlob": False}
            }
        }
    }


def _check_views(w: World, answers: list) -> None:
    entries = answers[0].active_contracts if hasattr(answers[0], "active_contracts") else answers
    views = [v for e in entries for v in e.contract_entry.value.created_event.interface_views]
    assert views and all(v.view_status.code == 0 and v.view_value["icurrency"] for v in views), views


def _check_interface_exercise(w: World, answers: list) -> None:
    (answer,) = answers
    (event,) = answer.transaction.events
    assert event.value.interface_id and event.value.interface_id.endswith(":Iou:IIou")
    assert event.value.implemented_interfaces == [event.value.interface_id]


def _interface_archive_case(w: World) -> dict:
    cid = _created(
        _submit(
            httpx.Client(base_url=w.url, timeout=TIMEOUT),
            "Alice",
            commands([w.alice], create(iou_args(w.alice, w.alice, "5.0"))),
        )
    )
    return _submit_case(
        w,
        exercise(cid, "Archive", template_id=IIOU),
        transaction_format(w.alice, shape=LEDGER_EFFECTS, filters=[_iiou()]),
    )


CASES = [
    # state
    Case(
        "acs",
        "POST",
        "/v2/state/active-contracts",
        api.JsGetActiveContractsResponse,
        lambda w: {
            "path": "/v2/state/active-contracts",
            "json": _acs(w, w.alice),
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
        },
        each=True,
    ),
    Case(
        "acs-with-blobs",
        "POST",
        "/v2/state/active-contracts",
        api.JsGetActiveContractsResponse,
        lambda w: {
            "path": "/v2/state/active-contracts",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": _acs(w, w.alice, filters=[template(IOU, blob=True)]),
        },
        each=True,
        check=_check_blob,
    ),
    Case(
        "acs-page",
        "GET",
        "/v2/state/active-contracts-page",
        api.JsGetActiveContractsPageResponse,
        lambda w: {
            "path": "/v2/state/active-contracts-page",
            "user": "Alice",
            "json": {"eventFormat": event_format(w.alice), "maxPageSize": 2},
        },
    ),
    Case(
        "acs-page-moved",
        "GET",
        "/v2/state/active-contracts-page",
        api.JsGetActiveContractsPageResponse,
        lambda w: {
            "path": "/v2/state/active-contracts-page",
            "user": "Alice",
            "json": {
                "eventFormat": event_format(w.alice, filters=[template(IOU, blob=True)]),
                "maxPageSize": 1000,
            },
        },
        check=_check_entry_kinds,
    ),
    Case(
        "acs-interface-views",
        "POST",
        "/v2/state/active-contracts",
        api.JsGetActiveContractsResponse,
        lambda w: {
            "path": "/v2/state/active-contracts",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": _acs(w, w.alice, filters=[_iiou()]),
        },
        each=True,
        check=_check_views,
    ),
    Case(
        "acs-page-interface-views",
        "GET",
        "/v2/state/active-contracts-page",
        api.JsGetActiveContractsPageResponse,
        lambda w: {
            "path": "/v2/state/active-contracts-page",
            "user": "Alice",
            "json": {"eventFormat": event_format(w.alice, filters=[_iiou()]), "maxPageSize": 2},
        },
        check=_check_views,
    ),
    Case(
        "ledger-end",
        "GET",
        "/v2/state/ledger-end",
        api.GetLedgerEndResponse,
        lambda w: {"path": "/v2/state/ledger-end", "user": "Alice"},
    ),
    Case(
        "pruned-offsets",
        "GET",
        "/v2/state/latest-pruned-offsets",
        api.GetLatestPrunedOffsetsResponse,
        lambda w: {"path": "/v2/state/latest-pruned-offsets", "user": "Alice"},
    ),
    Case(
        "synchronizers",
        "GET",
        "/v2/state/connected-synchronizers",
        api.GetConnectedSynchronizersResponse,
        lambda w: {
            "path": "/v2/state/connected-synchronizers",
            "user": "Alice",
            "params": {"party": w.alice},
        },
    ),
    # commands
    Case(
        "submit-create",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction",
        api.JsSubmitAndWaitForTransactionResponse,
        lambda w: _submit_case(w, create(iou_args(w.alice, w.alice))),
        check=_check_shapes(["CreatedEvent"]),
    ),
    Case(
        "submit-ledger-effects",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction",
        api.JsSubmitAndWaitForTransactionResponse,
        lambda w: _submit_case(
            w,
            {
                "CreateAndExerciseCommand": {
                    "templateId": IOU,
                    "createArguments": iou_args(w.alice, w.alice),
                    "choice": "Iou_Split",
                    "choiceArgument": {"splitAmount": "40.0"},
                }
            },
            transaction_format(w.alice, shape=LEDGER_EFFECTS),
        ),
        check=_check_shapes(["CreatedEvent", "ExercisedEvent", "CreatedEvent", "CreatedEvent"]),
    ),
    Case(
        "submit-interface-choice",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction",
        api.JsSubmitAndWaitForTransactionResponse,
        _interface_archive_case,
        check=_check_interface_exercise,
    ),
    Case(
        "submit-and-wait",
        "POST",
        "/v2/commands/submit-and-wait",
        api.SubmitAndWaitResponse,
        lambda w: {
            "path": "/v2/commands/submit-and-wait",
            "user": "Alice",
            "json": commands([w.alice], create(iou_args(w.alice, w.alice))),
        },
    ),
    Case(
        "submit-async",
        "POST",
        "/v2/commands/async/submit",
        api.SubmitResponse,
        lambda w: {
            "path": "/v2/commands/async/submit",
            "user": "Alice",
            "json": commands([w.alice], create(iou_args(w.alice, w.alice))),
        },
    ),
    Case(
        "submit-reassignment",
        "POST",
        "/v2/commands/async/submit-reassignment",
        api.SubmitReassignmentResponse,
        lambda w: _reassign_case(w, "/v2/commands/async/submit-reassignment"),
    ),
    Case(
        "submit-and-wait-for-reassignment",
        "POST",
        "/v2/commands/submit-and-wait-for-reassignment",
        api.JsSubmitAndWaitForReassignmentResponse,
        lambda w: _reassign_case(w, "/v2/commands/submit-and-wait-for-reassignment"),
        check=_check_reassignment("JsUnassignedEvent"),
    ),
    Case(
        "update-by-id-assignment",
        "POST",
        "/v2/updates/update-by-id",
        api.JsGetUpdateResponse,
        lambda w: {
            "path": "/v2/updates/update-by-id",
            "user": "Alice",
            "json": {
                "updateId": w.txs["moved-in"]["updateId"],
                "updateFormat": {"includeReassignments": event_format(w.alice)},
            },
        },
        check=_check_reassignment("JsAssignmentEvent"),
    ),
    Case(
        "updates-reassignments",
        "POST",
        "/v2/updates",
        api.JsGetUpdatesResponse,
        lambda w: {
            "path": "/v2/updates",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": {
                "beginExclusive": w.txs["moved-out"]["offset"] - 1,
                "updateFormat": {"includeReassignments": event_format(w.alice)},
            },
        },
        each=True,
        check=lambda w, a: [u.update.tag for u in a] == ["Reassignment"] * len(a),
    ),
    Case(
        "completions",
        "POST",
        "/v2/commands/completions",
        api.CompletionStreamResponse,
        lambda w: {
            "path": "/v2/commands/completions",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": {"userId": "Alice", "parties": [w.alice], "beginExclusive": 0},
        },
        each=True,
    ),
    # contracts and events
    Case(
        "contract-by-id",
        "POST",
        "/v2/contracts/contract-by-id",
        api.GetContractResponse,
        lambda w: {
            "path": "/v2/contracts/contract-by-id",
            "user": "Alice",
            "json": {"contractId": w.ids["account"], "queryingParties": [w.alice]},
        },
        check=_check_keyed,
    ),
    Case(
        "events-archived",
        "POST",
        "/v2/events/events-by-contract-id",
        api.JsGetEventsByContractIdResponse,
        lambda w: {
            "path": "/v2/events/events-by-contract-id",
            "user": "Bob",
            "json": {"contractId": w.ids["shared"], "eventFormat": event_format(w.bob)},
        },
        check=lambda w, a: a[0].archived is not None,
    ),
    Case(
        "events-interface-views",
        "POST",
        "/v2/events/events-by-contract-id",
        api.JsGetEventsByContractIdResponse,
        lambda w: {
            "path": "/v2/events/events-by-contract-id",
            "user": "Bob",
            "json": {"contractId": w.ids["shared"], "eventFormat": event_format(w.bob, filters=[_iiou()])},
        },
        check=lambda w, a: (
            a[0].archived.archived_event.implemented_interfaces
            == [v.interface_id for v in a[0].created.created_event.interface_views]
        ),
    ),
    Case(
        "events-active",
        "POST",
        "/v2/events/events-by-contract-id",
        api.JsGetEventsByContractIdResponse,
        lambda w: {
            "path": "/v2/events/events-by-contract-id",
            "user": "Bob",
            "json": {"contractId": w.ids["bobs"], "eventFormat": event_format(w.bob)},
        },
        check=lambda w, a: a[0].archived is None,
    ),
    # updates
    Case(
        "updates-acs-delta",
        "POST",
        "/v2/updates",
        api.JsGetUpdatesResponse,
        lambda w: {
            "path": "/v2/updates",
            "user": "Bob",
            "params": {"limit": LIST_LIMIT},
            "json": {"beginExclusive": 0, "updateFormat": update_format(w.bob)},
        },
        each=True,
    ),
    Case(
        "updates-ledger-effects",
        "POST",
        "/v2/updates",
        api.JsGetUpdatesResponse,
        lambda w: {
            "path": "/v2/updates",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": {
                "beginExclusive": w.txs["check"]["offset"] - 1,
                "updateFormat": update_format(w.alice, shape=LEDGER_EFFECTS),
            },
        },
        each=True,
    ),
    Case(
        "updates-interface-views",
        "POST",
        "/v2/updates",
        api.JsGetUpdatesResponse,
        lambda w: {
            "path": "/v2/updates",
            "user": "Bob",
            "params": {"limit": LIST_LIMIT},
            "json": {"beginExclusive": 0, "updateFormat": update_format(w.bob, filters=[_iiou()])},
        },
        each=True,
        check=lambda w, a: any(
            e.value.interface_views for u in a for e in u.update.value.value.events if e.tag == "CreatedEvent"
        ),
    ),
    Case(
        "update-by-offset",
        "POST",
        "/v2/updates/update-by-offset",
        api.JsGetUpdateResponse,
        lambda w: {
            "path": "/v2/updates/update-by-offset",
            "user": "Alice",
            "json": {
                "offset": w.txs["merge"]["offset"],
                "updateFormat": update_format(w.alice, shape=LEDGER_EFFECTS),
            },
        },
        check=_check_shapes(["ExercisedEvent", "ExercisedEvent", "CreatedEvent"]),
    ),
    Case(
        "update-by-id",
        "POST",
        "/v2/updates/update-by-id",
        api.JsGetUpdateResponse,
        lambda w: {
            "path": "/v2/updates/update-by-id",
            "user": "Bob",
            "json": {"updateId": w.txs["accept"]["updateId"], "updateFormat": update_format(w.bob)},
        },
        check=_check_shapes(["ArchivedEvent", "CreatedEvent"]),
    ),
    Case(
        "transaction-by-offset",
        "POST",
        "/v2/updates/transaction-by-offset",
        api.JsGetTransactionResponse,
        lambda w: {
            "path": "/v2/updates/transaction-by-offset",
            "user": "Alice",
            "json": {
                "offset": w.txs["check"]["offset"],
                "transactionFormat": transaction_format(w.alice, shape=LEDGER_EFFECTS),
            },
        },
        check=_check_shapes(["ExercisedEvent"]),
    ),
    Case(
        "transaction-by-id",
        "POST",
        "/v2/updates/transaction-by-id",
        api.JsGetTransactionResponse,
        lambda w: {
            "path": "/v2/updates/transaction-by-id",
            "user": "Bob",
            "json": {"updateId": w.txs["offer"]["updateId"], "requestingParties": [w.bob]},
        },
        check=_check_shapes(["ArchivedEvent", "CreatedEvent"]),
    ),  # Bob observes the Iou offered to him
    Case(
        "updates-flats",
        "POST",
        "/v2/updates/flats",
        api.JsGetUpdatesResponse,
        lambda w: {
            "path": "/v2/updates/flats",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": {"beginExclusive": w.txs["merge"]["offset"] - 1, "filter": _legacy(w.alice)},
        },
        each=True,
    ),
    Case(
        "updates-trees",
        "POST",
        "/v2/updates/trees",
        api.JsGetUpdateTreesResponse,
        lambda w: {
            "path": "/v2/updates/trees",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": {"beginExclusive": w.txs["merge"]["offset"] - 1, "filter": _legacy(w.alice)},
        },
        each=True,
        check=_check_tree(["ExercisedTreeEvent", "ExercisedTreeEvent", "CreatedTreeEvent"]),
    ),
    Case(
        "updates-trees-reassignments",
        "POST",
        "/v2/updates/trees",
        api.JsGetUpdateTreesResponse,
        lambda w: {
            "path": "/v2/updates/trees",
            "user": "Alice",
            "params": {"limit": LIST_LIMIT},
            "json": {
                "beginExclusive": w.txs["moved-out"]["offset"] - 1,
                "updateFormat": {"includeReassignments": event_format(w.alice)},
            },
        },
        each=True,
        check=lambda w, a: [u.update.tag for u in a] == ["Reassignment"] * len(a),
    ),
    Case(
        "updates-page",
        "POST",
        "/v2/updates/get-updates-page",
        api.JsGetUpdatesPageResponse,
        lambda w: {
            "path": "/v2/updates/get-updates-page",
            "user": "Alice",
            "json": {
                "maxPageSize": 2,
                "updateFormat": {
                    "includeTransactions": transaction_format(w.alice, shape=LEDGER_EFFECTS),
                    "includeReassignments": event_format(w.alice),
                },
            },
        },
        check=lambda w, a: len(a[0].updates) == 2 and a[0].next_page_token,
    ),
    Case(
        "updates-page-descending",
        "POST",
        "/v2/updates/get-updates-page",
        api.JsGetUpdatesPageResponse,
        lambda w: {
            "path": "/v2/updates/get-updates-page",
            "user": "Alice",
            "json": {
                "maxPageSize": 2,
                "descendingOrder": True,
                "endOffsetInclusive": w.end,
                "updateFormat": {"includeReassignments": event_format(w.alice)},
            },
        },
        check=lambda w, a: [u.update.tag for u in a[0].updates] == ["Reassignment"] * 2,
    ),
    Case(
        "transaction-tree-by-offset",
        "GET",
        "/v2/updates/transaction-tree-by-offset/{offset}",
        api.JsGetTransactionTreeResponse,
        lambda w: {
            "path": f"/v2/updates/transaction-tree-by-offset/{w.txs['merge']['offset']}",
            "user": "Alice",
            "params": {"parties": w.alice},
        },
        check=_check_tree(["ExercisedTreeEvent", "ExercisedTreeEvent", "CreatedTreeEvent"]),
    ),
    Case(
        "transaction-tree-by-id",
        "GET",
        "/v2/updates/transaction-tree-by-id/{update_id}",
        api.JsGetTransactionTreeResponse,
        lambda w: {
            "path": f"/v2/updates/transaction-tree-by-id/{w.txs['check']['updateId']}",
            "user": "Alice",
            "params": {"parties": w.alice},
        },
        check=_check_tree(["ExercisedTreeEvent"]),
    ),
    Case(
        "submit-tree",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction-tree",
        api.JsSubmitAndWaitForTransactionTreeResponse,
        lambda w: {
            "path": "/v2/commands/submit-and-wait-for-transaction-tree",
            "user": "Alice",
            "json": commands(
                [w.alice],
                {
                    "CreateAndExerciseCommand": {
                        "templateId": IOU,
                        "createArguments": iou_args(w.alice, w.alice),
                        "choice": "Iou_Split",
                        "choiceArgument": {"splitAmount": "40.0"},
                    }
                },
            ),
        },
        check=_check_tree(["CreatedTreeEvent", "ExercisedTreeEvent", "CreatedTreeEvent", "CreatedTreeEvent"]),
    ),
    # parties
    Case(
        "allocate-party",
        "POST",
        "/v2/parties",
        api.AllocatePartyResponse,
        lambda w: {
            "path": "/v2/parties",
            "json": {
                "partyIdHint": f"P{os.urandom(4).hex()}",
                "localMetadata": {"resourceVersion": "", "annotations": {"k": "v"}},
            },
        },
    ),
    Case(
        "list-parties",
        "GET",
        "/v2/parties",
        api.ListKnownPartiesResponse,
        lambda w: {"path": "/v2/parties", "params": {"pageSize": 1}},
        check=lambda w, a: a[0].next_page_token != "",
    ),
    Case(
        "participant-id",
        "GET",
        "/v2/parties/participant-id",
        api.GetParticipantIdResponse,
        lambda w: {"path": "/v2/parties/participant-id", "user": "Bob"},
    ),
    Case(
        "get-parties",
        "GET",
        "/v2/parties/{party}",
        api.GetPartiesResponse,
        lambda w: {"path": f"/v2/parties/{w.alice}", "params": {"parties": w.bob}},
        check=lambda w, a: len(a[0].party_details) == 2,
    ),
    # users
    Case(
        "create-user",
        "POST",
        "/v2/users",
        api.CreateUserResponse,
        lambda w: {
            "path": "/v2/users",
            "json": {
                "user": {
                    "id": f"new-{os.urandom(4).hex()}",
                    "primaryParty": w.bob,
                    "metadata": {"resourceVersion": "", "annotations": {"desk": "rates", "floor": "3"}},
                },
                "rights": w.fill(EVERY_RIGHT),
            },
        },
        check=_check_metadata,
    ),
    Case(
        "list-users",
        "GET",
        "/v2/users",
        api.ListUsersResponse,
        lambda w: {"path": "/v2/users", "params": {"pageSize": 2}},
    ),
    Case(
        "authenticated-user",
        "GET",
        "/v2/authenticated-user",
        api.GetUserResponse,
        lambda w: {"path": "/v2/authenticated-user", "user": "everything"},
        check=_check_metadata,
    ),
    Case(
        "get-user",
        "GET",
        "/v2/users/{user_id}",
        api.GetUserResponse,
        lambda w: {"path": "/v2/users/everything"},
        check=_check_metadata,
    ),
    Case(
        "delete-user",
        "DELETE",
        "/v2/users/{user_id}",
        api.DeleteUserResponse,
        lambda w: {"path": f"/v2/users/{_fresh_user(w)}"},
    ),
    Case(
        "list-rights",
        "GET",
        "/v2/users/{user_id}/rights",
        api.ListUserRightsResponse,
        lambda w: {"path": "/v2/users/everything/rights", "user": "everything"},
        check=_check_rights,
    ),
    Case(
        "grant-rights",
        "POST",
        "/v2/users/{user_id}/rights",
        api.GrantUserRightsResponse,
        lambda w: _grant(w, _fresh_user(w, rights=[])),
        check=_check_rights,
    ),
    Case(
        "revoke-rights",
        "PATCH",
        "/v2/users/{user_id}/rights",
        api.RevokeUserRightsResponse,
        lambda w: _grant(w, _fresh_user(w)),
        check=_check_rights,
    ),
    Case(
        "update-user",
        "PATCH",
        "/v2/users/{user_id}",
        api.UpdateUserResponse,
        lambda w: (
            lambda u: {
                "path": f"/v2/users/{u}",
                "json": {
                    "user": {
                        "id": u,
                        "primaryParty": w.alice,
                        "isDeactivated": False,
                        "identityProviderId": "",
                        "metadata": {"resourceVersion": "0", "annotations": {"desk": "rates", "floor": "3"}},
                    },
                    "updateMask": _mask("primary_party", "metadata.annotations"),
                },
            }
        )(_fresh_user(w)),
        check=lambda w, a: a[0].user.metadata.resource_version == "1",
    ),
    Case(
        "update-user-idp",
        "PATCH",
        "/v2/users/{user_id}/identity-provider-id",
        api.UpdateUserIdentityProviderIdResponse,
        lambda w: (
            lambda u: {
                "path": f"/v2/users/{u}/identity-provider-id",
                "json": {"userId": u, "sourceIdentityProviderId": "", "targetIdentityProviderId": "corp"},
            }
        )(_fresh_user(w)),
    ),
    Case(
        "update-party",
        "PATCH",
        "/v2/parties/{party}",
        api.UpdatePartyDetailsResponse,
        lambda w: {
            "path": f"/v2/parties/{w.bob}",
            "json": {
                "partyDetails": {
                    "party": w.bob,
                    "isLocal": True,
                    "identityProviderId": "",
                    "localMetadata": {"resourceVersion": "", "annotations": {"seen": "yes"}},
                },
                "updateMask": _mask("local_metadata.annotations"),
            },
        },
        check=lambda w, a: a[0].party_details.local_metadata.annotations == {"team": "bob", "seen": "yes"},
    ),
    # identity provider configs
    Case(
        "create-idp",
        "POST",
        "/v2/idps",
        api.CreateIdentityProviderConfigResponse,
        lambda w: {
            "path": "/v2/idps",
            "json": {"identityProviderConfig": _idp(f"idp-{os.urandom(4).hex()}")},
        },
    ),
    Case(
        "list-idps",
        "GET",
        "/v2/idps",
        api.ListIdentityProviderConfigsResponse,
        lambda w: {"path": "/v2/idps"},
        check=lambda w, a: "corp" in [c.identity_provider_id for c in a[0].identity_provider_configs],
    ),
    Case(
        "get-idp",
        "GET",
        "/v2/idps/{idp_id}",
        api.GetIdentityProviderConfigResponse,
        lambda w: {"path": "/v2/idps/corp"},
    ),
    Case(
        "update-idp",
        "PATCH",
        "/v2/idps/{idp_id}",
        api.UpdateIdentityProviderConfigResponse,
        lambda w: {
            "path": "/v2/idps/corp",
            "json": {
                "identityProviderConfig": {**_idp("corp"), "audience": "other"},
                "updateMask": _mask("audience"),
            },
        },
        check=lambda w, a: a[0].identity_provider_config.audience == "other",
    ),
    Case(
        "delete-idp",
        "DELETE",
        "/v2/idps/{idp_id}",
        api.DeleteIdentityProviderConfigResponse,
        lambda w: {"path": f"/v2/idps/{_fresh_idp(w)}"},
    ),
    # version and packages
    Case(
        "preferred-package-version",
        "GET",
        "/v2/interactive-submission/preferred-package-version",
        api.GetPreferredPackageVersionResponse,
        lambda w: {
            "path": "/v2/interactive-submission/preferred-package-version",
            "user": "Alice",
            "params": {"package-name": "model-tests", "parties": [w.alice]},
        },
        check=lambda w, a: a[0].package_preference.package_reference.package_id == _package_id(w),
    ),
    Case(
        "preferred-packages",
        "POST",
        "/v2/interactive-submission/preferred-packages",
        api.GetPreferredPackagesResponse,
        lambda w: {
            "path": "/v2/interactive-submission/preferred-packages",
            "user": "Alice",
            "json": {
                "packageVettingRequirements": [
                    {"packageName": "model-tests", "parties": [w.alice]},
                    {"packageName": "keyed-example", "parties": [w.alice]},
                ],
                "synchronizerId": w.syncs[1],
            },
        },
        check=lambda w, a: len(a[0].package_references) == 2 and a[0].synchronizer_id == w.syncs[1],
    ),
    Case(
        "version",
        "GET",
        "/v2/version",
        api.GetLedgerApiVersionResponse,
        lambda w: {"path": "/v2/version", "user": None},
    ),
    Case(
        "packages",
        "GET",
        "/v2/packages",
        api.ListPackagesResponse,
        lambda w: {"path": "/v2/packages", "user": "Bob"},
        check=lambda w, a: len(a[0].package_ids) == 2,
    ),
    Case(
        "package-status",
        "GET",
        "/v2/packages/{package_id}/status",
        api.GetPackageStatusResponse,
        lambda w: {
            "path": f"/v2/packages/{w.txs['shared']['events'][0]['CreatedEvent']['templateId'].split(':')[0]}"
            "/status",
            "user": "Bob",
        },
        check=lambda w, a: a[0].package_status == "PACKAGE_STATUS_REGISTERED",
    ),
    Case(
        "dar-upload",
        "POST",
        "/v2/dars",
        api.UploadDarFileResponse,
        lambda w: {"path": "/v2/dars", "content": _richtypes_dar(), "headers": _OCTETS},
    ),
    Case(
        "package-upload",
        "POST",
        "/v2/packages",
        api.UploadDarFileResponse,
        lambda w: {"path": "/v2/packages", "content": _richtypes_dar(), "headers": _OCTETS},
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
async def test_every_answer_parses(world, ledger_api, case: Case):
    kwargs = {"user": "participant_admin", **case.request(world)}
    r = await ledger_api.call(case.method, kwargs.pop("path"), **kwargs)
    answers = read_answer(case.model, r, each=case.each)
    if case.check is not None:
        assert case.check(world, answers) is not False


async def test_the_transaction_shapes_read(world, ledger_api):
    """Created, archived and exercised events, consuming or not, as the stream shows them to each party."""
    a = world.alice
    body = {
        "beginExclusive": 0,
        "endInclusive": world.end,
        "updateFormat": update_format(a, shape=LEDGER_EFFECTS),
    }
    r = await ledger_api.post("/v2/updates", body, user="Alice")  # more than the list limit: refused
    read_error(r, 413, "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED")
    seen: dict[str, set] = {}
    for name, tx in world.txs.items():
        for shape in ("TRANSACTION_SHAPE_ACS_DELTA", LEDGER_EFFECTS):
            r = await ledger_api.post(
                "/v2/updates/update-by-id",
                {"updateId": tx["updateId"], "updateFormat": update_format(a, shape=shape)},
                user="Alice",
            )
            if name == "check" and shape != LEDGER_EFFECTS:  # a non-consuming choice changes no contract
                read_error(r, 404, "UPDATE_NOT_FOUND")
                continue
            if name.startswith(("moved", "in-flight")):  # a reassignment, and the format asks for none
                read_error(r, 404, "UPDATE_NOT_FOUND")
                continue
            (answer,) = read_answer(api.JsGetUpdateResponse, r)
            assert answer.update is not None
            for event in answer.update.value.value.events:
                seen.setdefault(shape, set()).add((event.tag, getattr(event.value, "consuming", None)))
    assert seen["TRANSACTION_SHAPE_ACS_DELTA"] == {("CreatedEvent", None), ("ArchivedEvent", None)}
    assert seen[LEDGER_EFFECTS] == {
        ("CreatedEvent", None),
        ("ExercisedEvent", True),
        ("ExercisedEvent", False),
    }


# --- the websocket form of the ACS ------------------------------------------------------------------------------


async def _converse(world: World, body: dict) -> list:
    url = world.url.replace("http://", "ws://") + "/v2/state/active-contracts"
    messages: list[dict] = []
    async with (
        asyncio.timeout(TIMEOUT),
        connect(
            url,
            subprotocols=ws_protocols(token("Alice")),
            open_timeout=TIMEOUT,
            max_size=None,
        ) as ws,
    ):
        await ws.send(json.dumps(body))
        try:
            while len(messages) < 1000:
                messages.append(json.loads(await ws.recv()))
        except ConnectionClosed:
            pass
    return messages


async def test_websocket_messages_parse(world):
    messages = await _converse(world, _acs(world, world.alice, filters=[template(IOU, blob=True)]))
    assert len(messages) > LIST_LIMIT
    entries = [read_exactly(api.JsGetActiveContractsResponse, m) for m in messages]
    assert all(e.stream_continuation_token for e in entries)
    (error,) = await _converse(world, {**_acs(world, world.alice), "activeAtOffset": world.end + 1000})
    assert read_exactly(api.JsCantonError, error).code == "OFFSET_AFTER_LEDGER_END"


async def _stream(world: World, path: str, body: dict, count: int) -> list:
    """The first `count` messages of a websocket stream (which may go on: the client closes it)."""
    url = world.url.replace("http://", "ws://") + path
    async with (
        asyncio.timeout(TIMEOUT),
        connect(
            url,
            subprotocols=ws_protocols(token("Alice")),
            open_timeout=TIMEOUT,
            max_size=None,
            # the messages not read are buffered whole: with the client's default bound (16) it stops reading the
            # socket, so it never sees the server's answer to its close and waits out its close timeout (10 s a
            # stream, 40 s of this test once the module's submissions follow `merge`)
            max_queue=None,
        ) as ws,
    ):
        await ws.send(json.dumps(body))
        return [json.loads(await ws.recv()) for _ in range(count)]


async def test_websocket_update_streams_parse(world):
    begin = world.txs["merge"]["offset"] - 1
    legacy = {"beginExclusive": begin, "filter": _legacy(world.alice)}
    model: type[api.JsGetUpdatesResponse | api.JsGetUpdateTreesResponse]
    for path, model in (
        ("/v2/updates", api.JsGetUpdatesResponse),
        ("/v2/updates/flats", api.JsGetUpdatesResponse),
        ("/v2/updates/trees", api.JsGetUpdateTreesResponse),
    ):
        messages = await _stream(world, path, legacy, 3)  # no end: the stream tails, the client closes it
        first, *_ = [read_exactly(model, m).update for m in messages]
        assert first is not None and first.tag in {"Transaction", "TransactionTree"}
    body = {"userId": "Alice", "parties": [world.alice], "beginExclusive": 0}
    for m in await _stream(world, "/v2/commands/completions", body, 3):
        read_exactly(api.CompletionStreamResponse, m)
    (error,) = await _stream(world, "/v2/updates/trees", {"beginExclusive": 0}, 1)
    assert read_exactly(api.JsCantonError, error).code == "INVALID_ARGUMENT"


# --- error answers: at least one per endpoint that has any -------------------------------------------------------


@dataclass(frozen=True)
class ErrorCase:
    id: str
    method: str
    route: str
    status: int
    code: str
    request: Callable[[World], dict]


UNKNOWN_CID = "00" + "ab" * 32 + "ca12" + "1220" + "cd" * 32
UNKNOWN_UPDATE = "1220" + "0" * 64


def _unsupported_request(path: str) -> Callable[[World], dict]:
    return lambda w: {"path": path, "json": {}}


ERROR_CASES = [
    ErrorCase(
        "acs-offset",
        "POST",
        "/v2/state/active-contracts",
        400,
        "NEGATIVE_OFFSET",
        lambda w: {
            "path": "/v2/state/active-contracts",
            "user": "Alice",
            "json": {**_acs(w, w.alice), "activeAtOffset": -1},
        },
    ),
    ErrorCase(
        "acs-list-limit",
        "POST",
        "/v2/state/active-contracts",
        413,
        "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED",
        lambda w: {"path": "/v2/state/active-contracts", "user": "Alice", "json": _acs(w, w.alice)},
    ),
    ErrorCase(
        "acs-unknown-interface",
        "POST",
        "/v2/state/active-contracts",
        404,
        "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME",
        lambda w: {
            "path": "/v2/state/active-contracts",
            "user": "Alice",
            "json": _acs(
                w,
                w.alice,
                filters=[
                    {
                        "identifierFilter": {
                            "InterfaceFilter": {"value": {"interfaceId": "#model-tests:Iou:INone"}}
                        }
                    }
                ],
            ),
        },
    ),
    ErrorCase(
        "acs-page-format",
        "GET",
        "/v2/state/active-contracts-page",
        400,
        "MISSING_FIELD",
        lambda w: {"path": "/v2/state/active-contracts-page", "user": "Alice", "json": {}},
    ),
    ErrorCase(
        "ledger-end-token",
        "GET",
        "/v2/state/ledger-end",
        401,
        "NA",
        lambda w: {"path": "/v2/state/ledger-end", "user": None},
    ),
    ErrorCase(
        "pruned-offsets-token",
        "GET",
        "/v2/state/latest-pruned-offsets",
        401,
        "NA",
        lambda w: {"path": "/v2/state/latest-pruned-offsets", "user": None},
    ),
    ErrorCase(
        "synchronizers-rights",
        "GET",
        "/v2/state/connected-synchronizers",
        403,
        "NA",
        lambda w: {"path": "/v2/state/connected-synchronizers", "user": "Bob", "params": {"party": w.alice}},
    ),
    ErrorCase(
        "submit-unknown-contract",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction",
        404,
        "CONTRACT_NOT_FOUND",
        lambda w: _submit_case(w, exercise(UNKNOWN_CID, "Iou_Settle")),
    ),
    ErrorCase(
        "submit-not-implemented",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction",
        400,
        "CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE",
        lambda w: _submit_case(w, exercise(w.ids["account"], "Archive", template_id=IIOU)),
    ),
    ErrorCase(
        "submit-ensure",
        "POST",
        "/v2/commands/submit-and-wait",
        400,
        "UNHANDLED_EXCEPTION",
        lambda w: {
            "path": "/v2/commands/submit-and-wait",
            "user": "Alice",
            "json": commands([w.alice], create(iou_args(w.alice, w.alice, "-1.0"))),
        },
    ),
    ErrorCase(
        "submit-duplicate",
        "POST",
        "/v2/commands/async/submit",
        409,
        "DUPLICATE_COMMAND",
        lambda w: {
            "path": "/v2/commands/async/submit",
            "user": "Alice",
            "json": commands(
                [w.alice], create(iou_args(w.alice, w.alice)), commandId=w.txs["mine"]["commandId"]
            ),
        },
    ),
    ErrorCase(
        "submit-reassignment-unknown",
        "POST",
        "/v2/commands/async/submit-reassignment",
        400,
        "INVALID_ARGUMENT",
        lambda w: {
            "path": "/v2/commands/async/submit-reassignment",
            "user": "Alice",
            "json": _reassignment(w.alice, _assign("00" + "ab" * 32, *w.syncs)),
        },
    ),
    ErrorCase(
        "submit-and-wait-for-reassignment-in-flight",
        "POST",
        "/v2/commands/submit-and-wait-for-reassignment",
        400,
        "INVALID_ARGUMENT",
        lambda w: {
            "path": "/v2/commands/submit-and-wait-for-reassignment",
            "user": "Alice",
            "json": _reassignment(w.alice, _unassign(w.ids["in-flight"], *w.syncs)),
        },
    ),
    ErrorCase(
        "submit-in-flight",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction",
        400,
        "UNKNOWN_CONTRACT_SYNCHRONIZERS",
        lambda w: _submit_case(w, exercise(w.ids["in-flight"], "Iou_Settle")),
    ),
    ErrorCase(
        "completions-parties",
        "POST",
        "/v2/commands/completions",
        400,
        "MISSING_FIELD",
        lambda w: {
            "path": "/v2/commands/completions",
            "user": "Alice",
            "json": {"userId": "Alice", "parties": [], "beginExclusive": 0},
        },
    ),
    ErrorCase(
        "contract-unknown",
        "POST",
        "/v2/contracts/contract-by-id",
        404,
        "CONTRACT_PAYLOAD_NOT_FOUND",
        lambda w: {
            "path": "/v2/contracts/contract-by-id",
            "user": "Alice",
            "json": {"contractId": UNKNOWN_CID, "queryingParties": [w.alice]},
        },
    ),
    ErrorCase(
        "events-unknown",
        "POST",
        "/v2/events/events-by-contract-id",
        404,
        "CONTRACT_EVENTS_NOT_FOUND",
        lambda w: {
            "path": "/v2/events/events-by-contract-id",
            "user": "Alice",
            "json": {"contractId": UNKNOWN_CID, "eventFormat": event_format(w.alice)},
        },
    ),
    ErrorCase(
        "updates-end",
        "POST",
        "/v2/updates",
        400,
        "OFFSET_AFTER_LEDGER_END",
        lambda w: {
            "path": "/v2/updates",
            "user": "Alice",
            "json": {"beginExclusive": 10**9, "updateFormat": update_format(w.alice)},
        },
    ),
    ErrorCase(
        "update-by-offset",
        "POST",
        "/v2/updates/update-by-offset",
        404,
        "UPDATE_NOT_FOUND",
        lambda w: {
            "path": "/v2/updates/update-by-offset",
            "user": "Bob",
            "json": {"offset": w.txs["mine"]["offset"], "updateFormat": update_format(w.bob)},
        },
    ),
    ErrorCase(
        "update-by-id",
        "POST",
        "/v2/updates/update-by-id",
        404,
        "UPDATE_NOT_FOUND",
        lambda w: {
            "path": "/v2/updates/update-by-id",
            "user": "Bob",
            "json": {"updateId": UNKNOWN_UPDATE, "updateFormat": update_format(w.bob)},
        },
    ),
    ErrorCase(
        "transaction-by-offset",
        "POST",
        "/v2/updates/transaction-by-offset",
        400,
        "NON_POSITIVE_OFFSET",
        lambda w: {
            "path": "/v2/updates/transaction-by-offset",
            "user": "Bob",
            "json": {"offset": 0, "requestingParties": [w.bob]},
        },
    ),
    ErrorCase(
        "transaction-by-id",
        "POST",
        "/v2/updates/transaction-by-id",
        400,
        "INVALID_ARGUMENT",
        lambda w: {
            "path": "/v2/updates/transaction-by-id",
            "user": "Bob",
            "json": {"updateId": UNKNOWN_UPDATE},
        },
    ),
    ErrorCase(
        "updates-flats",
        "POST",
        "/v2/updates/flats",
        400,
        "OFFSET_AFTER_LEDGER_END",
        lambda w: {
            "path": "/v2/updates/flats",
            "user": "Alice",
            "json": {"beginExclusive": 10**9, "filter": _legacy(w.alice)},
        },
    ),
    ErrorCase(
        "updates-trees",
        "POST",
        "/v2/updates/trees",
        400,
        "INVALID_ARGUMENT",
        lambda w: {"path": "/v2/updates/trees", "user": "Alice", "json": {"beginExclusive": 0}},
    ),
    ErrorCase(
        "updates-page-token",
        "POST",
        "/v2/updates/get-updates-page",
        400,
        "INVALID_UPDATES_PAGE_TOKEN",
        _page_token_of_another_request,
    ),
    ErrorCase(
        "updates-page-size",
        "POST",
        "/v2/updates/get-updates-page",
        400,
        "INVALID_ARGUMENT",
        lambda w: {
            "path": "/v2/updates/get-updates-page",
            "user": "Alice",
            "json": {"maxPageSize": 0, "updateFormat": update_format(w.alice)},
        },
    ),
    ErrorCase(
        "transaction-tree-by-offset",
        "GET",
        "/v2/updates/transaction-tree-by-offset/{offset}",
        400,
        "NON_POSITIVE_OFFSET",
        lambda w: {
            "path": "/v2/updates/transaction-tree-by-offset/0",
            "user": "Alice",
            "params": {"parties": w.alice},
        },
    ),
    ErrorCase(
        "transaction-tree-by-id",
        "GET",
        "/v2/updates/transaction-tree-by-id/{update_id}",
        404,
        "UPDATE_NOT_FOUND",
        lambda w: {
            "path": f"/v2/updates/transaction-tree-by-id/{UNKNOWN_UPDATE}",
            "user": "Alice",
            "params": {"parties": w.alice},
        },
    ),
    ErrorCase(
        "submit-tree-unknown-contract",
        "POST",
        "/v2/commands/submit-and-wait-for-transaction-tree",
        404,
        "CONTRACT_NOT_FOUND",
        lambda w: {
            "path": "/v2/commands/submit-and-wait-for-transaction-tree",
            "user": "Alice",
            "json": commands([w.alice], exercise(UNKNOWN_CID, "Iou_Settle")),
        },
    ),
    ErrorCase(
        "allocate-rights",
        "POST",
        "/v2/parties",
        403,
        "NA",
        lambda w: {"path": "/v2/parties", "user": "Bob", "json": {"partyIdHint": "Mallory"}},
    ),
    ErrorCase(
        "list-parties-rights",
        "GET",
        "/v2/parties",
        403,
        "NA",
        lambda w: {"path": "/v2/parties", "user": "Bob"},
    ),
    ErrorCase(
        "participant-id-token",
        "GET",
        "/v2/parties/participant-id",
        401,
        "NA",
        lambda w: {
            "path": "/v2/parties/participant-id",
            "user": None,
            "headers": {"Authorization": "Bearer not.a.token"},
        },
    ),
    ErrorCase(
        "get-parties-invalid",
        "GET",
        "/v2/parties/{party}",
        400,
        "INVALID_ARGUMENT",
        lambda w: {"path": "/v2/parties/not!a!party"},
    ),
    ErrorCase(
        "create-user-exists",
        "POST",
        "/v2/users",
        409,
        "USER_ALREADY_EXISTS",
        lambda w: {"path": "/v2/users", "json": {"user": {"id": "Alice"}, "rights": []}},
    ),
    ErrorCase(
        "list-users-rights", "GET", "/v2/users", 403, "NA", lambda w: {"path": "/v2/users", "user": "Bob"}
    ),
    ErrorCase(
        "authenticated-user-unknown",
        "GET",
        "/v2/authenticated-user",
        403,
        "NA",
        lambda w: {"path": "/v2/authenticated-user", "user": "nobody-by-this-name"},
    ),
    ErrorCase(
        "get-user-unknown",
        "GET",
        "/v2/users/{user_id}",
        404,
        "USER_NOT_FOUND",
        lambda w: {"path": "/v2/users/nobody-by-this-name"},
    ),
    ErrorCase(
        "delete-user-unknown",
        "DELETE",
        "/v2/users/{user_id}",
        404,
        "USER_NOT_FOUND",
        lambda w: {"path": "/v2/users/nobody-by-this-name"},
    ),
    ErrorCase(
        "list-rights-unknown",
        "GET",
        "/v2/users/{user_id}/rights",
        404,
        "USER_NOT_FOUND",
        lambda w: {"path": "/v2/users/nobody-by-this-name/rights"},
    ),
    ErrorCase(
        "grant-unknown",
        "POST",
        "/v2/users/{user_id}/rights",
        404,
        "USER_NOT_FOUND",
        lambda w: _grant(w, "nobody-by-this-name"),
    ),
    ErrorCase(
        "revoke-unknown",
        "PATCH",
        "/v2/users/{user_id}/rights",
        404,
        "USER_NOT_FOUND",
        lambda w: _grant(w, "nobody-by-this-name"),
    ),
    ErrorCase(
        "update-user-unknown",
        "PATCH",
        "/v2/users/{user_id}",
        404,
        "USER_NOT_FOUND",
        lambda w: {
            "path": "/v2/users/nobody-by-this-name",
            "json": {"user": {"id": "nobody-by-this-name"}, "updateMask": _mask("metadata")},
        },
    ),
    ErrorCase(
        "update-user-stale",
        "PATCH",
        "/v2/users/{user_id}",
        409,
        "CONCURRENT_USER_UPDATE_DETECTED",
        lambda w: {
            "path": "/v2/users/everything",
            "json": {
                "user": {"id": "everything", "metadata": {"resourceVersion": "99"}},
                "updateMask": _mask("metadata"),
            },
        },
    ),
    ErrorCase(
        "update-user-idp-unknown",
        "PATCH",
        "/v2/users/{user_id}/identity-provider-id",
        404,
        "USER_NOT_FOUND",
        lambda w: {
            "path": "/v2/users/nobody-by-this-name/identity-provider-id",
            "json": {"userId": "nobody-by-this-name"},
        },
    ),
    ErrorCase(
        "update-party-mask",
        "PATCH",
        "/v2/parties/{party}",
        400,
        "INVALID_PARTY_DETAILS_UPDATE_REQUEST",
        lambda w: {
            "path": f"/v2/parties/{w.alice}",
            "json": {"partyDetails": {"party": w.alice}, "updateMask": _mask()},
        },
    ),
    ErrorCase(
        "create-idp-exists",
        "POST",
        "/v2/idps",
        409,
        "IDP_CONFIG_ALREADY_EXISTS",
        lambda w: {"path": "/v2/idps", "json": {"identityProviderConfig": _idp("corp")}},
    ),
    ErrorCase(
        "list-idps-rights", "GET", "/v2/idps", 403, "NA", lambda w: {"path": "/v2/idps", "user": "Bob"}
    ),
    ErrorCase(
        "get-idp-unknown",
        "GET",
        "/v2/idps/{idp_id}",
        404,
        "IDP_CONFIG_NOT_FOUND",
        lambda w: {"path": "/v2/idps/nope"},
    ),
    ErrorCase(
        "update-idp-unknown",
        "PATCH",
        "/v2/idps/{idp_id}",
        404,
        "IDP_CONFIG_NOT_FOUND",
        lambda w: {
            "path": "/v2/idps/nope",
            "json": {"identityProviderConfig": _idp("nope"), "updateMask": _mask("audience")},
        },
    ),
    ErrorCase(
        "delete-idp-unknown",
        "DELETE",
        "/v2/idps/{idp_id}",
        404,
        "IDP_CONFIG_NOT_FOUND",
        lambda w: {"path": "/v2/idps/nope"},
    ),
    ErrorCase(
        "get-package-unknown",
        "GET",
        "/v2/packages/{package_id}",
        404,
        "PACKAGE_NOT_FOUND",
        lambda w: {"path": f"/v2/packages/{'0' * 64}", "user": "Bob"},
    ),
    ErrorCase(
        "preferred-package-version-token",
        "GET",
        "/v2/interactive-submission/preferred-package-version",
        401,
        "NA",
        lambda w: {
            "path": "/v2/interactive-submission/preferred-package-version",
            "user": None,
            "params": {"package-name": "model-tests"},
        },
    ),
    ErrorCase(
        "preferred-packages-unknown",
        "POST",
        "/v2/interactive-submission/preferred-packages",
        400,
        "NO_PREFERRED_PACKAGES_FOUND",
        lambda w: {
            "path": "/v2/interactive-submission/preferred-packages",
            "user": "Alice",
            "json": {"packageVettingRequirements": [{"packageName": "no-such-name", "parties": [w.alice]}]},
        },
    ),
    *[
        ErrorCase(
            f"unsupported {method} {path}",
            method,
            path,
            501,
            f"Method not found: {endpoint.method}",
            _unsupported_request(path),
        )
        for (method, path), endpoint in ENDPOINTS.items()
    ],
    ErrorCase(
        "packages-token", "GET", "/v2/packages", 401, "NA", lambda w: {"path": "/v2/packages", "user": None}
    ),
    ErrorCase(
        "package-status-token",
        "GET",
        "/v2/packages/{package_id}/status",
        401,
        "NA",
        lambda w: {"path": "/v2/packages/abc/status", "user": None},
    ),
    ErrorCase(
        "dar-not-a-zip",
        "POST",
        "/v2/dars",
        400,
        "INVALID_DAR",
        lambda w: {"path": "/v2/dars", "content": b"not a dar", "headers": _OCTETS},
    ),
    ErrorCase(
        "package-not-a-zip",
        "POST",
        "/v2/packages",
        400,
        "INVALID_DAR",
        lambda w: {"path": "/v2/packages", "content": b"not a dar", "headers": _OCTETS},
    ),
    ErrorCase(
        "dar-validate-not-a-zip",
        "POST",
        "/v2/dars/validate",
        400,
        "INVALID_DAR",
        lambda w: {"path": "/v2/dars/validate", "content": b"not a dar", "headers": _OCTETS},
    ),
]

TEXT_ANSWERS = {("GET", "/livez"), ("GET", "/readyz")}  # the health checks, read by test_health_checks
WEBSOCKET = {
    ("WEBSOCKET", "/v2/state/active-contracts"),
    ("WEBSOCKET", "/v2/updates"),
    ("WEBSOCKET", "/v2/updates/flats"),
    ("WEBSOCKET", "/v2/updates/trees"),
    ("WEBSOCKET", "/v2/commands/completions"),
}  # read by the test_websocket_* tests
NO_TOKEN_NEEDED = {("GET", "/v2/version")}  # and nothing else to get wrong: no error answer
BINARY_ANSWERS = {("GET", "/v2/packages/{package_id}")}  # read by test_package_bytes
EMPTY_ANSWERS = {("POST", "/v2/dars/validate")}  # 200 with no body, read by test_dar_validation
UNSUPPORTED = set(ENDPOINTS)  # no 200 answer: each answers 501 (an error case)


@pytest.mark.parametrize("case", ERROR_CASES, ids=[c.id for c in ERROR_CASES])
async def test_every_error_answer_parses(world, ledger_api, case: ErrorCase):
    kwargs = {"user": "participant_admin", **case.request(world)}
    r = await ledger_api.call(case.method, kwargs.pop("path"), **kwargs)
    read_error(r, case.status, case.code)


async def test_a_route_this_participant_lacks_is_no_canton_error(ledger_api):
    """The legacy 404 body (docs/ledger-api.md §1): no `code`, so a client tells "no such endpoint" from a JsCantonError 404."""
    r = await ledger_api.http.post("/v2/no/such/endpoint", json={})  # no such path in the spec either
    assert r.status_code == 404 and set(r.json()) == {"errors", "status", "ledgerApiError"}
    with pytest.raises(pydantic.ValidationError):
        api.JsCantonError.read(r.content)


async def test_health_checks(ledger_api):
    assert (await ledger_api.get("/livez", user=None)).content == b""
    r = await ledger_api.get("/readyz", user=None)
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")


# --- every endpoint is covered --------------------------------------------------------------------------------


def _routed() -> set[tuple[str, str]]:
    out = set()
    # the routes loaded at their first request are listed with the module that holds them
    expanded = [
        r for group in all_routes() for r in (group.routes if isinstance(group, LazyRoutes) else [group])
    ]
    for route in expanded:
        methods = getattr(route, "methods", None)
        assert isinstance(route, Route | WebSocketRoute), route
        for method in {"WEBSOCKET"} if methods is None else methods - {"HEAD"}:
            out.add((method, route.path))
    return out


async def test_package_bytes(world, ledger_api):
    r = await ledger_api.get(f"/v2/packages/{_package_id(world)}", user="Bob")
    assert r.status_code == 200 and r.headers["content-type"] == "application/octet-stream"
    assert r.headers["canton-package-hash"] == _package_id(world)
    assert api.ListPackagesResponse.read((await ledger_api.get("/v2/packages")).content).package_ids


async def test_dar_validation(ledger_api):
    r = await ledger_api.call("POST", "/v2/dars/validate", content=_richtypes_dar(), headers=_OCTETS)
    assert r.status_code == 200 and r.content == b""


def test_every_endpoint_has_its_cases():
    assert (
        _routed()
        == {(c.method, c.route) for c in CASES}
        | TEXT_ANSWERS
        | WEBSOCKET
        | BINARY_ANSWERS
        | EMPTY_ANSWERS
        | UNSUPPORTED
    )
    assert (
        _routed() == {(c.method, c.route) for c in ERROR_CASES} | TEXT_ANSWERS | WEBSOCKET | NO_TOKEN_NEEDED
    )
