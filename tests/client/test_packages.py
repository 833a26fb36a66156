"""The client's package catalog against a real participant loaded with richtypes and splice-amulet (and the demo's
Python package): listed, fetched, decoded once, kept on disk by package id, read back without a request; names
resolved to the preferred version; the failures of a remote participant (an endpoint it lacks, a right the user
lacks, a damaged archive) named, the rest still usable."""

from __future__ import annotations

import asyncio
import os
import pickle
import stat
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import httpx
import pytest

from app.client import LedgerClient, errors
from app.packages import CACHE_FORMAT, NotDamlLf, PackageCache, PackageCatalog, Progress
from app.shared_packages import SharedCatalog
from app.tokens import MintedToken
from participant.daml_lf.archive import read_dar
from participant.daml_lf.signatures import show_type
from tests.conftest import SECRET, ServerProcess, start_demo_server
from tests.daml_lf.conftest import AMULET, RICHTYPES

from .conftest import NO_RETRY, Canton34

LEGACY_404 = {"errors": ["GET, uri: ..."], "status": 404}


@pytest.fixture(scope="module")
def loaded(tmp_path_factory, dars_dir) -> Iterator[ServerProcess]:
    """The demo participant with richtypes and splice-amulet (with its dependencies) loaded from their DARs."""
    s = start_demo_server(
        tmp_path_factory.mktemp("packages") / "ledger.db",
        "--dar",
        str(dars_dir / RICHTYPES),
        "--dar",
        str(dars_dir / AMULET),
    )
    yield s
    s.stop()


@pytest.fixture(scope="module")
def dar_ids(dars_dir) -> dict[str, str]:
    """Main package id of each DAR, and every package id the two DARs hold (under "all")."""
    rich, amulet = (read_dar((dars_dir / name).read_bytes()) for name in (RICHTYPES, AMULET))
    return {
        "richtypes": rich.main.package_id,
        "splice-amulet": amulet.main.package_id,
        "all": " ".join(d.package_id for dar in (rich, amulet) for d in dar.dalfs),
    }


class Faulty(httpx.AsyncBaseTransport):
    """The real participant, except for the requests `fault` answers itself (a remote failure mode)."""

    def __init__(self, fault: Callable[[httpx.Request], httpx.Response | None]) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.fault = fault

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        answer = self.fault(request)
        return answer if answer is not None else await self.inner.handle_async_request(request)

    async def aclose(self) -> None:
        await self.inner.aclose()


@pytest.fixture
async def client_of(loaded) -> AsyncIterator[Callable[..., LedgerClient]]:
    made: list[LedgerClient] = []

    def make(transport: httpx.AsyncBaseTransport | None = None) -> LedgerClient:
        client = LedgerClient(loaded.url, MintedToken(SECRET, "Alice"), transport=transport, retry=NO_RETRY)
        made.append(client)
        return client

    yield make
    for client in made:
        await client.aclose()


def archive_requests(client: LedgerClient) -> list[str]:
    return [r.path for r in client.log.entries if r.path.startswith("/v2/packages/")]


async def test_the_packages_are_fetched_decoded_and_kept(client_of, tmp_path, dar_ids) -> None:
    seen: list[Progress] = []
    client = client_of()
    catalog = PackageCatalog(client, tmp_path, progress=seen.append)
    await catalog.load()
    listed = await client.packages()
    assert (catalog.problem, catalog.unreadable) == ("", {})
    assert set(dar_ids["all"].split()) <= set(catalog.packages)
    assert set(catalog.packages) | set(catalog.not_daml_lf) == set(listed)
    assert seen[-1] == Progress(len(listed), 0, len(listed), len(listed), 0) == catalog.progress
    assert len(archive_requests(client)) == len(listed)

    richtypes = catalog.package(dar_ids["richtypes"])
    assert richtypes is not None
    record = richtypes.templates["RichTypes:RichRecord"]
    assert [(f.name, show_type(f.type)) for f in record.fields][:3] == [
        ("owner", "Party"),
        ("count", "Int"),
        ("amount", "Numeric 10"),
    ]
    amulet = catalog.package(dar_ids["splice-amulet"])
    assert amulet is not None
    assert (amulet.name, amulet.version, len(amulet.templates)) == ("splice-amulet", "0.1.14", 26)

    # the demo's Python package: its own JSON description, said to carry no Daml-LF signatures
    (python,) = catalog.not_daml_lf.values()
    assert isinstance(python, NotDamlLf) and python.name and "not Daml-LF" in python.reason
    assert python.package_id not in catalog.packages

    kept = list((tmp_path / "packages" / f"v{CACHE_FORMAT}").iterdir())
    assert {p.name for p in kept} == {f"{pid}{suffix}" for pid in listed for suffix in (".sig", ".lf")}
    if os.name == "posix":
        assert {stat.S_IMODE(p.stat().st_mode) for p in kept} == {0o600}
        assert stat.S_IMODE((tmp_path / "packages").stat().st_mode) == 0o700


async def test_a_second_start_reads_the_cache_alone(client_of, tmp_path) -> None:
    first = PackageCatalog(client_of(), tmp_path)
    await first.load()
    client = client_of()
    second = PackageCatalog(client, tmp_path)
    await second.load()
    assert archive_requests(client) == []
    assert second.progress.from_cache == second.progress.listed and second.progress.decoded == 0
    assert second.packages == first.packages and second.not_daml_lf == first.not_daml_lf


async def test_names_resolve_to_the_version_the_participant_prefers(client_of, tmp_path, dar_ids) -> None:
    client = client_of()
    catalog = PackageCatalog(client, tmp_path)
    await catalog.load()
    record = await catalog.template("#richtypes:RichTypes:RichRecord")
    assert record is not None and record.ref.package_id == dar_ids["richtypes"]
    assert await catalog.template(f"{dar_ids['richtypes']}:RichTypes:Marker") is not None
    rules = await catalog.template("#splice-amulet:Splice.AmuletRules:AmuletRules")
    assert rules is not None and rules.ref.package_id == dar_ids["splice-amulet"]
    holding = await catalog.interface("#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding")
    assert holding is not None and show_type(holding.view_type) == "Splice.Api.Token.HoldingV1:HoldingView"
    assert await catalog.template("#richtypes:RichTypes:Nothing") is None
    assert await catalog.template("#no-such-package:A:B") is None
    asked = [r.url for r in client.log.entries if "preferred-package-version" in r.path]
    assert any("package-name=richtypes" in url for url in asked)


async def test_the_preference_falls_back_to_the_highest_version_without_the_endpoint(
    client_of, tmp_path, dar_ids
) -> None:
    def legacy(request: httpx.Request) -> httpx.Response | None:
        if "preferred-package-version" in request.url.path:
            return httpx.Response(404, json=LEGACY_404)
        return None

    catalog = PackageCatalog(client_of(Faulty(legacy)), tmp_path)
    await catalog.load()
    record = await catalog.template("#richtypes:RichTypes:RichRecord")
    assert record is not None and record.ref.package_id == dar_ids["richtypes"]


async def test_a_damaged_cache_entry_is_read_again(client_of, tmp_path, dar_ids) -> None:
    first = PackageCatalog(client_of(), tmp_path)
    await first.load()
    entries = tmp_path / "packages" / f"v{CACHE_FORMAT}"
    rich, amulet = dar_ids["richtypes"], dar_ids["splice-amulet"]
    (entries / f"{rich}.sig").write_bytes(b"\x80\x05not a pickle")  # the archive beside it is intact
    (entries / f"{amulet}.sig").write_bytes(b"garbage")
    (entries / f"{amulet}.lf").write_bytes(b"garbage")

    client = client_of()
    second = PackageCatalog(client, tmp_path)
    await second.load()
    assert archive_requests(client) == [f"/v2/packages/{amulet}"]  # richtypes decoded from its kept archive
    assert second.progress.decoded == 2 and second.unreadable == {}
    assert second.packages == first.packages

    client = client_of()
    third = PackageCatalog(client, tmp_path)
    await third.load()
    assert archive_requests(client) == [] and third.packages == first.packages


async def test_a_participant_without_the_package_service_leaves_the_catalog_empty_and_says_why(
    client_of, tmp_path
) -> None:
    def legacy(request: httpx.Request) -> httpx.Response | None:
        if request.url.path.startswith("/v2/packages"):
            return httpx.Response(404, json=LEGACY_404)
        return None

    catalog = PackageCatalog(client_of(Faulty(legacy)), tmp_path)
    await catalog.load()
    assert catalog.loaded and catalog.packages == {}
    assert "does not serve /v2/packages" in catalog.problem
    assert await catalog.template("#richtypes:RichTypes:RichRecord") is None


async def test_archives_the_user_may_not_read_are_named_the_rest_is_read(
    client_of, tmp_path, dar_ids
) -> None:
    refused = dar_ids["splice-amulet"]

    def forbid(request: httpx.Request) -> httpx.Response | None:
        if request.url.path == f"/v2/packages/{refused}":
            return httpx.Response(
                403,
                json={
                    "code": "PERMISSION_DENIED",
                    "cause": "A security-sensitive error has been received",
                    "context": {},
                    "errorCategory": 7,
                },
            )
        return None

    catalog = PackageCatalog(client_of(Faulty(forbid)), tmp_path)
    await catalog.load()
    assert list(catalog.unreadable) == [refused]
    assert "may not" in catalog.unreadable[refused]
    assert dar_ids["richtypes"] in catalog.packages and refused not in catalog.packages
    assert catalog.progress.failed == 1
    # nothing is kept for it: a later start with the right asks again
    assert not (tmp_path / "packages" / f"v{CACHE_FORMAT}" / f"{refused}.sig").exists()


async def test_a_damaged_archive_is_named_and_not_kept(client_of, tmp_path, dar_ids) -> None:
    damaged = dar_ids["richtypes"]

    def damage(request: httpx.Request) -> httpx.Response | None:
        if request.url.path == f"/v2/packages/{damaged}":
            return httpx.Response(200, content=b"\x0a\x03abc", headers={"Canton-Package-Hash": damaged})
        return None

    catalog = PackageCatalog(client_of(Faulty(damage)), tmp_path)
    await catalog.load()
    assert list(catalog.unreadable) == [damaged]
    assert "not the SHA-256 of its payload" in catalog.unreadable[damaged]
    assert dar_ids["splice-amulet"] in catalog.packages
    assert not (tmp_path / "packages" / f"v{CACHE_FORMAT}" / f"{damaged}.lf").exists()


async def test_an_archive_under_another_hash_is_refused(client_of, dar_ids) -> None:
    asked, other = dar_ids["richtypes"], dar_ids["splice-amulet"]

    def swap(request: httpx.Request) -> httpx.Response | None:
        if request.url.path == f"/v2/packages/{asked}":
            return httpx.Response(200, content=b"x", headers={"Canton-Package-Hash": other})
        return None

    with pytest.raises(errors.UnreadableAnswer, match="answered the archive of package"):
        await client_of(Faulty(swap)).package_archive(asked)


async def test_package_status_and_preference(client_of, dar_ids) -> None:
    client = client_of()
    assert await client.package_status(dar_ids["richtypes"]) == "PACKAGE_STATUS_REGISTERED"
    assert await client.package_status("0" * 64) == "PACKAGE_STATUS_UNSPECIFIED"
    preferred = await client.preferred_package("richtypes")
    assert preferred is not None and (preferred.package_id, preferred.package_version) == (
        dar_ids["richtypes"],
        "0.0.1",
    )
    assert await client.preferred_package("no-such-package") is None


async def test_a_34_participant_serves_the_same_archives(loaded, client_of, tmp_path) -> None:
    reference = PackageCatalog(client_of(), tmp_path / "35")
    await reference.load()
    transport = Canton34()
    client = LedgerClient(loaded.url, MintedToken(SECRET, "Alice"), transport=transport)
    try:
        catalog = PackageCatalog(client, tmp_path / "34")
        await catalog.load()
    finally:
        await client.aclose()
    assert catalog.unreadable == {} and catalog.packages == reference.packages


def test_cache_entries_are_keyed_by_a_package_id_only(tmp_path: Path) -> None:
    cache = PackageCache(tmp_path)
    assert cache.read("../../etc/passwd") is None and cache.read_archive("../x") is None


def test_a_cache_file_builds_nothing_but_signatures(tmp_path: Path) -> None:
    cache = PackageCache(tmp_path)
    cache.dir.mkdir(parents=True)
    package_id = "a" * 64
    (cache.dir / f"{package_id}.sig").write_bytes(pickle.dumps(os.system))  # a callable, not a signature
    assert cache.read(package_id) is None
    assert not (cache.dir / f"{package_id}.sig").exists()


async def test_one_reading_serves_every_screen_and_a_new_one_reads_the_cache(client_of, tmp_path) -> None:
    client = client_of()
    shared = SharedCatalog(client)
    assert shared.current is None and not shared.has_read("0" * 64)
    progress: list[Progress] = []
    first, second = await asyncio.gather(shared.get(tmp_path, progress=progress.append), shared.get(tmp_path))
    assert first is second is shared.current and progress[-1] == first.progress
    listings = [r for r in client.log.entries if r.path == "/v2/packages"]
    assert len(listings) == 1
    assert all(shared.has_read(package_id) for package_id in first.packages)
    fetched = len(archive_requests(client))

    again = await shared.get(tmp_path, again=True)
    assert again is not first and again is shared.current
    assert len([r for r in client.log.entries if r.path == "/v2/packages"]) == 2  # listed anew
    assert len(archive_requests(client)) == fetched and again.progress.fetched == 0  # the rest from the cache
