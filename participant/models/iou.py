"""The Iou model of Canton's JSON API example (`examples/09-json-api/model/Iou.daml`, 3.5 copy), in Python.

The Daml it mirrors is quoted in the docstrings.
Import with `from participant.models.iou import package`.
"""

from __future__ import annotations

import datetime as dt

from participant.engine.pydsl import (
    ContractId,
    Date,
    Decimal,
    Int64,
    Interface,
    List,
    Package,
    Party,
    Record,
    Template,
    Text,
    TextMap,
    Time,
    Tuple2,
    Unit,
    Update,
    choice,
    interface_instance,
    show_numeric,
)

package = Package("model-tests", "1.0.0")


def iou_owner(iou: Iou) -> list[str]:
    # named apart from the template's field `owner`, which a type checker would take it for in the class body
    return [iou.owner]


@package.record("Iou:AmountAndCurrency")
class AmountAndCurrency(Record):
    icurrency: Text
    iamount: Decimal


@package.interface("Iou:IIou")
class IIou(Interface):
    """`interface IIou where viewtype AmountAndCurrency`: a view, no methods, no choices but `Archive`."""

    viewtype = AmountAndCurrency


@package.template("Iou:Iou")
class Iou(Template):
    issuer: Party
    owner: Party
    currency: Text
    amount: Decimal
    observers: List[Party]

    def signatory(self) -> list[str]:
        return [self.issuer, self.owner]

    def observer(self) -> list[str]:
        return self.observers

    def ensure(self) -> bool:
        return self.amount > 0

    @choice(controller=iou_owner)
    async def Iou_Split(self, tx: Update, splitAmount: Decimal) -> Tuple2[ContractId[Iou], ContractId[Iou]]:
        split_cid = await tx.create(self.with_(amount=splitAmount))
        rest_cid = await tx.create(self.with_(amount=self.amount - splitAmount))
        return split_cid, rest_cid

    @choice(controller=iou_owner)
    async def Iou_Merge(self, tx: Update, otherCid: ContractId[Iou]) -> ContractId[Iou]:
        other = await tx.fetch(otherCid, Iou)
        tx.assert_msg(
            "Iou_Merge: the Ious must have the same currency, owner and issuer",
            self.currency == other.currency and self.owner == other.owner and self.issuer == other.issuer,
        )
        await tx.archive(otherCid)
        return await tx.create(self.with_(amount=self.amount + other.amount))

    @choice(controller=iou_owner)
    async def Iou_Transfer(self, tx: Update, newOwner: Party) -> ContractId[IouTransfer]:
        return await tx.create(IouTransfer(iou=self, newOwner=newOwner))

    @choice(controller=iou_owner)
    async def Iou_AddObserver(self, tx: Update, newObserver: Party) -> ContractId[Iou]:
        return await tx.create(self.with_(observers=[newObserver, *self.observers]))

    @choice(controller=iou_owner)
    async def Iou_RemoveObserver(self, tx: Update, oldObserver: Party) -> ContractId[Iou]:
        return await tx.create(self.with_(observers=[p for p in self.observers if p != oldObserver]))

    @choice(controller=iou_owner, consuming=False)
    async def DateCheckAddDays(self, tx: Update, payload: Date) -> Date:
        return payload + dt.timedelta(days=31)

    @choice(controller=iou_owner, consuming=False)
    async def TimestampCheckAddHours(self, tx: Update, payload: Time) -> Time:
        return payload + dt.timedelta(hours=2)

    @choice(controller=iou_owner, consuming=False)
    async def TextMapCheck(self, tx: Update, payload: TextMap[Int64]) -> TextMap[Int64]:
        return {**payload, "b": 42}

    @choice(controller=lambda self, arg: [arg.viewer], consuming=False)
    async def Iou_Inspect(self, tx: Update, viewer: Party) -> Text:
        return f"{show_numeric(self.amount)} {self.currency}"

    @choice(controller=iou_owner)
    async def Iou_Settle(self, tx: Update) -> Unit:
        return ()

    @interface_instance(IIou)
    class IIouForIou:
        """`interface instance IIou for Iou where view = AmountAndCurrency currency amount`."""

        @staticmethod
        def view(iou: Iou) -> AmountAndCurrency:
            return AmountAndCurrency(icurrency=iou.currency, iamount=iou.amount)


@package.template("Iou:IouTransfer")
class IouTransfer(Template):
    iou: Iou
    newOwner: Party

    def signatory(self) -> list[str]:
        return [self.iou.issuer, self.iou.owner]

    def observer(self) -> list[str]:
        return [self.newOwner]

    @choice(controller=lambda self: [self.iou.owner])
    async def IouTransfer_Cancel(self, tx: Update) -> ContractId[Iou]:
        return await tx.create(self.iou)

    @choice(controller=lambda self: [self.newOwner])
    async def IouTransfer_Reject(self, tx: Update) -> ContractId[Iou]:
        return await tx.create(self.iou)

    @choice(controller=lambda self: [self.newOwner])
    async def IouTransfer_Accept(self, tx: Update) -> ContractId[Iou]:
        return await tx.create(self.iou.with_(owner=self.newOwner, observers=[]))


@package.template("Iou:IouLinked")
class IouLinked(Template):
    """3.5's helper for reassignment scenarios: reads an Iou the holder is a stakeholder of."""

    holder: Party
    iouRef: ContractId[Iou]
    note: Text

    def signatory(self) -> list[str]:
        return [self.holder]

    @choice(controller=lambda self: [self.holder])
    async def ProcessWithIou(self, tx: Update) -> Text:
        iou = await tx.fetch(self.iouRef, Iou)
        return f"{show_numeric(iou.amount)} {iou.currency}"
