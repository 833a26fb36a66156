"""Updates of users and parties in one group commit see each other: a resource version is used once."""

from __future__ import annotations

import asyncio

from participant.store import admin
from participant.store.rows import UserRow
from participant.store.store import Store


async def test_updates_in_one_batch_check_versions_against_each_other(tmp_path):
    store = Store(tmp_path / "ledger.db")
    await store.open()
    try:
        await admin.create_user(store, UserRow("u", "", False, {}, 0, "", False, ()), [])
        await admin.allocate_party(store, "p::1220ab", {})
        users = [
            admin.update_user(store, admin.UserChange("u", "", 0, annotations={"i": str(i)}))
            for i in range(3)
        ]
        parties = [
            admin.update_party(store, admin.PartyChange("p::1220ab", "", 0, annotations={"i": str(i)}))
            for i in range(3)
        ]
        results = await asyncio.gather(*users, *parties, return_exceptions=True)
        assert [type(r).__name__ for r in results] == [
            "UserRow",
            *["ConcurrentChange"] * 2,
            "PartyRow",
            *["ConcurrentChange"] * 2,
        ]
        user = await store.user("u")
        assert user is not None and user.resource_version == 1 and user.annotations == {"i": "0"}
        party = await store.party("p::1220ab")
        assert party is not None and party.resource_version == 1
    finally:
        await store.close()


async def test_a_user_deleted_in_a_batch_is_gone_for_its_later_updates(tmp_path):
    store = Store(tmp_path / "ledger.db")
    await store.open()
    try:
        await admin.create_user(store, UserRow("u", "", False, {}, 0, "", False, ()), [])
        results = await asyncio.gather(
            admin.delete_user(store, "u"),
            admin.update_user(store, admin.UserChange("u", "", None, is_deactivated=True)),
            return_exceptions=True,
        )
        assert results[0] is None and isinstance(results[1], admin.UserNotFound)
    finally:
        await store.close()
