"""Text that a participant, a file or the command line chose, printed by `ledger-tui` (the headless commands and the
TUI's own command line): shown with what would act on a terminal escaped, in a table, in an error on stderr and in a
usage error, and never a raw ESC, C1 control or bidi override on stdout or stderr.

The participant here is a hostile one (a real HTTP server on loopback answering what no honest participant would):
the bundled participant refuses such text in the ids it is given."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from participant.auth import mint_token
from tests.conftest import SECRET
from tests.headless.test_commands import ROOT, environment, run

# sets the window title, clears the screen and writes the clipboard (OSC 52), then the same in C1 form (CSI as one
# byte), then reverses what follows (a bidi override)
HOSTILE = "evil\x1b]0;title\x07\x1b[2J\x1b]52;c;cHduZWQ=\x07\x9b2J\u202e"
SHOWN = "evil\\x1b]0;title\\x07\\x1b[2J\\x1b]52;c;cHduZWQ=\\x07\\x9b2J\\u202e"
ACTING = ("\x1b", "\x07", "\x9b", "\u202e")
SHOWN_CID = "00" + "ab" * 33
REFUSED_CID = "00" + "cd" * 33
ALICE = "Alice::1220" + "ab" * 32


def created_event() -> dict:
    event = {
        "offset": 7,
        "nodeId": 0,
        "contractId": SHOWN_CID,
        "templateId": f"1220{'ef' * 32}:{HOSTILE}:Iou",
        "createArgument": {"owner": HOSTILE},
        "witnessParties": [HOSTILE],
        "signatories": [HOSTILE],
        "createdAt": "2026-01-01T00:00:00Z",
        "packageName": HOSTILE,
        "representativePackageId": "1220" + "ef" * 32,
        "acsDelta": True,
    }
    return {"created": {"createdEvent": event, "synchronizerId": HOSTILE}, "archived": None}


def canton_error() -> dict:
    return {
        "code": "CONTRACT_EVENTS_NOT_FOUND",
        "cause": f"Contract events not found: {HOSTILE}",
        "correlationId": None,
        "traceId": None,
        "context": {"party": HOSTILE},
        "resources": [],
        "errorCategory": 11,
        "grpcCodeValue": 5,
        "retryInfo": None,
        "definiteAnswer": None,
    }


class HostileParticipant(BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        request = json.loads(self.rfile.read(int(self.headers.get("content-length") or 0)) or b"{}")
        if self.path == "/v2/events/events-by-contract-id" and request.get("contractId") == SHOWN_CID:
            self._answer(200, created_event())
        else:
            self._answer(404, canton_error())

    def do_GET(self) -> None:
        self._answer(404, canton_error())

    def _answer(self, status: int, document: dict) -> None:
        # raw, as a hostile participant would send it: UTF-8, with no JSON escapes beyond those JSON requires
        body = json.dumps(document, ensure_ascii=False).encode()
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 (the base class's name)
        pass


@pytest.fixture(scope="module")
def hostile() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), HostileParticipant)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="module")
def home(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("home")
    (path / "alice.jwt").write_text(mint_token(hs256_secret=SECRET, user_id="Alice"))
    return path


def remote(url: str, home: Path) -> list[str]:
    # a party id, not a short name: nothing to look up on a participant that answers only what is asked here
    return ["--url", url, "--token-file", str(home / "alice.jwt"), "--party", ALICE]


def assert_inert(*texts: str) -> None:
    for text in texts:
        assert not any(ch in text for ch in ACTING), repr(text)


def test_a_table_shows_a_participants_text_escaped(hostile, home):
    r = run(home, "contract", SHOWN_CID, *remote(hostile, home), "--table")
    assert r.returncode == 0, r.stderr
    assert_inert(r.stdout, r.stderr)
    head, row = r.stdout.splitlines()
    assert head.split()[:2] == ["event", "offset"]
    assert f"{SHOWN}:Iou" in row and row.rstrip().endswith(SHOWN)  # the template, and the synchronizer


def test_json_lines_keep_a_participants_text_as_it_is(hostile, home):
    r = run(home, "contract", SHOWN_CID, *remote(hostile, home))
    assert r.returncode == 0, r.stderr
    assert_inert(r.stdout, r.stderr)
    (document,) = [json.loads(line) for line in r.stdout.splitlines()]
    assert document["created"]["createdEvent"]["signatories"] == [HOSTILE]


def test_an_errors_cause_on_stderr_is_escaped_and_stays_the_same_json(hostile, home):
    r = run(home, "contract", REFUSED_CID, *remote(hostile, home))
    assert r.returncode == 1, r.stderr
    assert_inert(r.stdout, r.stderr)
    error = json.loads(r.stderr)
    assert error["code"] == "CONTRACT_EVENTS_NOT_FOUND" and error["cause"].endswith(HOSTILE)


@pytest.mark.parametrize(
    "args",
    [
        ["acs", HOSTILE],  # argparse: unrecognized arguments
        ["updates", "--shape", HOSTILE],  # argparse: invalid choice
        ["acs", "--url", "http://127.0.0.1:9", "--token-file", HOSTILE],  # the file does not exist
        ["submit", HOSTILE, "--url", "http://127.0.0.1:9", "--token-file", "-"],  # the commands' file
        ["--url", "http://127.0.0.1:9", "--token-file", HOSTILE],  # the TUI's own command line
    ],
)
def test_usage_errors_show_what_they_quote_escaped(home, args):
    token = home / "alice.jwt"
    r = run(home, *[str(token) if a == "-" else a for a in args])
    assert r.returncode == 2, r.stderr
    assert_inert(r.stdout, r.stderr)
    assert "evil\\x1b]0;title" in r.stderr, r.stderr


def test_help_is_unchanged():
    r = subprocess.run(
        [sys.executable, "-m", "app", "acs", "--help"],
        cwd=ROOT,
        env=environment(Path("/nonexistent")),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0 and r.stdout.startswith("usage: ledger-tui acs") and "\\x" not in r.stdout


def test_a_fault_of_the_command_shows_its_traceback_escaped(home, monkeypatch, capfd):
    from app.headless import main, reading

    async def faulty(*args) -> None:
        raise RuntimeError(f"cannot make sense of {HOSTILE}")

    monkeypatch.setattr(reading, "packages", faulty)
    for name, value in environment(home).items():
        monkeypatch.setenv(name, value)
    code = main.run(["packages", "--url", "http://127.0.0.1:9", "--token-file", str(home / "alice.jwt")])
    out, err = capfd.readouterr()
    assert code == 1
    assert_inert(out, err)
    assert "Traceback" in err and f"RuntimeError: cannot make sense of {SHOWN}" in err, err
