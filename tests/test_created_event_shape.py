"""One shape of the CreatedEvent: the ACS fast path (pre-rendered text) and the field-by-field path print the same
JSON text for the same contract and filter, with and without blobs and interface views, and both have exactly the
spec's keys."""

from __future__ import annotations

from datetime import UTC, datetime

import orjson
import pytest

from participant.api import EventFormat
from participant.base.transactions import Contract
from participant.engine import ids
from participant.engine.registry import PackageRegistry
from participant.models import iou
from participant.projection.filters import resolve_event_format
from participant.projection.shaping import CREATED_EVENT_KEYS, AcsRenderer, created_event_of_contract
from participant.store.rows import contract_params
from tests.engine import shapes_package as shapes
from tests.spec import requires_spec, schema_keys

NAMESPACE = ids.fingerprint("shape-tests")
ALICE = ids.party_id("Alice", NAMESPACE)
BOB = ids.party_id("Bob", NAMESPACE)
SYNC = ids.synchronizer_id("da1", NAMESPACE)
REGISTRY = PackageRegistry([iou.package, shapes.package])


def contract(template, argument: dict, observers: tuple[str, ...] = ()) -> Contract:
    return Contract(
        contract_id=ids.IdGenerator("shape").contract_id(),
        template_id=template.template_id(),
        package_name=template.__daml__.package.name,
        argument=argument,
        signatories=(ALICE,),
        observers=observers,
        key=None,
        key_hash="",
        created_at=datetime(2026, 1, 2, 3, 4, 5, 678000, tzinfo=UTC),
        synchronizer_id=SYNC,
    )


def fmt(*cumulative: dict) -> EventFormat:
    return EventFormat.model_validate({"filtersByParty": {ALICE: {"cumulative": list(cumulative)}}})


def interface(interface_id: str, view: bool, blob: bool = False) -> dict:
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


WILDCARD = {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}
WILDCARD_BLOB = {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": True}}}}
CONTRACTS = {
    "square": contract(shapes.Square, {"owner": ALICE, "name": "sq"}, (BOB,)),
    "broken": contract(shapes.Broken, {"owner": ALICE}),
    "iou": contract(
        iou.Iou,
        {"issuer": ALICE, "owner": ALICE, "currency": "USD", "amount": "1.0000000000", "observers": []},
    ),
}
FILTERS = {
    "wildcard": fmt(WILDCARD),
    "wildcard-blob": fmt(WILDCARD_BLOB),
    "views": fmt(interface("#shapes:Shapes:IShape", True), interface("#model-tests:Iou:IIou", True)),
    "views-and-blobs": fmt(
        interface("#shapes:Shapes:IShape", True, True), interface("#model-tests:Iou:IIou", True)
    ),
    "interface-no-view": fmt(interface("#shapes:Shapes:IShape", False), WILDCARD),
}


@requires_spec
def test_the_keys_are_the_specs():
    assert set(CREATED_EVENT_KEYS) == schema_keys("CreatedEvent")


def test_the_keys_are_listed_once():
    assert len(CREATED_EVENT_KEYS) == len(set(CREATED_EVENT_KEYS))


def test_the_stored_members_come_in_the_order_of_the_key_list():
    params = contract_params(1, CONTRACTS["square"], "", 3, 0)
    assert list(orjson.loads("{" + params[-1] + "}")) == list(CREATED_EVENT_KEYS[3:])


@pytest.mark.parametrize("filter_name", FILTERS)
@pytest.mark.parametrize("contract_name", CONTRACTS)
def test_the_fast_path_prints_what_the_general_path_prints(filter_name, contract_name):
    c = CONTRACTS[contract_name]
    event_filter = resolve_event_format(FILTERS[filter_name], REGISTRY)
    stored_event = contract_params(7, c, "", 3, 0)[-1]
    row = (
        7,
        "",
        orjson.dumps(list(c.signatories)).decode(),
        orjson.dumps(list(c.observers)).decode(),
        c.template_id,
        c.package_name,
        stored_event,
        c.synchronizer_id,
        0,
    )
    texts, _ = AcsRenderer(event_filter, None).render([row])
    qn = c.template_id.split(":", 1)[1]
    witnesses = event_filter.witnesses(c.stakeholders, c.package_name, qn)
    if not witnesses:
        assert texts == []
        return
    general = created_event_of_contract(
        c,
        offset=3,
        node_id=0,
        witnesses=witnesses,
        with_blob=event_filter.blob(witnesses, c.package_name, qn),
        acs_delta=True,
        views=event_filter.views(witnesses, c.template_id, c.package_name, c.argument),
    )
    (text,) = texts
    fast = orjson.loads(text)["contractEntry"]["JsActiveContract"]["createdEvent"]
    assert orjson.dumps(fast) == orjson.dumps(general)
    assert list(general) == list(CREATED_EVENT_KEYS)
    if filter_name.startswith("views") and contract_name in ("square", "iou"):
        assert general["interfaceViews"] and general["interfaceViews"][0]["viewStatus"]["code"] == 0
    if filter_name.startswith("views") and contract_name == "broken":
        assert general["interfaceViews"][0]["viewStatus"]["code"] == 9
