"""The parties and users screen: the participant's parties and users with their rights, and an administrator's
changes to them (allocate a party, create a user, grant and revoke rights, delete a user), each confirmed first.

What it shows and changes is the workspace's `Directory`, which tells the rest of the client of each change."""

from __future__ import annotations

import asyncio
import textwrap
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING, TypeVar

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Label, Static

from app.client.errors import LedgerApiError, StatusError, category_words
from app.cut import MARK, cut
from app.daml_values import show_party
from app.messages import IdentityChanged
from app.screens.base import LedgerScreen
from app.screens.dialogs import ChoiceDialog, MultiChoiceDialog, PromptDialog
from app.untrusted import visible
from app.widgets.column_widths import fit_widths, wanted_widths
from app.widgets.keys import KeyFooter
from app.widgets.status_bar import StatusBar
from app.widgets.untrusted_text import plain

if TYPE_CHECKING:
    from app.client.admin import UserWithRights
    from app.workspace import Directory, DirectoryChange
    from participant.api import Right

NO_PRIMARY_PARTY = ""

T = TypeVar("T")

ADMINISTRATORS = "administrators"

PARTY_COLUMNS = ("Party", "Display name", "Local")
USER_COLUMNS = ("User", "Primary party", "Rights", "Off")
OFF_MARK = "✗"  # a deactivated user, in the short column at the end ("Off")
# the cells a column keeps however narrow the screen (a party's name and the start of its fingerprint, `alice::12…`)
PARTY_LEAST = (16, 12, 5)
USER_LEAST = (12, 16, 8, 3)
TABLE_CHROME = 2  # the vertical scroll bar's room
CELL_PADDING = 2  # a cell of padding on either side of each column
# the requests one after the other of a change and the reading after it: the change, the user changed read again,
# and when it is the user acting, the lists it may now read (`Directory._user_changed`)
CHANGE_REQUESTS = 3
# the actions that change parties and users (an administrator's)
CHANGE_ACTIONS = frozenset({"allocate", "create_user", "grant", "revoke", "delete_user"})


def refusal_text(error: LedgerApiError) -> str:
    """Canton's error id, category and cause (or what the client knows of the failure), and what it means, on one
    line. Canton hides the cause of a permission error (its id is then NA): the meaning says what to check."""
    if isinstance(error, StatusError) and error.canton is not None:
        canton = error.canton
        words = category_words(canton.error_category)
        said = f"{canton.code} ({error.status}{', ' + words if words else ''}): {canton.cause}"
    else:
        said = error.message
    return f"{said}. {error.hint}" if error.hint else said


class PartiesScreen(LedgerScreen):
    TITLE_TEXT = "Parties & users"
    HELP = """\
**Parties & users** lists the participant's parties (their id, display name and whether this participant hosts
them) and its users (their id, primary party, rights, cut with `…` when the screen is narrow, and ✗ under Off when
deactivated). The line under the lists
shows every right of the user under the cursor.

An administrator (a user with the ParticipantAdmin right) changes them here: `a` allocates a party (a hint for its
name, and a display name, kept in the party's local metadata), `n` creates a user (its id, its primary party, its
rights to act and read as parties, admin or not), `g` grants the user under the cursor more rights, `r` revokes
some, `d` deletes it. Each asks first, saying exactly what it will do; the participant's refusal (Canton's error id
and cause) is shown when the token may not. The composer offers a party allocated here at once, and a change to
your own user's rights changes what every screen may read and act as.

A user who is no administrator sees its own user and rights, and the parties they name: listing the others needs
ParticipantAdmin. `ctrl+r` reads everything again; `f` shows the parties' whole ids. Until the participant answers,
the screen says what it waits for and offers no change.
"""

    BINDINGS = [
        # the tooltip is said in help, where these stay listed when hidden from a user who is no administrator
        Binding("a", "allocate", "Allocate party", id="parties.allocate", tooltip=ADMINISTRATORS),
        Binding("n", "create_user", "New user", id="parties.create_user", tooltip=ADMINISTRATORS),
        Binding("g", "grant", "Grant", id="parties.grant", tooltip=ADMINISTRATORS),
        Binding("r", "revoke", "Revoke", id="parties.revoke", tooltip=ADMINISTRATORS),
        Binding("d", "delete_user", "Delete user", id="parties.delete_user", tooltip=ADMINISTRATORS),
        Binding("ctrl+r", "reload", "Reload", id="parties.reload"),
        Binding("f", "full_ids", "Full ids", id="parties.full_ids", show=False),
    ]

    DEFAULT_CSS = """
    PartiesScreen #parties-banner { height: auto; padding: 0 1; color: $warning; display: none; }
    PartiesScreen #parties-banner.shown { display: block; }
    PartiesScreen #parties-waiting { height: auto; padding: 1 1; color: $text-muted; display: none; }
    PartiesScreen.-waiting #parties-waiting { display: block; }
    PartiesScreen.-waiting #parties-lists, PartiesScreen.-waiting #user-rights { display: none; }
    PartiesScreen .title { padding: 0 1; text-style: bold; background: $boost; width: 1fr; }
    PartiesScreen #parties-lists { height: 1fr; }
    PartiesScreen DataTable { height: auto; max-height: 45%; }
    PartiesScreen #user-rights { height: auto; max-height: 4; padding: 0 1; background: $boost; }
    PartiesScreen #parties-problem { height: auto; padding: 0 1; color: $error; }
    """

    AUTO_FOCUS = "#users-table"

    def __init__(self) -> None:
        super().__init__()
        self.full_ids = False
        self.problem = ""
        """The last refusal or failure, as shown under the lists ("" when the last action went through)."""
        # One change at a time, in the order confirmed, and none cancelled by the next (a worker of an exclusive
        # group would cancel an allocation in flight, and the lists' reading after it, when `n` was pressed at
        # once); a dialog that lists parties or rights waits for the change before it to be read.
        self._changing = asyncio.Lock()
        self._reading = False

    def compose(self) -> ComposeResult:
        yield StatusBar(mode="parties")
        yield Static("", id="parties-banner")
        yield Static("", id="parties-waiting")
        with Vertical(id="parties-lists"):
            yield Label("Parties", id="parties-title", classes="title")
            yield DataTable(id="parties-table", cursor_type="row", zebra_stripes=True)
            yield Label("Users", id="users-title", classes="title")
            yield DataTable(id="users-table", cursor_type="row", zebra_stripes=True)
        yield Static("", id="user-rights")
        yield Static("", id="parties-problem")
        yield KeyFooter()

    @property
    def directory(self) -> Directory:
        return self.ledger_app.workspace.directory

    @property
    def readonly(self) -> bool:
        return self.ledger_app.workspace.readonly

    def on_mount(self) -> None:
        self.follow(self.directory.subscribe, self._directory_changed)
        # until connected the screen says what it waits for; once connected, the lists are read (`IdentityChanged`)
        self.watch(self.app, "status_connection", self._connection_changed, init=False)
        self.watch(self.app, "connect_problem", self._connection_changed, init=False)
        if self.ledger_app.connection.connected:
            self._read()
        self._show()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """The footer offers only what the user may do: no change before the participant is reached, in a
        read-only session, or for a user who is no administrator (pressing them would only show its refusal); the
        rights the connection read say so until the lists are read. Reading again needs the participant."""
        connected = self.ledger_app.connection.connected
        if action in CHANGE_ACTIONS:
            if not connected or self.readonly:
                return False
            admin = self.directory.admin
            return admin if admin is not None else self.ledger_app.session.identity.admin
        if action == "reload":
            return connected
        return True

    def on_resize(self) -> None:
        self._show()  # the users' columns are sized to the screen

    def on_identity_changed(self, _: IdentityChanged) -> None:
        self._read()

    def _directory_changed(self, _: DirectoryChange) -> None:
        self._show()

    def _connection_changed(self, _: str = "") -> None:
        self._show()

    # --- reading and showing ------------------------------------------------------------------------------------

    @work(exclusive=True, group="parties-read", exit_on_error=False)
    async def _read(self) -> None:
        self._reading = True
        self._show()
        try:
            await self.directory.read()
        except LedgerApiError as e:
            self._say_problem(e, "Cannot read the users")
        finally:
            self._reading = False
            self._show()

    def _waiting(self) -> str:
        """What the lists wait for, said in their place until they are first read ("" once read): a connection,
        or their reading."""
        if self.directory.admin is not None:
            return ""
        connection = self.ledger_app.connection
        then = "The parties and users are shown once it answers."
        if connection.connected:
            if self._reading:
                return f"Reading the parties and users of {connection.url}…"
            return "The parties and users could not be read (the reason is below); ctrl+r reads them again."
        if (
            connection.problem
        ):  # the participant refuses the token (its cause quoted: text from the participant)
            return f"Not connected: {connection.problem}\nThe parties and users are shown once it accepts a token."
        if connection.url is None:
            return f"Not connected yet: waiting for the bundled participant to start. {then}"
        if connection.state == "down":
            return (
                f"Not connected: {connection.url} does not answer (trying again every {connection.retry_s:g} s). "
                f"{then}"
            )
        return f"Not connected yet: connecting to {connection.url}. {then}"

    def action_reload(self) -> None:
        if self.ledger_app.connection.connected:
            self._say("")
            self._read()

    def action_full_ids(self) -> None:
        self.full_ids = not self.full_ids
        self._show()

    def _party(self, party: str) -> str:
        return visible(show_party(party, self.full_ids))

    def _show(self) -> None:
        from app.client.admin import display_name

        self.refresh_bindings()  # whether the user is an administrator may have become known, or changed
        waiting = self._waiting()
        self.set_class(bool(waiting), "-waiting")
        self.query_one("#parties-waiting", Static).update(
            Content("\n".join(visible(line) for line in waiting.split("\n")))
        )
        directory = self.directory
        parties = self.query_one("#parties-table", DataTable)
        users = self.query_one("#users-table", DataTable)
        kept_party, kept_user = _row_key(parties), self.selected_user_id()
        width = self.app.size.width
        party_rows = [
            (
                self._party(p.party),
                visible(display_name(p)),
                "yes" if p.is_local else "no",
                p.party,
            )
            for p in sorted(directory.parties, key=lambda p: p.party.lower())
        ]
        _fill(parties, PARTY_COLUMNS, party_rows, PARTY_LEAST, width)
        user_rows = [
            (
                visible(u.user.id),
                self._party(u.user.primary_party) if u.user.primary_party else "—",
                ", ".join(_short_right(r, self._party) for r in u.rights) or "none",
                OFF_MARK if u.user.is_deactivated else "",
                u.user.id,
            )
            for u in sorted(directory.users, key=lambda u: u.user.id.lower())
        ]
        _fill(users, USER_COLUMNS, user_rows, USER_LEAST, width)
        if kept_party is not None and kept_party in parties.rows:
            parties.move_cursor(row=parties.get_row_index(kept_party))
        if kept_user is not None and kept_user in users.rows:
            users.move_cursor(row=users.get_row_index(kept_user))
        parties_said = _count(len(directory.parties), "party", "parties")
        if not directory.parties and directory.admin and not self.readonly:
            parties_said += " · a allocates one"
        self.query_one("#parties-title", Label).update(plain(parties_said))
        self.query_one("#users-title", Label).update(plain(_count(len(directory.users), "user")))
        banner = self.query_one("#parties-banner", Static)
        if directory.admin is False:
            banner.update(
                plain(
                    "You are not an administrator of this participant (no ParticipantAdmin right): shown are your "
                    "own user, its rights and the parties they name. Listing and changing parties and users needs "
                    "ParticipantAdmin."
                )
            )
            banner.add_class("shown")
        elif self.readonly:
            banner.update(plain("Read-only session: allocating parties and changing users is off."))
            banner.add_class("shown")
        else:
            banner.remove_class("shown")
        self._show_rights()

    @on(DataTable.RowHighlighted, "#users-table")
    def _user_highlighted(self) -> None:
        self._show_rights()

    def _show_rights(self) -> None:
        from app.client.admin import right_text

        chosen = self.selected_user()
        line = self.query_one("#user-rights", Static)
        if chosen is None:
            line.update("")
            return
        rights = "; ".join(_with_party(right_text(r), r, self._party) for r in chosen.rights) or "no rights"
        line.update(plain(f"{chosen.user.id}: {rights}"))

    def selected_user_id(self) -> str | None:
        return _row_key(self.query_one("#users-table", DataTable))

    def selected_user(self) -> UserWithRights | None:
        user_id = self.selected_user_id()
        return next((u for u in self.directory.users if u.user.id == user_id), None)

    def _say(self, text: str) -> None:
        self.problem = text
        self.query_one("#parties-problem", Static).update(plain(text))

    def _say_problem(self, error: LedgerApiError, what: str) -> None:
        self._say(f"{what}: {refusal_text(error)}")
        self.ledger_app.failures.show_error(error, what)

    # --- changing -----------------------------------------------------------------------------------------------

    def _may_change(self) -> bool:
        if not self.ledger_app.connection.connected:
            return False
        if self.readonly:
            self.notify("Read-only session: changing parties and users is off.", severity="warning")
            return False
        return True

    def _ask(self, dialog: Screen[T | None], then: Callable[[T], object]) -> None:
        """Open `dialog`; `then` takes its answer, unless cancelled. The keys typed behind the key that asked go
        to the dialog, in order (the app's keys, `app.app.keys`)."""

        def answered(answer: T | None) -> None:
            if answer is not None:
                then(answer)

        self.app.push_screen(dialog, answered)

    def _confirm(
        self, title: str, action: str, details: str, then: Callable[[], object], *, default: bool = True
    ) -> None:
        dialog = ChoiceDialog(
            title, [(action, True), ("Cancel", False)], selected=default, hint=self._fit_dialog(details, 2)
        )
        self._ask(dialog, lambda yes: then() if yes else None)

    def _fit_dialog(self, details: str, options: int) -> str:
        """`details` in the lines a dialog of `options` options has left on this screen, the last line cut with
        `…` when they do not fit (the dialog would otherwise clip them unmarked, mid-id, at 80×24)."""
        width, height = self.app.size
        # the dialog's box: 80% of the width up to 110, 85% of the height; its border and padding take 3 cells on
        # either side and 4 lines; its title 2 lines, the options their count and a border, the details' margin 1,
        # and a line to spare for the difference between this wrapping and the terminal's
        room = min(110, width * 80 // 100) - 6
        lines = height * 85 // 100 - 4 - 2 - (options + 2) - 1 - 1
        wrapped = textwrap.wrap(details, max(room, 10))
        if len(wrapped) <= max(lines, 1):
            return details
        kept = wrapped[: max(lines, 1)]
        return " ".join(kept[:-1] + [cut(kept[-1] + " " + MARK, room)])

    def _when_settled(self, then: Callable[[], object]) -> None:
        """`then` once the change in flight, if any, is done and the lists read after it: at once when none is
        (the common case, so that its dialog opens before the next key), else after it."""
        if not self._changing.locked():
            then()
            return
        keys = self.ledger_app.keys
        # the keys typed on are for the dialog `then` opens, however long the participant takes to answer: held
        # as long as the change and the reading after it may take, not the bound of local work
        bound = CHANGE_REQUESTS * self.ledger_app.session.client.http.timeouts.request_bound_s
        keys.hold(self, bound_s=bound)

        async def settled() -> None:
            try:
                async with self._changing:
                    pass
                then()
            finally:
                keys.release(self)

        self.run_worker(settled(), group="parties-change", exit_on_error=False)

    def _change(self, what: str, change: Callable[[], Awaitable[object]], done: str) -> None:
        """Run a confirmed change in a worker of its own (none cancels another: they queue on the lock), saying
        `done` when it goes through and the participant's refusal (Canton's error id and cause) when it refuses."""

        async def attempt() -> None:
            try:
                async with self._changing:
                    await change()
            except LedgerApiError as e:
                self._say_problem(e, f"{what} refused")
                return
            self._say("")
            self.notify(done, timeout=3)

        self.run_worker(attempt(), group="parties-change", exit_on_error=False)

    def action_allocate(self) -> None:
        if not self._may_change():
            return
        self._ask(
            PromptDialog(
                "Allocate a party: its name (the hint for its id)",
                placeholder="e.g. alice (empty: the participant picks one)",
                hint="The id becomes NAME::<the participant's fingerprint>.",
            ),
            self._allocate_named,
        )

    def _allocate_named(self, hint: str) -> None:
        self._ask(
            PromptDialog(
                f"Display name of {hint or 'the new party'}",
                placeholder="e.g. Alice Liddell (empty: none)",
                hint="Kept in the party's local metadata (the annotation displayName); empty for none.",
            ),
            lambda name: self._allocate_confirm(hint, name),
        )

    def _allocate_confirm(self, hint: str, name: str) -> None:
        described = f"Allocate the party {hint or '(a name the participant picks)'}" + (
            f" with the display name {name!r}" if name else " without a display name"
        )
        self._confirm(
            f"{described}?",
            "Allocate",
            f"{described} on this participant.",
            lambda: self._change(
                "Allocating the party",
                lambda: self.directory.allocate_party(hint, name),
                f"Allocated {hint or 'a party'}.",
            ),
        )

    def _party_choices(self) -> list[str]:
        own = self.ledger_app.session.identity
        known = [p.party for p in self.directory.parties]
        return list(dict.fromkeys([*known, *own.act_as, *own.read_as]))

    def _choose_rights(
        self,
        title: str,
        offered: list[tuple[str, Right]],
        chosen: set[str],
        then: Callable[[list[Right]], object],
    ) -> None:
        """Rights picked from `offered` (label, right), `chosen` the labels ticked at first, given to `then`."""
        self._ask(
            MultiChoiceDialog(title, [(label, right, label in chosen) for label, right in offered]), then
        )

    def _rights_offered(self, parties: list[str]) -> list[tuple[str, Right]]:
        from app.client.admin import right_text
        from participant.api import Right

        rights = [Right.act_as(p) for p in parties] + [Right.read_as(p) for p in parties]
        rights.append(Right.participant_admin())
        return [(right_text(r), r) for r in rights]

    def action_create_user(self) -> None:
        if not self._may_change():
            return
        self._ask(
            PromptDialog("New user: its id", placeholder="e.g. alice", validate=_required("a user id")),
            lambda user_id: self._when_settled(lambda: self._create_user_primary(user_id)),
        )

    def _create_user_primary(self, user_id: str) -> None:
        parties = self._party_choices()
        self._ask(
            ChoiceDialog(
                f"Primary party of {user_id}",
                [("no primary party", NO_PRIMARY_PARTY), *((p, p) for p in parties)],
                selected=parties[0] if parties else NO_PRIMARY_PARTY,
            ),
            lambda primary: self._create_user_rights(user_id, primary, parties),
        )

    def _create_user_rights(self, user_id: str, primary: str, parties: list[str]) -> None:
        from app.client.admin import right_text

        offered = self._rights_offered(parties)
        first = {
            right_text(r) for _, r in offered if primary and r.party == primary and r.kind.tag == "CanActAs"
        }
        self._choose_rights(
            f"Rights of {user_id}",
            offered,
            first,
            lambda rights: self._create_user_confirm(user_id, primary, rights),
        )

    def _create_user_confirm(self, user_id: str, primary: str, rights: list[Right]) -> None:
        from app.client.admin import right_text

        listed = "; ".join(_with_party(right_text(r), r, self._party) for r in rights) or "no rights"
        primary_said = f"primary party {self._party(primary)}" if primary else "no primary party"
        self._confirm(
            f"Create the user {user_id}?",
            "Create user",
            f"Create the user {user_id} with {primary_said} and the rights: {listed}.",
            lambda: self._change(
                "Creating the user",
                lambda: self.directory.create_user(user_id, primary, rights),
                f"Created the user {user_id}.",
            ),
        )

    def _chosen_or_say(self) -> UserWithRights | None:
        chosen = self.selected_user()
        if chosen is None:
            self.notify("No user under the cursor.", severity="warning")
        return chosen

    def action_grant(self) -> None:
        if not self._may_change() or (chosen := self._chosen_or_say()) is None:
            return
        self._when_settled(lambda: self._grant(self.selected_user() or chosen))

    def _grant(self, chosen: UserWithRights) -> None:
        from app.client.admin import right_text

        user_id = chosen.user.id
        held = {right_text(r) for r in chosen.rights}
        offered = [
            (label, r) for label, r in self._rights_offered(self._party_choices()) if label not in held
        ]

        def confirm(rights: list[Right]) -> None:
            self._confirm_rights(
                rights,
                lambda many: f"Grant {user_id} {many}?",
                "Grant",
                "Granting the rights",
                f"Grant the user {user_id}",
                f"Granted {user_id}",
                lambda: self.directory.grant(user_id, rights),
            )

        self._choose_rights(f"Grant {user_id} the rights", offered, set(), confirm)

    def action_revoke(self) -> None:
        if not self._may_change() or (chosen := self._chosen_or_say()) is None:
            return
        self._when_settled(lambda: self._revoke(self.selected_user() or chosen))

    def _revoke(self, chosen: UserWithRights) -> None:
        from app.client.admin import right_text

        user_id = chosen.user.id
        if not chosen.rights:
            self.notify(f"{user_id} has no rights to revoke.", severity="warning")
            return
        offered = [(right_text(r), r) for r in chosen.rights]

        def confirm(rights: list[Right]) -> None:
            self._confirm_rights(
                rights,
                lambda many: f"Revoke {many} of {user_id}?",
                "Revoke",
                "Revoking the rights",
                f"Revoke from the user {user_id}",
                f"Revoked from {user_id}",
                lambda: self.directory.revoke(user_id, rights),
                default=False,
            )

        self._choose_rights(f"Revoke rights of {user_id}", offered, set(), confirm)

    def _confirm_rights(
        self,
        rights: list[Right],
        title: Callable[[str], str],
        action: str,
        doing: str,
        asked: str,
        done: str,
        change: Callable[[], Awaitable[object]],
        *,
        default: bool = True,
    ) -> None:
        """Ask before granting or revoking `rights` (none chosen: nothing asked), then make the `change`."""
        from app.client.admin import right_text

        if not rights:
            return
        listed = "; ".join(right_text(r) for r in rights)
        many = f"{len(rights)} right{'s' if len(rights) != 1 else ''}"
        self._confirm(
            title(many),
            action,
            f"{asked}: {listed}.",
            lambda: self._change(doing, change, f"{done}: {listed}."),
            default=default,
        )

    def action_delete_user(self) -> None:
        if not self._may_change() or (chosen := self._chosen_or_say()) is None:
            return
        user_id = chosen.user.id
        self._confirm(
            f"Delete the user {user_id}?",
            "Delete user",
            f"Delete the user {user_id} and its rights. Its parties and their contracts stay.",
            lambda: self._change(
                "Deleting the user",
                lambda: self.directory.delete_user(user_id),
                f"Deleted the user {user_id}.",
            ),
            default=False,
        )


def _short_right(right: Right, party: Callable[[str], str]) -> str:
    """A right in a table cell: "act Alice::1220…", "admin"."""
    tag = right.kind.tag
    short = {"CanActAs": "act", "CanReadAs": "read", "CanExecuteAs": "execute"}.get(tag)
    if short is not None and right.party:
        return f"{short} {party(right.party)}"
    return {
        "ParticipantAdmin": "admin",
        "IdentityProviderAdmin": "idp admin",
        "CanReadAsAnyParty": "read any",
        "CanExecuteAsAnyParty": "execute any",
    }.get(tag, tag)


def _with_party(said: str, right: Right, party) -> str:
    """`said` of a right with its party shown as the screen shows parties (short unless whole ids are on)."""
    return said.removesuffix(right.party) + party(right.party) if right.party else said


def _fill(
    table: DataTable,
    labels: Sequence[str],
    rows: Sequence[tuple[str, ...]],
    least: Sequence[int],
    screen_width: int,
) -> None:
    """`table` laid out again with `rows` (their texts, then their key), its columns sized to their values within
    the screen's width (`fit_widths`: the widest cut first) and each text cut to its column, marked `…`."""
    texts = [row[:-1] for row in rows]
    room = screen_width - TABLE_CHROME - CELL_PADDING * len(labels)
    widths = fit_widths(wanted_widths(labels, texts), room, least)
    table.clear(columns=True)
    for label, width in zip(labels, widths, strict=True):
        table.add_column(cut(label, width), width=width)
    for row in rows:
        cut_texts = (Text(cut(text, width)) for text, width in zip(row[:-1], widths, strict=True))
        table.add_row(*cut_texts, key=row[-1])


def _row_key(table: DataTable) -> str | None:
    """The key of the row under `table`'s cursor (None: no row)."""
    if not table.row_count:
        return None
    return table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value


def _count(n: int, noun: str, nouns: str = "") -> str:
    return f"{n} {noun if n == 1 else nouns or noun + 's'}"


def _required(what: str):
    def check(value: str) -> str | None:
        return None if value else f"write {what}"

    return check
