"""Builds the same small package on demand, to compare package ids. No postponed annotations here on purpose:
the field type comes from the enclosing function, which a string annotation could not see."""

from participant.engine.pydsl import ContractId, Package, Party, Template, Text, Update, choice


def make_package(amount_type, version="1.0.0") -> Package:
    package = Package("made", version)

    @package.template("Main:Thing")
    class Thing(Template):
        owner: Party
        amount: amount_type

        def signatory(self):
            return [self.owner]

        @choice(controller=lambda self: [self.owner])
        async def Rename(self, tx: Update, name: Text) -> ContractId["Thing"]:
            return await tx.create(self)

    return package
