"""Every builtin function of Daml-LF 2, in one table keyed by the schema's ``BuiltinFunction`` names.

The decoded AST names a builtin by those names (``ast.Expr("builtin", "ADD_INT64")``). Type arguments are erased
before a builtin runs; ``arity`` counts its value arguments (in LF 2, Numeric scales travel as a witness value:
``MUL_NUMERIC``'s first argument is a Numeric of the result's scale). A builtin of arity 0 (``GENMAP_EMPTY``) is a
constant: ``run()`` gives it.

Two kinds of entry:

- **pure** (``run`` set): a Python function of the arguments, run to completion at once. It may raise an
  ``errors.EvaluationError``; arithmetic failures raise ``DamlArithmeticError`` naming the builtin and its
  arguments, which the evaluator turns into Daml's catchable ``ArithmeticError``.
- **machine** (``run`` is ``None``, ``needs_machine``): builtins that call back into Daml code — ``FOLDL``,
  ``FOLDR``, ``EQUAL_LIST`` apply a function per element and ``ANY_EXCEPTION_MESSAGE`` applies the exception's
  ``message`` definition. The evaluator runs them on its own stack, so a long fold costs no Python recursion.
"""

from __future__ import annotations

import bisect
import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from decimal import Decimal
from types import MappingProxyType
from typing import Any as _Any

from ..ast import TCon, Type
from . import conversions, crypto, numeric
from .budget import LARGE_VALUE, allocating
from .equality import equal
from .errors import CryptoError, DamlArithmeticError, FailureStatus, UserError
from .numeric import Overflow
from .ordering import check_comparable, compare, compare_types
from .values import (
    EMPTY_GENMAP,
    EMPTY_TEXTMAP,
    UNIT,
    Any,
    ContractId,
    Date,
    GenMap,
    List,
    Party,
    Some,
    Struct,
    TextMap,
    Timestamp,
    TypeRep,
    list_of,
    numeric_scale,
)

trace_log = logging.getLogger("participant.daml_lf.trace")


@dataclass(frozen=True, slots=True)
class Builtin:
    name: str  # the schema's BuiltinFunction name
    arity: int  # value arguments, type arguments erased
    run: Callable[..., _Any] | None  # None: needs the machine
    needs_machine: bool = False


# --- Arithmetic failures name the builtin and its arguments, as Daml prints them


def _arithmetic(name: str, function: Callable[..., _Any]) -> Callable[..., _Any]:
    """``function`` with its ``Overflow`` reported as the spec's ArithmeticError of builtin ``name``."""

    def run(*args: _Any) -> _Any:
        try:
            return function(*args)
        except Overflow:
            raise DamlArithmeticError(name, tuple(literal_text(arg) for arg in args)) from None

    run.__name__ = name
    return run


def _arithmetic2(name: str, function: Callable[[_Any, _Any], _Any]) -> Callable[[_Any, _Any], _Any]:
    # The binary operators are the hot ones: no argument tuple packed on the success path.
    def run(a: _Any, b: _Any) -> _Any:
        try:
            return function(a, b)
        except Overflow:
            raise DamlArithmeticError(name, (literal_text(a), literal_text(b))) from None

    run.__name__ = name
    return run


def literal_text(value: _Any) -> str:
    """An argument in an ArithmeticError's message: Daml's text of a literal."""
    kind = type(value)
    if kind is bool:
        return "true" if value else "false"
    if kind is Decimal:
        return conversions.numeric_to_text(value)
    if kind is Date:
        return conversions.date_to_text(value)
    if kind is Timestamp:
        return conversions.timestamp_to_text(value)
    if kind is int or kind is str or kind is Party:
        return str(value)
    if value is UNIT:
        return "<unit>"
    return repr(value)


# --- Comparison


def _less(a: _Any, b: _Any) -> bool:
    return compare(a, b) < 0


def _less_eq(a: _Any, b: _Any) -> bool:
    return compare(a, b) <= 0


def _greater(a: _Any, b: _Any) -> bool:
    return compare(a, b) > 0


def _greater_eq(a: _Any, b: _Any) -> bool:
    return compare(a, b) >= 0


# --- Values made whole in one step: their size asked of the budget first (``budget.allocating``), so that a text
# doubling itself stops before it takes the machine's memory, not at the next check of the machine's steps

# A Cons cell and its slot; and a one-character text outside Latin-1, made anew for each element
_CONS_BYTES = 64
_CHAR_BYTES = 80


def _made(size: int) -> None:
    if size > LARGE_VALUE:
        allocating(size)


def _text_bytes(length: int, *texts: str) -> int:
    """What a text of `length` characters made from `texts` takes, at most: 4 bytes a character unless all are
    ASCII (``isascii`` reads a flag: no scan)."""
    return length if all(text.isascii() for text in texts) else 4 * length


# --- Text


def _append_text(left: str, right: str) -> str:
    length = len(left) + len(right)
    if length > LARGE_VALUE:
        allocating(_text_bytes(length, left, right))
    return left + right


def _explode(text: str) -> List:
    _made(len(text) * (_CONS_BYTES if text.isascii() else _CONS_BYTES + _CHAR_BYTES))
    return list_of(text)


def _implode(texts: List) -> str:
    parts = list(texts)
    length = sum(map(len, parts))
    if length > LARGE_VALUE:
        allocating(_text_bytes(length, *parts))
    return "".join(parts)


def _text_to_code_points(text: str) -> List:
    _made(len(text) * (_CONS_BYTES + 32))
    return list_of([ord(c) for c in text])


def _code_points_to_text(points: List) -> str:
    return conversions.code_points_to_text(list(points))


def _list_of_sized(items: tuple[_Any, ...]) -> List:
    _made(len(items) * _CONS_BYTES)
    return list_of(items)


def _optional(value: _Any) -> Some | None:
    return None if value is None else Some(value)


def _sha256_text(text: str) -> str:
    return crypto.sha256_hex(text.encode())


def _sha256_hex(text: str) -> str:
    return crypto.sha256_hex(crypto.decode_hex(text, "hex string"))


def _keccak256_text(text: str) -> str:
    return crypto.keccak256(crypto.decode_hex(text, "hex string")).hex()


def _hex_to_text(text: str) -> str:
    # Invalid UTF-8 becomes U+FFFD, as Java's String constructor replaces it.
    return crypto.decode_hex(text, "hex string argument").decode("utf-8", errors="replace")


def _text_to_hex(text: str) -> str:
    _made(_text_bytes(len(text), text) * 3)  # the UTF-8 bytes, then twice as many hex digits
    return text.encode().hex()


# --- Dates and times


def _unix_days_to_date(days: int) -> Date:
    date = conversions.date_from_days(days)
    if date is None:
        raise Overflow
    return date


def _unix_micros_to_timestamp(micros: int) -> Timestamp:
    timestamp = conversions.timestamp_from_micros(micros)
    if timestamp is None:
        raise Overflow
    return timestamp


# --- Numeric: the witness argument gives the result's scale


def _text_to_numeric(witness: Decimal, text: str) -> Some | None:
    return _optional(conversions.text_to_numeric(numeric_scale(witness), text))


def _bignumeric_to_text(value: Decimal) -> str:
    # The smallest scale that is exact (no trailing zeros), and no ".0" added.
    return format(value, "f")


# --- Maps: sorted parallel tuples; TextMap keys by code point, GenMap keys by the generic order


def _textmap_insert(key: str, value: _Any, map_: TextMap) -> TextMap:
    keys, values = map_.keys, map_.values
    i = bisect.bisect_left(keys, key)
    if i < len(keys) and keys[i] == key:
        return TextMap(keys, (*values[:i], value, *values[i + 1 :]))
    return TextMap((*keys[:i], key, *keys[i:]), (*values[:i], value, *values[i:]))


def _textmap_lookup(key: str, map_: TextMap) -> Some | None:
    keys = map_.keys
    i = bisect.bisect_left(keys, key)
    return Some(map_.values[i]) if i < len(keys) and keys[i] == key else None


def _textmap_delete(key: str, map_: TextMap) -> TextMap:
    keys, values = map_.keys, map_.values
    i = bisect.bisect_left(keys, key)
    if i < len(keys) and keys[i] == key:
        return TextMap((*keys[:i], *keys[i + 1 :]), (*values[:i], *values[i + 1 :]))
    return map_


_ENTRY_FIELDS = ("key", "value")


def _textmap_to_list(map_: TextMap) -> List:
    _made(len(map_.keys) * (_CONS_BYTES + 120))  # a Cons, a Struct and its tuple of two per entry
    return list_of([Struct(_ENTRY_FIELDS, entry) for entry in zip(map_.keys, map_.values, strict=True)])


def _genmap_search(key: _Any, keys: tuple[_Any, ...]) -> tuple[int, bool]:
    """Where ``key`` is or would go in ``keys``, and whether it is there."""
    low, high = 0, len(keys)
    while low < high:
        middle = (low + high) // 2
        order = compare(keys[middle], key)
        if order == 0:
            return middle, True
        if order < 0:
            low = middle + 1
        else:
            high = middle
    return low, False


def _genmap_insert(key: _Any, value: _Any, map_: GenMap) -> GenMap:
    check_comparable(key)
    keys, values = map_.keys, map_.values
    i, found = _genmap_search(key, keys)
    if found:
        return GenMap(keys, (*values[:i], value, *values[i + 1 :]))
    return GenMap((*keys[:i], key, *keys[i:]), (*values[:i], value, *values[i:]))


def _genmap_lookup(key: _Any, map_: GenMap) -> Some | None:
    check_comparable(key)
    i, found = _genmap_search(key, map_.keys)
    return Some(map_.values[i]) if found else None


def _genmap_delete(key: _Any, map_: GenMap) -> GenMap:
    check_comparable(key)
    keys, values = map_.keys, map_.values
    i, found = _genmap_search(key, keys)
    if not found:
        return map_
    return GenMap((*keys[:i], *keys[i + 1 :]), (*values[:i], *values[i + 1 :]))


# --- Errors and debugging


def _error(message: str) -> _Any:
    raise UserError(message)


def _fail_with_status(error_id: str, category: int, message: str, metadata: TextMap) -> _Any:
    raise FailureStatus(error_id, category, message, dict(zip(metadata.keys, metadata.values, strict=True)))


def _trace(message: str, value: _Any) -> _Any:
    trace_log.info("%s", message)
    return value


# --- Contract ids and type representations


def _text_to_contract_id(text: str) -> ContractId:
    contract_id = conversions.text_to_contract_id(text)
    if contract_id is None:
        raise CryptoError("MalformedContractId", text, "not an absolute contract id")
    return contract_id


def _contract_id_to_text(contract_id: ContractId) -> None:
    # "Always returns None in ledger code": this interpreter runs only ledger code.
    return None


def _type_rep_tycon_name(type_rep: TypeRep) -> Some | None:
    # A type constructor without arguments; "pkgId:Module.Name:Entity.Name", as Daml prints an identifier.
    type_ = type_rep.type
    return Some(str(type_.tycon)) if isinstance(type_, TCon) and not type_.args else None


# --- Any: expression forms (``to_any``, ``from_any``) rather than schema builtins, run as Speedy runs them


def to_any(type_: Type, value: _Any) -> Any:
    return Any(type_, value)


def from_any(type_: Type, value: Any) -> Some | None:
    """``from_any @τ``: the value if it was packed at type ``τ``: the same type, however its applications are
    written (``TCon(T, (a,))`` or ``TApp(TCon(T), a)``); synonyms are expanded by the caller."""
    return Some(value.value) if value.type == type_ or compare_types(value.type, type_) == 0 else None


def _pure(name: str, arity: int, run: Callable[..., _Any]) -> Builtin:
    return Builtin(name, arity, run)


def _machine(name: str, arity: int) -> Builtin:
    return Builtin(name, arity, None, needs_machine=True)


def _checked(name: str, arity: int, function: Callable[..., _Any]) -> Builtin:
    return Builtin(name, arity, _arithmetic2(name, function) if arity == 2 else _arithmetic(name, function))


_TABLE = (
    _pure("TRACE", 2, _trace),
    _pure("ERROR", 1, _error),
    _pure("EQUAL", 2, equal),
    _pure("LESS_EQ", 2, _less_eq),
    _pure("LESS", 2, _less),
    _pure("GREATER_EQ", 2, _greater_eq),
    _pure("GREATER", 2, _greater),
    _checked("ADD_INT64", 2, numeric.add_int64),
    _checked("SUB_INT64", 2, numeric.sub_int64),
    _checked("MUL_INT64", 2, numeric.mul_int64),
    _checked("DIV_INT64", 2, numeric.div_int64),
    _checked("MOD_INT64", 2, numeric.mod_int64),
    _checked("EXP_INT64", 2, numeric.exp_int64),
    _checked("ADD_NUMERIC", 2, numeric.add_numeric),
    _checked("SUB_NUMERIC", 2, numeric.sub_numeric),
    _checked("MUL_NUMERIC", 3, numeric.mul_numeric),
    _checked("DIV_NUMERIC", 3, numeric.div_numeric),
    # The spec lists no semantics for ROUND_NUMERIC; Daml's: half to even at the given digits, scale kept.
    _checked("ROUND_NUMERIC", 2, numeric.round_numeric),
    _checked("CAST_NUMERIC", 2, numeric.cast_numeric),
    _checked("SHIFT_NUMERIC", 2, numeric.shift_numeric),
    _checked("INT64_TO_NUMERIC", 2, numeric.int64_to_numeric),
    _checked("NUMERIC_TO_INT64", 1, numeric.numeric_to_int64),
    _pure("INT64_TO_TEXT", 1, str),
    _pure("NUMERIC_TO_TEXT", 1, conversions.numeric_to_text),
    _pure("TIMESTAMP_TO_TEXT", 1, conversions.timestamp_to_text),
    _pure("DATE_TO_TEXT", 1, conversions.date_to_text),
    _pure("PARTY_TO_TEXT", 1, lambda party: party.id),
    _pure("TEXT_TO_PARTY", 1, lambda text: _optional(conversions.text_to_party(text))),
    _pure("TEXT_TO_INT64", 1, lambda text: _optional(conversions.text_to_int64(text))),
    _pure("TEXT_TO_NUMERIC", 2, _text_to_numeric),
    _pure("CONTRACT_ID_TO_TEXT", 1, _contract_id_to_text),
    _pure("SHA256_TEXT", 1, _sha256_text),
    _pure("EXPLODE_TEXT", 1, _explode),
    _pure("APPEND_TEXT", 2, _append_text),
    _pure("IMPLODE_TEXT", 1, _implode),
    _pure("CODE_POINTS_TO_TEXT", 1, _code_points_to_text),
    _pure("TEXT_TO_CODE_POINTS", 1, _text_to_code_points),
    _pure("DATE_TO_UNIX_DAYS", 1, lambda date: date.days),
    _checked("UNIX_DAYS_TO_DATE", 1, _unix_days_to_date),
    _pure("TIMESTAMP_TO_UNIX_MICROSECONDS", 1, lambda timestamp: timestamp.micros),
    _checked("UNIX_MICROSECONDS_TO_TIMESTAMP", 1, _unix_micros_to_timestamp),
    _pure("COERCE_CONTRACT_ID", 1, lambda contract_id: contract_id),
    _machine("FOLDL", 3),
    _machine("FOLDR", 3),
    _machine("EQUAL_LIST", 3),
    _pure("GENMAP_EMPTY", 0, lambda: EMPTY_GENMAP),
    _pure("GENMAP_INSERT", 3, _genmap_insert),
    _pure("GENMAP_LOOKUP", 2, _genmap_lookup),
    _pure("GENMAP_DELETE", 2, _genmap_delete),
    _pure("GENMAP_KEYS", 1, lambda map_: _list_of_sized(map_.keys)),
    _pure("GENMAP_VALUES", 1, lambda map_: _list_of_sized(map_.values)),
    _pure("GENMAP_SIZE", 1, lambda map_: len(map_.keys)),
    _pure("TEXTMAP_EMPTY", 0, lambda: EMPTY_TEXTMAP),
    _pure("TEXTMAP_INSERT", 3, _textmap_insert),
    _pure("TEXTMAP_LOOKUP", 2, _textmap_lookup),
    _pure("TEXTMAP_DELETE", 2, _textmap_delete),
    _pure("TEXTMAP_TO_LIST", 1, _textmap_to_list),
    _pure("TEXTMAP_SIZE", 1, lambda map_: len(map_.keys)),
    _machine("ANY_EXCEPTION_MESSAGE", 1),
    _pure("FAIL_WITH_STATUS", 4, _fail_with_status),
    _pure("KECCAK256_TEXT", 1, _keccak256_text),
    _pure("SECP256K1_BOOL", 3, lambda s, m, k: crypto.secp256k1_verify(s, m, k, prehashed=False)),
    _pure("HEX_TO_TEXT", 1, _hex_to_text),
    _pure("TEXT_TO_HEX", 1, _text_to_hex),
    _pure("SHA256_HEX", 1, _sha256_hex),
    _pure("SECP256K1_WITH_ECDSA_BOOL", 3, lambda s, m, k: crypto.secp256k1_verify(s, m, k, prehashed=True)),
    _pure("SECP256K1_VALIDATE_KEY", 1, crypto.secp256k1_validate_key),
    _pure("TYPE_REP_TYCON_NAME", 1, _type_rep_tycon_name),
    _pure("TEXT_TO_CONTRACT_ID", 1, _text_to_contract_id),
    # BigNumeric (LF 2.dev; no LF 2.1 package uses them): a normalised Decimal, the rounding mode an Int64.
    _pure("SCALE_BIGNUMERIC", 1, numeric.bignumeric_scale),
    _pure("PRECISION_BIGNUMERIC", 1, numeric.bignumeric_precision),
    _checked("ADD_BIGNUMERIC", 2, numeric.add_bignumeric),
    _checked("SUB_BIGNUMERIC", 2, numeric.sub_bignumeric),
    _checked("MUL_BIGNUMERIC", 2, numeric.mul_bignumeric),
    # The spec types it 'RoundingMode' → 'Int' → …; Daml's interpreter reads the scale first, then the mode.
    _checked("DIV_BIGNUMERIC", 4, numeric.div_bignumeric),
    _checked("SHIFT_RIGHT_BIGNUMERIC", 2, numeric.shift_right_bignumeric),
    _checked("BIGNUMERIC_TO_NUMERIC", 2, numeric.bignumeric_to_numeric),
    _pure("NUMERIC_TO_BIGNUMERIC", 1, numeric.numeric_to_bignumeric),
    _pure("BIGNUMERIC_TO_TEXT", 1, _bignumeric_to_text),
)

BUILTINS: Mapping[str, Builtin] = MappingProxyType({builtin.name: builtin for builtin in _TABLE})
