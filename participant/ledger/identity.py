"""Who this participant is: its namespace, participant id and the synchronizers it is connected to.

The namespace is minted at the first start and kept in the database, so ids stay the same across restarts."""

from __future__ import annotations

from dataclasses import dataclass

from participant.engine import ids
from participant.store.store import Store


@dataclass(frozen=True)
class Synchronizer:
    alias: str
    id: str


@dataclass(frozen=True)
class Identity:
    namespace: str
    participant_id: str
    synchronizers: tuple[Synchronizer, ...]

    @property
    def default_synchronizer(self) -> Synchronizer:
        return self.synchronizers[0]

    def synchronizer(self, synchronizer_id: str) -> Synchronizer | None:
        return next((s for s in self.synchronizers if s.id == synchronizer_id), None)

    def party(self, hint: str) -> str:
        return ids.party_id(hint, self.namespace)


async def load_identity(store: Store, aliases: tuple[str, ...]) -> Identity:
    namespace = await store.set_meta_once("namespace", ids.IdGenerator().namespace())
    synchronizers = []
    for alias in aliases:
        sync_namespace = await store.set_meta_once(f"synchronizer:{alias}", ids.IdGenerator().namespace())
        synchronizers.append(Synchronizer(alias, ids.synchronizer_id(alias, sync_namespace)))
    return Identity(namespace, ids.participant_id(namespace), tuple(synchronizers))
