"""A value cut to fit its room shows it was cut (`…`), and never reads as another value: the demo's Iou amounts at
80 and 160 columns, a long template and a long party in the contracts table, and the status line at 80 columns with
a long participant name and user."""

from __future__ import annotations

import re
from collections.abc import Iterator

import httpx
import pytest

from app.app import LedgerApp
from app.config import Config
from app.daml import number, template_name
from app.snapshot import Row
from app.tokens import MintedToken
from app.widgets.contract_table import ContractTable
from tests.conftest import SECRET, LedgerApi, ServerProcess, start_server
from tests.daml_lf.conftest import RICHTYPES
from tests.tui.conftest import screen_text, wait_for
from tests.tui.helpers import client_for
from tests.tui.test_reassign import contracts_ready
from tests.tui.test_types import rich_record

SMALL, LARGE = (80, 24), (160, 48)
LONG_PARTY = "QuiteALongPartyHintThatNoColumnHolds"


def table_lines(app: LedgerApp, table: ContractTable) -> Iterator[tuple[Row, str]]:
    """(row, its line on screen) of each row of the table on screen."""
    lines = screen_text(app).splitlines()
    top, area = int(table.scroll_y), table.scrollable_content_region  # on screen, without the scrollbars
    for line_number in range(area.y + 1, area.bottom):
        row = table.row_at(top + line_number - area.y - 1)
        if row is not None:
            yield row, lines[line_number][area.x : area.right]


def whole_or_marked(shown: str, value: str) -> bool:
    return shown == value or (shown.endswith("…") and value.startswith(shown[:-1]))


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x48"])
async def test_the_demo_iou_amounts_show_whole_or_marked_as_cut(demo_server, make_app, size):
    app = make_app(demo_server)
    async with app.run_test(size=size) as pilot:
        acs = await contracts_ready(pilot, app)
        table = acs.query_one(ContractTable)
        await wait_for(
            pilot, lambda: len(table.visible_rows()) >= table.region.height - 2, "a screen of rows"
        )
        await pilot.pause()
        checked = 0
        for row, line in table_lines(app, table):
            if "amount" not in row.payload:
                continue
            amount = number(row.payload["amount"])
            shown = re.search(r"amount=(\S*)", line)
            if shown is None:  # the pair left out of the summary: the summary says so
                assert "…" in line, line
            else:
                assert whole_or_marked(shown.group(1), amount), (line, amount)
            checked += 1
        assert checked >= 10
        # the template and the payload's first fields come first, whole at 80 columns too
        first = next(line for row, line in table_lines(app, table) if "amount" in row.payload)
        assert re.match(r"^. {1,2}Iou:Iou +issuer=\w+ owner=\w+ currency=\w+ amount=[\d.]+ ", first), first


@pytest.fixture
def rich_server(tmp_path, dars_dir) -> Iterator[ServerProcess]:  # noqa: F811  (the fixture imported above)
    s = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET, "--dar", str(dars_dir / RICHTYPES))
    yield s
    s.stop()


async def long_names(server: ServerProcess) -> None:
    """Alice's RichRecord (a template named longer than its column) and an Iou of a party with a long name that
    Alice observes."""
    async with httpx.AsyncClient(base_url=server.url, timeout=30) as http:
        api = LedgerApi(http, check_spec=False)
        alice = await api.party("Alice")
        long_party = await api.party(LONG_PARTY)
        await api.create_iou(long_party, long_party, "938.91", "EUR", user=LONG_PARTY, observers=[alice])
    async with client_for(server, "Alice") as client:
        await rich_record(client)


@pytest.mark.parametrize("size", [SMALL, LARGE], ids=["80x24", "160x48"])
async def test_a_long_template_and_a_long_party_are_cut_with_a_mark(rich_server, make_app, size):
    await long_names(rich_server)
    app = make_app(rich_server)
    async with app.run_test(size=size) as pilot:
        acs = await contracts_ready(pilot, app)
        table = acs.query_one(ContractTable)
        await wait_for(
            pilot, lambda: len(table.visible_rows()) == 3, "the contracts (the Marker, the records)"
        )
        await pilot.pause()
        rows = {template_name(row.template_id): line for row, line in table_lines(app, table)}
        # the template column grows to the names in view (a longer one gives way from its start: the entity stays,
        # tests/tui/test_contract_columns.py)
        assert rows["RichTypes:RichRecord"][2:23] == "RichTypes:RichRecord ", rows["RichTypes:RichRecord"]
        iou = rows["Iou:Iou"]
        # a summary that leaves pairs out ends in the mark, after whole pairs only
        assert re.search(rf"issuer={LONG_PARTY} …  ", iou), iou
        if size == LARGE:  # the signatories' column, in view at 160 columns
            assert re.search(r"  QuiteALongPart… ", iou), iou


async def test_the_status_line_at_80_columns_marks_what_it_cut(demo_server, locations):
    participant = "https://participant-one.a-rather-long-domain-name.example.com:7575"
    app = LedgerApp(
        config=Config(),
        locations=locations,
        url=demo_server.url,
        tokens=MintedToken(SECRET, "Alice"),
        label=participant,
    )
    async with app.run_test(size=SMALL) as pilot:
        acs = await contracts_ready(pilot, app)
        await wait_for(pilot, lambda: app.status_ledger_end is not None, "the ledger end")
        await pilot.pause()
        top = screen_text(app).splitlines()[0]
        assert f"end {app.status_ledger_end}" in top and f"view {acs.offset}" in top, top
        shown = re.search(r"● (\S+)", top)
        assert shown is not None, top
        assert whole_or_marked(shown.group(1), participant) and shown.group(1) != participant, top
        assert len(shown.group(1)) > 4, top  # the name's beginning, not the mark alone
