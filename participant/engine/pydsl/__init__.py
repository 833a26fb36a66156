"""The Python DSL: templates, interfaces and data types written as annotated Python classes, read like their Daml.
One implementation of what the engine runs (`participant.engine.definitions`); a model needs one import,
`from participant.engine.pydsl import *`."""

from participant.engine.pydsl.interfaces import Interface, interface_instance
from participant.engine.pydsl.records import Record, Variant
from participant.engine.pydsl.templates import ContractKey, Package, Template, choice
from participant.engine.pydsl.types import (
    Bool,
    ContractId,
    Date,
    Decimal,
    GenMap,
    Int64,
    List,
    Numeric,
    Optional,
    Party,
    Text,
    TextMap,
    Time,
    Timestamp,
    Tuple2,
    Tuple3,
    Unit,
)
from participant.engine.pydsl.update import Update
from participant.engine.update import DamlAssertionError
from participant.engine.values import Some, show_numeric

__all__ = [
    "Bool",
    "ContractId",
    "ContractKey",
    "DamlAssertionError",
    "Date",
    "Decimal",
    "GenMap",
    "Int64",
    "Interface",
    "List",
    "Numeric",
    "Optional",
    "Package",
    "Party",
    "Record",
    "Some",
    "Template",
    "Text",
    "TextMap",
    "Time",
    "Timestamp",
    "Tuple2",
    "Tuple3",
    "Unit",
    "Update",
    "Variant",
    "choice",
    "interface_instance",
    "show_numeric",
]
