"""App-wide behaviour: key bindings from the config file, the theme, help, and failures shown as notifications."""

from __future__ import annotations

from app.client.http import Retry
from app.config import Config
from app.screens.acs import AcsScreen
from app.widgets.contract_table import ContractTable
from tests.tui.conftest import SIZE, screen_text, wait_for


def _loaded(app) -> bool:
    screen = app.screen
    return isinstance(screen, AcsScreen) and not screen.reading and screen.query_one(ContractTable).count > 0


async def test_keys_are_remapped_from_the_config_and_the_theme_applies(demo_server, make_app):
    config = Config.of({"theme": "textual-light", "keys": {"acs.filter": "f"}})
    app = make_app(demo_server, "Alice", config=config)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        assert app.theme == "textual-light"
        await wait_for(
            pilot, lambda: " f Filter" in screen_text(app).splitlines()[-1], "the footer's new key"
        )
        await pilot.press("f")
        await wait_for(
            pilot, lambda: app.focused is not None and app.focused.id == "acs-filter", "the filter box"
        )


async def test_help_lists_the_keys_of_the_screen_and_of_the_app(demo_server, make_app):
    app = make_app(demo_server, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: _loaded(app), "the first rows")
        await pilot.press("question_mark")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", "the help")
        await wait_for(pilot, lambda: "acs.filter" in screen_text(app), "the help drawn")
        assert "Contracts" in screen_text(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts again")


async def test_an_unreachable_participant_is_explained_and_nothing_crashes(make_app, tmp_path):
    from tests.conftest import ServerProcess, free_port

    port = free_port()  # nothing listens there
    gone = ServerProcess(f"http://127.0.0.1:{port}", tmp_path / "none.db", None, [])  # type: ignore[arg-type]  # no process: nothing listens
    app = make_app(gone, "Alice")
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: any(
                "unreachable" in (n.title or "") or "connection failed" in n.message
                for n in app._notifications
            ),
            "the notification",
        )
        assert app.status_connection == "down"
        assert app.is_running


async def test_retries_that_fail_the_same_way_do_not_repeat_the_notification(make_app, tmp_path, monkeypatch):
    from app.app import CONNECT_RETRY_POLLS
    from app.app import connection as app_module
    from tests.conftest import ServerProcess, free_port

    monkeypatch.setattr(app_module, "ERROR_NOTIFY_S", 3600)  # the first one is still on screen throughout
    # each attempt fails at once: the client's backoff between its own tries of a refused connection (1.75 s an
    # attempt) is not what is tested
    monkeypatch.setattr(Retry, "delay", lambda self, attempt: 0.0)
    port = free_port()
    gone = ServerProcess(f"http://127.0.0.1:{port}", tmp_path / "none.db", None, [])  # type: ignore[arg-type]  # no process: nothing listens
    app = make_app(gone, "Alice")
    app.ledger_end_poll_s = 0.25  # retries every 0.5 s, not every 4 s
    said: list[str] = []
    notify = app.notify

    def notify_and_keep(message, **kw):
        said.append(message)
        return notify(message, **kw)

    app.notify = notify_and_keep
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(
            pilot,
            lambda: (
                app.connection.polls_down >= 3 * CONNECT_RETRY_POLLS
                and not any(w.group == "connect" and not w.is_finished for w in app.workers)
            ),
            "three more attempts",
        )
        assert len([m for m in said if m.startswith(f"Cannot connect to {gone.url}")]) == 1
        assert app.status_connection == "down"


async def test_the_app_connects_once_the_participant_comes_up(make_app, tmp_path):
    from tests.conftest import ServerProcess, free_port, start_demo_server

    port = free_port()
    pending = ServerProcess(f"http://127.0.0.1:{port}", tmp_path / "ledger.db", None, [])  # type: ignore[arg-type]  # no process: nothing listens
    app = make_app(pending, "Alice")
    app.ledger_end_poll_s = 0.25  # tries again every 0.5 s once the participant is found down, not every 4 s
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.status_connection == "down", "the participant found down")
        server = start_demo_server(tmp_path / "ledger.db", port=port)
        try:
            await wait_for(pilot, lambda: _loaded(app), "the contracts once the participant is up")
            assert app.status_connection == "ok"
        finally:
            server.stop()
