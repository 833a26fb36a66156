"""Identity provider configs (`/v2/idps`): create, list, get, update with a mask, delete; participant admins only.

The configs are stored and served; tokens are still verified with the participant's own key, not a provider's JWKS.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from urllib.parse import urlsplit

from participant.api import (
    CreateIdentityProviderConfigRequest,
    CreateIdentityProviderConfigResponse,
    DeleteIdentityProviderConfigResponse,
    GetIdentityProviderConfigResponse,
    IdentityProviderConfig,
    ListIdentityProviderConfigsResponse,
    UpdateIdentityProviderConfigRequest,
    UpdateIdentityProviderConfigResponse,
)
from participant.auth import Claims
from participant.base import errors
from participant.engine import ids
from participant.services.context import Context
from participant.services.update_mask import UpdateMask, UpdateMaskError
from participant.store import admin
from participant.store.rows import IdpRow

# Canton's `IdentityProviderConfigPaths`.
IDP_FIELDS = ("identity_provider_id", "is_deactivated", "jwks_url", "issuer", "audience")


def idp_model(row: IdpRow) -> IdentityProviderConfig:
    return IdentityProviderConfig(
        identity_provider_id=row.identity_provider_id,
        is_deactivated=row.is_deactivated,
        issuer=row.issuer,
        jwks_url=row.jwks_url,
        audience=row.audience,
    )


@contextlib.contextmanager
def idp_errors(operation: str) -> Iterator[None]:
    """Canton's answers to the config writes the store refuses."""
    try:
        yield
    except admin.IdpNotFound as e:
        raise errors.IDP_CONFIG_NOT_FOUND(
            f'{operation} failed for unknown identity provider id="{e.identity_provider_id}"',
            resources=[("IDENTITY_PROVIDER_CONFIG", e.identity_provider_id)],
        ) from None
    except admin.IdpExists as e:
        raise errors.IDP_CONFIG_ALREADY_EXISTS(
            f'{operation} failed, as identity provider "{e.identity_provider_id}" already exists',
            resources=[("IDENTITY_PROVIDER_CONFIG", e.identity_provider_id)],
        ) from None
    except admin.IssuerExists as e:
        raise errors.IDP_CONFIG_ISSUER_ALREADY_EXISTS(
            f'{operation} failed, as identity provider with issuer "{e.issuer}" already exists',
            resources=[("IDENTITY_PROVIDER_CONFIG", e.issuer)],
        ) from None
    except admin.TooManyIdps:
        raise errors.TOO_MANY_IDENTITY_PROVIDER_CONFIGS(f"{operation} failed.") from None
    except admin.IdpInUse as e:  # Canton's database refuses this with a foreign key; say why instead
        raise errors.INVALID_ARGUMENT(
            f"{operation} failed: users or parties still belong to identity provider {e.identity_provider_id}; "
            "move them to another provider first"
        ) from None


def require_idp_id(identity_provider_id: str, field_name: str = "identity_provider_id") -> str:
    if not identity_provider_id:
        raise errors.missing_field(field_name)
    ids.require(
        ids.is_ledger_string(identity_provider_id),
        field_name,
        f"{identity_provider_id!r} is not a valid LedgerString",
    )
    return identity_provider_id


def _require_jwks_url(url: str) -> str:
    if not url:
        raise errors.missing_field("jwks_url")
    parts = urlsplit(url)
    ids.require(parts.scheme in ("http", "https") and bool(parts.netloc), "jwks_url", f"Malformed URL: {url}")
    return url


def _require_issuer(issuer: str) -> str:
    if not issuer:
        raise errors.missing_field("issuer")
    return issuer


async def create_idp(
    ctx: Context, req: CreateIdentityProviderConfigRequest, c: Claims
) -> CreateIdentityProviderConfigResponse:
    c.require_admin()
    cfg = req.identity_provider_config
    if cfg is None:
        raise errors.missing_field("identity_provider_config")
    row = IdpRow(
        require_idp_id(cfg.identity_provider_id),
        cfg.is_deactivated,
        _require_jwks_url(cfg.jwks_url),
        _require_issuer(cfg.issuer),
        cfg.audience,
    )
    with idp_errors("creating identity provider config"):
        created = await admin.create_idp(ctx.store, row)
    return CreateIdentityProviderConfigResponse(identity_provider_config=idp_model(created))


async def list_idps(ctx: Context, c: Claims) -> ListIdentityProviderConfigsResponse:
    c.require_admin()
    return ListIdentityProviderConfigsResponse(
        identity_provider_configs=[idp_model(r) for r in await ctx.store.idps()]
    )


async def get_idp(ctx: Context, identity_provider_id: str, c: Claims) -> GetIdentityProviderConfigResponse:
    c.require_admin()
    require_idp_id(identity_provider_id)
    row = await ctx.store.idp(identity_provider_id)
    if row is None:
        with idp_errors("getting identity provider config"):
            raise admin.IdpNotFound(identity_provider_id)
    return GetIdentityProviderConfigResponse(identity_provider_config=idp_model(row))


def require_idp_in_body(path_id: str, cfg: IdentityProviderConfig | None) -> None:
    """The JSON layer's check, before any other: the body names the config of the path."""
    if cfg is None or cfg.identity_provider_id != path_id:
        shown = "None" if cfg is None else f"Some(IdentityProviderConfig({cfg.identity_provider_id},...))"
        raise errors.INVALID_ARGUMENT(f"{path_id} does not match idp in body: {shown}")


async def update_idp(
    ctx: Context, req: UpdateIdentityProviderConfigRequest, c: Claims
) -> UpdateIdentityProviderConfigResponse:
    c.require_admin()
    cfg = req.identity_provider_config
    assert cfg is not None  # the route checked the body's config against the path
    idp_id = require_idp_id(cfg.identity_provider_id)
    if cfg.jwks_url:
        _require_jwks_url(cfg.jwks_url)
    if req.update_mask is None:
        raise errors.missing_field("update_mask")
    try:
        mask = UpdateMask(req.update_mask.paths, IDP_FIELDS)
    except UpdateMaskError as e:
        raise errors.INVALID_IDENTITY_PROVIDER_UPDATE_REQUEST(
            f"Update operation for identity provider config '{idp_id}' failed due to: {e}",
            resources=[("IDENTITY_PROVIDER_CONFIG", idp_id)],
        ) from None
    # As Canton's mapper: is_deactivated, issuer and jwks_url change only when the mask names them exactly (an
    # empty issuer or URL then leaves them as they are); the audience also when a value is given.
    changes: dict = {}
    if mask.named_exactly("is_deactivated"):
        changes["is_deactivated"] = cfg.is_deactivated
    for name in ("issuer", "jwks_url"):
        if mask.named_exactly(name) and getattr(cfg, name):
            changes[name] = getattr(cfg, name)
    if (audience := mask.value("audience", cfg.audience, "")) is not None:
        changes["audience"] = audience
    with idp_errors("updating identity provider config"):
        updated = await admin.update_idp(ctx.store, idp_id, changes)
    return UpdateIdentityProviderConfigResponse(identity_provider_config=idp_model(updated))


async def delete_idp(
    ctx: Context, identity_provider_id: str, c: Claims
) -> DeleteIdentityProviderConfigResponse:
    c.require_admin()
    require_idp_id(identity_provider_id)
    with idp_errors("deleting identity provider config"):
        await admin.delete_idp(ctx.store, identity_provider_id)
    return DeleteIdentityProviderConfigResponse()
