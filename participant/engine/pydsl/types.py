"""The names a model annotates with (`Party`, `Decimal`, `Numeric[0]`, `List[Party]`, `Optional[Text]`,
`ContractId[Iou]`, `TextMap[Int64]`, `GenMap[Text, Int64]`, `Tuple2[A, B]`, record classes), and the annotation's
node of the value type tree (`to_type`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from participant.engine import values
from participant.engine.values import (
    ContractIdType,
    DamlType,
    GenMapType,
    ListType,
    Numeric,
    OptionalType,
    TextMapType,
    TupleType,
)

__all__ = [
    "Bool",
    "ContractId",
    "Date",
    "Decimal",
    "GenMap",
    "Int64",
    "List",
    "Numeric",
    "Optional",
    "Party",
    "Text",
    "TextMap",
    "Time",
    "Timestamp",
    "Tuple2",
    "Tuple3",
    "Unit",
    "to_type",
]


def to_type(annotation: Any, namespace: dict[str, Any] | None = None) -> DamlType:
    """The DamlType an annotation stands for. String annotations (postponed evaluation, forward references) are
    evaluated in `namespace`, normally the model module's globals."""
    if isinstance(annotation, DamlType):
        return annotation
    if isinstance(annotation, str):
        try:
            evaluated = eval(annotation, dict(namespace or {}))  # model source, not user input
        except NameError as error:
            raise TypeError(f"cannot resolve the annotation {annotation!r}: {error}") from None
        return to_type(evaluated, namespace)
    if annotation is None:
        return values.Unit
    daml_type = getattr(annotation, "daml_type", None)
    if callable(daml_type):
        return daml_type()
    raise TypeError(f"{annotation!r} is not a Daml type")


def _template_name(template: Any) -> str:
    """How `ContractId[T]` names T: its qualified name once registered, else what the annotation wrote."""
    daml = getattr(template, "__daml__", None)
    return daml.qualified_name if daml else str(template)


class _Constructor:
    def __init__(self, build: Any, name: str) -> None:
        self._build, self._name = build, name

    def __getitem__(self, args: Any) -> DamlType:
        args = args if isinstance(args, tuple) else (args,)
        return self._build(*args)

    def __repr__(self) -> str:
        return self._name


if TYPE_CHECKING:
    # To a type checker a model's annotations name the Python values the engine hands its choices and fields (a
    # party is its id, a Decimal a decimal.Decimal, a contract id its string); at run time they are the Daml types
    # below, which no type checker reads as types.
    import datetime
    import decimal
    from typing import Generic, TypeAlias, TypeVar

    _A = TypeVar("_A")
    _B = TypeVar("_B")
    _C = TypeVar("_C")
    _T = TypeVar("_T", covariant=True)

    class ContractId(str, Generic[_T]):
        """A contract id of template ``_T``: only a string at run time, the template told to the type checker."""

    Bool: TypeAlias = bool
    Int64: TypeAlias = int
    Decimal: TypeAlias = decimal.Decimal
    Text: TypeAlias = str
    Party: TypeAlias = str
    Date: TypeAlias = datetime.date
    Time: TypeAlias = datetime.datetime
    Timestamp: TypeAlias = datetime.datetime
    Unit: TypeAlias = tuple[()]
    List: TypeAlias = list[_A]
    Optional: TypeAlias = _A | None
    TextMap: TypeAlias = dict[str, _A]
    GenMap: TypeAlias = dict[_A, _B]
    Tuple2: TypeAlias = tuple[_A, _B]
    Tuple3: TypeAlias = tuple[_A, _B, _C]
else:
    from participant.engine.values import Bool, Date, Decimal, Int64, Party, Text, Time, Unit

    Timestamp = Time
    ContractId = _Constructor(lambda t: ContractIdType(lambda: _template_name(t)), "ContractId")
    List = _Constructor(lambda t: ListType(to_type(t)), "List")
    Optional = _Constructor(lambda t: OptionalType(to_type(t)), "Optional")
    TextMap = _Constructor(lambda t: TextMapType(to_type(t)), "TextMap")
    GenMap = _Constructor(lambda k, v: GenMapType(to_type(k), to_type(v)), "GenMap")
    Tuple2 = _Constructor(lambda a, b: TupleType(to_type(a), to_type(b)), "Tuple2")
    Tuple3 = _Constructor(lambda a, b, c: TupleType(to_type(a), to_type(b), to_type(c)), "Tuple3")
