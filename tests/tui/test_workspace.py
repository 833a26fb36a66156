"""The workspace: one owner for what screens share (the ledger end, read-only, the ACS cache, what was learned)."""

from __future__ import annotations

from app.app import LedgerApp
from app.catalog import Catalog
from app.client import LedgerClient
from app.config import Config
from app.learned import Learned
from app.screens.acs import AcsScreen
from app.session import Session
from app.widgets.contract_table import ContractTable
from app.workspace import AcsCache, LedgerEnd, Workspace
from participant.api import Event, JsTransaction
from tests.tui.conftest import SIZE, screen_text, wait_for

ALICE = "Alice::1220" + "a" * 64
CID = "00" + "c" * 66


def test_the_ledger_end_moves_forward_only_and_tells_its_subscribers():
    end = LedgerEnd()
    heard: list[int] = []
    unsubscribe = end.subscribe(heard.append)
    assert end.value is None
    assert end.saw(5)  # the poll
    assert end.saw(9)  # a submission's transaction
    assert not end.saw(7)  # a read that started before the submission, reported late
    assert end.value == 9
    unsubscribe()
    end.saw(12)
    assert heard == [5, 9]
    assert end.value == 12


def test_read_only_is_held_by_the_workspace_alone(locations):
    app = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9", readonly=True)
    assert app.workspace.readonly and app.readonly and app.status_readonly
    session = app.workspace.open_session(LedgerClient("http://127.0.0.1:9"), label="test")
    assert app.session is session
    # nobody keeps a copy of its own to disagree with the workspace's
    assert "readonly" not in vars(app) and not hasattr(session, "readonly")
    assert not Workspace(locations).readonly


def _exercised(**fields) -> dict:
    return {
        "ExercisedEvent": {
            "offset": 8,
            "nodeId": 0,
            "contractId": CID,
            "templateId": "pkg1:Iou:Iou",
            "packageName": "model-tests",
            "witnessParties": [ALICE],
            "choice": "Iou_AddObserver",
            "choiceArgument": {"newObserver": ALICE},
            "actingParties": [ALICE],
            "consuming": True,
            "lastDescendantNodeId": 0,
            "acsDelta": True,
            **fields,
        }
    }


def test_what_is_learned_follows_one_rule_whichever_screen_read_it():
    events = [
        _exercised(),
        _exercised(nodeId=1, choice="Archive", choiceArgument={}, interfaceId="pkg1:Iou:IIou"),
    ]
    transaction = JsTransaction.read(
        {
            "updateId": "u",
            "effectiveAt": "2030-01-01T00:00:00Z",
            "recordTime": "2030-01-01T00:00:00Z",
            "offset": 8,
            "synchronizerId": "s",
            "events": events,
        }
    )
    # the composer's survey
    session = Session(LedgerClient("http://127.0.0.1:9"), label="test")
    Catalog(session).learn(Event.read(e) for e in events)
    # the inspector reading the transaction
    inspector = Learned()
    inspector.note_transaction(transaction)
    for learned in (session.learned, inspector):
        assert learned.templates == {"pkg1:Iou:Iou": "model-tests"}
        assert learned.choices == {
            "pkg1:Iou:Iou": {"Iou_AddObserver"},
            "#model-tests:Iou:Iou": {"Iou_AddObserver"},
            "pkg1:Iou:IIou": {"Archive"},
        }
        assert learned.interfaces == {"#model-tests:Iou:Iou": {"#model-tests:Iou:IIou"}}
        assert learned.parties == {ALICE}


async def test_the_acs_cache_makes_and_deletes_its_file_and_tells_the_offset_viewed(locations):
    workspace = Workspace(locations)
    viewed: list[int | None] = []
    workspace.acs.subscribe(viewed.append)
    timeline = await workspace.acs.open(LedgerClient("http://127.0.0.1:9"), ["Alice"])
    snapshot = workspace.acs.snapshot
    assert snapshot is not None and snapshot.path.exists() and workspace.acs.timeline is timeline
    assert snapshot.path.parent == locations.snapshots_dir
    workspace.acs.view(4)
    workspace.acs.view(4)
    workspace.acs.view(2)
    await workspace.acs.close()
    assert not snapshot.path.exists() and workspace.acs.snapshot is None
    assert viewed == [4, 2, None] and workspace.acs.viewing is None  # closed: no offset viewed, and said so
    assert isinstance(AcsCache(workspace.snapshot_path).viewing, type(None))


async def test_switching_users_forgets_the_parties_seen_and_keeps_the_rest(demo_server, locations):
    from app.tokens import MintedToken
    from tests.conftest import SECRET

    workspace = Workspace(locations)
    minted = MintedToken(SECRET, "Alice")
    session = workspace.open_session(LedgerClient(demo_server.url, minted), label="test", minted=minted)
    try:
        await session.connect()
        workspace.learned.note_template("pkg1:Iou:Iou", "model-tests")
        workspace.learned.note_parties([ALICE])
        await session.switch_user("Bob")
        assert session.identity.user_id == "Bob"
        assert workspace.learned.parties == set()
        assert workspace.learned.templates == {"pkg1:Iou:Iou": "model-tests"}
    finally:
        await session.client.aclose()


async def test_the_session_tells_a_change_of_user_or_rights_and_only_a_change(demo_server, locations):
    """Whoever reads the rights again (the connection's pace, the parties screen after a change) or switches the
    user, the session that holds them tells the workspace's subscribers, once per change: the one rule by which
    the status line and every screen hear of a new identity."""
    from app.tokens import MintedToken
    from tests.conftest import SECRET

    workspace = Workspace(locations)
    heard: list[str | None] = []
    workspace.subscribe_identity(lambda identity: heard.append(identity.user_id))
    minted = MintedToken(SECRET, "Alice")
    session = workspace.open_session(LedgerClient(demo_server.url, minted), label="test", minted=minted)
    try:
        await session.connect()
        assert session.identity.user_id == "Alice" and heard == []  # connecting is the connection's to tell
        await session.reload_identity()
        assert heard == []  # read again, the same: nothing to tell
        await session.switch_user("Bob")
        assert heard == ["Bob"]
        await session.reload_identity()
        assert heard == ["Bob"]
    finally:
        await session.client.aclose()


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def test_screens_hear_of_the_ledger_end_from_its_one_writer(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        screen: AcsScreen = app.screen
        end = app.workspace.ledger_end.value
        assert end is not None and screen.offset == end == app.workspace.acs.viewing
        app.status_ledger_end = end - 1  # the status line is no writer: it shows the workspace's end
        assert app.workspace.ledger_end.value == end and app.status_ledger_end == end
        app.status_ledger_end = end + 1  # nor does a newer end set there reach the workspace
        assert app.workspace.ledger_end.value == end and app.status_ledger_end == end
        app.workspace.ledger_end.saw(end + 3)  # e.g. a submission elsewhere
        await wait_for(
            pilot, lambda: f"ledger end is {end + 3}" in screen_text(app), "the contracts screen's banner"
        )
        assert app.status_ledger_end == end + 3
        assert f"ledger end {end + 3}" in screen_text(app)


async def test_the_reassign_screen_reads_the_workspaces_cache_at_the_offset_viewed(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        viewing = app.workspace.acs.viewing
        await pilot.press("4")
        await wait_for(
            pilot, lambda: f"In flight at offset {viewing}" in screen_text(app), "the in-flight list"
        )
        await app.action_mode("contracts")  # (the reassign screen's focus is in a field, where 1 is typed)
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen")
        await pilot.press(
            "left_square_bracket"
        )  # it steps back: the reassign screen follows the offset viewed
        await wait_for(pilot, lambda: app.workspace.acs.viewing != viewing, "an earlier offset")
        earlier = app.workspace.acs.viewing
        await pilot.press("4")
        await wait_for(
            pilot, lambda: f"In flight at offset {earlier}" in screen_text(app), "the list at the new offset"
        )


async def test_a_screen_stops_hearing_of_the_workspace_once_it_is_gone(locations):
    from app.screens.base import LedgerScreen

    heard: list[int] = []

    class Follower(LedgerScreen):
        def on_mount(self) -> None:
            self.follow(self.ledger_app.workspace.ledger_end.subscribe, heard.append)

    app = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9")  # never connects
    async with app.run_test(size=SIZE) as pilot:
        await app.push_screen(Follower())
        app.workspace.ledger_end.saw(3)
        await app.pop_screen()
        await pilot.pause()
        app.workspace.ledger_end.saw(4)
        assert heard == [3]
        assert app.status_ledger_end == 4  # the app's own subscription stays
