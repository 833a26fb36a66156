"""Interface views of stored contracts: the `interfaceViews` of a CreatedEvent that an InterfaceFilter asks for.

A view is computed when the event is read, from the stored create argument, by the template's interface instance
(3.5 computes them on read too). A view that fails does not fail the read: its `viewStatus` carries the error as a
completion would (`google.rpc.Status`), without a value.
"""

from __future__ import annotations

from participant.base import errors
from participant.base.transactions import Json
from participant.engine import ids
from participant.engine.coding import decode
from participant.engine.registry import PackageRegistry
from participant.engine.update import failure_of


def _view_value(registry: PackageRegistry, template_id: str, argument: Json, interface_id: str) -> Json:
    template = registry.template_by_id(template_id)
    interface = registry.interface_by_id(interface_id)
    if template is None or interface is None:
        raise errors.PACKAGE_NOT_FOUND(
            f"Package of {template_id if template is None else interface_id} is not loaded",
            resources=[("TEMPLATE_ID", template_id)],
        )
    contract = decode(template.argument_type, argument, "createArgument")
    instance = template.instance_of(interface)
    if instance is None:
        raise errors.CONTRACT_DOES_NOT_IMPLEMENT_INTERFACE(
            f"Template {template_id} does not implement interface {interface_id}",
            resources=[("TEMPLATE_ID", template_id), ("INTERFACE_ID", interface_id)],
        )
    try:
        return interface.view_type.encode(instance.view(contract))
    except (
        ValueError,
        TypeError,
        AttributeError,
    ) as error:  # a view of the wrong shape is the model's mistake
        raise errors.DAML_INTERPRETATION_ERROR(
            f"The view of {interface_id} is not a valid {interface.view_type.name}: {error}"
        ) from None


def interface_views(
    registry: PackageRegistry, template_id: str, argument: Json, interface_ids: list[str]
) -> list[dict]:
    """One `JsInterfaceView` per interface id (package-id form), in the order given."""
    views = []
    for interface_id in interface_ids:
        try:
            value = _view_value(registry, template_id, argument, interface_id)
        except Exception as error:
            failure = failure_of(error)
            if failure is None:
                raise
            # The message names a correlation id as Canton's do; derived from the contract, so reads repeat.
            correlation = ids.sha256_hex(f"{template_id}/{interface_id}/{argument}")
            views.append(
                {
                    "interfaceId": interface_id,
                    "viewStatus": failure.rpc_status(correlation),
                    "viewValue": None,
                    "implementationPackageId": None,
                }
            )
            continue
        views.append(
            {
                "interfaceId": interface_id,
                "viewStatus": {"code": 0, "message": "", "details": []},
                "viewValue": value,
                "implementationPackageId": template_id.partition(":")[0],
            }
        )
    return views
