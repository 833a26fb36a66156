"""The headless commands that write: `submit` (a JsCommands document, waiting for its transaction) and `reassign`
(a contract to another synchronizer, followed to its outcome)."""

from __future__ import annotations

import argparse
import sys
import uuid
from pathlib import Path

import orjson
import pydantic

from app.client import LedgerClient, errors
from app.client.acs import read_snapshot
from app.client.ledger import event_format
from app.headless import argument_parties, resolve
from app.headless.connect import identity
from app.headless.output import Column, Output
from app.headless.reading import SHAPES, Usage
from app.ids import PARTY_SEPARATOR
from app.session import Identity
from participant.api import JsCommands, TransactionFormat

# --- submit ----------------------------------------------------------------------------------------------------


def read_commands(source: str) -> dict:
    """The JsCommands document of a file, or of stdin for "-"; a whole request ({"commands": {...}}) is taken too."""
    try:
        raw = sys.stdin.buffer.read() if source == "-" else Path(source).read_bytes()
    except OSError as e:
        raise Usage(f"cannot read {source}: {e.strerror or e}") from None
    try:
        document = orjson.loads(raw)
    except orjson.JSONDecodeError as e:
        raise Usage(f"{'stdin' if source == '-' else source} is not JSON: {e}") from None
    if isinstance(document, dict) and isinstance(document.get("commands"), dict):
        document = document["commands"]  # a JsSubmitAndWaitForTransactionRequest
    if not isinstance(document, dict):
        raise Usage("the commands must be a JSON object (JsCommands)")
    return document


async def _expand_parties(
    client: LedgerClient, who: Identity, document: dict, cache_dir: Path | None
) -> None:
    """Parties as the composer takes them: a short name stands for the one known party with it, in actAs and
    readAs and wherever the arguments' Daml types say Party."""
    known = await resolve.known_parties(client, who)
    for key in ("actAs", "readAs"):
        if isinstance(document.get(key), list) and all(isinstance(p, str) for p in document[key]):
            document[key] = resolve.parties(document[key], known)
    if cache_dir is not None and argument_parties.could_name_a_party(document, known):
        await argument_parties.expand_in_arguments(
            client, cache_dir, document, lambda typed: resolve.party(typed, known)
        )


TRANSACTION_TABLE: list[Column] = [
    ("offset", lambda t: t.get("offset")),
    ("update id", lambda t: t.get("updateId")),
    ("command id", lambda t: t.get("commandId")),
    ("record time", lambda t: t.get("recordTime")),
    ("events", lambda t: len(t.get("events") or [])),
]


async def submit(
    client: LedgerClient, args: argparse.Namespace, out: Output, cache_dir: Path | None = None
) -> None:
    """`cache_dir`: where the package signatures are kept, read to find the arguments' Party fields (None: the
    arguments go as written)."""
    document = read_commands(args.file)
    document.setdefault("commandId", f"ledger-tui-{uuid.uuid4().hex[:20]}")
    who = await identity(client)
    if not document.get("actAs"):
        if not who.primary_party:
            raise Usage("the commands name no actAs party, and the user has no primary party")
        document["actAs"] = [who.primary_party]
    await _expand_parties(client, who, document, cache_dir)
    try:
        commands = JsCommands.read(document)
    except pydantic.ValidationError as e:
        first = e.errors(include_url=False)[0]
        where = ".".join(str(p) for p in first["loc"]) or "the document"
        raise Usage(f"not a JsCommands document: {first['msg']} at {where}") from None
    fmt = TransactionFormat(
        event_format=event_format([*commands.act_as, *commands.read_as]), transaction_shape=SHAPES[args.shape]
    )
    transaction = await client.submit_and_wait_for_transaction(commands, fmt)
    out.emit(transaction.model_dump(mode="json"))


# --- reassign --------------------------------------------------------------------------------------------------

STEP_TABLE: list[Column] = [
    ("step", lambda s: s["kind"]),
    ("state", lambda s: s["state"]),
    ("offset", lambda s: s.get("offset")),
    ("reassignment id", lambda s: s.get("reassignmentId") or None),
    ("command id", lambda s: s.get("commandId")),
    ("cause", lambda s: s.get("cause") or None),
]


class StepFailed(Exception):
    """A reassignment step that the participant rejected after accepting it, or whose outcome is unknown."""

    def __init__(self, document: dict) -> None:
        super().__init__(document.get("cause") or document["state"])
        self.document = document


async def reassign(client: LedgerClient, args: argparse.Namespace, out: Output) -> None:
    from app.reassign import SUCCEEDED, Reassigner, Step

    who = await identity(client)
    submitter = args.submitter or who.primary_party
    if not submitter:
        raise Usage("give --submitter: the user has no primary party")
    if PARTY_SEPARATOR not in submitter:
        submitter = resolve.party(submitter, await resolve.known_parties(client, who))
    contract_id = await resolve.contract_id(client, args.contract_id, [submitter])
    source = args.source or await _synchronizer_of(client, contract_id, submitter)
    if source == args.target:
        raise Usage(f"the contract is on {source} already")
    failed: list[dict] = []

    def report(step: Step) -> None:
        document = {
            "kind": step.kind,
            "state": step.state,
            "source": step.source,
            "target": step.target,
            "contractIds": step.contract_ids,
            "reassignmentId": step.reassignment_id,
            "commandId": step.command_id,
            "offset": step.offset,
            "updateId": step.update_id,
            "errorId": step.error_id,
            "cause": step.cause,
        }
        if step.error is not None and step.state != SUCCEEDED:
            raise step.error  # refused when submitted: Canton's error, exit code 1
        out.emit(document)
        if step.state != SUCCEEDED:
            failed.append(document)

    reassigner = Reassigner(client, who.user_id or "")
    await reassigner.move([contract_id], source, args.target, submitter, on_step=report)
    if failed:
        raise StepFailed(failed[-1])


async def _synchronizer_of(client: LedgerClient, contract_id: str, party: str) -> str:
    """The synchronizer a contract is active on, from the party's ACS of its template."""
    created = await client.contract(contract_id, [party])
    template = f"#{created.package_name}:{created.template_id.split(':', 1)[1]}"
    fmt = event_format([party], templates=[template], verbose=False)
    async for batch in read_snapshot(client, await client.ledger_end(), fmt):
        for entry in batch.entries:
            active = entry["contractEntry"].get("JsActiveContract")
            if active and active["createdEvent"]["contractId"] == contract_id:
                return active["synchronizerId"]
    raise errors.NotFound(
        404,
        f"Contract {contract_id} is not active for {party} on any synchronizer (it may be archived or in flight).",
        path="/v2/state/active-contracts",
    )
