"""Demo data: parties and users Alice, Bob and Charlie, and a few hundred Ious with a history behind them.

Seeded once per database (a marker in `meta`), through the same ledger path as every submission, so the demo
ledger is one that the API could have produced: transfers offered, accepted, rejected and cancelled, splits,
merges, observers added and contracts archived; a few Ious moved to the second synchronizer and one left in flight
(unassigned, not yet assigned).
"""

from __future__ import annotations

import logging
import random
import secrets
from collections.abc import Callable
from decimal import Decimal

from participant.base.transactions import CreateNode, UnassignNode
from participant.engine.commands import Command, CreateCommand, ExerciseCommand, Submission
from participant.engine.reassignment import Assign, Unassign
from participant.ledger.committer import CommandMeta, ReassignmentMeta
from participant.services.context import Context
from participant.services.parties import hosting
from participant.store import admin
from participant.store.rows import UpdateRow, UserRow

log = logging.getLogger(__name__)

NAMES = ("Alice", "Bob", "Charlie")
CURRENCIES = ("USD", "EUR", "CHF", "GBP")
IOU = "#model-tests:Iou:Iou"
TRANSFER = "#model-tests:Iou:IouTransfer"
WORKFLOW = "demo-seed"
MOVED = 4  # Ious moved to the second synchronizer, one more is left in flight
REPORTS = 40  # about how many times progress is reported over one seeding

Progress = Callable[[int, int], None]  # (steps done, steps in all)


async def seed_demo(
    ctx: Context, *, ious: int = 300, seed: int = 7, progress: Progress | None = None
) -> bool:
    """Seed the demo ledger unless this database has it already; returns whether it seeded. `progress` hears now
    and then (a few dozen times, the first at 0, the last when all is done) how far the seeding is."""
    if await ctx.store.meta("demo_seeded") is not None:
        return False
    steps = _Steps(progress, total=ious + ious // 3)  # each Iou's create, then the history of a third of them
    parties = {}
    for name in NAMES:
        party = ctx.identity.party(name)
        if await ctx.store.party(party) is None:
            await admin.allocate_party(ctx.store, party, {"demo": "true"}, topology=hosting(ctx, party))
        if await ctx.store.user(name) is None:
            await admin.create_user(
                ctx.store,
                UserRow(name, party, False, {}, 0, "", False, ()),
                [("CanActAs", party), ("CanReadAs", party)],
            )
        parties[name] = party
    seeder = _Seeder(ctx, random.Random(seed))
    owned: list[tuple[str, str, str]] = []  # (contract id, issuer's name, owner's name)
    for _ in range(ious):
        issuer, owner = seeder.rng.choice(NAMES), seeder.rng.choice(NAMES)
        currency = seeder.rng.choice(CURRENCIES)
        amount = Decimal(seeder.rng.randrange(100, 100_000)) / 100
        cid = await seeder.create(parties[issuer], parties[owner], currency, amount)
        owned.append((cid, issuer, owner))
        steps.step()
    await seeder.history(owned, parties, steps.step)
    await seeder.reassignments(owned[len(owned) // 3 :], parties)
    await ctx.store.set_meta_once("demo_seeded", "1")
    log.info("demo ledger seeded: ledger end %d", ctx.store.ledger_end)
    return True


class _Steps:
    def __init__(self, progress: Progress | None, total: int) -> None:
        self.progress = progress
        self.total = total
        self.done = 0
        self.every = max(1, total // REPORTS)
        if progress is not None:
            progress(0, total)

    def step(self) -> None:
        self.done += 1
        if self.progress is not None and (self.done % self.every == 0 or self.done == self.total):
            self.progress(self.done, self.total)


class _Seeder:
    def __init__(self, ctx: Context, rng: random.Random) -> None:
        self.ctx = ctx
        self.rng = rng
        self.count = 0
        # Command ids unique to this run: a seeding cut short (the marker is set only at the end) is then simply
        # seeded again at the next start instead of failing as a duplicate of the first run's commands.
        self.run = secrets.token_hex(4)

    async def _submit(self, act_as: list[str], command: Command) -> UpdateRow:
        self.count += 1
        meta = CommandMeta(
            user_id="participant_admin", command_id=f"demo-{self.run}-{self.count}", workflow_id=WORKFLOW
        )
        return await self.ctx.committer.submit(Submission((command,), tuple(dict.fromkeys(act_as))), meta)

    async def create(self, issuer: str, owner: str, currency: str, amount: Decimal) -> str:
        update = await self._submit(
            [issuer, owner],
            CreateCommand(
                IOU,
                {
                    "issuer": issuer,
                    "owner": owner,
                    "currency": currency,
                    "amount": str(amount),
                    "observers": [],
                },
            ),
        )
        created = update.nodes[0]
        assert isinstance(created, CreateNode)  # a create command's transaction is its one create
        return created.contract.contract_id

    async def exercise(self, party: str, template: str, cid: str, choice: str, argument: dict) -> UpdateRow:
        return await self._submit([party], ExerciseCommand(template, cid, choice, argument))

    async def history(
        self, owned: list[tuple[str, str, str]], parties: dict[str, str], step: Callable[[], None]
    ) -> None:
        """Walk a third of the Ious through the choices of the model; `step` after each."""
        rng = self.rng
        rng.shuffle(owned)
        for cid, issuer, owner in owned[: len(owned) // 3]:
            action = rng.choice(
                (
                    "transfer-accept",
                    "transfer-reject",
                    "transfer-cancel",
                    "transfer-pending",
                    "split",
                    "observer",
                    "archive",
                )
            )
            others = [n for n in NAMES if n != owner]
            if action.startswith("transfer"):
                to = rng.choice(others)
                update = await self.exercise(
                    parties[owner], IOU, cid, "Iou_Transfer", {"newOwner": parties[to]}
                )
                transfer = _created(update)[0]
                if action == "transfer-accept":
                    await self.exercise(parties[to], TRANSFER, transfer, "IouTransfer_Accept", {})
                elif action == "transfer-reject":
                    await self.exercise(parties[to], TRANSFER, transfer, "IouTransfer_Reject", {})
                elif action == "transfer-cancel":
                    await self.exercise(parties[owner], TRANSFER, transfer, "IouTransfer_Cancel", {})
            elif action == "split":
                update = await self.exercise(parties[owner], IOU, cid, "Iou_Split", {"splitAmount": "0.01"})
                first, second = _created(update)
                await self.exercise(parties[owner], IOU, first, "Iou_Merge", {"otherCid": second})
            elif action == "observer":
                await self.exercise(
                    parties[owner], IOU, cid, "Iou_AddObserver", {"newObserver": parties[rng.choice(others)]}
                )
            else:  # Archive is controlled by all signatories
                await self._submit(
                    [parties[issuer], parties[owner]], ExerciseCommand(IOU, cid, "Archive", {})
                )
            step()

    async def reassignments(self, untouched: list[tuple[str, str, str]], parties: dict[str, str]) -> None:
        """Move a few Ious to the second synchronizer (`MOVED`, their owner submitting), and leave one more
        unassigned, in flight, not yet assigned."""
        synchronizers = [s.id for s in self.ctx.identity.synchronizers]
        if len(synchronizers) < 2 or len(untouched) <= MOVED:
            return
        source, target = synchronizers[:2]
        # the one left in flight is one of Alice's (the user a newcomer starts as), so that it shows at once
        flying = next((c for c in untouched[MOVED:] if NAMES[0] in c[1:]), untouched[MOVED])
        for i, (cid, _issuer, owner) in enumerate([*untouched[:MOVED], flying]):
            self.count += 1
            meta = ReassignmentMeta(
                user_id="participant_admin",
                command_id=f"demo-{self.run}-{self.count}",
                submitter=parties[owner],
                workflow_id=WORKFLOW,
            )
            out = await self.ctx.committer.reassign([Unassign(cid, source, target)], meta)
            if out.update is None:  # refused in its commit: say why rather than seed half a history
                assert out.error is not None
                raise out.error
            if i == MOVED:
                return  # in flight
            self.count += 1
            meta = ReassignmentMeta(
                user_id="participant_admin",
                command_id=f"demo-{self.run}-{self.count}",
                submitter=parties[owner],
                workflow_id=WORKFLOW,
            )
            unassigned = out.update.nodes[0]
            assert isinstance(unassigned, UnassignNode)  # an unassignment's update is its one node
            await self.ctx.committer.reassign([Assign(unassigned.reassignment_id, source, target)], meta)


def _created(update: UpdateRow) -> list[str]:
    return [n.contract.contract_id for n in update.nodes if hasattr(n, "contract")]
