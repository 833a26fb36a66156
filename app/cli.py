"""`ledger-tui`: the terminal client of a Canton participant's JSON Ledger API v2.

Without arguments it starts the bundled participant with demo data and opens it; `--url` (with a token source) or
`--profile` opens a remote participant instead.
"""

from __future__ import annotations

import argparse
import logging
import sys
from logging.handlers import RotatingFileHandler

from app.config import Config, ConfigError
from app.headless import COMMANDS
from app.locations import CONFIG_ENV, Locations
from app.options import add_participant_options, bundled_participant, check_profile, choose, token_source
from app.private_files import private_dir, private_opener
from app.untrusted import VisibleArgumentParser, VisibleFormatter, visible, visible_lines

__all__ = ["check_profile", "main", "parser", "token_source"]

EPILOG = f"""\
profiles live in the config file (${CONFIG_ENV} overrides where; `ledger-tui --paths` prints it):
  [profiles.devnet]
  url = "https://participant.example.com"
  token_file = "~/.canton/devnet.jwt"
  readonly = true

examples:
  ledger-tui                                        # the bundled participant with demo data
  ledger-tui --dar my-app.dar --init-script Main:setup --static-time   # a project's ledger, set up by its script
  ledger-tui --url http://localhost:7575 --token-file alice.jwt
  ledger-tui --profile devnet --readonly
  ledger-tui --paths

headless commands, for scripts (`ledger-tui COMMAND --help`; JSON lines, or --table; exit 0 done, 1 refused, 2 usage):
  ledger-tui acs --url http://localhost:7575 --token-file alice.jwt --template '#model-tests:Iou:Iou'
  ledger-tui contract ID | updates --from N --to M | updates --follow | submit cmds.json | reassign ID --to SYNC
  ledger-tui packages --profile devnet --table
  ledger-tui parties allocate alice --display-name Alice | users create alice --primary-party alice --act-as alice
"""


def parser() -> argparse.ArgumentParser:
    p = VisibleArgumentParser(
        prog="ledger-tui",
        description="A terminal client for a Canton participant's JSON Ledger API v2. Without "
        "--url or --profile it starts the bundled participant, with demo data, and opens it.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_participant_options(p)
    p.add_argument(
        "--theme", help="a Textual theme, e.g. textual-light (default: the config's, else textual-dark)"
    )
    p.add_argument(
        "--paths", action="store_true", help="print where config, data, cache and logs live, and exit"
    )
    return p


class PrivateRotatingFileHandler(RotatingFileHandler):
    """Each log file, the first and those made at each rotation, readable by its owner only."""

    def _open(self):
        return open(
            self.baseFilename, self.mode, encoding=self.encoding, errors=self.errors, opener=private_opener
        )


def _setup_logging(locations: Locations) -> None:
    try:
        private_dir(locations.log_dir)
        handler: logging.Handler = PrivateRotatingFileHandler(
            locations.log_dir / "ledger-tui.log", maxBytes=2_000_000, backupCount=2, encoding="utf-8"
        )
    except OSError:
        handler = logging.NullHandler()
    handler.setFormatter(VisibleFormatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("ledger_tui")
    root.addHandler(handler)
    root.setLevel(logging.INFO)


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] in COMMANDS:
        from app.headless.main import run

        return run(argv)
    from app.trace import milestone

    milestone("main")
    args = parser().parse_args(argv)
    locations = Locations.default()
    if args.paths:
        print(visible_lines(locations.describe()))
        return 0
    try:
        config = Config.load(locations.config_file)
        choice = choose(args, config, locations.config_file)
    except ConfigError as e:
        print(f"ledger-tui: error: {visible(str(e))}", file=sys.stderr)  # as argparse says what it refuses
        return 2
    profile, label, tokens = choice.profile, choice.label, choice.tokens
    if args.theme:
        config = config.replace(theme=args.theme)

    bundled = None
    if profile is None:
        # the app starts it after its first frame (and the kept rows, if any): started here, its start-up (a Python
        # process importing its server) took the processor from the first frame, which came at up to twice the time
        # (README, Startup)
        bundled = bundled_participant(choice, locations, args.no_demo)

    _setup_logging(locations)
    from app.app import LedgerApp, settle_the_collector

    app = LedgerApp(
        config=config,
        locations=locations,
        url=profile.url if profile else None,
        tokens=tokens,
        bundled=bundled,
        readonly=bool(profile and profile.readonly) or args.readonly,
        label=label or (profile.url if profile else "bundled"),
        first_user=args.user or choice.first_user or "Alice",
    )
    settle_the_collector()
    try:
        app.run()
    finally:
        if bundled is not None:
            bundled.stop()
    from app.process_end import end_process

    end_process(app.return_code or 0)  # the session is over: no need to wait for the interpreter's teardown


if __name__ == "__main__":
    sys.exit(main())
