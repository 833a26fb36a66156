"""The contracts screen of a user left without rights to read any party, against a real participant: it views no
offset, no key reads again as the parties it read before (the participant refused each such read, 403, and the
rights were read again each time), and the rows of those parties, still in the local cache, are not kept for the
next session as the rows of no party (whose next start would have shown them)."""

from __future__ import annotations

from app.client import admin as api
from app.screens.acs import AcsScreen
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, screen_of, screen_text, wait_for
from tests.tui.test_rights_reads import Clock, carol_app, carol_reading_as_alice, ledger  # noqa: F401  (a fixture)


async def test_a_user_whose_rights_went_sees_no_contracts_at_any_offset(ledger, locations):  # noqa: F811
    admin, _, party = await carol_reading_as_alice(ledger)
    app = carol_app(ledger, locations, Clock())
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        acs = screen_of(app, AcsScreen)
        table = acs.query_one(ContractTable)
        await wait_for(pilot, lambda: not acs.reading and table.count > 0, "Alice's contracts, read as carol")
        # elsewhere: the app is not told
        await api.revoke_rights(admin, "carol", api.rights_for(read_as=[party]))
        acs.action_reload()  # refused (403): the rights are read again, and none are left
        await wait_for(pilot, lambda: "can read no party" in screen_text(app), "the screen of no party")
        assert table.count == 0 and app.workspace.acs.viewing is None and app.status_viewed is None
        assert app.workspace.whose_rows() is None  # nothing of this user's to keep

        for key in ("left_square_bracket", "right_square_bracket", "r"):  # earlier, later, read again
            await pilot.press(key)
            assert not acs.loader.busy, key  # nothing to step from or read again
        assert table.count == 0 and "can read no party" in screen_text(app)
