"""A test package with an interface that has a method and choices, and one implementation whose view fails.

The Daml it stands for:

```daml
data ShapeView = ShapeView with name : Text; sides : Int

interface IShape where
  viewtype ShapeView
  getOwner : Party
  nonconsuming choice Shape_Describe : Text with prefix : Text
    controller getOwner this
    do pure (prefix <> (view this).name)
  choice Shape_Discard : ()
    controller getOwner this
    do pure ()

template Square with owner : Party; name : Text where
  signatory owner
  interface instance IShape for Square where
    view = ShapeView name 4
    getOwner = owner

template Broken with owner : Party where
  signatory owner
  interface instance IShape for Broken where
    view = error "view crashed"
    getOwner = owner

template Plain with owner : Party where
  signatory owner

template Gallery with owner : Party where
  signatory owner
  nonconsuming choice Gallery_Describe : Text with shapeCid : ContractId IShape
    controller owner
    do exercise shapeCid Shape_Describe with prefix = "gallery: "
```
"""

from __future__ import annotations

from participant.engine.pydsl import (
    ContractId,
    DamlAssertionError,
    Int64,
    Interface,
    Package,
    Party,
    Record,
    Template,
    Text,
    Unit,
    Update,
    choice,
    interface_instance,
)

package = Package("shapes", "1.0.0")


@package.record("Shapes:ShapeView")
class ShapeView(Record):
    name: Text
    sides: Int64


@package.interface("Shapes:IShape")
class IShape(Interface):
    viewtype = ShapeView

    def getOwner(self) -> Party:
        raise NotImplementedError  # a method: each instance defines it

    @choice(controller=lambda self: [self.getOwner()], consuming=False)
    async def Shape_Describe(self, tx: Update, prefix: Text) -> Text:
        return prefix + self.view().name

    @choice(controller=lambda self: [self.getOwner()])
    async def Shape_Discard(self, tx: Update) -> Unit:
        return ()


@package.template("Shapes:Square")
class Square(Template):
    owner: Party
    name: Text

    def signatory(self) -> list[str]:
        return [self.owner]

    @interface_instance(IShape)
    class IShapeForSquare:
        @staticmethod
        def view(square: Square) -> ShapeView:
            return ShapeView(name=square.name, sides=4)

        @staticmethod
        def getOwner(square: Square) -> str:
            return square.owner


@package.template("Shapes:Broken")
class Broken(Template):
    owner: Party

    def signatory(self) -> list[str]:
        return [self.owner]

    @interface_instance(IShape)
    class IShapeForBroken:
        @staticmethod
        def view(broken: Broken) -> ShapeView:
            raise DamlAssertionError("view crashed")

        @staticmethod
        def getOwner(broken: Broken) -> str:
            return broken.owner


@package.template("Shapes:Plain")
class Plain(Template):
    owner: Party

    def signatory(self) -> list[str]:
        return [self.owner]


@package.template("Shapes:Gallery")
class Gallery(Template):
    owner: Party

    def signatory(self) -> list[str]:
        return [self.owner]

    @choice(controller=lambda self: [self.owner], consuming=False)
    async def Gallery_Describe(self, tx: Update, shapeCid: ContractId[IShape]) -> Text:
        return await tx.exercise(shapeCid, IShape.Shape_Describe, prefix="gallery: ")
