"""JWT verification as Canton's `AuthServiceJWT` does it, and minting of HS256 tokens for the CLI, TUI and tests.

The algorithm is never taken from the token: each key fixes its own (HS256 for the shared secret, RS256 for RSA,
ES256/ES512 for EC P-256/P-521), so `alg: none` and HS/RS confusion are rejected before any signature check.
Every rejection is `UNAUTHENTICATED`; its detail goes to the log only, because `errors.py` redacts it on the wire.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import jwt
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from participant.base import errors

log = logging.getLogger(__name__)

LEDGER_API_SCOPE = "daml_ledger_api"
AUDIENCE_PREFIX = "https://daml.com/jwt/aud/participant/"


@dataclass(frozen=True)
class VerifiedToken:
    user_id: str
    form: Literal["scope", "audience"]
    participant_id: str | None  # the participant the token names, if it names one: ours or not, see below
    expires_at: int | None  # `exp`, seconds since the epoch


@dataclass(frozen=True)
class _Key:
    key: Any  # the HS256 secret or a cryptography public key
    algorithm: str


class TokenVerifier:
    """Checks signature, `exp`/`nbf` and the Daml payload of a token for one participant; whether the token is for
    this participant is a separate check (`require_this_participant`), made once the token's user is known.

    Built from exactly one of `hs256_secret`, `public_key_pem` (a public key or an X.509 certificate, PEM) or
    `jwks_path` (a JWKS file whose keys the token picks by `kid`).
    """

    def __init__(
        self,
        participant_id: str,
        *,
        hs256_secret: str | None = None,
        public_key_pem: bytes | None = None,
        jwks_path: str | Path | None = None,
        leeway_seconds: float = 5.0,
    ) -> None:
        if sum(source is not None for source in (hs256_secret, public_key_pem, jwks_path)) != 1:
            raise ValueError("give exactly one of hs256_secret, public_key_pem, jwks_path")
        if leeway_seconds < 0:
            raise ValueError("leeway_seconds must not be negative")
        self.participant_id = participant_id
        self.leeway_seconds = leeway_seconds
        # With a single key the token's `kid` is irrelevant; with a JWKS it is the only way to pick a key.
        self._single: _Key | None = None
        self._by_kid: dict[str, _Key] = {}
        if hs256_secret is not None:
            if not hs256_secret:
                raise ValueError("hs256_secret must not be empty")
            self._single = _Key(hs256_secret, "HS256")
        elif public_key_pem is not None:
            self._single = _pin_algorithm(_load_pem(public_key_pem))
        elif jwks_path is not None:
            self._by_kid = load_jwks(Path(jwks_path))

    def verify(self, token: str) -> VerifiedToken:
        key = self._key_for(token)
        try:
            payload = jwt.decode(
                token,
                key.key,
                algorithms=[key.algorithm],
                leeway=self.leeway_seconds,
                # The audience rules are Daml's, not RFC 7519's: checked below.
                options={"verify_aud": False},
            )
        except jwt.ExpiredSignatureError:
            raise _reject("token has expired") from None
        except jwt.ImmatureSignatureError as e:
            raise _reject(f"token is not valid yet: {e}") from None
        except jwt.PyJWTError as e:
            raise _reject(f"token failed verification: {e}") from None
        return self._read_payload(payload)

    def require_this_participant(self, verified: VerifiedToken) -> None:
        """Canton's `Claims.validForParticipant`: a token naming another participant (or an empty one) is
        well-formed but not sufficient, so PERMISSION_DENIED; a token naming none is valid for any participant."""
        if verified.participant_id is not None and verified.participant_id != self.participant_id:
            raise errors.PERMISSION_DENIED(
                f"Claims are only valid for participantId {verified.participant_id!r}, "
                f"actual participantId is {self.participant_id!r}"
            )

    def _key_for(self, token: str) -> _Key:
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as e:
            raise _reject(f"malformed token: {e}") from None
        if self._single is not None:
            key = self._single
        else:
            kid = header.get("kid")
            if not isinstance(kid, str) or kid not in self._by_kid:
                raise _reject(f"token key id {kid!r} is not in the JWKS")
            key = self._by_kid[kid]
        # PyJWT would refuse too; checking here gives the log a clear reason.
        if header.get("alg") != key.algorithm:
            raise _reject(
                f"token algorithm {header.get('alg')!r} is not accepted, the key requires {key.algorithm}"
            )
        return key

    def _read_payload(self, payload: dict[str, Any]) -> VerifiedToken:
        """Canton's `AuthServiceJWTCodec.readPayload`: a participant audience makes an audience token whatever the
        scope says; only without one does the `daml_ledger_api` scope make a scope token, whose `aud` (if any) is
        taken whole as a participant id. Which participant the token names is checked later, once its user is
        known (`Authenticator`), because Canton checks it there and answers PERMISSION_DENIED, not 401."""
        audiences = _claim_strings(payload, "aud")
        named = [a.removeprefix(AUDIENCE_PREFIX) for a in audiences if a.startswith(AUDIENCE_PREFIX)]
        form: Literal["scope", "audience"]
        if named:
            participants = [p for p in named if p]
            if len(participants) != 1:
                raise _reject(
                    f"token must name exactly one participant audience, it names {len(participants)}"
                )
            participant: str | None = participants[0]
            form = "audience"
        elif LEDGER_API_SCOPE in _scopes(payload):
            if len(audiences) > 1:
                raise _reject(f"scope token names {len(audiences)} audiences, at most one is allowed")
            participant = audiences[0] if audiences else None
            form = "scope"
        else:
            raise _reject(f"token has neither a participant audience nor the {LEDGER_API_SCOPE!r} scope")
        user_id = payload.get("sub")
        if not isinstance(user_id, str) or not user_id:
            raise _reject("token has no user id (sub)")
        exp = payload.get("exp")
        return VerifiedToken(
            user_id=user_id,
            form=form,
            participant_id=participant,
            expires_at=int(exp) if exp is not None else None,
        )


def mint_token(
    *,
    hs256_secret: str,
    user_id: str,
    ttl_seconds: int | None = 3600,
    participant_id: str | None = None,
    audience_form: bool = False,
) -> str:
    """An HS256 user token: audience form (`aud` = the participant URL) or scope form (`scope` = daml_ledger_api).

    `ttl_seconds=None` leaves out `exp` (Canton accepts that unless `max-token-life` is set); a negative ttl makes an
    already expired token, which tests use.
    """
    if not user_id:
        raise ValueError("user_id must not be empty")
    now = int(time.time())
    payload: dict[str, Any] = {"sub": user_id, "iat": now}
    if ttl_seconds is not None:
        payload["exp"] = now + ttl_seconds
    if audience_form:
        if not participant_id:
            raise ValueError("an audience token needs participant_id")
        payload["aud"] = AUDIENCE_PREFIX + participant_id
    else:
        payload["scope"] = LEDGER_API_SCOPE
        if participant_id:
            payload["aud"] = participant_id
    return jwt.encode(payload, hs256_secret, algorithm="HS256")


def load_jwks(path: Path) -> dict[str, _Key]:
    """The signing keys of a JWKS file by `kid`. Keys we cannot use are skipped with a warning, not fatal,
    because real key sets mix in encryption keys and other types; a set with no usable key is an error."""
    document = json.loads(path.read_text())
    keys: dict[str, _Key] = {}
    for jwk in document.get("keys", []):
        kid, kty = jwk.get("kid"), jwk.get("kty")
        if not isinstance(kid, str) or not kid:
            log.warning("JWKS %s: skipping a %s key without kid", path, kty)
            continue
        if jwk.get("use", "sig") != "sig" or kty not in ("RSA", "EC"):
            log.warning("JWKS %s: skipping key %r (kty=%s, use=%s)", path, kid, kty, jwk.get("use"))
            continue
        if kid in keys:
            raise ValueError(f"JWKS {path}: duplicate kid {kid!r}")
        parsed = (RSAAlgorithm if kty == "RSA" else ECAlgorithm).from_jwk(jwk)
        if isinstance(parsed, rsa.RSAPrivateKey | ec.EllipticCurvePrivateKey):
            parsed = parsed.public_key()  # a private JWK is a mistake, but only its public half is needed
        try:
            key = _pin_algorithm(parsed)
        except ValueError as e:
            log.warning("JWKS %s: skipping key %r: %s", path, kid, e)
            continue
        if jwk.get("alg", key.algorithm) != key.algorithm:
            log.warning("JWKS %s: skipping key %r: alg %s does not fit a %s key", path, kid, jwk["alg"], kty)
            continue
        keys[kid] = key
    if not keys:
        raise ValueError(f"JWKS {path} has no usable signing key")
    return keys


def _load_pem(pem: bytes) -> Any:
    """A PEM public key, or the public key of a PEM X.509 certificate (Canton's `jwt-rs-256-crt`)."""
    if b"-----BEGIN CERTIFICATE-----" in pem:
        return x509.load_pem_x509_certificate(pem).public_key()
    return serialization.load_pem_public_key(pem)


def _pin_algorithm(public_key: Any) -> _Key:
    if isinstance(public_key, rsa.RSAPublicKey):
        return _Key(public_key, "RS256")
    if isinstance(public_key, ec.EllipticCurvePublicKey):
        if isinstance(public_key.curve, ec.SECP256R1):
            return _Key(public_key, "ES256")
        if isinstance(public_key.curve, ec.SECP521R1):
            return _Key(public_key, "ES512")
        raise ValueError(f"unsupported EC curve {public_key.curve.name}")
    raise ValueError(f"unsupported key type {type(public_key).__name__}")


def _scopes(payload: dict[str, Any]) -> list[str]:
    """The scopes as Canton reads them: `scope` when it is a string (space-separated), else `scp` (a string or an
    array of strings). A `scope` of another type is ignored; an `scp` of another type makes the token malformed."""
    scope = payload.get("scope")
    if isinstance(scope, str):
        return scope.split(" ")
    return _claim_strings(payload, "scp")


def _claim_strings(payload: dict[str, Any], claim: str) -> list[str]:
    """A claim that is absent or null (no entries), a string (one entry) or an array of strings."""
    value = payload.get(claim)
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return value
    raise _reject(f"token claim {claim!r} is neither a string nor an array of strings")


def _reject(reason: str) -> errors.LedgerError:
    return errors.UNAUTHENTICATED(reason)
