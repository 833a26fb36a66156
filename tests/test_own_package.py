"""`--package MODULE`: the README's example package loads and runs through the real HTTP API."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import httpx

from participant.server.app import create_app
from tests.conftest import LedgerApi, settings_for

README = Path(__file__).resolve().parents[1] / "README.md"


def readme_package_source() -> str:
    text = README.read_text()
    match = re.search(r"```python\n(# my_models\.py\n.*?)```", text, re.S)
    assert match, "README lost its example package"
    return match.group(1)


async def test_readme_package_serves_commands(tmp_path, monkeypatch):
    (tmp_path / "my_models.py").write_text(readme_package_source())
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("my_models", None)
    app = create_app(settings_for(tmp_path / "ledger.db", packages=("my_models",)))
    async with app.router.lifespan_context(app):
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as http:
            ledger_api = LedgerApi(http)
            issuer, holder = await ledger_api.party("Issuer"), await ledger_api.party("Holder")
            other = await ledger_api.party("Other")
            r = await ledger_api.post(
                "/v2/commands/submit-and-wait-for-transaction",
                {
                    "commands": {
                        "commands": [
                            {
                                "CreateCommand": {
                                    "templateId": "#my-models:Bond:Bond",
                                    "createArguments": {"issuer": issuer, "holder": holder, "face": "1000"},
                                }
                            }
                        ],
                        "commandId": "bond-1",
                        "actAs": [issuer],
                    }
                },
                user="Issuer",
            )
            assert r.status_code == 200, r.text
            created = r.json()["transaction"]["events"][0]["CreatedEvent"]
            assert created["createArgument"] == {
                "issuer": issuer,
                "holder": holder,
                "face": "1000.0000000000",
            }
            assert created["packageName"] == "my-models"
            r = await ledger_api.exercise(
                "#my-models:Bond:Bond",
                created["contractId"],
                "Bond_Transfer",
                {"newHolder": other},
                act_as=[holder],
                user="Holder",
            )
            assert r.status_code == 200, r.text
            # The holder is not a stakeholder of the new bond, so by default it sees only the archive.
            events = r.json()["transaction"]["events"]
            assert [next(iter(e)) for e in events] == ["ArchivedEvent"]
            r = await ledger_api.post(
                "/v2/state/active-contracts",
                {
                    "activeAtOffset": await ledger_api.ledger_end(),
                    "eventFormat": {"filtersByParty": {other: {}}},
                },
                user="Other",
            )
            assert [
                e["contractEntry"]["JsActiveContract"]["createdEvent"]["createArgument"]["holder"]
                for e in r.json()
            ] == [other]
            packages = (await ledger_api.get("/v2/packages")).json()["packageIds"]
            assert created["templateId"].split(":")[0] in packages
