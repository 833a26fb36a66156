"""Reads through an aiosqlite connection, typed as what they return.

aiosqlite declares `execute_fetchall` as returning an `Iterable[Row]`; it is the cursor's list, which the store
indexes. These two functions say so once, instead of a cast at every read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from typing import Any, cast

import aiosqlite

Params = Iterable[Any] | Mapping[str, Any]


async def fetch_all(conn: aiosqlite.Connection, statement: str, params: Params = ()) -> list[sqlite3.Row]:
    """Every row of `statement`, in one hop into the connection's thread."""
    return cast(list[sqlite3.Row], await conn.execute_fetchall(statement, params))


async def fetch_value(conn: aiosqlite.Connection, statement: str, params: Params = ()) -> Any:
    """The first column of the first row of a statement that always answers one (a PRAGMA, a count)."""
    return (await fetch_all(conn, statement, params))[0][0]
