"""A package written without the Python DSL: plain objects that implement the engine's definitions
(`participant.engine.definitions`), with values of the codec's own kinds (`RecordValue`). It stands for any other
way of defining templates (a Daml-LF package): the engine must run it as it runs the DSL's.

    template Note with owner : Party; text : Text; readers : [Party]
      where
        signatory owner
        observer readers
        ensure text /= ""
        key (owner, text) : (Party, Text)
        maintainer key._1
        choice Note_Edit : ContractId Note with newText : Text  controller owner
        nonconsuming choice Note_Read : Text with reader : Party  controller reader  observer [reader]
        nonconsuming choice Note_Pay : ContractId Iou with amount : Decimal  controller owner
          -- creates a (Python DSL) Iou from the owner to itself
        choice Note_Delegated : () with helper : Party  controller helper  authority [helper]
          -- an explicit authority: the body acts with the helper's authority alone, not the owner's
        interface instance IText for Note where view = TextView text

    interface IText where viewtype TextView
      nonconsuming choice IText_Shout : Text  controller signatory this
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from participant.engine.definitions import InterfaceDef, TemplateDef, interface_key
from participant.engine.update import Update
from participant.engine.values import (
    ContractIdType,
    DamlType,
    Decimal,
    ListType,
    Party,
    RecordType,
    RecordValue,
    Text,
    TupleType,
    Unit,
)
from participant.models import iou

NOTE = RecordType("Notes:Note", {"owner": Party, "text": Text, "readers": ListType(Party)})
TEXT_VIEW = RecordType("Notes:TextView", {"text": Text})


@dataclass(frozen=True)
class HandChoice:
    name: str
    consuming: bool
    argument_type: RecordType
    result_type: DamlType
    body: Callable[[Any, Update, Any], Any]
    controller: Callable[[Any, Any], list[str]]
    observer: Callable[[Any, Any], list[str]] = lambda target, argument: []
    authority: Callable[[Any, Any], list[str]] | None = None
    template: TemplateDef | None = None
    interface: InterfaceDef | None = None

    def controllers(self, target: Any, argument: Any) -> list[str]:
        return self.controller(target, argument)

    def observers(self, target: Any, argument: Any) -> list[str]:
        return self.observer(target, argument)

    def authorizers(self, target: Any, argument: Any) -> list[str] | None:
        return None if self.authority is None else self.authority(target, argument)

    async def run(self, target: Any, update: Update, argument: Any) -> Any:
        return await self.body(target, update, argument)


@dataclass
class HandInstance:
    interface: InterfaceDef
    view_of: Callable[[Any], Any]

    def view(self, contract: Any) -> Any:
        return self.view_of(contract)

    def call(self, method: str, contract: Any, *arguments: Any) -> Any:
        raise KeyError(method)


@dataclass
class HandTemplate:
    package: HandPackage
    qualified_name: str
    argument_type: RecordType
    key_type: DamlType | None
    choices: dict[str, HandChoice] = field(default_factory=dict)
    instances: dict[tuple[str, str], HandInstance] = field(default_factory=dict)

    @property
    def template_id(self) -> str:
        return f"{self.package.package_id}:{self.qualified_name}"

    def signatories(self, contract: RecordValue) -> list[str]:
        return [contract.fields["owner"]]

    def observers(self, contract: RecordValue) -> list[str]:
        return contract.fields["readers"]

    def ensure(self, contract: RecordValue) -> bool:
        return contract.fields["text"] != ""

    def key(self, contract: RecordValue) -> Any:
        return contract.fields["owner"], contract.fields["text"]

    def maintainers(self, key: Any) -> list[str]:
        return [key[0]]

    def instance_of(self, interface: InterfaceDef) -> HandInstance | None:
        return self.instances.get(interface_key(interface))


@dataclass
class HandInterface:
    package: HandPackage
    qualified_name: str
    view_type: DamlType
    choices: dict[str, HandChoice] = field(default_factory=dict)

    @property
    def interface_id(self) -> str:
        return f"{self.package.package_id}:{self.qualified_name}"

    def to_interface(self, template: TemplateDef, contract: Any) -> tuple[TemplateDef, Any]:
        return template, contract


@dataclass
class HandPackage:
    name: str
    version: str
    templates: dict[str, HandTemplate] = field(default_factory=dict)
    interfaces: dict[str, HandInterface] = field(default_factory=dict)

    def archive(self) -> bytes:
        return f"{self.name} {self.version}: {sorted(self.templates)} {sorted(self.interfaces)}".encode()

    @property
    def package_id(self) -> str:
        return hashlib.sha256(self.archive()).hexdigest()


def record(type_: RecordType, **fields: Any) -> RecordValue:
    return type_.from_fields(fields)


def _archive(controller: Callable[[Any, Any], list[str]], **owner: Any) -> HandChoice:
    return HandChoice(
        "Archive", True, RecordType("Notes:Archive", {}), Unit, body=_unit, controller=controller, **owner
    )


async def _unit(target: Any, update: Update, argument: Any) -> tuple:
    return ()


def build() -> HandPackage:
    package = HandPackage("hand-notes", "1.0.0")
    note = HandTemplate(package, "Notes:Note", NOTE, TupleType(Party, Text))
    itext = HandInterface(package, "Notes:IText", TEXT_VIEW)

    async def edit(contract: RecordValue, update: Update, argument: RecordValue) -> str:
        return await update.create(
            note, record(NOTE, **{**contract.fields, "text": argument.fields["newText"]})
        )

    async def read(contract: RecordValue, update: Update, argument: RecordValue) -> str:
        return contract.fields["text"]

    async def pay(contract: RecordValue, update: Update, argument: RecordValue) -> str:
        owner = contract.fields["owner"]
        payment = iou.Iou(
            issuer=owner, owner=owner, currency="USD", amount=argument.fields["amount"], observers=[]
        )
        return await update.create(iou.Iou.definition(), payment)

    async def delegated(contract: RecordValue, update: Update, argument: RecordValue) -> tuple:
        # Creating another of the owner's notes needs the owner's authority, which an explicit authority drops.
        await update.create(note, record(NOTE, **{**contract.fields, "text": "by the helper"}))
        return ()

    async def shout(target: tuple[TemplateDef, RecordValue], update: Update, argument: RecordValue) -> str:
        template, contract = target
        instance = template.instance_of(itext)
        assert instance is not None  # the choice is the interface's: the contract's template implements it
        return str(instance.view(contract).fields["text"]).upper()

    note.choices = {
        "Archive": _archive(lambda contract, argument: note.signatories(contract), template=note),
        "Note_Edit": HandChoice(
            "Note_Edit",
            True,
            RecordType("Notes:Note_Edit", {"newText": Text}),
            ContractIdType("Notes:Note"),
            body=edit,
            controller=lambda contract, argument: [contract.fields["owner"]],
            template=note,
        ),
        "Note_Read": HandChoice(
            "Note_Read",
            False,
            RecordType("Notes:Note_Read", {"reader": Party}),
            Text,
            body=read,
            controller=lambda contract, argument: [argument.fields["reader"]],
            observer=lambda contract, argument: [argument.fields["reader"]],
            template=note,
        ),
        "Note_Pay": HandChoice(
            "Note_Pay",
            False,
            RecordType("Notes:Note_Pay", {"amount": Decimal}),
            ContractIdType("Iou:Iou"),
            body=pay,
            controller=lambda contract, argument: [contract.fields["owner"]],
            template=note,
        ),
        "Note_Delegated": HandChoice(
            "Note_Delegated",
            True,
            RecordType("Notes:Note_Delegated", {"helper": Party}),
            Unit,
            body=delegated,
            controller=lambda contract, argument: [argument.fields["helper"]],
            authority=lambda contract, argument: [argument.fields["helper"]],
            template=note,
        ),
    }
    itext.choices = {
        "Archive": _archive(lambda target, argument: note.signatories(target[1]), interface=itext),
        "IText_Shout": HandChoice(
            "IText_Shout",
            False,
            RecordType("Notes:IText_Shout", {}),
            Text,
            body=shout,
            controller=lambda target, argument: note.signatories(target[1]),
            interface=itext,
        ),
    }
    note.instances = {
        interface_key(itext): HandInstance(itext, lambda c: record(TEXT_VIEW, text=c.fields["text"]))
    }
    package.templates = {"Notes:Note": note}
    package.interfaces = {"Notes:IText": itext}
    return package


package = build()
