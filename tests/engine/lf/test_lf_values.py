"""Daml-LF types drive the engine's JSON value codec: JSON in, the evaluator's values, the same JSON out; bad
values refused with the codec's messages and paths, hence Canton's errors (docs/ledger-api.md §9)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

import pytest

from participant.base import errors
from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.engine import coding
from participant.engine.lf.definitions import LfPackages
from participant.engine.values import DecodeError, MalformedVariant, RecordType
from tests.engine.lf.conftest import ALICE, BOB, CID, CID2, DSO
from tests.engine.lf.rich_record import RICH, rich_type


def test_rich_record_round_trips_exactly(lf_richtypes: LfPackages) -> None:
    rich = rich_type(lf_richtypes)
    value = rich.decode(RICH)
    assert rich.encode(value) == RICH
    pending = {**RICH, "note": None, "outcome": {"tag": "Pending", "value": {}}, "tags": [], "attributes": {}}
    assert rich.encode(rich.decode(pending)) == pending


def test_rich_record_decodes_to_the_evaluators_values(lf_richtypes: LfPackages) -> None:
    value = rich_type(lf_richtypes).decode(RICH)
    assert isinstance(value, rt.Record) and value.tycon.qualified_name == "RichTypes:RichRecord"
    fields = dict(zip(value.fields, value.values, strict=True))
    assert type(fields["owner"]) is rt.Party and fields["owner"] == ALICE
    assert fields["count"] == -42
    assert fields["amount"] == Decimal("1234.5") and rt.numeric_scale(fields["amount"]) == 10
    assert rt.numeric_scale(fields["fee"]) == 2
    assert fields["asOf"] == rt.Date(19782) and type(fields["asOf"]) is rt.Date
    assert (
        fields["observedAt"] == rt.Timestamp(1704164645123456) and type(fields["observedAt"]) is rt.Timestamp
    )
    assert isinstance(fields["note"], rt.Some) and fields["note"].value == "a note"
    assert list(fields["tags"]) == ["b", "a"] and isinstance(fields["tags"], rt.Cons)
    attributes = fields["attributes"]
    assert isinstance(attributes, rt.TextMap) and (attributes.keys, attributes.values) == (
        ("a", "z"),
        ("1", "2"),
    )
    assert type(fields["marker"]) is rt.ContractId
    outcome = fields["outcome"]
    assert isinstance(outcome, rt.Variant) and (outcome.constructor, outcome.rank) == ("Win", 0)


def test_output_is_canonical(lf_richtypes: LfPackages) -> None:
    """Numerics padded to their scale, Int64 as strings, TextMap keys sorted, times in UTC to the microsecond."""
    rich = rich_type(lf_richtypes)
    loose = {
        **RICH,
        "count": 7,
        "amount": "1.5",
        "fee": 3,
        "attributes": {"z": "2", "a": "1"},
        "observedAt": "2024-01-02T04:04:05.5+01:00",
    }
    out = rich.encode(rich.decode(loose))
    assert (out["count"], out["amount"], out["fee"]) == ("7", "1.5000000000", "3.00")
    assert list(out["attributes"]) == ["a", "z"]
    assert out["observedAt"] == "2024-01-02T03:04:05.5Z"


def test_absent_optional_fields_are_none(lf_richtypes: LfPackages) -> None:
    rich = rich_type(lf_richtypes)
    value = rich.decode({k: v for k, v in RICH.items() if k != "note"})
    assert value.values[value.fields.index("note")] is None


@pytest.mark.parametrize(
    "change,path,text",
    [
        ({"count": "4.5"}, "count", "Expected Int64"),
        ({"count": "9223372036854775808"}, "count", "Int64 out of range"),
        ({"amount": "0.00000000001"}, "amount", "Cannot represent"),
        ({"fee": "0.001"}, "fee", "Numeric 2 without loss of precision"),
        ({"owner": "not a party!"}, "owner", "Invalid party"),
        ({"asOf": "2023-02-29"}, "asOf", "Invalid date"),
        ({"observedAt": "2024-01-02T03:04:05.1234567Z"}, "observedAt", "more precise than microseconds"),
        ({"note": 5}, "note", "Expected Text"),
        ({"tags": ["a", 5]}, "tags[1]", "Expected Text"),
        ({"attributes": {"k": True}}, "attributes.k", "Expected Text"),
        ({"marker": "zz"}, "marker", "Invalid contract id"),
        ({"profile": {"nickname": "x", "level": "x"}}, "profile.level", "Expected Int64"),
        ({"profile": {"nickname": "x"}}, "profile", "Missing non-optional fields: Set(level)"),
        ({"outcome": {"tag": "Win", "value": {"prize": "x", "tier": "t"}}}, "outcome.value.prize", "Numeric"),
        ({"label": None}, "label", "Expected Text but got null"),
        ({"extra": 1}, "", "Unexpected fields: Set(extra)"),
    ],
)
def test_bad_values_are_refused_with_their_path(
    lf_richtypes: LfPackages, change: dict[str, Any], path: str, text: str
) -> None:
    with pytest.raises(DecodeError) as caught:
        rich_type(lf_richtypes).decode({**RICH, **change})
    assert caught.value.path == path and text in caught.value.message, caught.value.text
    with pytest.raises(errors.LedgerError) as refused:
        coding.decode(rich_type(lf_richtypes), {**RICH, **change})
    assert refused.value.code is errors.COMMAND_PREPROCESSING_FAILED
    assert refused.value.context == ({"path": path} if path else {})


def test_missing_fields_are_refused(lf_richtypes: LfPackages) -> None:
    with pytest.raises(DecodeError, match=r"Missing non-optional fields: Set\(label, fee\)"):
        rich_type(lf_richtypes).decode({k: v for k, v in RICH.items() if k not in ("label", "fee")})


@pytest.mark.parametrize(
    "outcome,text",
    [({"tag": "Lose", "value": {}}, "Unknown constructor 'Lose'"), ("Win", "Expected a variant")],
)
def test_malformed_variants_are_invalid_arguments(lf_richtypes: LfPackages, outcome: Any, text: str) -> None:
    with pytest.raises(MalformedVariant, match=text):
        rich_type(lf_richtypes).decode({**RICH, "outcome": outcome})
    with pytest.raises(errors.LedgerError) as refused:
        coding.decode(rich_type(lf_richtypes), {**RICH, "outcome": outcome})
    assert refused.value.code is errors.INVALID_ARGUMENT


def test_encoding_refuses_values_of_another_type(lf_richtypes: LfPackages) -> None:
    rich = rich_type(lf_richtypes)
    value = rich.decode(RICH)
    wrong = rt.Record(
        value.tycon,
        value.fields,
        tuple("x" if f == "asOf" else v for f, v in zip(value.fields, value.values, strict=True)),
    )
    with pytest.raises(ValueError, match="not a Date"):
        rich.encode(wrong)
    profile = value.values[value.fields.index("profile")]
    with pytest.raises(ValueError, match="expected a RichTypes:RichRecord record"):
        rich.encode(profile)


def test_nested_optionals_are_arrays(lf_richtypes: LfPackages) -> None:
    int64 = ast.TBuiltin("INT64")
    nested = lf_richtypes.types.of(ast.TBuiltin("OPTIONAL", (ast.TBuiltin("OPTIONAL", (int64,)),)))
    assert nested.decode([]) is None
    some_none = nested.decode([[]])
    assert isinstance(some_none, rt.Some) and some_none.value is None
    some_some = nested.decode([["5"]])
    assert isinstance(some_some.value, rt.Some) and some_some.value.value == 5
    json_value: list
    for json_value in ([], [[]], [["5"]]):
        assert nested.encode(nested.decode(json_value)) == json_value
    with pytest.raises(DecodeError) as caught:
        nested.decode([["x"]])
    assert caught.value.path == "[0][0]"
    flat = lf_richtypes.types.of(ast.TBuiltin("OPTIONAL", (int64,)))
    assert flat.encode(flat.decode("5")) == "5" and flat.encode(flat.decode(None)) is None


def transfer_argument() -> dict[str, Any]:
    """`AmuletRules_Transfer`'s argument as a wallet sends it (Splice.AmuletRules, splice-amulet 0.1.14)."""
    return {
        "transfer": {
            "sender": ALICE,
            "provider": ALICE,
            "inputs": [
                {"tag": "InputAmulet", "value": CID},
                {"tag": "InputAppRewardCoupon", "value": CID2},
                {
                    "tag": "ExtTransferInput",
                    "value": {"dummyUnitField": {}, "optInputValidatorFaucetCoupon": CID},
                },
            ],
            "outputs": [
                {
                    "receiver": BOB,
                    "receiverFeeRatio": "0.0000000000",
                    "amount": "10.5000000000",
                    "lock": {"holders": [DSO], "expiresAt": "2025-01-01T00:00:00Z", "optContext": "escrow"},
                },
                # its lock a trailing None: absent, as Canton prints it
                {
                    "receiver": ALICE,
                    "receiverFeeRatio": "1.0000000000",
                    "amount": "1.0000000000",
                },
            ],
            "beneficiaries": [{"beneficiary": ALICE, "weight": "1.0000000000"}],
        },
        "context": {
            "openMiningRound": CID,
            "issuingMiningRounds": [[{"number": "2"}, CID2], [{"number": "1"}, CID]],
            "validatorRights": [[BOB, CID2], [ALICE, CID]],
            "featuredAppRight": None,
        },
        "expectedDso": DSO,
    }


def transfer_type(lf_amulet: LfPackages) -> RecordType:
    rules = lf_amulet.main.templates["Splice.AmuletRules:AmuletRules"]
    return rules.choices["AmuletRules_Transfer"].argument_type


def test_amulet_transfer_argument_decodes(lf_amulet: LfPackages) -> None:
    transfer = transfer_type(lf_amulet)
    value = transfer.decode(transfer_argument())
    out = transfer.encode(value)
    context = out.pop("context")
    expected = transfer_argument()
    del expected["context"]
    assert out == expected
    # GenMaps come out in Daml's order of their keys (records, parties), as Canton's sorted maps
    assert context["issuingMiningRounds"] == [[{"number": "1"}, CID], [{"number": "2"}, CID2]]
    assert context["validatorRights"] == [[ALICE, CID], [BOB, CID2]]
    assert context["openMiningRound"] == CID and "featuredAppRight" not in context  # a trailing None
    rounds = value.values[1].values[1]
    assert isinstance(rounds, rt.GenMap) and [r.values[0] for r in rounds.keys] == [1, 2]


def test_amulet_transfer_refusals_name_the_field(lf_amulet: LfPackages) -> None:
    transfer = transfer_type(lf_amulet)
    argument = transfer_argument()
    argument["transfer"]["outputs"][0]["lock"]["holders"] = [DSO, 7]
    with pytest.raises(DecodeError) as caught:
        transfer.decode(argument)
    assert caught.value.path == "transfer.outputs[0].lock.holders[1]"
    argument = transfer_argument()
    argument["context"]["issuingMiningRounds"] = [[{"number": "1"}, CID], [{"number": "1"}, CID2]]
    with pytest.raises(DecodeError, match="Duplicate GenMap key") as caught:
        transfer.decode(argument)
    assert caught.value.path == "context.issuingMiningRounds[1]"
    argument = transfer_argument()
    argument["transfer"]["inputs"][2]["value"]["optInputValidatorFaucetCoupon"] = "nope"
    with pytest.raises(DecodeError) as caught:
        transfer.decode(argument)
    assert caught.value.path == "transfer.inputs[2].value.optInputValidatorFaucetCoupon"


def test_generic_types_are_instantiated(lf_amulet: LfPackages) -> None:
    """`AmuletCreateSummary (ContractId Amulet)`: the type parameter substituted in the fields."""
    locked = lf_amulet.main.templates["Splice.Amulet:LockedAmulet"]
    result = locked.choices["LockedAmulet_Unlock"].result_type
    assert isinstance(result, RecordType)
    summary = result.fields["amuletSum"]
    assert isinstance(summary, RecordType)
    assert summary.fields["amulet"].describe() == {"ContractId": "Splice.Amulet:Amulet"}
    json_value = {
        "amuletSum": {"amulet": CID, "amuletPrice": "0.0050000000", "round": {"number": "3"}},
        "meta": None,
    }
    assert result.encode(result.decode(json_value)) == {k: v for k, v in json_value.items() if k != "meta"}
