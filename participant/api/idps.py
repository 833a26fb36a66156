"""Identity provider configs (``/v2/idps``). Proto-shaped: relaxed defaults."""

from __future__ import annotations

from pydantic import Field

from .base import WireModel
from .common import FieldMask

__all__ = [
    "CreateIdentityProviderConfigRequest",
    "CreateIdentityProviderConfigResponse",
    "DeleteIdentityProviderConfigResponse",
    "GetIdentityProviderConfigResponse",
    "IdentityProviderConfig",
    "ListIdentityProviderConfigsResponse",
    "UpdateIdentityProviderConfigRequest",
    "UpdateIdentityProviderConfigResponse",
]


class IdentityProviderConfig(WireModel):
    identity_provider_id: str = ""
    is_deactivated: bool = False
    issuer: str = ""
    jwks_url: str = ""
    audience: str = ""


class CreateIdentityProviderConfigRequest(WireModel):
    identity_provider_config: IdentityProviderConfig | None = None


class CreateIdentityProviderConfigResponse(WireModel):
    identity_provider_config: IdentityProviderConfig


class GetIdentityProviderConfigResponse(WireModel):
    identity_provider_config: IdentityProviderConfig


class ListIdentityProviderConfigsResponse(WireModel):
    identity_provider_configs: list[IdentityProviderConfig] = Field(default_factory=list)


class UpdateIdentityProviderConfigRequest(WireModel):
    identity_provider_config: IdentityProviderConfig | None = None
    update_mask: FieldMask | None = None


class UpdateIdentityProviderConfigResponse(WireModel):
    identity_provider_config: IdentityProviderConfig


class DeleteIdentityProviderConfigResponse(WireModel):
    """``{}``."""
