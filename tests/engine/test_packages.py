"""Package ids, template signatures, the registry's reference resolution, and Canton's identifier formats."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from participant.base import errors
from participant.engine import ids
from participant.engine.pydsl import Decimal, Text
from participant.engine.registry import PackageRegistry
from participant.models import iou, keyed
from tests.engine.made_package import make_package

HEX64 = re.compile(r"[0-9a-f]{64}")


def test_package_id_is_a_stable_hash_of_the_definition():
    assert HEX64.fullmatch(iou.package.package_id)
    code = "from participant.models.iou import package; print(package.package_id)"
    other_run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert other_run.stdout.strip() == iou.package.package_id
    assert make_package(Decimal).package_id == make_package(Decimal).package_id
    assert make_package(Decimal).package_id != make_package(Text).package_id
    assert make_package(Decimal).package_id != make_package(Decimal, "1.0.1").package_id


def test_a_package_in_use_is_closed():
    package = make_package(Decimal)
    assert package.package_id
    with pytest.raises(RuntimeError):
        package.record("Main:Late")(type("Late", (), {}))


def test_template_signature():
    signature = iou.Iou.signature()
    assert signature["templateId"] == f"{iou.package.package_id}:Iou:Iou"
    assert signature["fields"] == {
        "issuer": "Party",
        "owner": "Party",
        "currency": "Text",
        "amount": {"Numeric": 10},
        "observers": {"List": "Party"},
    }
    choices = {c["name"]: c for c in signature["choices"]}
    assert set(choices) == {
        "Iou_Split",
        "Iou_Merge",
        "Iou_Transfer",
        "Iou_AddObserver",
        "Iou_RemoveObserver",
        "DateCheckAddDays",
        "TimestampCheckAddHours",
        "TextMapCheck",
        "Iou_Inspect",
        "Iou_Settle",
        "Archive",
    }
    assert choices["Iou_Split"]["returnType"] == {
        "Tuple": [{"ContractId": "Iou:Iou"}, {"ContractId": "Iou:Iou"}]
    }
    assert choices["Archive"] == {"name": "Archive", "consuming": True, "argument": {}, "returnType": "Unit"}
    assert choices["Iou_Inspect"]["consuming"] is False
    assert keyed.Account.signature()["key"] == {"Tuple": ["Party", "Text"]}


@pytest.fixture
def registry():
    return PackageRegistry([iou.package, keyed.package])


def test_resolve_template_by_id_and_by_name(registry):
    package_id = iou.package.package_id
    assert registry.resolve_template(f"{package_id}:Iou:Iou") is iou.Iou.definition()
    assert registry.resolve_template("#model-tests:Iou:IouTransfer") is iou.IouTransfer.definition()
    assert registry.template_by_id(f"{package_id}:Iou:Iou") is iou.Iou.definition()


def test_name_form_prefers_the_highest_version(registry):
    old, new = make_package(Decimal, "1.2.0"), make_package(Decimal, "1.10.0")
    registry.add(new)
    registry.add(old)
    assert registry.resolve_template("#made:Main:Thing") is new.templates["Main:Thing"]
    assert registry.resolve_filter("#made:Main:Thing") == [
        new.templates["Main:Thing"],
        old.templates["Main:Thing"],
    ]


@pytest.mark.parametrize(
    "ref,code",
    [
        ("Iou:Iou", errors.INVALID_ARGUMENT),
        ("#model-tests:Iou", errors.INVALID_ARGUMENT),
        ("#model tests:Iou:Iou", errors.INVALID_ARGUMENT),
        ("#model-tests:Iou:1Iou", errors.INVALID_ARGUMENT),
        ("a" * 64 + ":Iou:Iou", errors.TEMPLATES_OR_INTERFACES_NOT_FOUND),
        ("#model-tests:Iou:Nope", errors.TEMPLATES_OR_INTERFACES_NOT_FOUND),
        ("#no-such-package:Iou:Iou", errors.JSON_API_PACKAGE_SELECTION_FAILED),
    ],
)
def test_resolve_template_errors(registry, ref, code):
    with pytest.raises(errors.LedgerError) as caught:
        registry.resolve_template(ref)
    assert caught.value.code is code
    if code is errors.TEMPLATES_OR_INTERFACES_NOT_FOUND:
        assert caught.value.status == 404 and caught.value.resources == [("TEMPLATE_ID", ref)]
        assert caught.value.cause == f"Templates do not exist: [{ref}]"


@pytest.mark.parametrize(
    "ref,code",
    [
        (f"{iou.package.package_id}:Iou:Iou", errors.INVALID_FIELD),
        ("#nope:Iou:Iou", errors.PACKAGE_NAMES_NOT_FOUND),
        ("#model-tests:Iou:Nope", errors.NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME),
    ],
)
def test_resolve_filter_errors(registry, ref, code):
    with pytest.raises(errors.LedgerError) as caught:
        registry.resolve_filter(ref)
    assert caught.value.code is code
    if code is errors.INVALID_FIELD:
        assert "but expected a package name" in caught.value.cause


def test_load_module_finds_its_packages():
    registry = PackageRegistry()
    assert registry.load_module("participant.models.keyed") == [keyed.package]
    assert registry.preferred("keyed-example") is keyed.package
    with pytest.raises(ValueError):
        registry.load_module("participant.engine.values")


def test_generated_ids_have_cantons_shapes():
    generator = ids.IdGenerator()
    contract_id = generator.contract_id()
    assert re.fullmatch(r"00[0-9a-f]{64}ca121220[0-9a-f]{64}", contract_id) and len(contract_id) == 138
    assert ids.is_contract_id(contract_id) and generator.contract_id() != contract_id
    assert re.fullmatch(r"1220[0-9a-f]{64}", generator.update_id())
    party = ids.party_id("Alice", ids.fingerprint("seed"))
    assert ids.is_canton_party_id(party) and party.startswith("Alice::1220")
    assert ids.participant_id(ids.fingerprint("seed")).startswith("participant1::1220")
    assert ids.synchronizer_id("da1", ids.fingerprint("s")).startswith("da1::1220")
    assert ids.IdGenerator("x").contract_id() == ids.IdGenerator("x").contract_id()


@pytest.mark.parametrize(
    "check,good,bad",
    [
        (ids.is_party_id_string, ["Alice::1220ab", "a b_c-d"], ["", "a@b", "x" * 256]),
        (ids.is_ledger_string, ["cmd-1.2#x/y"], ["", "a@b"]),
        (ids.is_name_string, ["Iou_Split", "$x", "_"], ["1a", "a-b", ""]),
        (ids.is_package_name, ["model-tests"], ["model tests", "a.b"]),
        (ids.is_user_id_string, ["alice@example.com", "x|y"], ["", "a b", "u" * 129]),
        (ids.is_contract_id, ["00" + "0" * 64], ["01" + "0" * 64, "00" + "0" * 63, "00" + "A" * 64]),
        (ids.is_canton_party_id, ["a::1220" + "0" * 64], ["a::1220", "a::b::1220" + "0" * 64]),
    ],
)
def test_validators(check, good, bad):
    assert all(check(value) for value in good) and not any(check(value) for value in bad)


def test_require_raises_invalid_field():
    with pytest.raises(errors.LedgerError) as caught:
        ids.require_party("a@b", "actAs")
    assert caught.value.code is errors.INVALID_FIELD and "Invalid field actAs" in caught.value.cause


def test_key_hash_is_stable_and_distinguishes_templates():
    one = ids.contract_key_hash("p", "M:T", {"_1": "a"})
    assert one == ids.contract_key_hash("p", "M:T", {"_1": "a"}) and HEX64.fullmatch(one)
    assert (
        one
        != ids.contract_key_hash("p", "M:U", {"_1": "a"})
        != ids.contract_key_hash("q", "M:T", {"_1": "a"})
    )
