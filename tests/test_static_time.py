"""`ledger-participant serve --static-time`: the ledger's clock starts at the epoch, moves only when set through our
extension endpoint `/x-ledger-tui/v1/time`, and is the ledger time and record time of every transaction; a
restart goes on from where it was set. Without `--static-time` the endpoint does not exist."""

from __future__ import annotations

import httpx
import pytest

from bench.amulet import AMULET_CONFIG, MICROS_PER_HOUR
from participant.server.app import create_app
from tests.conftest import ADMIN, SECRET, LedgerApi, bearer, settings_for, start_server
from tests.daml_lf.conftest import RICHTYPES
from tests.http.helpers import (
    SUBMIT_TX,
    assert_bad_body,
    assert_error,
    commands,
    create,
    exercise,
    transaction_format,
)
from tests.http.test_amulet import _setup_app

TIME = "/x-ledger-tui/v1/time"
EPOCH = "1970-01-01T00:00:00Z"
LATER = "2030-01-31T11:00:00.250Z"
MARKER = "#richtypes:RichTypes:Marker"
RICH_RECORD = "#richtypes:RichTypes:RichRecord"
TIMEOUT = 60


def _rich(owner: str, marker: str, observed_at: str) -> dict:
    return {
        "owner": owner,
        "count": "1",
        "amount": "1.5",
        "label": "first",
        "active": True,
        "asOf": "2026-01-15",
        "observedAt": observed_at,
        "note": None,
        "tags": [],
        "attributes": {},
        "marker": marker,
        "profile": {"nickname": "n", "level": "1"},
        "outcome": {"tag": "Pending", "value": {}},
        "fee": "0.10",
    }


class Ledger:
    """Alice on a participant on loopback: her party and user, and her commands."""

    def __init__(self, url: str) -> None:
        self.http = httpx.Client(base_url=url, timeout=TIMEOUT)
        r = self.http.post("/v2/parties", json={"partyIdHint": "Alice"}, headers=ADMIN)
        assert r.status_code == 200, r.text
        self.alice = r.json()["partyDetails"]["party"]
        rights = [{"kind": {"CanActAs": {"value": {"party": self.alice}}}}]
        r = self.http.post("/v2/users", json={"user": {"id": "Alice"}, "rights": rights}, headers=ADMIN)
        assert r.status_code == 200, r.text

    def submit(self, *cmds: dict) -> dict:
        body = {
            "commands": commands([self.alice], *cmds),
            "transactionFormat": transaction_format(self.alice),
        }
        r = self.http.post(SUBMIT_TX, json=body, headers=bearer("Alice"))
        assert r.status_code == 200, r.text
        return r.json()["transaction"]

    def time(self, user: str = "Alice") -> str:
        r = self.http.get(TIME, headers=bearer(user))
        assert r.status_code == 200, r.text
        return r.json()["currentTime"]

    def set_time(self, current: str, new: str, user: str = "participant_admin") -> httpx.Response:
        return self.http.post(TIME, json={"currentTime": current, "newTime": new}, headers=bearer(user))


def _created(tx: dict) -> dict:
    [event] = [e["CreatedEvent"] for e in tx["events"] if "CreatedEvent" in e]
    return event


def test_the_static_clock_is_ledger_and_record_time_and_moves_only_when_set(tmp_path, dars_dir) -> None:
    db = tmp_path / "ledger.db"
    args = ("--hs256-secret", SECRET, "--dar", str(dars_dir / RICHTYPES), "--static-time")
    server = start_server(db, *args)
    try:
        ledger = Ledger(server.url)
        assert ledger.http.get("/v2/version").json()["features"]["experimental"]["staticTime"]["supported"]
        now = ledger.time()
        assert now == EPOCH
        # a create that stores the time read: the transaction is at that very instant
        marker = _created(ledger.submit(create({"owner": ledger.alice}, MARKER)))
        assert marker["createdAt"] == EPOCH
        tx = ledger.submit(create(_rich(ledger.alice, marker["contractId"], now), RICH_RECORD))
        assert tx["effectiveAt"] == tx["recordTime"] == _created(tx)["createArgument"]["observedAt"] == EPOCH
        assert ledger.time() == EPOCH  # commands do not move it

        r = ledger.set_time(EPOCH, LATER)
        assert r.status_code == 200 and r.json() == {}, r.text
        assert ledger.time() == LATER
        relabel = exercise(_created(tx)["contractId"], "Relabel", {"newLabel": "second"}, RICH_RECORD)
        later = ledger.submit(relabel)
        assert later["effectiveAt"] == later["recordTime"] == _created(later)["createdAt"] == LATER
    finally:
        server.stop()

    server = start_server(db, *args)  # restarted, the clock is where it was set
    try:
        http = httpx.Client(base_url=server.url, timeout=TIMEOUT)
        r = http.get(TIME, headers=ADMIN)
        assert r.status_code == 200 and r.json() == {"currentTime": LATER}, r.text
    finally:
        server.stop()


@pytest.fixture(scope="module")
def static_ledger(tmp_path_factory, dars_dir):
    server = start_server(
        tmp_path_factory.mktemp("static") / "ledger.db", "--hs256-secret", SECRET, "--static-time"
    )
    try:
        yield Ledger(server.url)
    finally:
        server.stop()


def _refused(r: httpx.Response, status: int, code: str, cause: str) -> None:
    body = assert_error(r, status, code)
    assert cause in body["cause"], body


def test_a_setting_from_another_time_than_the_clocks_is_refused_and_changes_nothing(static_ledger) -> None:
    now = static_ledger.time()
    r = static_ledger.set_time("2001-01-01T00:00:00Z", "2040-01-01T00:00:00Z")
    _refused(
        r, 400, "INVALID_ARGUMENT", f"current_time mismatch. Provided: 2001-01-01T00:00:00Z. Actual: {now}"
    )
    assert static_ledger.time() == now


def test_the_clock_is_never_set_back_as_on_canton(static_ledger) -> None:
    now = static_ledger.time()
    r = static_ledger.set_time(now, "1969-12-31T23:59:59Z")
    _refused(r, 400, "INVALID_ARGUMENT", "Setting time backwards is not allowed")
    assert static_ledger.time() == now
    assert static_ledger.set_time(now, now).status_code == 200  # to the same time: nothing moves


def test_only_a_participant_admin_sets_the_clock_and_only_a_user_reads_it(static_ledger) -> None:
    now = static_ledger.time()
    # security-sensitive: redacted, as Canton answers a permission or authentication failure
    assert_error(static_ledger.set_time(now, LATER, user="Alice"), 403, "NA")
    assert_error(static_ledger.http.get(TIME), 401, "NA")
    assert static_ledger.time() == now


@pytest.mark.parametrize(
    "body",
    [
        {"currentTime": "yesterday", "newTime": LATER},
        {"currentTime": EPOCH, "newTime": "2030-01-31 11:00"},
        {"currentTime": EPOCH, "newTime": "2030-01-31T11:00:00"},  # no time zone
    ],
)
def test_a_time_that_is_not_rfc_3339_is_an_invalid_argument(static_ledger, body) -> None:
    r = static_ledger.http.post(TIME, json=body, headers=ADMIN)
    _refused(r, 400, "INVALID_ARGUMENT", "is not an RFC 3339 timestamp")


def test_a_body_without_new_time_is_refused_as_a_bad_body(static_ledger) -> None:
    r = static_ledger.http.post(TIME, json={"currentTime": EPOCH}, headers=ADMIN)
    assert "newTime" in assert_bad_body(r)


def test_without_static_time_there_is_no_time_endpoint(server) -> None:
    for method in ("GET", "POST"):
        r = httpx.request(method, f"{server.url}{TIME}", json={}, headers=ADMIN, timeout=TIMEOUT)
        assert r.status_code == 404 and set(r.json()) == {"errors", "status", "ledgerApiError"}, r.text
    version = httpx.get(f"{server.url}/v2/version", timeout=TIMEOUT).json()
    assert version["features"]["experimental"]["staticTime"] == {"supported": False}


@pytest.fixture
async def static_api(tmp_path):
    """The participant in process, with static time."""
    app = create_app(settings_for(tmp_path / "ledger.db", static_time=True))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield LedgerApi(http)


async def test_get_time_in_a_choice_reads_the_static_clock(static_api, dar_bytes, dars_dir) -> None:
    """Canton Coin's round bootstrap opens round 0 at `getTime` and closes it a round's duration later."""
    r = await static_api.http.post(TIME, json={"currentTime": EPOCH, "newTime": LATER}, headers=ADMIN)
    assert r.status_code == 200, r.text
    app = await _setup_app(static_api, dar_bytes, dars_dir, AMULET_CONFIG, 24 * MICROS_PER_HOUR)
    round0 = next(e for e in app["rounds"] if e["createArgument"]["round"]["number"] == "0")
    # a Daml Time value prints its fraction without trailing zeros
    assert round0["createArgument"]["opensAt"] == "2030-01-31T11:00:00.25Z"
    assert round0["createArgument"]["targetClosesAt"] == "2030-02-01T11:00:00.25Z"
    assert round0["createdAt"] == LATER
