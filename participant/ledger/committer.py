"""The committer: interprets submissions with the engine and commits them through the store's writer.

This is where command deduplication, ledger time and update metadata are decided; the submission service hands it
validated requests and gets back committed updates.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import cached_property, partial
from typing import TYPE_CHECKING, TypeVar

import orjson

from participant.base import errors
from participant.base.settings import Settings
from participant.base.timestamps import parse_timestamp
from participant.base.transactions import ContractSource, Transaction
from participant.engine import reassignment
from participant.engine.commands import Submission
from participant.engine.ids import IdGenerator
from participant.engine.reassignment import ReassignmentCommand
from participant.ledger.clock import LedgerClock, WallClock
from participant.ledger.evaluation import EvaluationWorkers, LoopSource
from participant.ledger.identity import Identity
from participant.ledger.reads import RecordingSource
from participant.store.batch import Batch
from participant.store.rows import CompletionRow, UpdateRow
from participant.store.store import Store
from participant.store.writer import SubmitJob, open_lookup_connection

if TYPE_CHECKING:
    from participant.engine.interpreter import Engine
    from participant.engine.registry import PackageRegistry

# An interpretation still running past its ledger time plus the ledger-time-record-time tolerance is aborted, as
# Canton's command executor does.
DEFAULT_LEDGER_TIME_TOLERANCE = timedelta(seconds=Settings.ledger_time_tolerance_s)
DEFAULT_MAX_INTERPRETATION_MEMORY = Settings.max_interpretation_memory

T = TypeVar("T")


@dataclass(frozen=True)
class Deduplication:
    """How far back a change counts as a duplicate: a duration, or everything after an offset."""

    duration: timedelta | None = None
    after_offset: int | None = None

    def wire(self, default: timedelta) -> dict:
        if self.after_offset is not None:
            return {"DeduplicationOffset": {"value": self.after_offset}}
        d = self.duration or default
        return {
            "DeduplicationDuration": {
                "value": {"seconds": int(d.total_seconds()), "nanos": d.microseconds * 1000}
            }
        }


@dataclass(slots=True)  # not frozen: see UpdateRow
class CommandMeta:
    user_id: str
    command_id: str
    workflow_id: str = ""
    submission_id: str = ""
    deduplication: Deduplication = field(default_factory=Deduplication)
    min_ledger_time_abs: datetime | None = None
    min_ledger_time_rel: timedelta | None = None
    synchronizer_id: str = ""
    trace_context: dict | None = None


@dataclass(frozen=True)
class ReassignmentMeta:
    user_id: str
    command_id: str
    submitter: str
    workflow_id: str = ""
    submission_id: str = ""
    trace_context: dict | None = None


@dataclass(frozen=True)
class ReassignmentOutcome:
    """A reassignment's completion: its offset, and the update it committed or the error it failed with."""

    offset: int
    update: UpdateRow | None
    error: errors.LedgerError | None


def change_key(user_id: str, act_as: tuple[str, ...], command_id: str) -> str:
    """Canton's change id: (userId, actAs as a set, commandId)."""
    return orjson.dumps([user_id, sorted(set(act_as)), command_id]).decode()


class Committer:
    def __init__(
        self,
        store: Store,
        registry: PackageRegistry,
        identity: Identity,
        *,
        max_deduplication: timedelta = timedelta(days=7),
        ledger_time_tolerance: timedelta = DEFAULT_LEDGER_TIME_TOLERANCE,
        max_interpretation_memory: int | None = DEFAULT_MAX_INTERPRETATION_MEMORY,
        evaluation: EvaluationWorkers | None = None,
        clock: LedgerClock | None = None,
    ) -> None:
        self.store = store
        # Ledger and record times: the wall clock, or the static clock of `serve --static-time`.
        self.clock: LedgerClock = clock or WallClock()
        self.registry = registry
        self.identity = identity
        self.max_deduplication = max_deduplication
        self.ledger_time_tolerance = ledger_time_tolerance
        self.max_interpretation_memory = max_interpretation_memory
        # Submissions are interpreted by these workers, outside the writer. The writer interprets again only when
        # what one read changed meanwhile, on a worker of its own, so that it never waits for a free one.
        self.evaluation = evaluation or EvaluationWorkers()
        self._writer_evaluation = EvaluationWorkers(max_workers=1, name="daml-eval-writer")
        self._writer_evaluation.stopping = self.evaluation.stopping
        self._readers = threading.local()  # each worker's connection to the committed ledger
        self.ids = IdGenerator()
        self._known_parties: set[str] = set()

    @cached_property
    def engine(self) -> Engine:
        """The interpreter, loaded with the first submission: what the participant answers before (the ledger end,
        its contracts, its users) never needs it, and importing it was a fifth of the participant's start."""
        from participant.engine.interpreter import Engine

        return Engine(self.registry)

    def stop(self) -> None:
        """End every evaluation at its next budget check, and the workers: the server is stopping."""
        self.evaluation.stop()
        self._writer_evaluation.stop()

    async def evaluate(self, compute: Callable[[], T]) -> T:
        """`compute()` (Daml evaluated outside a command: interface views) on a worker, within the same bounds as a
        command submitted now."""

        async def run() -> T:
            return compute()

        at = self.clock.now()
        budget = self.evaluation.budget(
            at, self.ledger_time_tolerance, self.max_interpretation_memory, now=at
        )
        return await self.evaluation.run(run, budget)

    async def is_known_party(self, party: str) -> bool:
        """Parties are never removed, so a party once found is remembered."""
        if party in self._known_parties:
            return True
        if await self.store.party(party) is None:
            return False
        self._known_parties.add(party)
        return True

    async def submit(self, submission: Submission, meta: CommandMeta) -> UpdateRow:
        """Interpret and commit one submission as one transaction; returns it once it is durable."""
        synchronizer = self.identity.default_synchronizer
        if meta.synchronizer_id:
            chosen = self.identity.synchronizer(meta.synchronizer_id)
            if chosen is None:
                raise errors.INVALID_ARGUMENT(
                    f"Cannot submit to synchronizer {meta.synchronizer_id}: not connected to it"
                )
            synchronizer = chosen
        dedup = meta.deduplication
        if dedup.duration is not None and dedup.duration > self.max_deduplication:
            raise errors.INVALID_DEDUPLICATION_PERIOD(
                f"The given deduplication duration of {dedup.duration} exceeds the maximum deduplication "
                f"duration of {self.max_deduplication}",
                context={"max_deduplication_duration": str(self.max_deduplication)},
            )
        key = change_key(meta.user_id, submission.act_as, meta.command_id)
        submission_id = meta.submission_id or self.ids.update_id()[4:40]

        # Ledger time is chosen before interpretation, as Canton's submitter does; the record time when it commits.
        started = self.clock.now()
        ledger_time = started
        if meta.min_ledger_time_abs is not None:
            ledger_time = max(ledger_time, meta.min_ledger_time_abs)
        if meta.min_ledger_time_rel is not None:
            ledger_time = max(ledger_time, started + meta.min_ledger_time_rel)
        budget = self.evaluation.budget(
            ledger_time, self.ledger_time_tolerance, self.max_interpretation_memory, now=started
        )
        interpret = partial(
            self.engine.interpret,
            submission,
            ledger_time=ledger_time,
            synchronizer_id=synchronizer.id,
            prescribed=bool(meta.synchronizer_id),
        )

        async def against_committed() -> tuple[Transaction | errors.LedgerError, RecordingSource]:
            reads = RecordingSource(self._committed())
            try:
                return await interpret(reads), reads
            except errors.LedgerError as failure:  # stands only if what it read still holds in the batch
                return failure, reads

        outcome, reads = await self.evaluation.run(against_committed, budget)
        loop = asyncio.get_running_loop()

        async def job(batch: Batch) -> UpdateRow:
            record_time = self.clock.now()
            await self._check_duplicate(batch, key, dedup, record_time)
            result = outcome
            if not await reads.still_hold(batch):  # what it read changed since: as it would run here
                result = await self._writer_evaluation.run(
                    partial(interpret, LoopSource(batch, loop)), budget, waits=True
                )
            if isinstance(result, errors.LedgerError):
                raise result
            tx = result
            update = UpdateRow(
                offset=batch.ledger_end + 1,
                update_id=self.ids.update_id(),
                kind="transaction",
                command_id=meta.command_id,
                workflow_id=meta.workflow_id,
                user_id=meta.user_id,
                submission_id=submission_id,
                act_as=submission.act_as,
                record_time=record_time,
                effective_at=ledger_time,
                synchronizer_id=tx.synchronizer_id,
                trace_context=meta.trace_context,
                nodes=tx.nodes,
            )
            batch.stage_transaction(
                update,
                tx,
                CompletionRow(
                    update.offset,
                    meta.user_id,
                    meta.command_id,
                    submission.act_as,
                    submission_id,
                    update.update_id,
                    record_time,
                    tx.synchronizer_id,
                    dedup.wire(self.max_deduplication),
                    None,
                    key,
                ),
            )
            return update

        return await self.store.write(SubmitJob(key, job))

    def _committed(self) -> ContractSource:
        """The committed ledger, read by the calling worker on a connection of its own: no hop to the server's
        loop, and nothing for it to do."""
        reader = getattr(self._readers, "connection", None)
        if reader is None:
            reader = self._readers.connection = open_lookup_connection(str(self.store.path))
        return Batch(self.store.read, ledger_end=self.store.ledger_end, next_seq=0, lookup=reader)

    async def reassign(
        self, commands: list[ReassignmentCommand], meta: ReassignmentMeta
    ) -> ReassignmentOutcome:
        """Validate a reassignment against the committed ledger (a failure there is answered at once and changes
        nothing), then interpret it again in its group commit: what fails there, because something committed in
        between, becomes a failed completion at its own offset. Returns once either is durable."""
        connected = frozenset(s.id for s in self.identity.synchronizers)
        key = change_key(meta.user_id, (meta.submitter,), meta.command_id)
        submission_id = meta.submission_id or self.ids.update_id()[4:40]
        committed = Batch(self.store.read, ledger_end=self.store.ledger_end, next_seq=0)
        await self._check_duplicate(committed, key, Deduplication(), self.clock.now())
        await reassignment.interpret(commands, meta.submitter, committed, connected, self.ids)

        async def job(batch: Batch) -> ReassignmentOutcome:
            record_time = self.clock.now()
            kind = "assign" if isinstance(commands[0], reassignment.Assign) else "unassign"
            synchronizer = commands[0].source if kind == "unassign" else commands[0].target
            try:
                await self._check_duplicate(batch, key, Deduplication(), record_time)
                result = await reassignment.interpret(commands, meta.submitter, batch, connected, self.ids)
            except errors.LedgerError as failure:
                offset = batch.ledger_end + 1
                batch.stage_rejection(
                    UpdateRow(
                        offset,
                        self.ids.update_id(),
                        "rejection",
                        meta.command_id,
                        meta.workflow_id,
                        meta.user_id,
                        submission_id,
                        (meta.submitter,),
                        record_time,
                        record_time,
                        synchronizer,
                        meta.trace_context,
                        [],
                    ),
                    self._completion(
                        offset,
                        meta,
                        key,
                        submission_id,
                        "",
                        record_time,
                        synchronizer,
                        failure.rpc_status(submission_id),
                    ),
                )
                return ReassignmentOutcome(offset, None, failure)
            update = UpdateRow(
                offset=batch.ledger_end + 1,
                update_id=self.ids.update_id(),
                kind="reassignment",
                command_id=meta.command_id,
                workflow_id=meta.workflow_id,
                user_id=meta.user_id,
                submission_id=submission_id,
                act_as=(meta.submitter,),
                record_time=record_time,
                effective_at=record_time,
                synchronizer_id=result.synchronizer_id,
                trace_context=meta.trace_context,
                nodes=list(result.nodes),
            )
            batch.stage_reassignment(
                update,
                result,
                self._completion(
                    update.offset,
                    meta,
                    key,
                    submission_id,
                    update.update_id,
                    record_time,
                    result.synchronizer_id,
                    None,
                ),
            )
            return ReassignmentOutcome(update.offset, update, None)

        return await self.store.write(SubmitJob(key, job))

    def _completion(
        self,
        offset: int,
        meta: ReassignmentMeta,
        key: str,
        submission_id: str,
        update_id: str,
        record_time: datetime,
        synchronizer_id: str,
        status: dict | None,
    ) -> CompletionRow:
        return CompletionRow(
            offset,
            meta.user_id,
            meta.command_id,
            (meta.submitter,),
            submission_id,
            update_id,
            record_time,
            synchronizer_id,
            Deduplication().wire(self.max_deduplication),
            status,
            key,
        )

    async def _check_duplicate(self, batch: Batch, key: str, dedup: Deduplication, at: datetime) -> None:
        latest = await batch.latest_completion(key)
        if latest is None:
            return
        offset, submission_id, record_time = latest
        if dedup.after_offset is not None:
            duplicate = offset > dedup.after_offset
        elif record_time is None:  # committed earlier in this very batch
            duplicate = True
        else:
            window = dedup.duration if dedup.duration is not None else self.max_deduplication
            duplicate = parse_timestamp(record_time) > at - window
        if duplicate:
            raise errors.DUPLICATE_COMMAND(
                context={"existing_submission_id": submission_id, "completion_offset": str(offset)}
            )
