"""The cryptographic builtins' primitives: SHA-256, Keccak-256 and secp256k1 ECDSA verification.

Inputs are hexadecimal text (``conversions.hex_bytes``); malformed hex, keys or signatures raise ``CryptoError``
with Daml's name for the failure. Keccak-256 is Ethereum's (the original Keccak padding, not SHA3-256's), which
``hashlib`` lacks: it is implemented here from the permutation's definition.
"""

from __future__ import annotations

import hashlib

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import Prehashed, decode_dss_signature
from cryptography.hazmat.primitives.serialization import load_der_public_key

from .conversions import hex_bytes
from .errors import CryptoError


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def decode_hex(text: str, what: str) -> bytes:
    raw = hex_bytes(text)
    if raw is None:
        raise CryptoError("MalformedByteEncoding", text, f"can not parse {what}")
    return raw


def secp256k1_verify(signature_hex: str, message_hex: str, key_hex: str, *, prehashed: bool) -> bool:
    """Whether the DER signature verifies over the message with the DER (X.509 SubjectPublicKeyInfo) key.

    ``prehashed``: the message is already a SHA-256 digest (``SECP256K1_WITH_ECDSA_BOOL``); otherwise it is hashed
    with SHA-256 first (``SECP256K1_BOOL``).
    """
    signature = decode_hex(signature_hex, "signature hex string")
    message = decode_hex(message_hex, "message hex string")
    key = _secp256k1_key(key_hex)
    try:
        decode_dss_signature(signature)
    except ValueError as exc:
        raise CryptoError("MalformedSignature", signature_hex, str(exc)) from None
    if prehashed:
        # ECDSA reads a digest as the integer of its leftmost 256 bits (secp256k1's order has 256): a longer
        # message is cut to 32 bytes and a shorter one padded on the left with zeros, to the same integer.
        data = message[:32].rjust(32, b"\0")
        algorithm = ec.ECDSA(Prehashed(hashes.SHA256()))
    else:
        data, algorithm = message, ec.ECDSA(hashes.SHA256())
    try:
        key.verify(signature, data, algorithm)
    except InvalidSignature:
        return False
    return True


def secp256k1_validate_key(key_hex: str) -> bool:
    """Whether the DER EC key is a point of secp256k1 (the point is checked against its curve when read). A key
    that is not an EC key at all is malformed (``CryptoError``), as in Daml."""
    return isinstance(_public_key(key_hex).curve, ec.SECP256K1)


def _secp256k1_key(key_hex: str) -> ec.EllipticCurvePublicKey:
    key = _public_key(key_hex)
    if not isinstance(key.curve, ec.SECP256K1):
        # Daml would verify with whatever EC curve the key names; a secp256k1 builtin refuses the others.
        raise CryptoError("MalformedKey", key_hex, f"not a secp256k1 key ({key.curve.name})")
    return key


def _public_key(key_hex: str) -> ec.EllipticCurvePublicKey:
    raw = decode_hex(key_hex, "DER encoded public key hex string")
    try:
        key = load_der_public_key(raw)
    except (ValueError, TypeError) as exc:
        raise CryptoError("MalformedKey", key_hex, str(exc)) from None
    if not isinstance(key, ec.EllipticCurvePublicKey):
        raise CryptoError("MalformedKey", key_hex, "Invalid type for public key")
    return key


# --- Keccak-256 (FIPS 202's Keccak-f[1600] with the original 0x01 padding)

_MASK = (1 << 64) - 1
_RATE = 136  # bytes: 1600 - 2 · 256 bits
_ROUND_CONSTANTS = (
    0x0000000000000001, 0x0000000000008082, 0x800000000000808A, 0x8000000080008000,
    0x000000000000808B, 0x0000000080000001, 0x8000000080008081, 0x8000000000008009,
    0x000000000000008A, 0x0000000000000088, 0x0000000080008009, 0x000000008000000A,
    0x000000008000808B, 0x800000000000008B, 0x8000000000008089, 0x8000000000008003,
    0x8000000000008002, 0x8000000000000080, 0x000000000000800A, 0x800000008000000A,
    0x8000000080008081, 0x8000000000008080, 0x0000000080000001, 0x8000000080008008,
)  # fmt: skip
_ROTATIONS = (
    (0, 36, 3, 41, 18),
    (1, 44, 10, 45, 2),
    (62, 6, 43, 15, 61),
    (28, 55, 25, 21, 56),
    (27, 20, 39, 8, 14),
)


def keccak256(data: bytes) -> bytes:
    padded = bytearray(data)
    padded.append(0x01)
    padded.extend(b"\x00" * (-len(padded) % _RATE))
    padded[-1] |= 0x80
    state = [[0] * 5 for _ in range(5)]  # state[x][y], lanes little-endian
    for offset in range(0, len(padded), _RATE):
        block = padded[offset : offset + _RATE]
        for i in range(_RATE // 8):
            state[i % 5][i // 5] ^= int.from_bytes(block[8 * i : 8 * i + 8], "little")
        _permute(state)
    out = b"".join(state[i % 5][i // 5].to_bytes(8, "little") for i in range(_RATE // 8))
    return out[:32]


def _rotl(value: int, shift: int) -> int:
    return ((value << shift) | (value >> (64 - shift))) & _MASK if shift else value


def _permute(a: list[list[int]]) -> None:
    for constant in _ROUND_CONSTANTS:
        c = [a[x][0] ^ a[x][1] ^ a[x][2] ^ a[x][3] ^ a[x][4] for x in range(5)]
        d = [c[(x - 1) % 5] ^ _rotl(c[(x + 1) % 5], 1) for x in range(5)]
        for x in range(5):
            for y in range(5):
                a[x][y] ^= d[x]
        b = [[0] * 5 for _ in range(5)]
        for x in range(5):
            for y in range(5):
                b[y][(2 * x + 3 * y) % 5] = _rotl(a[x][y], _ROTATIONS[x][y])
        for x in range(5):
            for y in range(5):
                a[x][y] = b[x][y] ^ (~b[(x + 1) % 5][y] & b[(x + 2) % 5][y])
        a[0][0] ^= constant
