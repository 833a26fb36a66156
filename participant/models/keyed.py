"""A small package with contract keys, and a user-defined enum, variant and optional field.

Daml it mirrors:

    template Account with owner : Party; bank : Party; label : Text; balance : Decimal; kind : AccountKind
      where
        signatory bank, owner
        key (owner, label) : (Party, Text)
        maintainer key._1
        ensure balance >= 0.0

Import with `from participant.models.keyed import package`.
"""

from __future__ import annotations

import enum

from participant.engine.pydsl import (
    ContractId,
    ContractKey,
    Decimal,
    Optional,
    Package,
    Party,
    Template,
    Text,
    Tuple2,  # noqa: F401  # named by the key's type, which is resolved in this module
    Unit,
    Update,
    Variant,
    choice,
)

package = Package("keyed-example", "1.0.0")


@package.enum("Accounts:AccountKind")
class AccountKind(enum.Enum):
    Checking = "Checking"
    Savings = "Savings"


@package.variant("Accounts:Limit")
class Limit(Variant):
    NoLimit: Unit
    Daily: Decimal


@package.template("Accounts:Account")
class Account(Template):
    owner: Party
    bank: Party
    label: Text
    balance: Decimal
    kind: AccountKind
    limit: Optional[Limit]

    key = ContractKey(
        "Tuple2[Party, Text]", of=lambda self: (self.owner, self.label), maintainer=lambda key: [key[0]]
    )

    def signatory(self) -> list[str]:
        return [self.bank, self.owner]

    def ensure(self) -> bool:
        return self.balance >= 0

    @choice(controller=lambda self: [self.owner])
    async def Account_Deposit(self, tx: Update, amount: Decimal) -> ContractId[Account]:
        # Archives this contract first, so the re-created one may take the same key in the same transaction.
        return await tx.create(self.with_(balance=self.balance + amount))

    @choice(controller=lambda self: [self.owner], consuming=False)
    async def Account_Duplicate(self, tx: Update) -> ContractId[Account]:
        """Fails: the key is still held by this (non-consumed) contract."""
        return await tx.create(self)


@package.template("Accounts:Bank")
class Bank(Template):
    """A bank and a customer who agreed to open accounts: the customer's choices act with both parties' authority."""

    bank: Party
    customer: Party

    def signatory(self) -> list[str]:
        return [self.bank, self.customer]

    @choice(controller=lambda self: [self.customer], consuming=False)
    async def Open(self, tx: Update, label: Text) -> ContractId[Account]:
        return await self._open(tx, label)

    @choice(controller=lambda self: [self.customer], consuming=False)
    async def OpenCloseReopen(self, tx: Update, label: Text) -> ContractId[Account]:
        """A transient contract frees its key within the transaction: the second create may take it."""
        first = await self._open(tx, label)
        await tx.archive(first)
        return await self._open(tx, label)

    @choice(controller=lambda self: [self.customer], consuming=False)
    async def Lookup(self, tx: Update, label: Text) -> Optional[ContractId[Account]]:
        return await tx.lookup_by_key(Account, (self.customer, label))

    @choice(controller=lambda self: [self.customer], consuming=False)
    async def Balance(self, tx: Update, label: Text) -> Decimal:
        _, account = await tx.fetch_by_key(Account, (self.customer, label))
        return account.balance

    @choice(controller=lambda self: [self.customer], consuming=False)
    async def DepositByKey(self, tx: Update, label: Text, amount: Decimal) -> ContractId[Account]:
        return await tx.exercise_by_key(Account, (self.customer, label), "Account_Deposit", amount=amount)

    async def _open(self, tx: Update, label: Text) -> ContractId[Account]:
        return await tx.create(
            Account(
                owner=self.customer,
                bank=self.bank,
                label=label,
                balance=0,
                kind=AccountKind.Checking,
                limit=None,
            )
        )
