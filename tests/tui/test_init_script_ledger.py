"""`ledger-tui --dar FILE --init-script Module:name --static-time`: the bundled participant, on a ledger of the
project's own, runs the script once, and the app opens it as a user who reads every party the script allocated:
Canton Coin's test DAR set up by its own `setupDefaultAppWithUsers`."""

from __future__ import annotations

import asyncio

from app import cli, options
from app.app import LedgerApp
from app.config import Config
from app.screens.acs import AcsScreen
from app.widgets.contract_table import ContractTable
from tests.daml_script.conftest import SPLICE_TEST
from tests.tui.conftest import SIZE, known, screen_text, wait_for

SETUP = "Splice.Scripts.Util:setupDefaultAppWithUsers"
BOUND = 300.0  # seconds: how long the participant may take to start and run the script, at most


def test_the_options_name_a_ledger_of_the_project_and_refuse_what_cannot_work(tmp_path, dars_dir, capsys):
    dar = str(dars_dir / SPLICE_TEST)

    def choose(*argv: str) -> options.Choice:
        return options.choose(cli.parser().parse_args(list(argv)), Config(), tmp_path / "c.toml")

    setup = choose("--dar", dar, "--init-script", SETUP, "--static-time")
    assert setup.serve_flags == (
        "--dar",
        dar,
        "--init-script",
        SETUP,
        "--init-script-user",
        options.SCRIPT_USER,
        "--static-time",
    )
    assert setup.first_user == options.SCRIPT_USER and setup.project.startswith("project-")
    assert (
        choose("--dar", dar, "--init-script", SETUP, "--static-time").project == setup.project
    )  # opened again
    assert (
        choose("--dar", dar, "--init-script", SETUP).project != setup.project
    )  # another clock, another ledger
    assert choose("--dar", dar).project == ""  # the demo ledger
    assert cli.main(["--init-script", SETUP]) == 2
    assert "--init-script runs a script of the DARs given with --dar" in capsys.readouterr().err
    assert cli.main(["--dar", dar, "--init-script", "setup"]) == 2
    assert "Module.Path:name" in capsys.readouterr().err
    assert cli.main(["--url", "http://localhost:7575", "--static-time"]) == 2
    assert "--static-time is for the bundled participant" in capsys.readouterr().err


async def test_ledger_tui_opens_the_ledger_the_init_script_set_up(tmp_path, dars_dir, locations) -> None:
    args = cli.parser().parse_args(
        ["--dar", str(dars_dir / SPLICE_TEST), "--init-script", SETUP, "--static-time"]
    )
    choice = options.choose(args, Config(), locations.config_file)
    bundled = options.bundled_participant(choice, locations, args.no_demo)
    assert bundled.db.parent == locations.bundled_dir / choice.project and not bundled.demo
    bundled.start()
    try:
        state = await asyncio.to_thread(bundled.wait, BOUND)
        assert state.phase == "ready", state.error
        app = LedgerApp(
            config=Config(),
            locations=locations,
            bundled=bundled,
            label="bundled",
            first_user=known(choice.first_user),
        )
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, AcsScreen), "the contracts screen")
            table = app.screen.query_one(ContractTable)
            await wait_for(pilot, lambda: table.row_at(0) is not None, "the first rows")
            await wait_for(pilot, lambda: "AmuletRules" in screen_text(app), "Canton Coin's rules")
            text = screen_text(app)
            assert options.SCRIPT_USER in text and "OpenMiningRound" in text
            # the developer administers the project's ledger: the parties screen lists every user, to change
            await pilot.press("7")
            await wait_for(pilot, lambda: "participant_admin" in screen_text(app), "the participant's users")
            assert "not an administrator" not in screen_text(app)
    finally:
        bundled.stop()
