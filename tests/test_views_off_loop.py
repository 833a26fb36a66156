"""Interface views are Daml: a page's views are computed ahead, in one evaluation on a worker thread, never on the
event loop's."""

from __future__ import annotations

import threading

from participant.daml_lf.eval.budget import Budget
from participant.ledger.evaluation import EvaluationWorkers
from participant.projection.filters import EventFilter, PartyFilter
from participant.projection.views_ahead import shaped

TEMPLATE = "0123:Main:Asset"
INTERFACE = "0456:Holding:Holding"


async def test_the_views_of_a_page_are_computed_in_one_evaluation_on_a_worker() -> None:
    workers = EvaluationWorkers()
    computed_on: list[threading.Thread] = []

    def compute(template_id: str, argument: object, interfaces: list[str]) -> list[dict]:
        computed_on.append(threading.current_thread())
        assert isinstance(argument, dict)
        return [{"interfaceId": i, "viewValue": {"amount": argument["amount"]}} for i in interfaces]

    wanted = PartyFilter(wildcard=True, views={("assets", "Main:Asset"): {INTERFACE}})
    event_filter = EventFilter({"Alice": wanted}, None, True, compute)
    hops = 0

    async def evaluate(views):
        nonlocal hops
        hops += 1

        async def run():
            return views()

        return await workers.run(run, Budget())

    page = [{"amount": str(n)} for n in range(5)]
    try:
        shown = await shaped(
            [event_filter],
            lambda: [event_filter.views(["Alice"], TEMPLATE, "assets", argument) for argument in page],
            evaluate,
        )
    finally:
        workers.stop()
    assert shown == [[{"interfaceId": INTERFACE, "viewValue": {"amount": str(n)}}] for n in range(5)]
    assert hops == 1
    assert len(computed_on) == 5 and threading.main_thread() not in computed_on
    assert event_filter.views_ahead == {} and event_filter.wanted_views is None  # nothing kept past the page


async def test_a_page_without_views_is_shaped_once_and_evaluates_nothing() -> None:
    event_filter = EventFilter({"Alice": PartyFilter(wildcard=True)}, None, True, None)
    shaped_times = 0

    def shape() -> str:
        nonlocal shaped_times
        shaped_times += 1
        return "page"

    async def evaluate(views):
        raise AssertionError("no view to compute")

    assert await shaped([event_filter], shape, evaluate) == "page"
    assert shaped_times == 1


async def test_a_page_of_the_update_stream_is_shaped_and_encoded_off_the_event_loop(
    ledger_api, monkeypatch
) -> None:
    """A page of updates is Python work that grows with the page: done on the event loop it held every other
    request (a `/livez` probe among them) back for its whole length."""
    from participant.services import update_stream

    shaped_on: list[threading.Thread] = []
    element = update_stream.element

    def recorded(*args, **kwargs):
        shaped_on.append(threading.current_thread())
        return element(*args, **kwargs)

    monkeypatch.setattr(update_stream, "element", recorded)
    alice = await ledger_api.party("Alice")
    for amount in ("1", "2", "3"):
        await ledger_api.create_iou(alice, alice, amount, user="Alice")
    r = await ledger_api.post(
        "/v2/updates",
        {
            "beginExclusive": 0,
            "endInclusive": await ledger_api.ledger_end(),
            "updateFormat": {
                "includeTransactions": {
                    "eventFormat": {"filtersByParty": {alice: {"cumulative": []}}, "verbose": False},
                    "transactionShape": "TRANSACTION_SHAPE_ACS_DELTA",
                }
            },
        },
        user="Alice",
    )
    assert r.status_code == 200, r.text
    amounts = [
        e["CreatedEvent"]["createArgument"]["amount"]
        for u in r.json()
        for e in u["update"]["Transaction"]["value"]["events"]
    ]
    assert [float(a) for a in amounts] == [1, 2, 3]
    assert shaped_on and threading.main_thread() not in shaped_on
