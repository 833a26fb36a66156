"""Text builtins and the text forms of values, in Daml's exact formats."""

from __future__ import annotations

import hashlib

import pytest

from participant.daml_lf.eval.errors import Crash, CryptoError
from participant.daml_lf.eval.values import NIL, ContractId, Party, list_of

from .helpers import call


def test_append_explode_implode() -> None:
    assert call("APPEND_TEXT", "foo", "bär") == "foobär"
    assert list(call("EXPLODE_TEXT", "a😀é")) == ["a", "😀", "é"]  # code points, not UTF-16 units
    assert call("EXPLODE_TEXT", "") is NIL
    assert call("IMPLODE_TEXT", list_of(["a", "", "😀"])) == "a😀"
    assert call("IMPLODE_TEXT", NIL) == ""


def test_code_points() -> None:
    assert list(call("TEXT_TO_CODE_POINTS", "a😀")) == [0x61, 0x1F600]
    assert call("CODE_POINTS_TO_TEXT", list_of([0x61, 0x1F600, 0x10FFFF, 0])) == "a😀\U0010ffff\x00"


@pytest.mark.parametrize("point", [-1, 0xD800, 0xDBFF, 0xDC00, 0xDFFF, 0x110000])
def test_code_points_to_text_refuses_what_no_text_holds(point: int) -> None:
    # The spec's text reads "0x00DFFF to 0x10FFFF"; 0xDFFF is a surrogate, which no UTF-8 text holds: refused.
    with pytest.raises(Crash):
        call("CODE_POINTS_TO_TEXT", list_of([0x61, point]))


def test_sha256_of_the_utf8_bytes_in_lower_case_hex() -> None:
    assert call("SHA256_TEXT", "") == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    assert call("SHA256_TEXT", "é😀") == hashlib.sha256("é😀".encode()).hexdigest()


def test_parties() -> None:
    assert call("PARTY_TO_TEXT", Party("Alice::1220ab")) == "Alice::1220ab"
    assert call("TEXT_TO_PARTY", "Alice::1220ab").value == Party("Alice::1220ab")
    assert call("TEXT_TO_PARTY", "a-b_c d:e").value == Party("a-b_c d:e")
    assert call("TEXT_TO_PARTY", "x" * 255).value == Party("x" * 255)


@pytest.mark.parametrize("text", ["", "x" * 256, "Alice!", "Ålice", "a\tb", "a.b"])
def test_text_to_party_refuses(text: str) -> None:
    assert call("TEXT_TO_PARTY", text) is None


def test_contract_id_to_text_is_none_in_ledger_code() -> None:
    assert call("CONTRACT_ID_TO_TEXT", ContractId("00" + "ab" * 32 + "ca")) is None


def test_coerce_contract_id_is_the_identity() -> None:
    cid = ContractId("00" + "ab" * 32)
    assert call("COERCE_CONTRACT_ID", cid) is cid


V1 = "00" + "12" * 32


@pytest.mark.parametrize(
    "text",
    [
        V1 + "ca",
        V1 + "00" * 94,
        "01" + "34" * 12 + "80",  # V2, the suffix's first bit set: absolute
        "01" + "34" * 12 + "ff" * 33,
    ],
)
def test_text_to_contract_id_accepts_absolute_ids(text: str) -> None:
    assert call("TEXT_TO_CONTRACT_ID", text) == ContractId(text)


@pytest.mark.parametrize(
    "text",
    [
        "",
        V1,  # no suffix: a local id
        V1 + "00" * 95,
        V1.upper() + "CA",
        V1 + "c",
        "01" + "34" * 12,
        "01" + "34" * 12 + "7f",  # relative V2
        "02" + "34" * 40,
        "#1:0",
    ],
)
def test_text_to_contract_id_refuses(text: str) -> None:
    with pytest.raises(CryptoError) as caught:
        call("TEXT_TO_CONTRACT_ID", text)
    assert caught.value.kind == "MalformedContractId"
