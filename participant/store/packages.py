"""Daml-LF packages and the DARs they came in: stored once each, written as one job of the single writer.

What is refused raises `KnownVersion`, never an API error: the services translate it."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

import orjson

from participant.store import sql
from participant.store.batch import Batch
from participant.store.fetch import fetch_all
from participant.store.store import Store, connect


@dataclass(frozen=True)
class PackageRow:
    """What the participant answers about a stored package without reading its payload."""

    package_id: str
    name: str
    version: str
    lf_version: str
    templates: tuple[str, ...]  # 'Module:Entity'
    interfaces: tuple[str, ...]
    dar_hash: str  # the DAR it first came with
    is_main: bool
    uploaded_at: str

    @classmethod
    def from_sql(cls, r) -> PackageRow:
        return cls(
            r[0],
            r[1],
            r[2],
            r[3],
            tuple(orjson.loads(r[4])),
            tuple(orjson.loads(r[5])),
            r[6],
            bool(r[7]),
            r[8],
        )


@dataclass(frozen=True)
class NewPackage:
    row: PackageRow
    payload: bytes  # the encoded ArchivePayload
    versioned: (
        bool  # one package per name and version (Canton exempts utility packages, which have no templates)
    )


@dataclass(frozen=True)
class NewDar:
    dar_hash: str
    name: str
    main_package_id: str
    uploaded_at: str
    packages: tuple[NewPackage, ...]


class KnownVersion(Exception):
    """Another package with the same name and version is stored already."""

    def __init__(self, package: PackageRow, existing_id: str) -> None:
        super().__init__(f"{package.name} {package.version}: {existing_id} is stored already")
        self.package = package
        self.existing_id = existing_id


async def stored_packages(store: Store) -> list[PackageRow]:
    """Every stored package, in the order they were loaded (no payloads: read at start, kept in memory)."""
    return [PackageRow.from_sql(r) for r in await fetch_all(store.read, sql.PACKAGES)]


async def package_payload(store: Store, package_id: str) -> bytes | None:
    rows = await fetch_all(store.read, sql.PACKAGE_PAYLOAD, (package_id,))
    return rows[0][0] if rows else None


async def stored_dar_hashes(path: Path) -> set[str]:
    """The DARs a database holds, read without opening the store (no write process, no migration): what a start
    with DARs loaded before needs to know, and nothing more. A database missing or not migrated yet holds none."""
    if not path.exists():
        return set()
    conn = await connect(path, read_only=True)
    try:
        return {r[0] for r in await fetch_all(conn, sql.DAR_HASHES)}
    except sqlite3.OperationalError:  # no table yet: a database of an earlier schema
        return set()
    finally:
        await conn.close()


async def has_dar(store: Store, dar_hash: str) -> bool:
    return bool(await fetch_all(store.read, sql.DAR_EXISTS, (dar_hash,)))


async def ids_of_version(store: Store, name: str, version: str) -> list[str]:
    return [r[0] for r in await fetch_all(store.read, sql.PACKAGE_IDS_OF_NAME_VERSION, (name, version))]


async def store_dar(store: Store, dar: NewDar) -> list[PackageRow]:
    """Store a DAR and those of its packages not stored yet (returned); a DAR stored already changes nothing.
    Raises `KnownVersion` (storing nothing) for a versioned package whose name and version another package has."""

    async def job(batch: Batch) -> list[PackageRow]:
        if (
            await fetch_all(batch.conn, sql.DAR_EXISTS, (dar.dar_hash,))
            or ("dar", dar.dar_hash) in batch.admin
        ):
            return []
        new = []
        within: dict[tuple[str, str], str] = {}  # this DAR's versioned packages
        for package in dar.packages:
            row = package.row
            if ("package", row.package_id) in batch.admin or await fetch_all(
                batch.conn, sql.PACKAGE_EXISTS, (row.package_id,)
            ):
                continue
            if package.versioned:
                version_key = ("package-version", f"{row.name}\0{row.version}")
                holders = [
                    r[0]
                    for r in await fetch_all(
                        batch.conn, sql.PACKAGE_IDS_OF_NAME_VERSION, (row.name, row.version)
                    )
                ]
                staged = batch.admin.get(version_key, within.get(version_key))
                others = [held for held in [*holders, staged] if held is not None and held != row.package_id]
                if others:
                    raise KnownVersion(row, others[0])
                within[version_key] = row.package_id
            new.append(package)
        # Checked whole before anything is staged: a refused DAR leaves nothing behind.
        batch.write(sql.INSERT_DAR, (dar.dar_hash, dar.name, dar.main_package_id, dar.uploaded_at))
        batch.admin[("dar", dar.dar_hash)] = dar.main_package_id
        for package in new:
            row = package.row
            batch.write(
                sql.INSERT_PACKAGE,
                (
                    row.package_id,
                    row.name,
                    row.version,
                    row.lf_version,
                    orjson.dumps(row.templates).decode(),
                    orjson.dumps(row.interfaces).decode(),
                    row.dar_hash,
                    int(row.is_main),
                    row.uploaded_at,
                    package.payload,
                ),
            )
            batch.admin[("package", row.package_id)] = row
            if package.versioned:
                batch.admin[("package-version", f"{row.name}\0{row.version}")] = row.package_id
        return [package.row for package in new]

    return await store.write(job)
