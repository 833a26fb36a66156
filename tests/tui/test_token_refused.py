"""A token the participant refuses is said as what it is (expired, refused, an unknown user) with what to do, in the
notification and in the contracts screen's empty state until the participant accepts a token: never as a failed
connection or as a user without rights. The real app under Pilot against a real participant, with real tokens."""

from __future__ import annotations

import time
from pathlib import Path

from app.app import LedgerApp
from app.config import Config
from app.screens.acs import AcsScreen
from app.tokens import FileToken, MintedToken, TokenSource
from participant.auth.tokens import mint_token
from tests.conftest import SECRET, ServerProcess
from tests.tui.conftest import SIZE, screen_text, wait_for
from tests.tui.test_app import _loaded

NO_RIGHTS = "can read no party's contracts"


def app_for(server: ServerProcess, locations, tokens: TokenSource) -> LedgerApp:
    app = LedgerApp(config=Config(), locations=locations, url=server.url, tokens=tokens, label=server.url)
    app.ledger_end_poll_s = 0.25  # retries the connection every 0.5 s
    return app


def notified(app: LedgerApp, title: str) -> str:
    """The message of the notification with `title` ("" while there is none)."""
    return next((n.message for n in app._notifications if n.title == title), "")


async def refused(app: LedgerApp, pilot, title: str) -> tuple[str, str]:
    """The notification's message and the contracts screen's text once the refusal is said."""
    await wait_for(pilot, lambda: notified(app, title), f"the notification {title!r}")
    screen = app.screen
    assert isinstance(screen, AcsScreen)
    await wait_for(pilot, lambda: "Trying again every" in screen_text(app), "the empty state")
    message, text = notified(app, title), screen_text(app)
    assert "Cannot connect" not in message and NO_RIGHTS not in text
    assert not app.connected and app.status_connection == "down"
    return message, text


def write_token(path: Path, user: str, ttl_seconds: int) -> float:
    path.write_text(mint_token(hs256_secret=SECRET, user_id=user, ttl_seconds=ttl_seconds))
    return time.time() + ttl_seconds


async def test_an_expired_token_is_said_until_a_fresh_one_is_in_the_file(demo_server, locations, tmp_path):
    path = tmp_path / "alice.jwt"
    expired_at = write_token(path, "Alice", -120)
    app = app_for(demo_server, locations, FileToken(path))
    async with app.run_test(size=SIZE) as pilot:
        message, text = await refused(app, pilot, "Token expired")
        when = time.strftime("%Y-%m-%d %H:%M", time.gmtime(expired_at))
        for shown in (message, text):
            assert f"token expired at {when}" in shown
            assert f"write it to {path} (--token-file)" in " ".join(shown.split())
        await pilot.pause(1.5)  # a few retries, which fail the same way
        assert "token expired at" in screen_text(app)  # still said
        write_token(path, "Alice", 3600)
        await wait_for(pilot, lambda: _loaded(app), "the contracts once the token is fresh")
        assert "token expired" not in screen_text(app) and app.connect_problem == ""


async def test_a_token_signed_with_another_secret_is_refused_quoting_the_participant(demo_server, locations):
    app = app_for(demo_server, locations, MintedToken("another-secret-of-enough-bytes-for-hs256", "Alice"))
    async with app.run_test(size=SIZE) as pilot:
        message, text = await refused(app, pilot, "Token refused")
        for shown in (message, text):
            # Canton redacts the reason: its words are quoted as they are, and the likely causes are named
            assert "the participant refused the token: A security-sensitive error has been received" in shown
            assert "check --hs256-secret-file" in shown


async def test_a_token_of_an_unknown_user_says_so(demo_server, locations):
    app = app_for(demo_server, locations, MintedToken(SECRET, "Nobody"))
    async with app.run_test(size=SIZE) as pilot:
        message, text = await refused(app, pilot, "Unknown user")
        for shown in (message, text):
            assert "the participant does not know the token's user 'Nobody'" in shown


async def test_a_token_that_expires_while_the_app_runs_is_said(demo_server, locations, tmp_path):
    path = tmp_path / "alice.jwt"
    # the participant allows 5 s of clock skew past `exp`
    write_token(path, "Alice", 2)
    app = app_for(demo_server, locations, FileToken(path))
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.connected, "the connection")
        await wait_for(pilot, lambda: notified(app, "Token expired"), "the expiry said")
        assert "token expired at" in notified(app, "Token expired")
        write_token(path, "Alice", 3600)
        await wait_for(pilot, lambda: app.connect_problem == "", "the fresh token accepted")
