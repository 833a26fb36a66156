"""The parties and users screen (key 7), the real app under Pilot against a real participant started without the
demo (as `serve --dar` starts one: no parties, one admin user): an administrator allocates parties, creates a user
with rights, grants, revokes and deletes, each confirmed first; a user who is no administrator is told so and sees
its own user, and its attempt to allocate is shown refused with Canton's error id and cause."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator

import httpx
import pytest
from textual.widgets import DataTable, OptionList, SelectionList

from app.app import LedgerApp
from app.app.keys import HOLD_BOUND_S
from app.client import LedgerClient
from app.client import admin as api
from app.client.admin import UserWithRights
from app.config import Config
from app.daml_values import show_party
from app.locations import Locations
from app.screens.dialogs import ChoiceDialog, MultiChoiceDialog, PromptDialog
from app.screens.parties import PartiesScreen
from app.tokens import MintedToken
from tests.conftest import SECRET, ServerProcess, start_server
from tests.tui.conftest import SIZE, known, screen_text, wait_for
from tests.tui.helpers import paste

ADMIN = "participant_admin"


@pytest.fixture
def fresh(tmp_path) -> Iterator[ServerProcess]:
    """A participant of its own, without the demo ledger: no party, no user but the administrator."""
    s = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET)
    yield s
    s.stop()


def as_user(server: ServerProcess, user: str) -> LedgerClient:
    return LedgerClient(server.url, MintedToken(SECRET, user))


async def parties_screen(app, pilot) -> PartiesScreen:
    await wait_for(pilot, lambda: app.connected, "the connection")
    await pilot.press("7")
    await wait_for(
        pilot,
        lambda: isinstance(app.screen, PartiesScreen) and app.screen.directory.admin is not None,
        "the parties screen, read",
    )
    return app.screen


async def dialog(app, pilot, kind: type):
    await wait_for(pilot, lambda: isinstance(app.screen, kind), kind.__name__)
    await pilot.pause()
    return app.screen


async def answer_prompt(app, pilot, text: str) -> None:
    await dialog(app, pilot, PromptDialog)
    await pilot.press("ctrl+a", "ctrl+k")
    if text:  # pasted: the answer's typing is not what is tested, and each key pressed is an idle wait
        await paste(pilot, text)
    await pilot.press("enter")


async def choose(app, pilot, label_part: str) -> None:
    """In a ChoiceDialog, move to the option whose label holds `label_part` and take it (keys only)."""
    screen = await dialog(app, pilot, ChoiceDialog)
    options = screen.query_one(OptionList)
    labels = [str(label) for label, _ in screen.choices]
    target = next(i for i, label in enumerate(labels) if label_part in label)
    await wait_for(pilot, lambda: options.highlighted is not None, "a highlighted option")
    while options.highlighted != target:
        await pilot.press("down" if (options.highlighted or 0) < target else "up")
    await pilot.press("enter")


async def tick(app, pilot, *label_parts: str) -> None:
    """In a MultiChoiceDialog, toggle the options holding `label_parts` (keys only), then apply."""
    screen = await dialog(app, pilot, MultiChoiceDialog)
    selection = screen.query_one(SelectionList)
    labels = [label for label, _, _ in screen.choices]
    selection.focus()
    await pilot.pause()
    for part in label_parts:
        target = next(i for i, label in enumerate(labels) if part in label)
        while selection.highlighted != target:
            await pilot.press("down" if (selection.highlighted or 0) < target else "up")
        await pilot.press("space")
    await pilot.press("enter")


def users_table_shows(app, text: str) -> bool:
    return text in screen_text(app)


async def test_an_admin_sets_up_a_fresh_participant_from_the_screen(fresh, make_app):
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        assert screen.directory.admin is True
        # the footer offers the administrator's keys once the rights are read (its bindings are drawn a turn later)
        await wait_for(pilot, lambda: "Allocate party" in footer(app), "the administrator's keys")
        assert "not an administrator" not in screen_text(app)

        # allocate two parties, the first with a display name
        for hint, name in (("alice", "Alice Liddell"), ("bob", "")):
            await pilot.press("a")
            await answer_prompt(app, pilot, hint)
            await answer_prompt(app, pilot, name)
            confirm = await dialog(app, pilot, ChoiceDialog)
            said = f"{confirm.title_text} {confirm.hint}"
            assert f"Allocate the party {hint}" in said
            assert (f"display name {name!r}" if name else "without a display name") in said
            await pilot.press("enter")

            def allocated(hint: str = hint) -> bool:
                return any(p.party.startswith(f"{hint}::") for p in screen.directory.parties)

            await wait_for(pilot, allocated)
        alice = next(p.party for p in screen.directory.parties if p.party.startswith("alice::"))
        bob = next(p.party for p in screen.directory.parties if p.party.startswith("bob::"))
        await wait_for(pilot, lambda: "Alice Liddell" in screen_text(app), "the display name in the table")
        # the composer offers them (the workspace's learned parties are its candidates)
        assert {alice, bob} <= app.workspace.learned.parties

        # create a user whose primary party is alice, acting as alice (ticked for the primary party) and reading as
        # bob
        await pilot.press("n")
        await answer_prompt(app, pilot, "trader")
        await choose(app, pilot, alice)
        await tick(app, pilot, f"read as {bob}")
        confirm = await dialog(app, pilot, ChoiceDialog)
        # the parties as the screen shows them (their ids cut, marked `…`)
        assert f"primary party {show_party(alice)}" in confirm.hint and show_party(alice).endswith("…")
        assert f"act as {show_party(alice)}; read as {show_party(bob)}" in confirm.hint
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(u.user.id == "trader" for u in screen.directory.users), "trader")
        async with as_user(fresh, ADMIN) as client:
            user = await client.authenticated_user()  # the admin's own, to compare with trader's below
            assert user.id == ADMIN
            rights = await client.user_rights("trader")
            assert set(map(api.right_text, rights)) == {f"act as {alice}", f"read as {bob}"}

        # grant trader act-as bob, on the row under the cursor
        table = screen.query_one("#users-table", DataTable)
        table.focus()
        while screen.selected_user_id() != "trader":
            await pilot.press("down")
        await pilot.press("g")
        await tick(app, pilot, f"act as {bob}")
        confirm = await dialog(app, pilot, ChoiceDialog)
        assert f"Grant the user trader: act as {bob}." in confirm.hint
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(known(screen.selected_user()).rights) == 3, "three rights")

        # revoke read-as bob: the confirmation starts on Cancel
        await pilot.press("r")
        await tick(app, pilot, f"read as {bob}")
        await choose(app, pilot, "Revoke")
        await wait_for(pilot, lambda: len(known(screen.selected_user()).rights) == 2, "two rights")
        async with as_user(fresh, ADMIN) as client:
            rights = await client.user_rights("trader")
        assert set(map(api.right_text, rights)) == {f"act as {alice}", f"act as {bob}"}

        # delete: cancelled first (nothing changes), then confirmed
        await pilot.press("d")
        await dialog(app, pilot, ChoiceDialog)
        await pilot.press("enter")  # Cancel is the default
        await wait_for(pilot, lambda: isinstance(app.screen, PartiesScreen), "the screen again")
        assert any(u.user.id == "trader" for u in screen.directory.users)
        await pilot.press("d")
        await choose(app, pilot, "Delete user")
        await wait_for(pilot, lambda: all(u.user.id != "trader" for u in screen.directory.users), "no trader")
        async with as_user(fresh, ADMIN) as client:
            assert "trader" not in {u.id for u in await client.users()}


async def test_granting_the_acting_user_rights_changes_what_the_client_acts_as(fresh, make_app):
    async with as_user(fresh, ADMIN) as client:
        carol = (await api.allocate_party(client, "carol")).party
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        assert carol not in app.session.identity.act_as
        table = screen.query_one("#users-table", DataTable)
        table.focus()
        while screen.selected_user_id() != ADMIN:
            await pilot.press("down")
        await pilot.press("g")
        await tick(app, pilot, f"act as {carol}")
        await dialog(app, pilot, ChoiceDialog)
        await pilot.press("enter")
        await wait_for(pilot, lambda: carol in app.session.identity.act_as, "the session's new right")
        assert carol in app.session.identity.readable()
        # the composer offers the user's own parties first: carol, now
        await pilot.press("2")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "ComposerScreen", "the composer")
        await wait_for(pilot, lambda: app.screen.editor.parties()[:1] == [carol], "carol offered first")


async def test_a_user_who_is_no_admin_sees_its_own_user_and_the_refusal(fresh, make_app):
    async with as_user(fresh, ADMIN) as client:
        dave = (await api.allocate_party(client, "dave", "Dave")).party
        await api.create_user(client, "dave", dave, api.rights_for(act_as=[dave]))
    app = make_app(fresh, "dave")
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        assert screen.directory.admin is False

        def shown() -> str:
            return " ".join(screen_text(app).split())

        # the screen's text and its footer are drawn a turn after the rights are read: wait for both (the footer
        # loses the administrator's keys, offered while the session's own rights were all that was known)
        await wait_for(
            pilot,
            lambda: (
                "not an administrator" in shown()
                and "Dave" in shown()
                and "Allocate party" not in footer(app)
            ),
            "the refusal and the user's own parties drawn",
        )
        text = shown()
        assert "not an administrator" in text
        assert [u.user.id for u in screen.directory.users] == ["dave"]
        assert [p.party for p in screen.directory.parties] == [dave]
        assert "Dave" in text  # its display name, which the user may look up
        # the keys that change parties and users are not offered (the footer) and do nothing; help lists them as
        # the administrators'
        for key, said in (("a", "Allocate party"), ("n", "New user"), ("g", "Grant"), ("d", "Delete user")):
            assert said not in text, said
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is screen, key
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        help_text = " ".join(screen_text(app).split()).replace("`", "")
        assert "a Allocate party (administrators)" in help_text
        assert "d Delete user (administrators)" in help_text
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "the screen again")
        # asked for all the same (from the palette before the screen learned it is no administrator), the change is
        # refused by the participant, and the refusal shown
        screen.action_allocate()
        await answer_prompt(app, pilot, "mallory")
        await answer_prompt(app, pilot, "")
        await dialog(app, pilot, ChoiceDialog)
        await pilot.press("enter")
        await wait_for(pilot, lambda: "refused" in screen.problem, "the refusal")
        # Canton's answer to a permission error, its cause hidden (the id NA), and what it means
        assert "NA (403" in screen.problem
        assert "A security-sensitive error has been received" in screen.problem
        assert "has the rights this needs" in screen.problem
        assert "Allocating the party refused: NA (403" in " ".join(screen_text(app).split())
        async with as_user(fresh, ADMIN) as client:
            assert not any(p.party.startswith("mallory::") for p in await client.parties())


class SlowAllocation(httpx.AsyncBaseTransport):
    """The real participant, whose answer to a party allocation waits until `answer` is set (a slow participant)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.answer = asyncio.Event()
        self.waiting = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and request.url.path == "/v2/parties":
            self.waiting = True
            await self.answer.wait()
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


def admin_app(fresh: ServerProcess, locations: Locations, transport: httpx.AsyncBaseTransport) -> LedgerApp:
    """The administrator's app, its requests through `transport` (one that answers an allocation late)."""
    return LedgerApp(
        config=Config(),
        locations=locations,
        url=fresh.url,
        tokens=MintedToken(SECRET, ADMIN),
        label=fresh.url,
        transport=transport,
    )


async def allocate_bob_then_name_trader(app: LedgerApp, pilot, slow) -> None:
    """`a bob` confirmed, then, while its allocation is in flight, `n` and the new user's id `trader`."""
    await pilot.press("a")
    await answer_prompt(app, pilot, "bob")
    await answer_prompt(app, pilot, "")
    await dialog(app, pilot, ChoiceDialog)
    await pilot.press("enter")
    await wait_for(pilot, lambda: slow.waiting, "the allocation in flight")
    await pilot.press("n")
    await answer_prompt(app, pilot, "trader")


async def test_a_change_confirmed_is_not_cancelled_by_the_next_key(fresh, locations):
    """`n` pressed while an allocation is in flight: the allocation and the reading after it go through, and the new
    user's dialog, which waits for them, offers the party just allocated."""
    slow = SlowAllocation()
    app = admin_app(fresh, locations, slow)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        await allocate_bob_then_name_trader(app, pilot, slow)
        slow.answer.set()
        primary = await dialog(app, pilot, ChoiceDialog)
        offered = [value for _, value in primary.choices]
        assert any(p.startswith("bob::") for p in offered), offered
        assert any(p.party.startswith("bob::") for p in screen.directory.parties)


class SlowerThanAHold(httpx.AsyncBaseTransport):
    """The real participant, whose answer to a party allocation comes `HOLD_BOUND_S` and a second after `go` is set:
    later than local work may hold the keys."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.go = asyncio.Event()
        self.waiting = False
        self.answered = False

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        response = await self.inner.handle_async_request(request)
        if request.method == "POST" and request.url.path == "/v2/parties":
            self.waiting = True
            await self.go.wait()
            await asyncio.sleep(HOLD_BOUND_S + 1.0)
            self.answered = True
        return response

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_keys_typed_while_a_slow_change_is_answered_reach_the_dialog_after_it(fresh, locations):
    """The new user's dialogs wait for an allocation the participant answers after more than `HOLD_BOUND_S`: the
    keys typed meanwhile (primary party, rights, Create) wait with them and reach them, not the users' list."""
    slow = SlowerThanAHold()
    app = admin_app(fresh, locations, slow)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        await allocate_bob_then_name_trader(app, pilot, slow)
        await wait_for(pilot, lambda: app.keys.holding(screen), "the keys held for the dialog to come")
        burst(app, "enter", "enter", "enter")  # bob as primary party, his act-as right ticked, Create
        slow.go.set()

        def trader() -> UserWithRights | None:
            return next((u for u in screen.directory.users if u.user.id == "trader"), None)

        def stuck_in_a_dialog() -> (
            bool
        ):  # the keys went elsewhere: a dialog waits for keys that will not come
            return (
                slow.answered and app.keys.idle and isinstance(app.screen, (ChoiceDialog, MultiChoiceDialog))
            )

        await wait_for(pilot, lambda: trader() is not None or stuck_in_a_dialog(), "trader, or a dialog left")
        created = known(trader(), "the user trader")
        assert created.user.primary_party.startswith("bob::"), created


async def test_a_display_name_from_the_ledger_never_reaches_the_terminal_raw(fresh, make_app):
    hostile = "\x1b]52;c;cHduZWQ=\x07[bold red]Eve[/]\u202e"
    async with as_user(fresh, ADMIN) as client:
        await api.allocate_party(client, "eve", hostile)
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        await parties_screen(app, pilot)
        await wait_for(pilot, lambda: "Eve" in screen_text(app), "the party's row drawn")
        text = screen_text(app)
        assert "\x1b" not in text and "\u202e" not in text
        assert "\\x1b]52;c;cHduZWQ=\\x07[bold red]Eve[/]\\u202e" in text  # written out, markup as text


async def test_the_palette_reaches_the_screen_and_its_actions(fresh, make_app):
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        titles = {command.title for command in app.get_system_commands(app.screen)}
        for entry in (
            "Parties & users: open",
            "Parties & users: Allocate party",
            "Parties & users: New user",
        ):
            assert entry in titles
        await pilot.press("7", "question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        help_text = " ".join(screen_text(app).split())
        assert "Parties & users" in help_text and "a Allocate party" in help_text.replace("`", "")


async def test_a_change_reads_again_only_the_user_it_changed(fresh, make_app):
    """Each user's rights are a request of their own: after a grant, the one user is read again, not all of them."""
    async with as_user(fresh, ADMIN) as client:
        frank = (await api.allocate_party(client, "frank")).party
        for n in range(6):
            await api.create_user(client, f"user{n}", frank)
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        screen.query_one("#users-table", DataTable).focus()
        while screen.selected_user_id() != "user3":
            await pilot.press("down")
        await pilot.press("g")
        await tick(app, pilot, f"read as {frank}")
        await dialog(app, pilot, ChoiceDialog)
        app.request_log.clear()
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(known(screen.selected_user()).rights) == 1, "user3's new right")
        await wait_for(pilot, lambda: app.request_log.in_flight == 0, "no request in flight")
        read = [
            r.path for r in app.request_log.entries if r.method == "GET" and r.path.startswith("/v2/users")
        ]
        assert read == ["/v2/users/user3", "/v2/users/user3/rights"]
        assert len(screen.directory.users) == 7


def burst(app, *keys: str) -> None:
    """Keys posted to the app at once, as a terminal delivers keys typed (or pasted, or sent by tmux) faster than
    the app handles them: none waits for the app to handle the one before."""
    from textual import events

    named = {"enter": "\r", "space": " "}
    for key in keys:
        app.post_message(events.Key(key, named.get(key, key if len(key) == 1 else None)))


async def test_keys_typed_in_one_burst_after_a_reach_the_dialogs(fresh, make_app):
    """`a bob Enter Bob Enter Enter` typed at once allocates bob with the display name Bob: the dialog opens on the
    key itself, so that the keys after it reach it, and so do the next dialog's."""
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        burst(app, "a", "b", "o", "b", "enter", "B", "o", "b", "enter", "enter")
        await wait_for(
            pilot, lambda: any(p.party.startswith("bob::") for p in screen.directory.parties), "bob"
        )
        await wait_for(pilot, lambda: isinstance(app.screen, PartiesScreen), "the screen again")
        await wait_for(pilot, lambda: "Bob" in screen_text(app), "the display name Bob shown")


async def test_keys_typed_in_one_burst_after_n_reach_the_dialogs(fresh, make_app):
    async with as_user(fresh, ADMIN) as client:
        await api.allocate_party(client, "alice")
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=SIZE) as pilot:
        screen = await parties_screen(app, pilot)
        # the id, the first party offered as primary, its act-as right ticked for it, then Create
        burst(app, "n", "t", "o", "m", "enter", "enter", "enter", "enter")
        await wait_for(pilot, lambda: any(u.user.id == "tom" for u in screen.directory.users), "tom")


async def test_at_80x24_the_users_columns_fit_and_a_cut_is_marked(fresh, make_app):
    """The rights of a user with many run past 80 columns: they are cut with `…`, and the columns after them (the
    deactivated mark) stay on screen."""
    async with as_user(fresh, ADMIN) as client:
        named = [(await api.allocate_party(client, name)).party for name in ("alice", "bob", "carol")]
        await api.create_user(client, "trader", named[0], api.rights_for(act_as=named, read_as=named))
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await parties_screen(app, pilot)
        await wait_for(pilot, lambda: len(screen.directory.users) == 2, "the two users")
        # the rights are read user by user, and drawn a turn later
        await wait_for(pilot, lambda: "act alice::" in screen_text(app), "trader's rights drawn")
        lines = screen_text(app).splitlines()
        header = next(line for line in lines if "Primary party" in line)
        assert "Rights" in header and "Off" in header, header
        row = next(line for line in lines if "trader" in line)
        assert "act alice::" in row and "…" in row, row
        assert row.index("…") < header.index("Off"), (row, header)


async def test_at_80x24_a_confirmation_too_long_for_its_dialog_is_cut_with_a_mark(fresh, make_app):
    async with as_user(fresh, ADMIN) as client:
        named = [(await api.allocate_party(client, f"party{n}")).party for n in range(8)]
    app = make_app(fresh, ADMIN)
    async with app.run_test(size=(80, 24)) as pilot:
        await parties_screen(app, pilot)
        await pilot.press("n")
        await answer_prompt(app, pilot, "trader")
        await choose(app, pilot, named[0])
        await tick(app, pilot, *(f"read as {party}" for party in named), *(f"act as {p}" for p in named[1:]))
        confirm = await dialog(app, pilot, ChoiceDialog)
        assert confirm.hint.endswith("…"), confirm.hint
        # its last line shown ends with the mark (it was clipped mid-id, unmarked)
        assert "read as …" in screen_text(app)
        assert "Create the user trader with primary party party0::" in screen_text(app)


def footer(app) -> str:
    return screen_text(app).splitlines()[-1]


async def test_before_the_participant_answers_the_screen_says_so_and_offers_no_change(tmp_path, make_app):
    """Not connected (the participant down), the screen says what it waits for rather than "0 parties · 0 users",
    and the footer offers no key that changes anything (nor reading again); once the participant is up the lists
    are read and the administrator's keys offered."""
    from tests.conftest import free_port

    port = free_port()
    pending = ServerProcess(f"http://127.0.0.1:{port}", tmp_path / "ledger.db", None, [])  # type: ignore[arg-type]
    app = make_app(pending, ADMIN)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.status_connection == "down", "the participant found down")
        await pilot.press("7")
        await wait_for(pilot, lambda: isinstance(app.screen, PartiesScreen), "the parties screen")
        screen = app.screen
        await wait_for(
            pilot, lambda: "Not connected" in screen_text(app), "the screen saying it is not connected"
        )
        text = " ".join(screen_text(app).split())
        assert f"http://127.0.0.1:{port} does not answer" in text
        assert "0 parties" not in text and "0 users" not in text
        for said in ("Allocate party", "New user", "Grant", "Revoke", "Delete user", "Reload"):
            assert said not in footer(app), said
        await pilot.press("a")
        await pilot.pause()
        assert app.screen is screen  # no dialog
        server = start_server(tmp_path / "ledger.db", "--hs256-secret", SECRET, port=port)
        try:
            await wait_for(pilot, lambda: screen.directory.admin is True, "the lists read once connected")
            await wait_for(pilot, lambda: "Allocate party" in footer(app), "the administrator's keys")
            text = " ".join(screen_text(app).split())
            assert "Not connected" not in text
            assert "1 user" in text and ADMIN in text
        finally:
            server.stop()


def fits(table: DataTable) -> bool:
    """The table's columns within its width: no horizontal scrolling."""
    return table.virtual_size.width <= table.scrollable_content_region.width


LONG_DISPLAY_NAME = "Alice Liddell of Wonderland Holdings Limited"
LONG_HINT = "bob_the_very_long_named_market_maker_party"


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
async def test_the_parties_columns_fit_the_screen_and_mark_their_cuts(fresh, make_app, size):
    """Long display names and ids (whole with `f`) fit the width: every column on screen (the last, Local, too),
    no horizontal scrolling, and a value cut shows `…` where it goes on."""
    async with as_user(fresh, ADMIN) as client:
        alice = (await api.allocate_party(client, "alice", LONG_DISPLAY_NAME)).party
        bob = (await api.allocate_party(client, LONG_HINT, "Bob")).party
        await api.create_user(client, "trader", alice, api.rights_for(act_as=[alice], read_as=[alice, bob]))
    app = make_app(fresh, ADMIN)
    width = size[0]
    async with app.run_test(size=size) as pilot:
        screen = await parties_screen(app, pilot)
        await wait_for(pilot, lambda: len(screen.directory.parties) == 2, "the two parties")
        for full in (False, True):
            if full:
                await pilot.press("f")

            # the tables are filled again and laid out to the width a turn or more after the key (or the read)
            def laid_out(full: bool = full) -> bool:
                return (
                    screen.full_ids == full
                    and all(fits(table) for table in screen.query(DataTable))
                    and "act alice::" in screen_text(app)  # the users' rights, each read on its own
                )

            await wait_for(pilot, laid_out, "the tables laid out within the width")
            tables = screen.query(DataTable)
            for table in tables:
                assert table.virtual_size.width <= table.scrollable_content_region.width, (full, table.id)
            lines = screen_text(app).splitlines()
            header = next(line for line in lines if "Display name" in line)
            assert header.rstrip().endswith("Local"), header
            bob_row = next(line for line in lines if "bob_the" in line)
            assert bob_row.rstrip().endswith("yes"), bob_row
            assert "Bob" in bob_row
            alice_row = next(line for line in lines if line.lstrip().startswith("alice::"))
            shown_party = alice_row.split()[0]
            assert alice.startswith(shown_party.removesuffix("…")), shown_party
            if shown_party != alice:
                assert shown_party.endswith("…"), shown_party
            if LONG_DISPLAY_NAME not in alice_row:  # cut: marked
                assert "Alice Liddell…" in alice_row or "Alice Lid" in alice_row and "…" in alice_row
                assert width == 80 or full, (width, full, alice_row)
            user_header = next(line for line in lines if "Primary party" in line)
            assert user_header.rstrip().endswith("Off"), user_header
            trader = next(line for line in lines if line.lstrip().startswith("trader"))
            rights = trader[user_header.index("Rights") :]
            assert rights.startswith("act alice::"), trader
            assert bob in rights or "…" in rights, trader
        if width == 160:  # short ids (f off again): the display names whole, the rights whole
            await pilot.press("f")
            await wait_for(
                pilot,
                lambda: not screen.full_ids and LONG_DISPLAY_NAME in screen_text(app),
                "short ids again",
            )
            text = screen_text(app)
            assert LONG_DISPLAY_NAME in text
            assert f"read {show_party(bob)}" in text
