"""Canton's identifier formats (docs/ledger-api.md §8): validators for the API's string kinds and generators for the ids the
participant mints (parties, contracts, updates, synchronizers).

Generated ids are random by default; an `IdGenerator` built with a seed is deterministic, which tests use to get
stable ids run after run.
"""

from __future__ import annotations

import hashlib
import json
import random
import re
import secrets
import time
from collections.abc import Iterable

from participant.base import errors

# Party and contract id strings are values too: their shapes are the value codec's.
from participant.engine.values import is_contract_id, is_party_id_string  # noqa: F401  (re-exported)

HASH_PREFIX = "1220"  # multihash header: SHA-256, 32 bytes
CONTRACT_ID_VERSION = "00"
CONTRACT_ID_SUFFIX_MARKER = "ca12"  # Canton contract id V1, the default in 3.4/3.5

_LEDGER_STRING = re.compile(r"[A-Za-z0-9._:\-#/ ]{1,255}")
_NAME_STRING = re.compile(r"[A-Za-z$_][A-Za-z0-9$_]{0,999}")
_PACKAGE_ID_STRING = re.compile(r"[A-Za-z0-9\-_ ]{1,64}")
_PACKAGE_NAME = re.compile(r"[A-Za-z0-9\-_]{1,255}")
_USER_ID_STRING = re.compile(r"[A-Za-z0-9@^$.!`\-#+'~_:()|]{1,128}")
_FINGERPRINT = re.compile(HASH_PREFIX + r"[0-9a-f]{64}")


# --- validators: plain predicates, plus `require_*` helpers that raise the error Canton answers with


def is_ledger_string(text: object) -> bool:
    return isinstance(text, str) and _LEDGER_STRING.fullmatch(text) is not None


def is_name_string(text: object) -> bool:
    return isinstance(text, str) and _NAME_STRING.fullmatch(text) is not None


def is_dotted_name(text: object) -> bool:
    """Module and entity names: dot-separated NameStrings."""
    return isinstance(text, str) and all(is_name_string(part) for part in text.split("."))


def is_package_id_string(text: object) -> bool:
    return isinstance(text, str) and _PACKAGE_ID_STRING.fullmatch(text) is not None


def is_package_name(text: object) -> bool:
    return isinstance(text, str) and _PACKAGE_NAME.fullmatch(text) is not None


def is_user_id_string(text: object) -> bool:
    return isinstance(text, str) and _USER_ID_STRING.fullmatch(text) is not None


def is_update_id(text: object) -> bool:
    """A SHA-256 multihash in hex, as Canton's update ids are (and ours)."""
    return isinstance(text, str) and _FINGERPRINT.fullmatch(text) is not None


def is_canton_party_id(text: object) -> bool:
    """`<hint>::<fingerprint>` as Canton allocates them (stricter than PartyIdString, which any party satisfies)."""
    if not is_party_id_string(text):
        return False
    hint, sep, namespace = str(text).rpartition("::")
    return (
        bool(sep)
        and 0 < len(hint) <= 185
        and "::" not in hint
        and _FINGERPRINT.fullmatch(namespace) is not None
    )


def require(valid: bool, field_name: str, message: str) -> None:
    """Raise INVALID_FIELD in Canton's words ("Invalid field X: msg") unless `valid`."""
    if not valid:
        raise errors.INVALID_FIELD(
            f"Invalid field {field_name}: {message}", context={"field_name": field_name}
        )


def require_party(party: object, field_name: str = "party") -> str:
    require(is_party_id_string(party), field_name, f"non expected character in Daml-LF Party {party!r}")
    return str(party)


def require_party_ids(parties: Iterable[object], where: str = "") -> None:
    """The parties a request names (filters, actAs, rights): INVALID_ARGUMENT for the first that is not a
    PartyIdString, naming the field it came from when `where` is given."""
    for party in parties:
        if not is_party_id_string(party):
            raise errors.INVALID_ARGUMENT(f"Invalid party{f' in {where}' if where else ''}: {party!r}")


def require_contract_id(contract_id: object, field_name: str = "contract_id") -> str:
    require(is_contract_id(contract_id), field_name, f"cannot parse ContractId {contract_id!r}")
    return str(contract_id)


def require_user_id(user_id: object, field_name: str = "user_id") -> str:
    require(is_user_id_string(user_id), field_name, f"invalid user id {user_id!r}")
    return str(user_id)


# --- generators


def sha256_hex(data: bytes | str) -> str:
    return hashlib.sha256(data.encode() if isinstance(data, str) else data).hexdigest()


def fingerprint(seed: bytes | str) -> str:
    """A namespace fingerprint (`1220` + 64 hex) derived from key material or a seed."""
    return HASH_PREFIX + sha256_hex(seed)


def party_id(hint: str, namespace: str) -> str:
    if not hint or len(hint) > 185 or "::" in hint or not is_party_id_string(hint):
        raise errors.INVALID_ARGUMENT(f"Party hint {hint!r} is not a valid party id hint")
    return f"{hint}::{namespace}"


def participant_id(namespace: str, name: str = "participant1") -> str:
    return f"{name}::{namespace}"


def synchronizer_id(alias: str, namespace: str) -> str:
    return f"{alias}::{namespace}"


class IdGenerator:
    """Mints contract and update ids. Random (from `secrets`) unless given a seed, then deterministic.

    Random update ids, and the suffix of random contract ids, end with the time they were minted, in milliseconds:
    the database indexes contracts and updates by the end of their id first (`store.sql.by_id`), so the ids of a
    group commit are added together at the end of the index instead of one random page each. Their beginnings,
    which people read and compare, stay random, as Canton's are.
    """

    def __init__(self, seed: bytes | str | None = None) -> None:
        self._seed = seed.encode() if isinstance(seed, str) else seed
        self._counter = 0
        self._random = random.Random(secrets.token_bytes(32))

    def _hex32(self, kind: str, time_ordered: bool = False) -> str:
        if self._seed is None:
            # Ids need to be unique, not secret: a generator seeded from the OS is far cheaper than a syscall each.
            if time_ordered:
                return (self._random.randbytes(26) + (time.time_ns() // 1_000_000).to_bytes(6, "big")).hex()
            return self._random.randbytes(32).hex()
        self._counter += 1
        return sha256_hex(self._seed + f"/{kind}/{self._counter}".encode())

    def contract_id(self) -> str:
        discriminator = self._hex32("discriminator")
        return (
            CONTRACT_ID_VERSION
            + discriminator
            + CONTRACT_ID_SUFFIX_MARKER
            + HASH_PREFIX
            + self._hex32("unicum", time_ordered=True)
        )

    def update_id(self) -> str:
        return HASH_PREFIX + self._hex32("update", time_ordered=True)

    def namespace(self) -> str:
        return HASH_PREFIX + self._hex32("namespace")


def contract_key_hash(package_name: str, qualified_name: str, key: object) -> str:
    """Key hashes: SHA-256 (64 lowercase hex) over the package name, `Module:Entity` and the key in its output JSON
    encoding, canonically serialised. Keys are per package name, so every version of a template shares them."""
    canonical = json.dumps(
        [package_name, qualified_name, key], sort_keys=True, separators=(",", ":"), ensure_ascii=False
    )
    return sha256_hex(canonical)
