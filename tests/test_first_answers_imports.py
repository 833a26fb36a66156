"""What the participant imports before its first answers: the answers a client asks for first (`ledger-tui`
connecting and showing its first contracts: the version, the user and its rights, the ledger end, a page of the
ACS, the packages) need the store, the routes that read it and their wire models, not the Daml interpreter, the
submission and update-stream services or the Daml-LF reader. Those load with the first command, the first update
stream or the first package to decode; before, they made most of the bundled participant's start
(`python -X importtime -m participant serve …` shows what is left)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.conftest import SECRET, start_demo_server

ROOT = Path(__file__).resolve().parents[1]

NOT_BEFORE_THE_FIRST_ANSWERS = [
    "participant.api.commands",
    "participant.api.trees",
    "participant.api.updates",
    "participant.daml_lf.archive",
    "participant.daml_lf.decode",
    "participant.daml_lf.eval.compile",
    "participant.daml_lf.eval.machine",
    "participant.daml_lf.eval.program",
    "participant.engine.interpreter",
    "participant.engine.lf.definitions",
    "participant.routes.commands",
    "participant.routes.updates",
    "participant.services.submission",
    "participant.services.update_stream",
]

# The server runs in this process (as `ledger-participant serve` runs it); once it has answered what a client asks
# first, the modules it has loaded are written out and it is stopped as a terminal stops it.
FIRST_ANSWERS = """
import json, os, signal, sys, threading, time
from pathlib import Path

import httpx

from participant.auth import mint_token
from participant.server.cli import main

db, secret, out = Path(sys.argv[1]), sys.argv[2], Path(sys.argv[3])
port_file = db.parent / "port"


def ask() -> None:
    while not (port_file.exists() and port_file.read_text().strip()):
        time.sleep(0.01)
    url = f"http://127.0.0.1:{port_file.read_text().strip()}"
    alice = {"Authorization": "Bearer " + mint_token(hs256_secret=secret, user_id="Alice")}
    statuses = {}
    with httpx.Client(base_url=url, headers=alice, timeout=30) as http:
        statuses["/livez"] = http.get("/livez").status_code
        for path in (
            "/v2/version",
            "/v2/authenticated-user",
            "/v2/users/Alice/rights",
            "/v2/parties/participant-id",
            "/v2/state/connected-synchronizers",
            "/v2/state/ledger-end",
            "/v2/packages",
        ):
            statuses[path] = http.get(path).status_code
        party = http.get("/v2/users/Alice").json()["user"]["primaryParty"]
        end = http.get("/v2/state/ledger-end").json()["offset"]
        body = {"activeAtOffset": end, "eventFormat": {"filtersByParty": {party: {}}, "verbose": True},
                "maxPageSize": 20}
        page = http.request("GET", "/v2/state/active-contracts-page", json=body)
        statuses["/v2/state/active-contracts-page"] = page.status_code
        statuses["contracts"] = len(page.json().get("activeContracts", []))
    out.write_text(json.dumps({"statuses": statuses, "modules": sorted(sys.modules)}))
    os.kill(os.getpid(), signal.SIGTERM)


threading.Thread(target=ask, daemon=True).start()
sys.exit(main(["serve", "--db", str(db), "--port", "0", "--port-file", str(port_file), "--hs256-secret", secret,
               "--demo", "--quiet"]))
"""


def test_the_first_answers_do_not_load_the_interpreter(tmp_path):
    db = tmp_path / "ledger.db"
    start_demo_server(db).stop()  # the demo ledger, seeded: a restart finds it there
    out = tmp_path / "first-answers.json"
    done = subprocess.run(
        [sys.executable, "-c", FIRST_ANSWERS, str(db), SECRET, str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    # uvicorn stops gracefully on SIGTERM, then raises it again: the exit status is the signal's
    assert out.exists(), f"exit status {done.returncode}: {done.stderr[-2000:]}"
    seen = json.loads(out.read_text())
    statuses = seen.pop("statuses")
    assert statuses.pop("contracts") > 0, "the demo's contracts were not answered"
    assert set(statuses.values()) == {200}, statuses
    loaded = set(seen["modules"])
    early = [m for m in NOT_BEFORE_THE_FIRST_ANSWERS if m in loaded]
    assert early == [], f"loaded before the first answers: {early}"


def test_each_route_loaded_at_its_first_request_is_found_under_its_prefixes():
    import importlib

    from starlette.routing import BaseRoute

    from participant.routes import LOADED_AT_FIRST_REQUEST

    for module, prefixes in LOADED_AT_FIRST_REQUEST.items():
        routes: list[BaseRoute] = importlib.import_module(module).routes
        paths = [getattr(route, "path", "") for route in routes]
        assert paths and all(path.startswith(prefixes) for path in paths), (module, prefixes, paths)


def test_the_wire_models_package_names_each_model_where_its_type_checkers_find_it():
    """`participant.api` imports a model at its first use, from the names its stub (`__init__.pyi`, which the type
    checkers read) imports: each of them is the model of the module the stub names, and nothing else is offered."""
    import ast
    import importlib

    import participant.api as api

    tree = ast.parse(Path(api.__file__).with_suffix(".pyi").read_text())
    imported = {
        alias.name: node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.level == 1
        for alias in node.names
    }
    assert sorted(imported) == dir(api)
    for name, module in imported.items():
        assert getattr(api, name) is getattr(importlib.import_module(f"participant.api.{module}"), name)
