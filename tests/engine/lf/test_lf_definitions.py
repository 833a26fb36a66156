"""Daml-LF templates and interfaces behind the engine's seam: their parts computed by evaluating the package's own
expressions, checked against the Daml sources (richtypes/RichTypes.daml; Splice.Amulet of splice-amulet 0.1.14)."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest

from participant.base import errors
from participant.engine.definitions import PackageDef
from participant.engine.lf.definitions import LfChoice, LfPackages, LfTemplate
from participant.engine.values import RecordType
from tests.engine.lf.conftest import ALICE, BOB, CID, DSO
from tests.engine.lf.rich_record import RICH

HOLDING = "Splice.Api.Token.HoldingV1:Holding"


def argument(choice: LfChoice, **fields: Any) -> Any:
    return choice.argument_type.decode(fields)


def test_richtypes_package_and_template(lf_richtypes: LfPackages) -> None:
    package = lf_richtypes.main
    assert isinstance(package, PackageDef)
    assert (package.name, package.version) == ("richtypes", "0.0.1")
    assert hashlib.sha256(package.archive()).hexdigest() == package.package_id
    assert set(package.templates) == {"RichTypes:Marker", "RichTypes:RichRecord"} and not package.interfaces
    rich = package.templates["RichTypes:RichRecord"]
    assert rich.template_id == f"{package.package_id}:RichTypes:RichRecord"
    assert rich.package is package and rich.key_type is None
    contract = rich.argument_type.decode(RICH)
    assert rich.signatories(contract) == [ALICE]
    assert rich.observers(contract) == []
    assert rich.ensure(contract) is True
    assert set(rich.choices) == {"Relabel", "Archive"}


def test_richtypes_choices(lf_richtypes: LfPackages) -> None:
    rich = lf_richtypes.main.templates["RichTypes:RichRecord"]
    contract = rich.argument_type.decode(RICH)
    relabel = rich.choices["Relabel"]
    assert relabel.template is rich and relabel.interface is None and relabel.consuming is False
    assert relabel.argument_type.name == "RichTypes:Relabel" and list(relabel.argument_type.fields) == [
        "newLabel"
    ]
    assert relabel.result_type.describe() == {"ContractId": "RichTypes:RichRecord"}
    new_label = argument(relabel, newLabel="renamed")
    assert relabel.controllers(contract, new_label) == [ALICE]
    assert relabel.observers(contract, new_label) == []
    assert relabel.authorizers(contract, new_label) is None
    archive = rich.choices["Archive"]
    assert archive.consuming and archive.controllers(contract, argument(archive)) == [ALICE]


def amulet_json(owner: str = ALICE, initial: str = "10.0") -> dict[str, Any]:
    return {
        "dso": DSO,
        "owner": owner,
        "amount": {
            "initialAmount": initial,
            "createdAt": {"number": "3"},
            "ratePerRound": {"rate": "0.0001"},
        },
    }


def template(lf_amulet: LfPackages, name: str) -> LfTemplate:
    return lf_amulet.main.templates[f"Splice.Amulet:{name}"]


def test_amulet(lf_amulet: LfPackages) -> None:
    """`signatory dso, owner`; `ensure validExpiringAmount amount`; `Amulet_Expire` `controller dso`."""
    amulet = template(lf_amulet, "Amulet")
    contract = amulet.argument_type.decode(amulet_json())
    assert sorted(amulet.signatories(contract)) == [ALICE, DSO]
    assert amulet.observers(contract) == []
    assert amulet.ensure(contract) is True
    with pytest.raises(errors.LedgerError) as caught:  # Daml's PreconditionFailed, with Daml's message
        amulet.ensure(amulet.argument_type.decode(amulet_json(initial="-1.0")))
    assert caught.value.code is errors.UNHANDLED_EXCEPTION
    assert caught.value.cause.startswith(
        "Interpretation error: Error: User failure: UNHANDLED_EXCEPTION/DA.Exception.PreconditionFailed:"
        "PreconditionFailed (error category 9): Template precondition violated: Amulet {"
    )
    resources = dict(caught.value.resources)
    assert resources["EXCEPTION_TYPE"] == "DA.Exception.PreconditionFailed:PreconditionFailed"
    assert resources["EXCEPTION_VALUE"].startswith("Template precondition violated: Amulet {")
    expire = amulet.choices["Amulet_Expire"]
    assert expire.consuming
    assert expire.controllers(contract, argument(expire, roundCid=CID)) == [DSO]


def test_locked_amulet(lf_amulet: LfPackages) -> None:
    """`signatory lock.holders, signatory amulet`; `LockedAmulet_Unlock` `controller amulet.owner :: lock.holders`;
    `LockedAmulet_OwnerExpireLock` `controller amulet.owner`; `LockedAmulet_ExpireAmulet` `controller amulet.dso`."""
    locked = template(lf_amulet, "LockedAmulet")
    contract = locked.argument_type.decode(
        {"amulet": amulet_json(), "lock": {"holders": [BOB], "expiresAt": "2025-01-01T00:00:00Z"}}
    )
    assert sorted(locked.signatories(contract)) == [ALICE, BOB, DSO]
    controllers = {
        name: choice.controllers(
            contract, argument(choice, **dict.fromkeys(choice.argument_type.fields, CID))
        )
        for name, choice in locked.choices.items()
    }
    assert controllers["LockedAmulet_Unlock"] == [ALICE, BOB]
    assert controllers["LockedAmulet_OwnerExpireLock"] == [ALICE]
    assert controllers["LockedAmulet_ExpireAmulet"] == [DSO]


def test_featured_app_right_and_reward_coupon(lf_amulet: LfPackages) -> None:
    """FeaturedAppRight: `signatory dso`, `observer provider`, Withdraw by dso, Cancel by the provider.
    AppRewardCoupon: `observer provider, beneficiary` (an Optional Party), `ensure amount > 0.0`."""
    right = template(lf_amulet, "FeaturedAppRight")
    contract = right.argument_type.decode({"dso": DSO, "provider": ALICE})
    assert (right.signatories(contract), right.observers(contract)) == ([DSO], [ALICE])
    withdraw, cancel = right.choices["FeaturedAppRight_Withdraw"], right.choices["FeaturedAppRight_Cancel"]
    assert withdraw.controllers(contract, argument(withdraw, reason="done")) == [DSO]
    assert cancel.controllers(contract, argument(cancel)) == [ALICE]
    coupon = template(lf_amulet, "AppRewardCoupon")

    def coupon_json(**changes: Any) -> Any:
        fields = {"dso": DSO, "provider": ALICE, "featured": True, "amount": "1.0", "round": {"number": "1"}}
        return coupon.argument_type.decode({**fields, **changes})

    assert coupon.observers(coupon_json()) == [ALICE]
    assert sorted(coupon.observers(coupon_json(beneficiary=BOB))) == [ALICE, BOB]
    assert coupon.ensure(coupon_json())
    with pytest.raises(errors.LedgerError, match="Template precondition violated: AppRewardCoupon"):
        coupon.ensure(coupon_json(amount="0.0"))


def test_holding_interface(lf_amulet: LfPackages, lf_holding: LfPackages) -> None:
    """`interface instance Holding for Amulet`: its view; and the interface's Archive, controlled by the
    contract's signatories, on the interface value."""
    amulet = template(lf_amulet, "Amulet")
    contract = amulet.argument_type.decode(amulet_json())
    # the interface of another load of its package is the same interface (package name and qualified name)
    elsewhere = lf_holding.main.interfaces[HOLDING]
    instance = amulet.instance_of(elsewhere)
    assert instance is not None and instance.interface is elsewhere
    view = elsewhere.view_type.encode(instance.view(contract))
    assert view["owner"] == ALICE and view["amount"] == "10.0000000000" and view["lock"] is None
    assert view["instrumentId"] == {"admin": DSO, "id": "Amulet"}
    holding = lf_amulet.package(lf_holding.main.package_id).interfaces[HOLDING]
    assert holding.interface_id == f"{lf_holding.main.package_id}:{HOLDING}"
    archive = holding.choices["Archive"]
    assert archive.interface is holding and archive.template is None
    assert sorted(archive.controllers(holding.to_interface(amulet, contract), argument(archive))) == [
        ALICE,
        DSO,
    ]
    assert template(lf_amulet, "FeaturedAppRight").instance_of(holding) is None


def test_types_are_record_types(lf_amulet: LfPackages) -> None:
    rules = lf_amulet.main.templates["Splice.AmuletRules:AmuletRules"]
    assert isinstance(rules.argument_type, RecordType)
    assert all(isinstance(choice.argument_type, RecordType) for choice in rules.choices.values())
