"""The typed form's model on the real DARs: field types resolved from the signatures, a value filled, its JSON
encoding, read back from JSON, and its problems with their paths."""

from __future__ import annotations

import pytest

from app.compose.form import (
    BoolNode,
    EnumNode,
    FormContext,
    ListNode,
    MapNode,
    Node,
    OptionalNode,
    RecordNode,
    TextNode,
    ValueForm,
    VariantNode,
)
from app.compose.types import (
    ContractIdT,
    GenMapT,
    ListT,
    NumericT,
    OptionalT,
    RecordT,
    Scalar,
    TextMapT,
    TypeResolver,
    VariantT,
)
from participant.daml_lf import ast
from participant.daml_lf.signatures import Signatures, signatures_of
from tests.daml_lf.conftest import amulet, amulet_signatures, dar_bytes, dars_dir, richtypes  # noqa: F401  (pytest fixtures, used by name)

ALICE = "Alice::1220" + "ab" * 32
BOB = "Bob::1220" + "cd" * 32
CID = "00" + "11" * 32 + "ca0212"
CONTEXT = FormContext(lambda: [ALICE, BOB])


@pytest.fixture(scope="module")
def rich(richtypes) -> Signatures:  # noqa: F811  (the fixture imported above)
    return signatures_of(richtypes)


def rich_record(rich: Signatures) -> ValueForm:
    resolver = TypeResolver(rich.packages)
    return ValueForm(
        resolver.template_arguments(rich.main.templates["RichTypes:RichRecord"]), "createArguments", CONTEXT
    )


def fill(node, text: str) -> None:
    assert isinstance(node, TextNode)
    node.text = text


def record(node: Node) -> RecordNode:
    assert isinstance(node, RecordNode)
    return node


def listed(node: Node) -> ListNode:
    assert isinstance(node, ListNode)
    return node


def mapped(node: Node) -> MapNode:
    assert isinstance(node, MapNode)
    return node


def optional(node: Node) -> OptionalNode:
    assert isinstance(node, OptionalNode)
    return node


def test_a_template_s_fields_get_their_types(rich: Signatures) -> None:
    form = rich_record(rich)
    assert isinstance(form.type, RecordT)
    types = dict(form.type.fields)
    assert types["owner"] == Scalar("PARTY") and types["count"] == Scalar("INT64")
    assert types["amount"] == NumericT(10) and types["fee"] == NumericT(2)
    assert types["note"] == OptionalT(Scalar("TEXT")) and types["tags"] == ListT(Scalar("TEXT"))
    assert types["attributes"] == TextMapT(Scalar("TEXT"))
    assert (
        isinstance(types["marker"], ContractIdT)
        and types["marker"].template is not None
        and types["marker"].template.qualified_name == "RichTypes:Marker"
    )
    assert isinstance(types["profile"], RecordT) and [n for n, _ in types["profile"].fields] == [
        "nickname",
        "level",
    ]
    outcome = types["outcome"]
    assert isinstance(outcome, VariantT) and [n for n, _ in outcome.constructors] == ["Win", "Pending"]


def test_a_rich_record_filled_encodes_as_the_json_api_takes_it_and_reads_back(rich: Signatures) -> None:
    form = rich_record(rich)
    root = form.node
    assert isinstance(root, RecordNode)
    f = root.fields
    fill(f["owner"], "Alice")  # a short name stands for the one known party with it
    fill(f["count"], "42")
    fill(f["amount"], "12.5")
    fill(f["label"], "first")
    assert isinstance(f["active"], BoolNode)
    f["active"].value = True
    fill(f["asOf"], "2030-01-31")
    fill(f["observedAt"], "2030-01-31T12:00:00.250+01:00")
    note = f["note"]
    assert isinstance(note, OptionalNode)
    note.present = True
    fill(note.child, "hello")
    tags = f["tags"]
    assert isinstance(tags, ListNode)
    fill(tags.add(), "b")
    fill(tags.add(0), "a")
    attributes = f["attributes"]
    assert isinstance(attributes, MapNode)
    key, value = attributes.add()
    fill(key, "colour")
    fill(value, "blue")
    fill(f["marker"], CID)
    profile = f["profile"]
    assert isinstance(profile, RecordNode)
    fill(profile.fields["nickname"], "al")
    fill(profile.fields["level"], "-3")
    outcome = f["outcome"]
    assert isinstance(outcome, VariantNode)
    assert isinstance(outcome.payload, RecordNode)
    fill(outcome.payload.fields["prize"], "1.5")
    fill(outcome.payload.fields["tier"], "gold")
    fill(f["fee"], "0.25")

    assert form.problems() == []
    encoded = form.to_json()
    assert encoded == {
        "owner": ALICE,
        "count": "42",
        "amount": "12.5000000000",
        "label": "first",
        "active": True,
        "asOf": "2030-01-31",
        "observedAt": "2030-01-31T11:00:00.25Z",
        "note": "hello",
        "tags": ["a", "b"],
        "attributes": {"colour": "blue"},
        "marker": CID,
        "profile": {"nickname": "al", "level": "-3"},
        "outcome": {"tag": "Win", "value": {"prize": "1.50", "tier": "gold"}},
        "fee": "0.25",
    }
    again = rich_record(rich)
    assert again.load(encoded) == []
    assert again.to_json() == encoded and again.problems() == []

    # the variant keeps each constructor's payload: Pending, then Win again, loses nothing
    outcome.constructor = "Pending"
    assert form.to_json()["outcome"] == {"tag": "Pending", "value": {}}
    outcome.constructor = "Win"
    assert form.to_json()["outcome"]["value"] == {"prize": "1.50", "tier": "gold"}
    # an Optional set to none keeps the value typed; a trailing none reads back from a missing key
    note.present = False
    assert form.to_json()["note"] is None
    note.present = True
    assert form.to_json()["note"] == "hello"
    encoded.pop("note")
    assert again.load(encoded) == [] and again.to_json()["note"] is None
    # reorder and remove
    assert tags.move(0, +1) == 1 and tags.to_json() == ["b", "a"]
    tags.remove(0)
    assert tags.to_json() == ["a"]


def test_problems_name_their_path(rich: Signatures) -> None:
    form = rich_record(rich)
    assert (
        form.load(
            {
                "owner": "Carol",
                "count": "4.5",
                "amount": "1.12345678901",
                "label": "x",
                "active": False,
                "asOf": "2030-02-30",
                "observedAt": "2030-01-01T00:00:00",
                "tags": ["a", "b", "c"],
                "attributes": {},
                "marker": "not-an-id",
                "profile": {"nickname": "n", "level": "1"},
                "outcome": {"tag": "Win", "value": {"prize": "1.234", "tier": "t"}},
                "fee": "1e40",
            }
        )
        == []
    )
    attributes = mapped(record(form.node).fields["attributes"])
    for key in ("k", "k"):
        row_key, row_value = attributes.add()
        fill(row_key, key)
    assert [str(p) for p in form.problems()] == [
        "createArguments.owner: no known party is named 'Carol': write its id (name::fingerprint)",
        "createArguments.count: Int is a whole number, not '4.5'",
        "createArguments.amount: Numeric 10 has at most 10 decimals",
        "createArguments.asOf: 2030-02-30 is not a day: February 2030 has 28",
        "createArguments.observedAt: add the time zone: Z for UTC, or an offset such as +01:00",
        "createArguments.attributes[1].key: the key 'k' is already in the map",
        "createArguments.marker: a contract id is 00 followed by hexadecimal digits",
        "createArguments.outcome.Win.prize: Numeric 2 has at most 2 decimals",
        "createArguments.fee: Numeric 2 has at most 36 digits before the point",
    ]


@pytest.mark.parametrize(
    ("kind", "text", "says"),
    [
        ("DATE", "2024-02-30", "2024-02-30 is not a day: February 2024 has 29"),
        ("DATE", "2023-02-29", "2023-02-29 is not a day: February 2023 has 28"),
        ("DATE", "2024-04-31", "2024-04-31 is not a day: April 2024 has 30"),
        ("DATE", "2024-01-00", "2024-01-00 is not a day: January 2024 has 31"),
        ("DATE", "2024-13-01", "2024-13-01 is not a day: a year has 12 months, and 13 is not one"),
        ("DATE", "2024-00-10", "2024-00-10 is not a day: a year has 12 months, and 00 is not one"),
        ("DATE", "0000-01-01", "0000-01-01 is not a day: years run from 0001 to 9999"),
        ("DATE", "2024-2-3", "a Date is YYYY-MM-DD, not '2024-2-3'"),
        ("TIMESTAMP", "2024-02-30T12:00:00Z", "2024-02-30 is not a day: February 2024 has 29"),
        ("TIMESTAMP", "2023-11-31T00:00Z", "2023-11-31 is not a day: November 2023 has 30"),
        ("TIMESTAMP", "2024-02-29T24:00:00Z", "24:00:00 is not a time of day: hours run from 00 to 23"),
        ("TIMESTAMP", "2024-02-29T12:60Z", "12:60 is not a time of day: minutes run from 00 to 59"),
        ("TIMESTAMP", "2024-02-29T12:00:61Z", "12:00:61 is not a time of day: seconds run from 00 to 59"),
        ("TIMESTAMP", "2024-02-29T12:00:00+24:00", "+24:00 is not an offset from UTC: at most 23:59"),
    ],
)
def test_an_impossible_day_or_time_says_what_does_not_exist(kind: str, text: str, says: str) -> None:
    node = TextNode(Scalar(kind), CONTEXT)
    fill(node, text)
    assert node.problem() == says and node.to_json() == text  # sent as typed: the participant refuses it too


@pytest.mark.parametrize(
    ("kind", "text", "sent"),
    [
        ("DATE", "2024-02-29", "2024-02-29"),
        ("DATE", "9999-12-31", "9999-12-31"),
        ("TIMESTAMP", "2024-02-29T23:59:59.5+01:00", "2024-02-29T22:59:59.5Z"),
        ("TIMESTAMP", "2024-03-01T00:30-23:59", "2024-03-02T00:29:00Z"),
    ],
)
def test_a_real_day_and_time_have_no_problem(kind: str, text: str, sent: str) -> None:
    node = TextNode(Scalar(kind), CONTEXT)
    fill(node, text)
    assert node.problem() is None and node.to_json() == sent


def test_json_that_does_not_fit_is_named_where(rich: Signatures) -> None:
    form = rich_record(rich)
    problems = form.load(
        {
            "owner": ALICE,
            "count": True,
            "tags": ["a", 7],
            "outcome": {"tag": "Lose", "value": {}},
            "surprise": 1,
        }
    )
    assert [str(p) for p in problems] == [
        "createArguments.count: expected Int but got a boolean",
        "createArguments.amount: missing",
        "createArguments.label: missing",
        "createArguments.active: missing",
        "createArguments.asOf: missing",
        "createArguments.observedAt: missing",
        "createArguments.tags[1]: expected Text but got a number",
        "createArguments.attributes: missing",
        "createArguments.marker: missing",
        "createArguments.profile: missing",
        "createArguments.outcome: RichTypes:Outcome has no constructor 'Lose' (it has Win, Pending)",
        "createArguments.fee: missing",
        "createArguments.surprise: RichTypes:RichRecord has no such field",
    ]
    # what fitted is kept
    assert form.to_json()["owner"] == ALICE and form.to_json()["tags"] == ["a", ""]


def transfer_form(signatures: Signatures) -> ValueForm:
    template = signatures.main.templates["Splice.AmuletRules:AmuletRules"]
    choice = template.choice("AmuletRules_Transfer")
    assert choice is not None
    return ValueForm(TypeResolver(signatures.packages).choice_argument(choice), "choiceArgument", CONTEXT)


def test_the_amulet_transfer_argument_deeply_nested(amulet_signatures: Signatures) -> None:  # noqa: F811  (the fixture imported above)
    form = transfer_form(amulet_signatures)
    transfer = record(record(form.node).fields["transfer"])
    fill(transfer.fields["sender"], "Alice")
    fill(transfer.fields["provider"], BOB)
    inputs = listed(transfer.fields["inputs"])
    first = inputs.add()
    assert isinstance(first, VariantNode)
    first.constructor = "InputAmulet"
    fill(first.payload, CID)
    outputs = listed(transfer.fields["outputs"])
    for amount in ("10", "2.5"):
        out = record(outputs.add())
        fill(out.fields["receiver"], "Bob")
        fill(out.fields["receiverFeeRatio"], "0")
        fill(out.fields["amount"], amount)
        lock = out.fields["lock"]
        assert isinstance(lock, OptionalNode) and isinstance(lock.child, RecordNode)
    lock = optional(record(outputs.items[1]).fields["lock"])
    lock.present = True
    holders = listed(record(lock.child).fields["holders"])
    fill(holders.add(), "Alice")
    fill(record(lock.child).fields["expiresAt"], "2031-01-01T00:00:00Z")
    context = record(record(form.node).fields["context"])
    fill(context.fields["openMiningRound"], CID)
    rounds = context.fields["issuingMiningRounds"]
    assert isinstance(rounds, MapNode) and isinstance(rounds.type, GenMapT)
    round_key, round_cid = rounds.add()
    fill(record(round_key).fields["number"], "7")
    fill(round_cid, CID)
    expected = optional(record(form.node).fields["expectedDso"])
    expected.present = True
    fill(expected.child, "Bob")
    assert form.problems() == []

    encoded = form.to_json()
    assert encoded["transfer"]["inputs"] == [{"tag": "InputAmulet", "value": CID}]
    assert encoded["transfer"]["outputs"][1]["lock"] == {
        "holders": [ALICE],
        "expiresAt": "2031-01-01T00:00:00Z",
        **{
            k: v
            for k, v in encoded["transfer"]["outputs"][1]["lock"].items()
            if k not in ("holders", "expiresAt")
        },
    }
    assert encoded["transfer"]["outputs"][0] == {
        "receiver": BOB,
        "receiverFeeRatio": "0.0000000000",
        "amount": "10.0000000000",
        "lock": None,
    }
    assert encoded["context"]["issuingMiningRounds"] == [[{"number": "7"}, CID]]
    assert encoded["expectedDso"] == BOB
    again = transfer_form(amulet_signatures)
    assert again.load(encoded) == []
    assert again.to_json() == encoded

    fill(record(outputs.items[1]).fields["amount"], "0.00000000001")
    inputs.add()  # a second input, its constructor's contract id not given
    assert [str(p) for p in form.problems()] == [
        "choiceArgument.transfer.inputs[1].InputAppRewardCoupon: required: the id of a contract of "
        "Splice.Amulet:AppRewardCoupon",
        "choiceArgument.transfer.outputs[1].amount: Numeric 10 has at most 10 decimals",
    ]


def test_an_enum_is_one_of_its_constructors(amulet_signatures: Signatures) -> None:  # noqa: F811  (the fixture imported above)
    enums = [
        (package, dt)
        for package in amulet_signatures.packages.values()
        for dt in package.data_types.values()
        if type(dt.cons).__name__ == "Enum" and not dt.params
    ]
    assert enums
    package, data_type = enums[0]
    resolver = TypeResolver(amulet_signatures.packages)
    form = ValueForm(resolver.data_type(data_type.ref, ()), "value")
    assert isinstance(form.node, EnumNode)
    assert isinstance(data_type.cons, ast.Enum)
    first, *rest = data_type.cons.constructors
    assert form.to_json() == first
    if rest:
        assert form.load(rest[0]) == [] and form.to_json() == rest[0]
    assert [str(p) for p in form.load("Nope")] == [
        f"value: expected one of {', '.join(data_type.cons.constructors)}, got 'Nope'"
    ]
