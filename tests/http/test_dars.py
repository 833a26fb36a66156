"""DARs loaded over the API (`POST /v2/dars`, `/v2/packages`, `/v2/dars/validate`) and served back
(`GET /v2/packages…`), built from the real DARs of ../shared/dars; each refusal is Canton's error and changes
nothing."""

from __future__ import annotations

import contextlib
import hashlib
import sqlite3

import httpx
import pytest

from participant.daml_lf._proto import daml_lf_pb2
from participant.daml_lf.archive import MANIFEST, parse_manifest, read_dar
from participant.daml_lf.errors import MissingPackage
from participant.daml_lf.packages import read_packages
from participant.server.app import create_app
from tests.conftest import LedgerApi, settings_for
from tests.daml_lf.conftest import AMULET, HOLDING, RICHTYPES, rezip
from tests.daml_lf.test_archive import _member, _reencode
from tests.daml_lf.test_decode import _dname_last, _main_package, _with_main_package
from tests.http.helpers import (
    LEDGER_EFFECTS,
    acs,
    acs_body,
    assert_error,
    cids,
    commands,
    create,
    created_cid,
    created_events,
    event_format,
    events_of,
    exercise,
    submit_tx,
    template,
    transaction_format,
)

OCTETS = {"content-type": "application/octet-stream"}


async def upload(ledger_api, data: bytes, path: str = "/v2/dars", **kw):
    return await ledger_api.call("POST", path, content=data, headers=OCTETS, **kw)


async def package_ids(ledger_api) -> list[str]:
    r = await ledger_api.get("/v2/packages")
    assert r.status_code == 200, r.text
    return r.json()["packageIds"]


async def test_a_dar_uploaded_is_listed_served_and_registered(ledger_api, dar_bytes) -> None:
    data = dar_bytes(RICHTYPES)
    dar = read_dar(data)
    python_ids = await package_ids(ledger_api)
    r = await upload(ledger_api, data)
    assert r.status_code == 200 and r.json() == {}, r.text
    listed = await package_ids(ledger_api)
    # Every DALF of the DAR, the standard library's and daml-prim's too, beside the Python packages.
    assert set(listed) == set(python_ids) | {dalf.package_id for dalf in dar.dalfs}
    for dalf in (dar.main, dar.dalfs[1]):
        r = await ledger_api.get(f"/v2/packages/{dalf.package_id}")
        assert r.status_code == 200
        assert r.headers["content-type"] == "application/octet-stream"
        assert r.headers["canton-package-hash"] == dalf.package_id
        assert hashlib.sha256(r.content).hexdigest() == dalf.package_id
        assert r.content == daml_lf_pb2.Archive.FromString(_member(data, dalf.path)).payload
        r = await ledger_api.get(f"/v2/packages/{dalf.package_id}/status")
        assert r.json() == {"packageStatus": "PACKAGE_STATUS_REGISTERED"}
    r = await ledger_api.get(
        "/v2/interactive-submission/preferred-package-version", params={"package-name": "richtypes"}
    )
    assert r.json()["packagePreference"]["packageReference"] == {
        "packageId": dar.main.package_id,
        "packageName": "richtypes",
        "packageVersion": "0.0.1",
    }


async def test_uploading_a_dar_again_changes_nothing(ledger_api, dar_bytes) -> None:
    data = dar_bytes(HOLDING)
    assert (await upload(ledger_api, data, "/v2/packages")).status_code == 200
    listed = await package_ids(ledger_api)
    r = await upload(ledger_api, data)
    assert r.status_code == 200 and r.json() == {}
    assert await package_ids(ledger_api) == listed


async def test_splice_amulet_and_its_dependencies_as_separate_dars(ledger_api, dar_bytes, dars_dir) -> None:
    names = sorted(p.name for p in (dars_dir / "splice").glob("splice-api-*.dar"))
    for name in ["splice-util-0.1.4.dar", *names, AMULET.split("/")[1]]:
        r = await upload(ledger_api, dar_bytes(f"splice/{name}"))
        assert r.status_code == 200, (name, r.text)
    amulet = read_dar(dar_bytes(AMULET))
    listed = set(await package_ids(ledger_api))
    assert {dalf.package_id for dalf in amulet.dalfs} <= listed
    r = await ledger_api.get(f"/v2/packages/{amulet.main.package_id}")
    assert hashlib.sha256(r.content).hexdigest() == amulet.main.package_id


async def test_validate_checks_and_stores_nothing(ledger_api, dar_bytes) -> None:
    before = await package_ids(ledger_api)
    r = await upload(ledger_api, dar_bytes(RICHTYPES), "/v2/dars/validate")
    assert r.status_code == 200 and r.content == b""
    assert await package_ids(ledger_api) == before
    r = await upload(ledger_api, b"not a dar", "/v2/dars/validate")
    assert_error(r, 400, "INVALID_DAR")


async def test_only_an_admin_loads_dars(ledger_api, alice_bob, dar_bytes) -> None:
    before = await package_ids(ledger_api)
    for path in ("/v2/dars", "/v2/packages", "/v2/dars/validate"):
        assert_error(await upload(ledger_api, dar_bytes(HOLDING), path, user="Alice"), 403, "NA")
        assert_error(await upload(ledger_api, dar_bytes(HOLDING), path, user=None), 401, "NA")
    assert await package_ids(ledger_api) == before


async def test_query_parameters_are_checked(ledger_api, dar_bytes) -> None:
    r = await upload(ledger_api, dar_bytes(HOLDING), params={"vetAllPackages": "maybe"})
    assert r.status_code == 400 and r.text.startswith("Invalid value for: query parameter vetAllPackages")
    r = await upload(ledger_api, dar_bytes(HOLDING), params={"synchronizerId": "nowhere::1220"})
    assert_error(r, 400, "INVALID_ARGUMENT")
    r = await upload(ledger_api, dar_bytes(HOLDING), params={"vetAllPackages": "true"})
    assert r.status_code == 200


# --- refusals, each built from a real DAR: Canton's id, a cause naming the problem, nothing stored


def _replace_main(data: bytes, change) -> bytes:
    main = read_dar(data).main.path
    return rezip(data, {main: _reencode(_member(data, main), change)})


def _tampered(data: bytes) -> bytes:
    main = read_dar(data).main.path
    archive = daml_lf_pb2.Archive.FromString(_member(data, main))
    archive.payload = archive.payload[:-1] + bytes([archive.payload[-1] ^ 1])
    return rezip(data, {main: archive.SerializeToString()})


def _other_content(data: bytes) -> bytes:
    """The main package with a choice renamed: another package id, the same name and version."""

    def rename(payload):
        payload.daml_lf_2 = payload.daml_lf_2.replace(b"Relabel", b"Relabem")

    return _replace_main(data, rename)


def _without_a_dependency(data: bytes) -> tuple[bytes, str]:
    """The DAR without one DALF its main package's signatures need, left out of its manifest too."""
    dar = read_dar(data)
    fields = parse_manifest(_member(data, MANIFEST).decode())
    for dalf in dar.dalfs[1:]:
        kept = ", ".join(p.strip() for p in fields["Dalfs"].split(",") if p.strip() != dalf.path)
        manifest = "".join(f"{key}: {value}\r\n" for key, value in {**fields, "Dalfs": kept}.items())
        stripped = rezip(data, {dalf.path: None, MANIFEST: manifest.encode()})
        try:
            read_packages(stripped)
        except MissingPackage:
            return stripped, dalf.package_id
    raise AssertionError("every dependency can go")


def _missing_definition(data: bytes) -> bytes:
    """The main package without the data type of its template Marker."""
    path, package = _main_package(data)
    for module in package.modules:
        for data_type in list(module.data_types):
            if package.interned_strings[_dname_last(package, data_type.name_interned_dname)] == "Marker":
                module.data_types.remove(data_type)
    return _with_main_package(data, path, package)


REFUSALS = {
    "not a zip": (lambda data: b"%PDF-1.7 not a dar", "INVALID_DAR", "not a zip"),
    "no manifest": (lambda data: rezip(data, {MANIFEST: None}), "INVALID_DAR", "MANIFEST.MF"),
    "tampered payload": (_tampered, "DAR_PARSE_ERROR", "is not the SHA-256 of its payload"),
    "unknown LF version": (
        lambda data: _replace_main(data, lambda p: setattr(p, "minor", "99")),
        "DAR_PARSE_ERROR",
        "Daml-LF 2.99",
    ),
    "unresolved reference": (
        lambda data: _without_a_dependency(data)[0],
        "DAR_NOT_SELF_CONSISTENT",
        "is not among the packages read",
    ),
    "missing definition": (
        _missing_definition,
        "DAR_VALIDATION_ERROR",
        "Marker has no data type of its name",
    ),
}


def stored(tmp_path) -> list[tuple]:
    """The rows of the DARs and packages tables of the test's database (`participant_app`'s file)."""
    with sqlite3.connect(tmp_path / "ledger.db") as conn:
        return (
            conn.execute("SELECT dar_hash FROM dars").fetchall()
            + conn.execute("SELECT package_id FROM packages").fetchall()
        )


@pytest.mark.parametrize("kind", REFUSALS)
async def test_a_bad_dar_is_refused_and_changes_nothing(ledger_api, dar_bytes, kind, tmp_path) -> None:
    build, code, said = REFUSALS[kind]
    assert (await upload(ledger_api, dar_bytes(HOLDING))).status_code == 200
    before, rows = await package_ids(ledger_api), stored(tmp_path)
    end = await ledger_api.ledger_end()
    r = await upload(ledger_api, build(dar_bytes(RICHTYPES)))
    body = assert_error(r, 400, code)
    assert said in body["cause"] and said in body["context"]["reason"]
    assert await package_ids(ledger_api) == before
    assert stored(tmp_path) == rows
    assert await ledger_api.ledger_end() == end


async def test_another_package_with_a_loaded_name_and_version_is_refused(
    ledger_api, dar_bytes, tmp_path
) -> None:
    data = dar_bytes(RICHTYPES)
    assert (await upload(ledger_api, data)).status_code == 200
    before, rows = await package_ids(ledger_api), stored(tmp_path)
    other = _other_content(data)
    new_id = read_dar(other).main.package_id
    for path in ("/v2/dars/validate", "/v2/dars"):
        body = assert_error(await upload(ledger_api, other, path), 400, "KNOWN_DAR_VERSION")
        assert new_id in body["cause"] and read_dar(data).main.package_id in body["cause"]
        assert "richtypes v0.0.1" in body["cause"]
    assert await package_ids(ledger_api) == before
    assert stored(tmp_path) == rows


async def test_references_resolve_to_packages_loaded_before(ledger_api, dar_bytes) -> None:
    data = dar_bytes(RICHTYPES)
    stripped, missing = _without_a_dependency(data)
    assert_error(await upload(ledger_api, stripped), 400, "DAR_NOT_SELF_CONSISTENT")
    assert (await upload(ledger_api, data)).status_code == 200
    assert missing in await package_ids(ledger_api)
    r = await upload(ledger_api, stripped)  # another DAR (other bytes), its missing package now loaded
    assert r.status_code == 200, r.text


# --- commands on Daml-LF templates run their package's code


def _rich(owner: str, marker: str) -> dict:
    return {
        "owner": owner,
        "count": "-42",
        "amount": "1234.5",
        "label": "héllo",
        "active": True,
        "asOf": "2024-02-29",
        "observedAt": "2024-01-02T03:04:05.123456Z",
        "note": "a note",
        "tags": ["b", "a"],
        "attributes": {"a": "1", "z": "2"},
        "marker": marker,
        "profile": {"nickname": "al", "level": "3"},
        "outcome": {"tag": "Win", "value": {"prize": "2.5", "tier": "gold"}},
        "fee": "0.1",
    }


async def test_a_daml_lf_template_is_created_read_and_exercised(ledger_api, alice_bob, dar_bytes) -> None:
    assert (await upload(ledger_api, dar_bytes(RICHTYPES))).status_code == 200
    alice, _ = alice_bob
    main = read_dar(dar_bytes(RICHTYPES)).main.package_id
    rich_id = "#richtypes:RichTypes:RichRecord"
    fmt = transaction_format(alice, shape=LEDGER_EFFECTS)
    r = await submit_tx(
        ledger_api, commands([alice], create({"owner": alice}, "#richtypes:RichTypes:Marker")), user="Alice"
    )
    marker = created_cid(r.json()["transaction"])
    sent = _rich(alice, marker)
    r = await submit_tx(ledger_api, commands([alice], create(sent, rich_id)), user="Alice")
    [(kind, event)] = events_of(r)
    # Numerics come back at their type's scale: Numeric 10, Numeric 2
    padded = {**sent, "amount": "1234.5000000000", "fee": "0.10"}
    padded["outcome"] = {"tag": "Win", "value": {"prize": "2.50", "tier": "gold"}}
    assert kind == "CreatedEvent" and event["templateId"] == f"{main}:RichTypes:RichRecord"
    assert event["createArgument"] == padded and event["signatories"] == [alice]
    rich = event["contractId"]
    end = await ledger_api.ledger_end()
    r = await acs(ledger_api, acs_body(end, event_format(alice, filters=[template(rich_id)])), user="Alice")
    assert r.status_code == 200, r.text
    [active] = created_events(r.json())
    assert active["contractId"] == rich and active["createArgument"] == padded
    cmd = exercise(rich, "Relabel", {"newLabel": "renamed"}, rich_id)
    r = await submit_tx(ledger_api, commands([alice], cmd), user="Alice", fmt=fmt)
    [(exercised_kind, exercised), (created_kind, created)] = events_of(r)
    assert exercised_kind == "ExercisedEvent" and exercised["choice"] == "Relabel"
    assert not exercised["consuming"] and exercised["choiceArgument"] == {"newLabel": "renamed"}
    assert created_kind == "CreatedEvent" and exercised["exerciseResult"] == created["contractId"]
    assert created["createArgument"] == {**padded, "label": "renamed"}
    end = await ledger_api.ledger_end()
    r = await acs(ledger_api, acs_body(end, event_format(alice, filters=[template(rich_id)])), user="Alice")
    assert sorted(cids(r.json())) == sorted([rich, created["contractId"]])
    bad = await submit_tx(
        ledger_api,
        commands([alice], create({"owner": alice}, "#richtypes:RichTypes:NoSuchTemplate")),
        user="Alice",
    )
    assert bad.status_code == 404 and "NOT_FOUND" in bad.text


@contextlib.asynccontextmanager
async def _participant(db):
    app = create_app(settings_for(db))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            yield LedgerApi(http)


async def test_loaded_packages_run_again_after_a_restart(tmp_path, dar_bytes) -> None:
    db = tmp_path / "restart.db"
    marker = "#richtypes:RichTypes:Marker"
    async with _participant(db) as ledger_api:
        assert (await upload(ledger_api, dar_bytes(RICHTYPES))).status_code == 200
        alice = await ledger_api.party("Alice")
        r = await submit_tx(ledger_api, commands([alice], create({"owner": alice}, marker)), user="Alice")
        assert r.status_code == 200, r.text
    async with _participant(db) as ledger_api:  # the packages come back from the database
        r = await submit_tx(ledger_api, commands([alice], create({"owner": alice}, marker)), user="Alice")
        assert r.status_code == 200, r.text
        end = await ledger_api.ledger_end()
        r = await acs(
            ledger_api, acs_body(end, event_format(alice, filters=[template(marker)])), user="Alice"
        )
        assert [event["createArgument"] for event in created_events(r.json())] == [{"owner": alice}] * 2


# --- event filters name Daml-LF templates and interfaces by package name


def _interface(interface_id: str) -> dict:
    value = {"interfaceId": interface_id, "includeInterfaceView": True, "includeCreatedEventBlob": False}
    return {"identifierFilter": {"InterfaceFilter": {"value": value}}}


async def test_filters_resolve_daml_lf_names(ledger_api, alice_bob, dar_bytes) -> None:
    alice, _ = alice_bob
    marker = template("#richtypes:RichTypes:Marker")
    holding = _interface("#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Holding")

    async def snapshot(filter_: dict):
        end = await ledger_api.ledger_end()
        return await acs(ledger_api, acs_body(end, event_format(alice, filters=[filter_])), user="Alice")

    assert_error(await snapshot(marker), 404, "PACKAGE_NAMES_NOT_FOUND")
    for name in (RICHTYPES, HOLDING):
        assert (await upload(ledger_api, dar_bytes(name))).status_code == 200
    for filter_ in (marker, holding):
        r = await snapshot(filter_)
        assert r.status_code == 200 and r.json() == [], r.text  # known, and no contract of it can exist yet
    nope = template("#richtypes:RichTypes:Nope")
    assert_error(await snapshot(nope), 404, "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME")
    absent = _interface("#splice-api-token-holding-v1:Splice.Api.Token.HoldingV1:Absent")
    assert_error(await snapshot(absent), 404, "NO_INTERFACE_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME")


async def test_a_daml_lf_exercise_on_an_archived_contract_is_contract_not_found(
    ledger_api, alice_bob, dar_bytes
) -> None:
    assert (await upload(ledger_api, dar_bytes(RICHTYPES))).status_code == 200
    alice, _ = alice_bob
    marker_id = "#richtypes:RichTypes:Marker"
    r = await submit_tx(ledger_api, commands([alice], create({"owner": alice}, marker_id)), user="Alice")
    marker = created_cid(r.json()["transaction"])
    archive = commands([alice], exercise(marker, "Archive", {}, marker_id))
    assert (await submit_tx(ledger_api, archive, user="Alice")).status_code == 200
    end = await ledger_api.ledger_end()
    again = await submit_tx(
        ledger_api, commands([alice], exercise(marker, "Archive", {}, marker_id)), user="Alice"
    )
    body = assert_error(again, 404, "CONTRACT_NOT_FOUND")
    assert body["cause"] == f"Contract could not be found with id {marker}"
    assert await ledger_api.ledger_end() == end
