"""Hashes, hex conversions and secp256k1 signatures, with malformed input as Daml's crypto errors."""

from __future__ import annotations

import hashlib

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed

from participant.daml_lf.eval.errors import CryptoError

from .helpers import call


def test_keccak256_of_hex_bytes() -> None:
    # Ethereum's Keccak-256 (not SHA3-256): the well-known digests of "" and "abc".
    assert call("KECCAK256_TEXT", "") == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert (
        call("KECCAK256_TEXT", b"abc".hex())
        == "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
    )
    long = bytes(range(256)) * 2  # several rate-sized blocks
    assert len(call("KECCAK256_TEXT", long.hex())) == 64


def test_sha256_hex_and_hex_text_conversions() -> None:
    assert call("SHA256_HEX", "00ff") == hashlib.sha256(b"\x00\xff").hexdigest()
    assert call("TEXT_TO_HEX", "é😀") == "c3a9f09f9880"
    assert call("HEX_TO_TEXT", "c3a9f09f9880") == "é😀"
    assert call("HEX_TO_TEXT", "") == ""


@pytest.mark.parametrize("name", ["KECCAK256_TEXT", "SHA256_HEX", "HEX_TO_TEXT"])
@pytest.mark.parametrize("text", ["0", "zz", "0G", "AB"])
def test_malformed_hex_is_a_crypto_error(name: str, text: str) -> None:
    with pytest.raises(CryptoError) as caught:
        call(name, text)
    assert caught.value.kind == "MalformedByteEncoding"


@pytest.fixture(scope="module")
def signer() -> tuple[ec.EllipticCurvePrivateKey, str]:
    key = ec.generate_private_key(ec.SECP256K1())
    der = key.public_key().public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    return key, der.hex()


def test_secp256k1_verifies_over_the_sha256_of_the_message(
    signer: tuple[ec.EllipticCurvePrivateKey, str],
) -> None:
    key, public = signer
    message = b"transfer 10"
    signature = key.sign(message, ec.ECDSA(hashes.SHA256())).hex()
    assert call("SECP256K1_BOOL", signature, message.hex(), public) is True
    assert call("SECP256K1_BOOL", signature, b"transfer 11".hex(), public) is False
    digest = hashlib.sha256(message).hexdigest()
    assert call("SECP256K1_WITH_ECDSA_BOOL", signature, digest, public) is True
    assert call("SECP256K1_WITH_ECDSA_BOOL", signature, message.hex(), public) is False  # not the digest
    assert (
        call("SECP256K1_WITH_ECDSA_BOOL", signature, digest + "00", public) is True
    )  # the leftmost 256 bits
    prehashed = key.sign(bytes.fromhex(digest), ec.ECDSA(Prehashed(hashes.SHA256()))).hex()
    assert call("SECP256K1_WITH_ECDSA_BOOL", prehashed, digest, public) is True


def test_secp256k1_malformed_inputs(signer: tuple[ec.EllipticCurvePrivateKey, str]) -> None:
    key, public = signer
    signature = key.sign(b"m", ec.ECDSA(hashes.SHA256())).hex()
    with pytest.raises(CryptoError) as caught:
        call("SECP256K1_BOOL", "0102", b"m".hex(), public)
    assert caught.value.kind == "MalformedSignature"
    with pytest.raises(CryptoError) as caught:
        call("SECP256K1_BOOL", signature, b"m".hex(), "3000")
    assert caught.value.kind == "MalformedKey"
    with pytest.raises(CryptoError) as caught:
        call("SECP256K1_BOOL", signature, "x", public)
    assert caught.value.kind == "MalformedByteEncoding"


def test_secp256k1_validate_key(signer: tuple[ec.EllipticCurvePrivateKey, str]) -> None:
    _, public = signer
    assert call("SECP256K1_VALIDATE_KEY", public) is True
    other = ec.generate_private_key(ec.SECP256R1()).public_key()
    p256 = other.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ).hex()
    assert call("SECP256K1_VALIDATE_KEY", p256) is False
    with pytest.raises(CryptoError) as caught:
        call("SECP256K1_VALIDATE_KEY", "3000")
    assert caught.value.kind == "MalformedKey"
    ed25519 = Ed25519PrivateKey.generate().public_key()
    not_ec = ed25519.public_bytes(
        serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo
    ).hex()
    with pytest.raises(CryptoError) as caught:
        call("SECP256K1_VALIDATE_KEY", not_ec)
    assert caught.value.kind == "MalformedKey"
    with pytest.raises(CryptoError) as caught:
        call("SECP256K1_BOOL", "3006020101020101", "00", p256)
    assert caught.value.kind == "MalformedKey"
