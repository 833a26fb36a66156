"""The requests pane against a real participant with the demo ledger: what the session sent, each request in full,
copy as curl, failures with Canton's error."""

from __future__ import annotations

from app.client import event_format
from app.client.errors import NotFound
from app.client.requests_log import MAX_ENTRIES, RequestRecord
from app.screens.acs import AcsScreen
from app.screens.request_detail import RequestDetailScreen
from app.screens.requests import RequestsScreen
from app.widgets.contract_table import ContractTable
from app.widgets.request_list import RequestList
from tests.conftest import SECRET
from tests.tui.conftest import SIZE, known, screen_text, wait_for

UNKNOWN_CONTRACT = "00" + "ab" * 69


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def _requests_pane(app, pilot) -> RequestsScreen:
    await wait_for(pilot, lambda: _loaded(app), "the contracts")
    await pilot.press("3")
    await wait_for(pilot, lambda: isinstance(app.screen, RequestsScreen), "the requests pane")
    return app.screen


def _paths(screen: RequestsScreen) -> list[str]:
    return [r.path for r in screen.query_one(RequestList).records]


async def _select(pilot, screen: RequestsScreen, predicate) -> RequestRecord:
    request_list = screen.query_one(RequestList)
    await wait_for(pilot, lambda: any(predicate(r) for r in request_list.records), "the request in the list")
    position = next(i for i, r in enumerate(request_list.records) if predicate(r))
    request_list.cursor = position
    await pilot.pause()
    return request_list.records[position]


async def shown(pilot, *texts: str) -> str:
    """The screen's text once it shows all of `texts`: the list and its detail are drawn a turn or more after the
    cursor moves or a screen opens."""
    app = pilot.app
    await wait_for(pilot, lambda: all(text in screen_text(app) for text in texts), f"{texts} on the screen")
    return screen_text(app)


async def test_lists_the_session_requests_and_the_polling_on_demand(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _requests_pane(app, pilot)
        await wait_for(
            pilot, lambda: "/v2/state/active-contracts-page" in _paths(screen), "the ACS page read"
        )
        assert "/v2/version" in _paths(screen)
        assert "/v2/state/ledger-end" not in _paths(screen)  # the polling is hidden by default
        text = await shown(pilot, "/v2/state/active-contracts-page")
        assert "/v2/state/active-contracts-page" in text
        assert "ledger-end reads hidden" in text

        await pilot.press("p")
        await wait_for(pilot, lambda: "/v2/state/ledger-end" in _paths(screen), "the ledger-end reads")
        polls = [r for r in screen.query_one(RequestList).records if r.path == "/v2/state/ledger-end"]
        before = len(polls)
        # the polling goes on: new reads appear without the list being rebuilt
        await wait_for(pilot, lambda: _paths(screen).count("/v2/state/ledger-end") > before, "another poll")
        assert any(r.status == 200 for r in polls)


async def test_opens_a_request_with_its_response_body(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _requests_pane(app, pilot)
        record = await _select(pilot, screen, lambda r: r.path == "/v2/authenticated-user" and r.done)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestDetailScreen), "the request's detail")
        text = await shown(pilot, f"GET {record.url}")
        assert f"GET {record.url}" in text
        assert " 200 " in text
        assert '"primaryParty": "Alice::' in text  # the answer, pretty-printed
        assert "Authorization: Bearer <token>" in text
        token = await app.session.client.tokens.token()
        assert token not in text and SECRET not in text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the list again")


async def test_copies_a_request_as_curl_without_the_token(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _requests_pane(app, pilot)
        record = await _select(pilot, screen, lambda r: r.path == "/v2/state/active-contracts-page")
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.clipboard), "the copy")
        curl = app.clipboard
        assert curl.startswith("curl ")
        assert "$LEDGER_TOKEN" in curl
        assert record.url in curl and "--data-binary" in curl and "activeAtOffset" in curl
        token = await app.session.client.tokens.token()
        assert token not in curl

        await pilot.press("b")
        await wait_for(pilot, lambda: app.clipboard != curl, "the second copy")
        assert '"activeContracts"' in app.clipboard
        assert token not in app.clipboard


async def test_a_failed_request_shows_its_status_and_cantons_error(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _requests_pane(app, pilot)
        party = app.session.identity.primary_party
        try:
            await app.session.client.events_by_contract_id(UNKNOWN_CONTRACT, event_format([party]))
        except NotFound as e:
            assert e.code == "CONTRACT_EVENTS_NOT_FOUND"
        else:
            raise AssertionError("an unknown contract id was found")
        await _select(pilot, screen, lambda r: r.path == "/v2/events/events-by-contract-id")
        text = await shown(pilot, "404", "CONTRACT_EVENTS_NOT_FOUND")
        assert "404" in text and "CONTRACT_EVENTS_NOT_FOUND" in text

        await pilot.press("slash")
        await pilot.press(*"4xx")
        await pilot.press("enter")
        await wait_for(
            pilot, lambda: _paths(screen) == ["/v2/events/events-by-contract-id"], "only the failure"
        )

        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestDetailScreen), "the request's detail")
        text = await shown(pilot, " 404 ")
        assert " 404 " in text
        assert "CONTRACT_EVENTS_NOT_FOUND · category 11 (not found)" in text
        assert "Contract events not found, or not visible." in text
        assert '"code": "CONTRACT_EVENTS_NOT_FOUND"' in text  # the body itself
        await pilot.press("escape")
        await pilot.press("escape")  # clears the filter
        await wait_for(pilot, lambda: len(_paths(screen)) > 1, "the whole list again")


async def test_stays_current_with_a_full_log_updating_in_place(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _requests_pane(app, pilot)
        app.connection.connected = False  # pauses the polling: the log then holds only what the test sends
        log = app.request_log
        request_list = screen.query_one(RequestList)

        def fake(i: int) -> RequestRecord:
            return log.start("GET", f"{demo_server.url}/v2/fake/{i}", f"/v2/fake/{i}", {}, b"")

        started = [fake(i) for i in range(MAX_ENTRIES)]
        await wait_for(
            pilot,
            lambda: request_list.count == MAX_ENTRIES and request_list.selected is started[-1],
            "a full list following the newest",
        )

        rebuilds = []
        original = request_list.reset

        def counted_reset(records: list[RequestRecord]) -> None:
            rebuilds.append(len(records))
            original(records)

        request_list.reset = counted_reset  # type: ignore[method-assign]  # each rebuild counted
        for burst in range(20):  # several a second, each one evicting the oldest
            started += [fake(MAX_ENTRIES + 3 * burst + i) for i in range(3)]
            await pilot.pause()
        await wait_for(pilot, lambda: request_list.selected is started[-1], "the newest selected")
        assert request_list.count == MAX_ENTRIES
        assert request_list.records[0].id == log.first_id  # the oldest went with the log's
        assert known(request_list.selected).status is None

        for record in started[-10:]:
            log.finish(record, status=503, body=b'{"code":"X_UNAVAILABLE","cause":"busy"}')
        await wait_for(
            pilot, lambda: screen_text(app).count("X_UNAVAILABLE") == 10, "the finished ones redrawn"
        )
        assert rebuilds == []  # arrivals, completions and evictions changed the list in place
        assert request_list.count == MAX_ENTRIES

        await pilot.press("c")
        await wait_for(pilot, lambda: request_list.count == 0, "an empty list")
        log.finish(started[-20], status=200)  # a request cleared while in flight stays cleared
        await pilot.pause(0.2)
        assert request_list.count == 0


async def test_a_request_opened_in_flight_shows_its_answer_when_it_comes(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        screen = await _requests_pane(app, pilot)
        log = app.request_log
        record = log.start(
            "POST",
            f"{demo_server.url}/v2/commands/submit-and-wait-for-transaction",
            "/v2/commands/submit-and-wait-for-transaction",
            {"Authorization": "Bearer x"},
            b'{"commands": {"commandId": "slow-one"}}',
        )
        await _select(pilot, screen, lambda r: r is record)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestDetailScreen), "the request's detail")
        text = await shown(pilot, '"commandId": "slow-one"')
        assert "in flight" in text
        assert '"commandId": "slow-one"' in text  # the request body, pretty-printed

        log.finish(
            record,
            status=409,
            headers={"content-type": "application/json"},
            body=b'{"code":"DUPLICATE_COMMAND","cause":"A command with the given command id has already '
            b'been successfully processed","errorCategory":10}',
        )
        await wait_for(pilot, lambda: " 409 " in screen_text(app), "the answer")
        text = screen_text(app)
        assert "DUPLICATE_COMMAND · category 10 (already exists)" in text
        assert '"code": "DUPLICATE_COMMAND"' in text
        detail = text.split("\n", 1)[1]  # the status line above counts the app's own requests in flight
        assert "in flight" not in detail


async def test_a_websocket_read_is_listed_and_copied_as_its_message(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the contracts")
        client = app.session.client
        client.capabilities.acs_page = False  # read the next snapshot through the websocket
        app.screen.action_reload()
        screen = await _requests_pane(app, pilot)
        record = await _select(pilot, screen, lambda r: r.path.endswith("(websocket)") and r.done)
        assert record.status == 101
        await wait_for(pilot, lambda: "messages" in screen_text(app), "the websocket's message count")
        await pilot.press("y")
        await wait_for(pilot, lambda: bool(app.clipboard), "the copy")
        assert app.clipboard.startswith('{"filter":') and '"activeAtOffset"' in app.clipboard


async def test_the_filter_narrows_the_list_and_enter_opens_the_match(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the contracts")
        await pilot.press("3", "slash", *"rights", "enter")
        screen = app.screen
        assert isinstance(screen, RequestsScreen)
        await wait_for(pilot, lambda: _paths(screen) == ["/v2/users/Alice/rights"], "the filtered list")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RequestDetailScreen), "the request's detail")
        assert app.screen.record.path == "/v2/users/Alice/rights"


async def test_at_80_columns_the_info_line_marks_what_it_cuts(demo_server, make_app):
    """The line over the list says what is hidden and how to show it: cut by a narrow screen, it says so with `…`
    (it ran off the edge mid-word: "ledger-end reads hidden: p sho")."""
    app = make_app(demo_server)
    async with app.run_test(size=(80, 24)) as pilot:
        await _requests_pane(app, pilot)
        await shown(pilot, "requests · the log keeps the last")
        info = screen_text(app).splitlines()[1].rstrip()
        assert "requests · the log keeps the last" in info, info
        assert info.endswith("p shows them") or info.endswith("…"), info
