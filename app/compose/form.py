"""A typed form's value: a tree of nodes shaped by the field types, holding what the user typed (text, as typed,
for scalars), with no UI. It converts to and from the JSON Ledger API's value encoding and lists its problems, each
with its path (``createArguments.items[2].amount: Numeric 10 has at most 10 decimals``), as the user types.

What is kept when the shape changes: an Optional set to none keeps its value for when it is set again, a variant
keeps each constructor's payload, so toggling never loses typing. Loading JSON fills what fits its type and says
where the rest does not.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import orjson

from app.compose.types import (
    ContractIdT,
    EnumT,
    FieldType,
    GenMapT,
    ListT,
    NumericT,
    Opaque,
    OptionalT,
    RecordT,
    Scalar,
    TextMapT,
    VariantT,
)
from app.counting import count
from participant.daml_lf import scalars
from participant.daml_lf.scalars import ScalarProblem

Json = Any


@dataclass(frozen=True, slots=True)
class ValueProblem:
    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@dataclass
class FormContext:
    """What the form consults: the known parties, for a bare name (``Alice``) standing for the one party with it;
    the contract ids found for a beginning of one typed (looked up by the form's inputs as it is typed: the cache
    that holds them is read asynchronously)."""

    parties: Callable[[], list[str]] = field(default=lambda: [])
    contracts: dict[str, str] = field(default_factory=dict)
    """A contract id's beginning as typed -> the one id it expanded to."""
    contract_problems: dict[str, str] = field(default_factory=dict)
    """A beginning typed -> why it did not expand (none held begins so, or several do)."""

    def contract(self, text: str) -> str | None:
        """The contract id `text` stands for: itself when it is a whole id, the one id its beginning expanded to."""
        text = text.strip()
        return text if scalars.is_contract_id(text) else self.contracts.get(text)

    def party(self, text: str) -> str | None:
        """The party id `text` stands for: itself when it is an id, the one known party with that short name."""
        text = text.strip()
        if "::" in text:
            return text
        matches = [p for p in dict.fromkeys(self.parties()) if p.split("::", 1)[0] == text]
        return matches[0] if len(matches) == 1 else None


def join(path: str, name: str) -> str:
    return f"{path}.{name}" if path else name


def _kind(value: Json) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


class Node(ABC):
    type: FieldType

    @abstractmethod
    def to_json(self) -> Json:
        """The value as the JSON Ledger API takes it; what does not check is sent as typed."""

    @abstractmethod
    def problems(self, path: str) -> Iterator[ValueProblem]:
        """What does not check, each with its path."""

    @abstractmethod
    def load(self, value: Json, path: str) -> list[ValueProblem]:
        """Fill the node from the JSON encoding; where it does not fit its type, a problem (the node keeps its default)."""


class TextNode(Node):
    """Party, Text, Int64, Numeric, Date, Time and ContractId: the text typed."""

    type: Scalar | NumericT | ContractIdT

    def __init__(self, type_: Scalar | NumericT | ContractIdT, context: FormContext) -> None:
        self.type = type_
        self.context = context
        self.text = ""

    def to_json(self) -> Json:
        t, text = self.type, self.text.strip()
        if isinstance(t, Scalar) and t.kind == "TEXT":
            return self.text
        if isinstance(t, Scalar) and t.kind == "PARTY":
            return self.context.party(text) or text
        if isinstance(t, ContractIdT):
            return self.context.contract(text) or text
        try:  # what checks is sent as the JSON API writes it; the rest as typed, for the server to refuse
            if isinstance(t, NumericT):
                return scalars.numeric_text(scalars.numeric_of_text(text, t.scale), t.scale)
            if isinstance(t, Scalar) and t.kind == "INT64":
                return scalars.int64_text(scalars.int64_of_text(text))
            if isinstance(t, Scalar) and t.kind == "TIMESTAMP":
                return scalars.timestamp_text(scalars.timestamp_of_text(text, typed=True))
        except ScalarProblem:
            pass
        return text

    def problem(self) -> str | None:
        """What is wrong with the text for its type, or None."""
        t, text = self.type, self.text.strip()
        if isinstance(t, Scalar) and t.kind == "TEXT":
            return None
        if not text:
            return f"required: {_example(t)}"
        if isinstance(t, Scalar) and t.kind == "PARTY":
            if not scalars.is_party_id(text):
                return "a party id has letters, digits and :-_ only"
            if self.context.party(text) is None:
                return f"no known party is named {text!r}: write its id (name::fingerprint)"
            return None
        try:
            if isinstance(t, Scalar) and t.kind == "INT64":
                scalars.int64_of_text(text)
            elif isinstance(t, NumericT):
                scalars.numeric_of_text(text, t.scale)
            elif isinstance(t, Scalar) and t.kind == "DATE":
                scalars.date_of_text(text)
            elif isinstance(t, Scalar) and t.kind == "TIMESTAMP":
                scalars.timestamp_of_text(text, typed=True)
        except ScalarProblem as problem:
            return problem.message
        if isinstance(t, ContractIdT):
            if self.context.contract(text) is not None:
                return None
            return self.context.contract_problems.get(
                text, "a contract id is 00 followed by hexadecimal digits"
            )
        return None

    def problems(self, path: str) -> Iterator[ValueProblem]:
        message = self.problem()
        if message is not None:
            yield ValueProblem(path, message)

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        t = self.type
        takes_number = isinstance(t, NumericT) or (isinstance(t, Scalar) and t.kind == "INT64")
        if isinstance(value, str):
            self.text = value
        elif takes_number and isinstance(value, int | float) and not isinstance(value, bool):
            self.text = str(value)
        else:
            return [ValueProblem(path, f"expected {t.shown} but got {_kind(value)}")]
        if isinstance(t, NumericT):
            # at its scale, as the JSON API writes it (scale 0 without its bare point)
            try:
                self.text = scalars.numeric_text(scalars.numeric_of_text(self.text, t.scale), t.scale).rstrip(
                    "."
                )
            except ScalarProblem:
                pass
        return []


class BoolNode(Node):
    type: Scalar

    def __init__(self, type_: Scalar) -> None:
        self.type = type_
        self.value = False

    def to_json(self) -> Json:
        return self.value

    def problems(self, path: str) -> Iterator[ValueProblem]:
        return iter(())

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if not isinstance(value, bool):
            return [ValueProblem(path, f"expected Bool but got {_kind(value)}")]
        self.value = value
        return []


class UnitNode(Node):
    type: Scalar

    def __init__(self, type_: Scalar) -> None:
        self.type = type_

    def to_json(self) -> Json:
        return {}

    def problems(self, path: str) -> Iterator[ValueProblem]:
        return iter(())

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        return []


class EnumNode(Node):
    type: EnumT

    def __init__(self, type_: EnumT) -> None:
        self.type = type_
        self.constructor = type_.constructors[0] if type_.constructors else ""

    def to_json(self) -> Json:
        return self.constructor

    def problems(self, path: str) -> Iterator[ValueProblem]:
        if self.constructor not in self.type.constructors:
            yield ValueProblem(path, f"one of {', '.join(self.type.constructors)}")

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if not isinstance(value, str) or value not in self.type.constructors:
            return [ValueProblem(path, f"expected one of {', '.join(self.type.constructors)}, got {value!r}")]
        self.constructor = value
        return []


class RawNode(Node):
    """A value of a type the form cannot offer inputs for: JSON text."""

    type: Opaque

    def __init__(self, type_: Opaque) -> None:
        self.type = type_
        self.text = ""

    def value(self) -> tuple[Json, str | None]:
        if not self.text.strip():
            return None, f"required: {self.type.shown} as JSON ({self.type.why})"
        try:
            return orjson.loads(self.text), None
        except orjson.JSONDecodeError as e:
            return None, f"not JSON: {e.msg}"

    def to_json(self) -> Json:
        return self.value()[0]

    def problems(self, path: str) -> Iterator[ValueProblem]:
        message = self.value()[1]
        if message is not None:
            yield ValueProblem(path, message)

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        self.text = orjson.dumps(value).decode()
        return []


class OptionalNode(Node):
    """None or some value; the value typed is kept while it is none. Nested Optionals are arrays on the wire."""

    type: OptionalT

    def __init__(self, type_: OptionalT, context: FormContext, *, in_optional: bool = False) -> None:
        self.type = type_
        self.context = context
        self.present = False
        self.as_array = in_optional or isinstance(type_.element, OptionalT)
        self._child: Node | None = None

    @property
    def child(self) -> Node:
        if self._child is None:
            element = self.type.element
            self._child = (
                OptionalNode(element, self.context, in_optional=True)
                if isinstance(element, OptionalT)
                else node_for(element, self.context)
            )
        return self._child

    def to_json(self) -> Json:
        if not self.as_array:
            return self.child.to_json() if self.present else None
        return [self.child.to_json()] if self.present else []

    def problems(self, path: str) -> Iterator[ValueProblem]:
        if self.present:
            yield from self.child.problems(path)

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if self.as_array:
            if not isinstance(value, list) or len(value) > 1:
                return [ValueProblem(path, f"a nested Optional is [] or [value], not {_kind(value)}")]
            self.present = bool(value)
            return self.child.load(value[0], path) if value else []
        self.present = value is not None
        return self.child.load(value, path) if self.present else []


class ListNode(Node):
    type: ListT

    def __init__(self, type_: ListT, context: FormContext) -> None:
        self.type = type_
        self.context = context
        self.items: list[Node] = []

    def add(self, index: int | None = None) -> Node:
        item = node_for(self.type.element, self.context)
        self.items.insert(len(self.items) if index is None else index, item)
        return item

    def remove(self, index: int) -> None:
        del self.items[index]

    def move(self, index: int, delta: int) -> int:
        """Move item `index` up (-1) or down (+1); its new index."""
        target = max(0, min(len(self.items) - 1, index + delta))
        self.items.insert(target, self.items.pop(index))
        return target

    def to_json(self) -> Json:
        return [item.to_json() for item in self.items]

    def problems(self, path: str) -> Iterator[ValueProblem]:
        for i, item in enumerate(self.items):
            yield from item.problems(f"{path}[{i}]")

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if not isinstance(value, list):
            return [ValueProblem(path, f"expected a list but got {_kind(value)}")]
        self.items = []
        problems: list[ValueProblem] = []
        for i, element in enumerate(value):
            problems += self.add().load(element, f"{path}[{i}]")
        return problems


class MapNode(Node):
    """TextMap (an object on the wire) or GenMap (a list of [key, value] pairs): rows of a key and a value."""

    type: TextMapT | GenMapT

    def __init__(self, type_: TextMapT | GenMapT, context: FormContext) -> None:
        self.type = type_
        self.context = context
        self.rows: list[tuple[Node, Node]] = []

    @property
    def key_type(self) -> FieldType:
        return self.type.key if isinstance(self.type, GenMapT) else Scalar("TEXT")

    def add(self) -> tuple[Node, Node]:
        row = (node_for(self.key_type, self.context), node_for(self.type.value, self.context))
        self.rows.append(row)
        return row

    def remove(self, index: int) -> None:
        del self.rows[index]

    def move(self, index: int, delta: int) -> int:
        target = max(0, min(len(self.rows) - 1, index + delta))
        self.rows.insert(target, self.rows.pop(index))
        return target

    def to_json(self) -> Json:
        if isinstance(self.type, TextMapT):
            return {key.to_json(): value.to_json() for key, value in self.rows}
        return [[key.to_json(), value.to_json()] for key, value in self.rows]

    def problems(self, path: str) -> Iterator[ValueProblem]:
        seen: set[str] = set()
        for i, (key, value) in enumerate(self.rows):
            yield from key.problems(f"{path}[{i}].key")
            shown = repr(key.to_json())
            if shown in seen:
                yield ValueProblem(f"{path}[{i}].key", f"the key {shown} is already in the map")
            seen.add(shown)
            yield from value.problems(f"{path}[{i}].value")

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if isinstance(self.type, TextMapT):
            if not isinstance(value, dict):
                return [ValueProblem(path, f"expected a TextMap (an object) but got {_kind(value)}")]
            pairs = list(value.items())
        else:
            if not isinstance(value, list) or not all(isinstance(p, list) and len(p) == 2 for p in value):
                return [ValueProblem(path, "expected a Map as a list of [key, value] pairs")]
            pairs = [(k, v) for k, v in value]
        self.rows = []
        problems: list[ValueProblem] = []
        for i, (k, v) in enumerate(pairs):
            key, val = self.add()
            problems += key.load(k, f"{path}[{i}].key") + val.load(v, f"{path}[{i}].value")
        return problems


class RecordNode(Node):
    type: RecordT

    def __init__(self, type_: RecordT, context: FormContext) -> None:
        self.type = type_
        self.fields: dict[str, Node] = {name: node_for(t, context) for name, t in type_.fields}

    def to_json(self) -> Json:
        return {name: node.to_json() for name, node in self.fields.items()}

    def problems(self, path: str) -> Iterator[ValueProblem]:
        for name, node in self.fields.items():
            yield from node.problems(join(path, name))

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if not isinstance(value, dict):
            return [ValueProblem(path, f"expected a record {self.type.shown} but got {_kind(value)}")]
        problems: list[ValueProblem] = []
        for name, node in self.fields.items():
            if name in value:
                problems += node.load(value[name], join(path, name))
            elif isinstance(node, OptionalNode) and not node.as_array:
                node.present = False
            else:
                problems.append(ValueProblem(join(path, name), "missing"))
        for name in value:
            if name not in self.fields and value[name] is not None:
                problems.append(ValueProblem(join(path, name), f"{self.type.shown} has no such field"))
        return problems


class VariantNode(Node):
    """A constructor and its payload; each constructor's payload is kept while another is chosen."""

    type: VariantT

    def __init__(self, type_: VariantT, context: FormContext) -> None:
        self.type = type_
        self.context = context
        self.constructor = type_.constructors[0][0] if type_.constructors else ""
        self._payloads: dict[str, Node] = {}

    @property
    def payload(self) -> Node | None:
        payload_type = self.type.constructor(self.constructor)
        if payload_type is None:
            return None
        if self.constructor not in self._payloads:
            self._payloads[self.constructor] = node_for(payload_type, self.context)
        return self._payloads[self.constructor]

    def to_json(self) -> Json:
        payload = self.payload
        return {"tag": self.constructor, "value": payload.to_json() if payload is not None else {}}

    def problems(self, path: str) -> Iterator[ValueProblem]:
        payload = self.payload
        if payload is None:
            names = ", ".join(n for n, _ in self.type.constructors)
            yield ValueProblem(path, f"choose a constructor: {names}")
        else:
            yield from payload.problems(join(path, self.constructor))

    def load(self, value: Json, path: str) -> list[ValueProblem]:
        if not isinstance(value, dict) or "tag" not in value:
            return [ValueProblem(path, f'a variant is {{"tag": …, "value": …}}, not {_kind(value)}')]
        tag = value["tag"]
        if self.type.constructor(tag) is None:
            names = ", ".join(n for n, _ in self.type.constructors)
            return [ValueProblem(path, f"{self.type.shown} has no constructor {tag!r} (it has {names})")]
        self.constructor = tag
        payload = self.payload
        assert payload is not None
        return payload.load(value.get("value", {}), join(path, tag))


def node_for(type_: FieldType, context: FormContext) -> Node:
    """An empty node for a value of `type_`."""
    if isinstance(type_, Scalar):
        if type_.kind == "BOOL":
            return BoolNode(type_)
        if type_.kind == "UNIT":
            return UnitNode(type_)
        return TextNode(type_, context)
    if isinstance(type_, NumericT | ContractIdT):
        return TextNode(type_, context)
    if isinstance(type_, OptionalT):
        return OptionalNode(type_, context)
    if isinstance(type_, ListT):
        return ListNode(type_, context)
    if isinstance(type_, TextMapT | GenMapT):
        return MapNode(type_, context)
    if isinstance(type_, RecordT):
        return RecordNode(type_, context)
    if isinstance(type_, VariantT):
        return VariantNode(type_, context)
    if isinstance(type_, EnumT):
        return EnumNode(type_)
    return RawNode(type_)


class ValueForm:
    """A whole value (a template's create arguments, a choice's argument), named `root` in its problems' paths."""

    def __init__(self, type_: FieldType, root: str, context: FormContext | None = None) -> None:
        self.type = type_
        self.root = root
        self.context = context or FormContext()
        self.node = node_for(type_, self.context)

    def to_json(self) -> Json:
        return self.node.to_json()

    def problems(self) -> list[ValueProblem]:
        return list(self.node.problems(self.root))

    def load(self, value: Json) -> list[ValueProblem]:
        """Fill the form from JSON (what does not fit stays empty: its problems say where)."""
        self.node = node_for(self.type, self.context)
        return self.node.load(value, self.root)


# --- scalars


def _example(t: FieldType) -> str:
    if isinstance(t, Scalar):
        return {
            "PARTY": "a party (Alice or Alice::1220…)",
            "INT64": "a whole number",
            "DATE": "a date, YYYY-MM-DD",
            "TIMESTAMP": "a time, 2030-01-31T12:00:00Z",
        }.get(t.kind, t.shown)
    if isinstance(t, NumericT):
        return f"a number with at most {count(t.scale, 'decimal')}"
    if isinstance(t, ContractIdT):
        return f"the id of a contract{f' of {t.template.qualified_name}' if t.template else ''}"
    return t.shown
