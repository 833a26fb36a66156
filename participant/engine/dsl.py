"""Everything a model module needs, in one import: `from participant.engine.dsl import *`."""

from participant.engine.interfaces import Interface, interface_instance
from participant.engine.records import Record, Variant
from participant.engine.templates import ContractKey, Package, Template, choice
from participant.engine.update import DamlAssertionError, Update
from participant.engine.values import (
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
    Some,
    Text,
    TextMap,
    Time,
    Timestamp,
    Tuple2,
    Tuple3,
    Unit,
    show_numeric,
)

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
