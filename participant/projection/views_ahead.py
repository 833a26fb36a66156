"""Interface views computed off the event loop: a page (an ACS page, a transaction, an event) is shaped once to learn
which views it shows, those are computed in one evaluation on a worker thread within a budget, and the page is
shaped again with them. A view is Daml: one that never ends must hold neither the event loop nor the read."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import TypeVar

from participant.projection.filters import EventFilter, UpdateView

T = TypeVar("T")
R = TypeVar("R")

# Runs a computation off the event loop within a budget (`Committer.evaluate`).
Evaluate = Callable[[Callable[[], list[list[dict]]]], Awaitable[list[list[dict]]]]


async def shaped(
    filters: Iterable[EventFilter | None], shape: Callable[[], T], evaluate: Evaluate | None
) -> T:
    """`shape()`, with the interface views it shows (through any of `filters`) computed ahead by `evaluate`, in one
    hop for the whole page. Shaping is cheap next to a view, and runs twice only when there are views to show."""
    asking = _asking(filters)
    if not asking or evaluate is None:
        return shape()
    wanted: list = []
    for f in asking:
        f.wanted_views = wanted
    try:
        first = shape()
    finally:
        for f in asking:
            f.wanted_views = None
    if not wanted:
        return first
    compute = asking[0].compute_views  # the same for every filter of a request: the registry's views
    assert compute is not None
    requests = {key: (template_id, argument, interfaces) for key, template_id, argument, interfaces in wanted}
    asked = list(requests.values())
    values = await evaluate(lambda: [compute(*request) for request in asked])
    ahead = dict(zip(requests, values, strict=True))
    for f in asking:
        f.views_ahead = ahead
    try:
        return shape()
    finally:
        for f in asking:
            f.views_ahead = {}


def asks_for_views(filters: Iterable[EventFilter | None]) -> bool:
    """Whether shaping through `filters` shows interface views (which `shaped` computes ahead)."""
    return bool(_asking(filters))


def _asking(filters: Iterable[EventFilter | None]) -> list[EventFilter]:
    return [f for f in filters if f is not None and f.compute_views is not None]


def update_filters(view: UpdateView) -> list[EventFilter | None]:
    """The event filters through which an update format shows created events."""
    return [None if view.transactions is None else view.transactions.filter, view.reassignments]
