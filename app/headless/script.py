"""`ledger-tui script --dar FILE --script-name Module:name`: a Daml Script of a DAR run against a participant over
the JSON Ledger API v2, the interpreter in this process (`participant.daml_script`).

Every question of the script becomes the JSON API calls it maps to, on the participant the options name (without
--url, the bundled one). The DAR's packages must be on the participant: one missing is uploaded first (which needs
a participant admin). The script's code is its own DAR's (its main package and the dependencies the DAR carries),
whatever other DARs are named. The script acts through the token's user, as `app.script_runs` says, with the
participant's clock where it is static.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from app.client import LedgerClient
from app.client.plain import plain_http
from app.private_files import private_replacement
from app.script_runs import run_on_participant
from app.untrusted import json_safe, visible
from participant.daml_script.dars import ScriptDars, UnreadableDar, read_script_dars


class Usage(Exception):
    """What was asked cannot be run as given (a DAR that cannot be read, an input that is not JSON): exit 2."""


class Failed(Exception):
    """The script failed: its error, as a JSON document for stderr (exit 1)."""

    def __init__(self, document: dict[str, Any]) -> None:
        super().__init__(document.get("error", ""))
        self.document = document


async def _upload_missing(client: LedgerClient, http: Any, dars: ScriptDars) -> None:
    """Upload each DAR whose main package the participant does not have (the script's commands need it)."""
    present = set(await client.packages())
    for (_, data), main in zip(dars.contents, dars.main_package_ids, strict=True):
        if main in present:
            continue
        print(
            visible(f"uploading the DAR of package {main}: the participant does not have it"), file=sys.stderr
        )
        r = await http.post("/v2/dars", content=data, headers={"Content-Type": "application/octet-stream"})
        if r.status_code != 200:
            try:
                document = r.json()
            except ValueError:
                document = {"error": r.text, "status": r.status_code}
            raise Failed(
                {"error": "the DAR could not be uploaded", "status": r.status_code, "answer": document}
            )


async def script(client: LedgerClient, args: argparse.Namespace) -> None:
    try:
        dars = read_script_dars(args.script_dar, args.script_name)
    except UnreadableDar as e:
        raise Usage(str(e)) from None
    code = dars.code
    argument = None
    if args.input_file is not None:
        try:
            argument = json.loads(Path(args.input_file).read_text(encoding="utf-8"))
        except (OSError, ValueError) as e:
            raise Usage(f"--input-file {args.input_file}: {e}") from None
    async with plain_http(
        client
    ) as http:  # one for the whole run: the DARs' upload, then the script's questions
        await _upload_missing(client, http, dars)
        outcome = await run_on_participant(client, code, args.script_name, argument, http=http)
    report: dict[str, Any] = {
        "script": args.script_name,
        "status": "passed" if outcome.passed else "failed",
        "transactions": outcome.transactions,
        "seconds": round(outcome.seconds, 3),
    }
    if not outcome.passed:
        raise Failed({**report, "error": outcome.error, "location": outcome.location})
    result = None
    if outcome.result_type is not None:
        result = code.types.of(outcome.result_type).encode(outcome.result)
    if args.output_file is not None:
        with private_replacement(Path(args.output_file)) as f:
            f.write(json.dumps(result, indent=2) + "\n")
    if args.json:
        _write(json_safe(json.dumps({**report, "result": result})))
    else:
        _write(
            visible(
                f"{args.script_name} passed: {outcome.transactions} transactions in {outcome.seconds:.1f} s"
            )
        )
        _write(json_safe(json.dumps(result)))


def _write(line: str) -> None:
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


__all__ = ["Failed", "Usage", "script"]
