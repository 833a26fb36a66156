"""What the first frame imports: the CLI, the app and its first screen, and no more. What the first screen does not
show (the other screens, the client and its wire models, token signing, websockets, syntax highlighting) is
imported when it is first needed, after the first frame: each of these took tens of milliseconds before it
(`python -X importtime -c "import app.cli, app.app"` shows what is left)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

NOT_BEFORE_THE_FIRST_FRAME = [
    "app.client.acs",
    "app.cut",
    "app.daml",
    "app.client.http",
    "app.client.ledger",
    "app.screens.composer",
    "app.screens.help",
    "app.screens.inspector",
    "app.screens.reassign",
    "app.screens.requests",
    "app.session",
    "app.timeline",
    "cryptography",
    "httpx",
    "jwt",
    "participant.api",
    "pydantic",
    "tomllib",  # the config's parser: none needed without a config file
    "tree_sitter",
    "websockets",
]

# The first frame is the start-up screen: the contracts screen, its snapshot store and the dialogs load after it
# (bundled, while the participant starts), and the file lock only when a bundled participant's serving file is there.
NOT_BEFORE_THE_STARTUP_SCREEN = ["app.screens.acs", "app.screens.dialogs", "app.snapshot", "filelock"]

# What `ledger-tui --url … --hs256-secret-file …` runs to its first frame: the token source is built before
# `app.run()`, and the first frame is the start-up screen, the contracts screen built right after it.
FIRST_FRAME = """
import json, sys
from pathlib import Path
import app.cli
from app.app import LedgerApp
from app.config import Config, Profile
from app.locations import Locations

here = Path(sys.argv[1])
secret = here / "secret"
secret.write_text("a-secret")
tokens = app.cli.token_source(Profile(url="http://127.0.0.1:9", hs256_secret_file=secret), "Alice")
locations = Locations(here / "config.toml", here / "data", here / "cache", here / "logs")
ledger = LedgerApp(config=Config(), locations=locations, url="http://127.0.0.1:9", tokens=tokens)


def first_frame_drawn():
    (here / "modules.json").write_text(json.dumps(sorted(sys.modules)))
    ledger.exit()


ledger._first_frame_drawn = first_frame_drawn
ledger.run(headless=True)
"""


def test_the_first_frame_imports_only_what_it_shows(tmp_path):
    subprocess.run([sys.executable, "-c", FIRST_FRAME, str(tmp_path)], cwd=ROOT, check=True, timeout=120)
    loaded = set(json.loads((tmp_path / "modules.json").read_text()))
    early = [m for m in NOT_BEFORE_THE_FIRST_FRAME + NOT_BEFORE_THE_STARTUP_SCREEN if m in loaded]
    assert early == [], f"imported before the first frame: {early}"


BUNDLED_FIRST_FRAME = """
import json, sys
from pathlib import Path
import app.cli
from app.app import LedgerApp
from app.bundled import BundledParticipant
from app.config import Config
from app.locations import Locations
from app.screens.startup import StartupScreen

here = Path(sys.argv[1])
bundled = BundledParticipant(here / "data", here / "logs")
bundled.running_elsewhere()  # what `start` asks first
app = LedgerApp(config=Config(), locations=Locations.default(), bundled=bundled)
StartupScreen(bundled)
print(json.dumps(sorted(sys.modules)))
"""


def test_the_bundled_first_frame_imports_only_the_startup_screen(tmp_path):
    out = subprocess.run(
        [sys.executable, "-c", BUNDLED_FIRST_FRAME, str(tmp_path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    loaded = set(json.loads(out))
    early = [m for m in NOT_BEFORE_THE_STARTUP_SCREEN + NOT_BEFORE_THE_FIRST_FRAME if m in loaded]
    assert early == [], f"imported before the first frame: {early}"
