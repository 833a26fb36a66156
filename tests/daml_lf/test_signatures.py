"""Signatures of the real DARs: richtypes exactly as RichTypes.daml declares it, Canton Coin and the token
standard, and references that resolve across a DAR's packages."""

from __future__ import annotations

import pytest

from participant.daml_lf import ast
from participant.daml_lf.archive import read_dar
from participant.daml_lf.packages import PackageSet
from participant.daml_lf.signatures import (
    DataTypeSignature,
    Signatures,
    UnreadablePackage,
    read_package_signature,
    read_signatures,
    show_type,
)

from .conftest import RICHTYPES
from .test_archive import ALL_DARS


@pytest.fixture(scope="module")
def rich(dar_bytes) -> Signatures:
    return read_signatures(dar_bytes(RICHTYPES))


def _fields(fields: tuple[ast.Field, ...]) -> list[tuple[str, str]]:
    return [(field.name, show_type(field.type)) for field in fields]


def _con(type_: ast.Type) -> ast.TypeConRef:
    assert isinstance(type_, ast.TCon), type_
    return type_.tycon


def _record(data_type: DataTypeSignature) -> tuple[ast.Field, ...]:
    assert isinstance(data_type.cons, ast.Record), data_type
    return data_type.cons.fields


def _variant(data_type: DataTypeSignature) -> tuple[ast.Field, ...]:
    assert isinstance(data_type.cons, ast.Variant), data_type
    return data_type.cons.constructors


def test_richtypes_package(rich: Signatures) -> None:
    main = rich.main
    assert (main.name, main.version, main.lf_version) == ("richtypes", "0.0.1", "2.1")
    assert sorted(main.templates) == ["RichTypes:Marker", "RichTypes:RichRecord"]
    assert main.interfaces == {}


def test_richtypes_templates_as_the_source_declares_them(rich: Signatures) -> None:
    marker = rich.main.templates["RichTypes:Marker"]
    assert _fields(marker.fields) == [("owner", "Party")]
    assert [(c.name, c.consuming) for c in marker.choices] == [("Archive", True)]
    record = rich.main.templates["RichTypes:RichRecord"]
    assert _fields(record.fields) == [
        ("owner", "Party"),
        ("count", "Int"),
        ("amount", "Numeric 10"),
        ("label", "Text"),
        ("active", "Bool"),
        ("asOf", "Date"),
        ("observedAt", "Time"),
        ("note", "Optional Text"),
        ("tags", "[Text]"),
        ("attributes", "TextMap Text"),
        ("marker", "ContractId RichTypes:Marker"),
        ("profile", "RichTypes:Profile"),
        ("outcome", "RichTypes:Outcome"),
        ("fee", "Numeric 2"),
    ]
    assert record.key_type is None and record.implements == ()
    relabel = record.choice("Relabel")
    assert relabel is not None and not relabel.consuming
    assert show_type(relabel.return_type) == "ContractId RichTypes:RichRecord"
    argument = rich.data_type(_con(relabel.argument_type))
    assert argument.qualified_name == "RichTypes:Relabel"
    assert _fields(_record(argument)) == [("newLabel", "Text")]
    archive = record.choice("Archive")
    assert archive is not None and archive.consuming and show_type(archive.return_type) == "()"
    assert rich.data_type(_con(archive.argument_type)).cons == ast.Record(())


def test_richtypes_data_types(rich: Signatures) -> None:
    profile = rich.main.data_types["RichTypes:Profile"]
    assert _fields(_record(profile)) == [("nickname", "Text"), ("level", "Int")]
    outcome = rich.main.data_types["RichTypes:Outcome"]
    assert _fields(_variant(outcome)) == [("Win", "RichTypes:Outcome.Win"), ("Pending", "()")]
    win = rich.data_type(_con(_variant(outcome)[0].type))
    assert _fields(_record(win)) == [("prize", "Numeric 2"), ("tier", "Text")]
    assert profile.serializable and profile.params == ()


def test_amulet_templates_and_choices(amulet_signatures: Signatures) -> None:
    main = amulet_signatures.main
    assert (main.name, main.version, main.lf_version) == ("splice-amulet", "0.1.14", "2.1")
    assert len(main.templates) == 26
    assert sum(len(t.choices) for t in main.templates.values()) == 83
    rules = main.templates["Splice.AmuletRules:AmuletRules"]
    transfer = rules.choice("AmuletRules_Transfer")
    assert transfer is not None and not transfer.consuming
    assert show_type(transfer.argument_type) == "Splice.AmuletRules:AmuletRules_Transfer"
    assert show_type(transfer.return_type) == "Splice.AmuletRules:TransferResult"
    argument = amulet_signatures.data_type(_con(transfer.argument_type))
    assert [f.name for f in _record(argument)] == ["transfer", "context", "expectedDso"]
    amulet = main.templates["Splice.Amulet:Amulet"]
    assert _fields(amulet.fields) == [
        ("dso", "Party"),
        ("owner", "Party"),
        ("amount", "Splice.Fees:ExpiringAmount"),
    ]
    assert {c.name for c in amulet.choices} >= {"Archive", "Amulet_Expire"}


def test_amulet_implements_the_token_standards_holding(amulet_signatures: Signatures) -> None:
    amulet = amulet_signatures.main.templates["Splice.Amulet:Amulet"]
    [holding_ref] = amulet.implements
    holding = amulet_signatures.interface(holding_ref)
    assert holding.qualified_name == "Splice.Api.Token.HoldingV1:Holding"
    assert amulet_signatures.packages[holding_ref.package_id].name == "splice-api-token-holding-v1"
    assert show_type(holding.view_type) == "Splice.Api.Token.HoldingV1:HoldingView"
    view = amulet_signatures.data_type(_con(holding.view_type))
    assert _fields(_record(view)) == [
        ("owner", "Party"),
        ("instrumentId", "Splice.Api.Token.HoldingV1:InstrumentId"),
        ("amount", "Numeric 10"),
        ("lock", "Optional Splice.Api.Token.HoldingV1:Lock"),
        ("meta", "Splice.Api.Token.MetadataV1:Metadata"),
    ]


def test_token_standard_interface_choices_and_methods(amulet_signatures: Signatures) -> None:
    by_name = {p.name: p for p in amulet_signatures.packages.values()}
    factory = by_name["splice-api-token-transfer-instruction-v1"].interfaces[
        "Splice.Api.Token.TransferInstructionV1:TransferFactory"
    ]
    transfer = factory.choice("TransferFactory_Transfer")
    assert transfer is not None and not transfer.consuming
    assert (
        show_type(transfer.return_type) == "Splice.Api.Token.TransferInstructionV1:TransferInstructionResult"
    )
    assert sorted(m.name for m in factory.methods) == [
        "transferFactory_publicFetchImpl",
        "transferFactory_transferImpl",
    ]


@pytest.mark.parametrize("name", ALL_DARS)
def test_every_template_choice_and_interface_type_resolves(dar_bytes, name) -> None:
    signatures = read_signatures(dar_bytes(name))
    for package in signatures.packages.values():
        for template in package.templates.values():
            for choice in template.choices:
                signatures.data_type(_con(choice.argument_type))
            for ref in template.implements:
                signatures.interface(ref)
        for interface in package.interfaces.values():
            signatures.data_type(_con(interface.view_type))


def test_show_type_parenthesises_nested_applications() -> None:
    ref = ast.TypeConRef("p", "M", "T")
    text = ast.TBuiltin("TEXT")
    nested = ast.TBuiltin("OPTIONAL", (ast.TBuiltin("CONTRACT_ID", (ast.TCon(ref),)),))
    assert show_type(nested) == "Optional (ContractId M:T)"
    arrow = ast.TBuiltin("ARROW", (ast.TBuiltin("ARROW", (text, text)), ast.TCon(ref, (text,))))
    assert show_type(arrow) == "(Text -> Text) -> M:T Text"
    assert show_type(ast.TBuiltin("GENMAP", (text, ast.TBuiltin("LIST", (text,))))) == "Map Text [Text]"


def test_enums_and_exceptions(amulet: PackageSet, amulet_signatures: Signatures) -> None:
    tx_kind = amulet_signatures.main.data_types["Splice.Amulet.TokenApiUtils:TxKind"]
    assert tx_kind.cons == ast.Enum(
        (
            "TxKind_Transfer",
            "TxKind_Unlock",
            "TxKind_MergeSplit",
            "TxKind_Burn",
            "TxKind_Mint",
            "TxKind_ExpireDust",
        )
    )
    invalid = amulet.main.modules["Splice.AmuletRules"].exceptions["InvalidTransfer"]
    assert invalid.message.encoded  # its message is a body, decoded on request
    record = amulet.main.modules["Splice.AmuletRules"].data_types["InvalidTransfer"].cons
    assert isinstance(record, ast.Record) and [f.name for f in record.fields] == ["reason"]


def test_a_packages_synonyms_are_among_its_signatures(amulet_signatures: Signatures) -> None:
    summary = amulet_signatures.main.synonyms["Splice.AmuletRules:TransferOutputsSummary"]
    assert (
        summary.params == () and show_type(summary.type) == "[Splice.AmuletRules:PreprocessedTransferOutput]"
    )


def test_one_packages_signatures_read_from_its_archive(dar_bytes) -> None:
    dalf = read_dar(dar_bytes(RICHTYPES)).main
    package = read_package_signature(dalf.package_id, dalf.payload)
    assert sorted(package.templates) == ["RichTypes:Marker", "RichTypes:RichRecord"]
    with pytest.raises(UnreadablePackage):  # the reader's errors, as a client meets them
        read_package_signature(dalf.package_id, dalf.payload[:-1])
