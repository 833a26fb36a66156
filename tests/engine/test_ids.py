"""Minted ids: Canton's formats, unique, random where people read them, and (unseeded) ending with the time they
were minted, which orders them in the database's id indexes."""

from __future__ import annotations

from participant.engine import ids


def test_random_ids_have_cantons_formats_and_do_not_repeat():
    generator = ids.IdGenerator()
    contract_ids = {generator.contract_id() for _ in range(1000)}
    update_ids = {generator.update_id() for _ in range(1000)}
    assert len(contract_ids) == len(update_ids) == 1000
    assert all(ids.is_contract_id(c) for c in contract_ids)
    assert all(ids.is_update_id(u) for u in update_ids)


def test_ids_minted_in_a_later_millisecond_end_later_and_begin_at_random(monkeypatch):
    clock = iter(range(1_700_000_000_000_000_000, 1_800_000_000_000_000_000, 1_000_000))  # one ms per call
    monkeypatch.setattr(ids.time, "time_ns", lambda: next(clock))
    generator = ids.IdGenerator()
    for minted in (
        [generator.contract_id() for _ in range(200)],
        [generator.update_id() for _ in range(200)],
    ):
        tails = [i[-12:] for i in minted]
        assert tails == sorted(tails) and len(set(tails)) == len(tails)
        assert len({i[:12] for i in minted}) == len(minted)  # what a table shows of an id tells them apart


def test_a_seeded_generator_mints_the_same_ids_every_time():
    first, second = ids.IdGenerator("seed"), ids.IdGenerator("seed")
    assert [first.contract_id(), first.update_id()] == [second.contract_id(), second.update_id()]
