"""participant.auth: real signed JWTs against TokenVerifier, Authenticator header handling, Claims checks."""

from __future__ import annotations

import base64
import datetime as dt
import hmac
import json
import time
from hashlib import sha256

import jwt
import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa
from cryptography.x509.oid import NameOID
from jwt.algorithms import ECAlgorithm, RSAAlgorithm

from participant.auth import (
    AUDIENCE_PREFIX,
    Authenticator,
    Claims,
    TokenVerifier,
    UserRecord,
    mint_token,
)
from participant.base import errors

PARTICIPANT = "participant1"
SECRET = "a-test-secret-that-is-long-enough-for-hs256"


def unauthenticated(exc: pytest.ExceptionInfo[errors.LedgerError]) -> bool:
    return exc.value.code.id == "UNAUTHENTICATED" and exc.value.status == 401


def permission_denied(exc: pytest.ExceptionInfo[errors.LedgerError]) -> bool:
    return exc.value.code.id == "PERMISSION_DENIED" and exc.value.status == 403


def payload(**claims) -> dict:
    now = int(time.time())
    return {"sub": "alice", "scope": "daml_ledger_api", "iat": now, "exp": now + 300} | claims


# -- keys ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rsa_key() -> rsa.RSAPrivateKey:
    return rsa.generate_private_key(public_exponent=65537, key_size=2048)


@pytest.fixture(scope="module")
def ec_key() -> ec.EllipticCurvePrivateKey:
    return ec.generate_private_key(ec.SECP256R1())


def public_pem(key) -> bytes:
    return key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )


def self_signed_cert_pem(key) -> bytes:
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "ledger-test")])
    now = dt.datetime.now(dt.UTC)
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=1))
        .sign(key, hashes.SHA256())
    )
    return cert.public_bytes(serialization.Encoding.PEM)


@pytest.fixture
def hs() -> TokenVerifier:
    return TokenVerifier(PARTICIPANT, hs256_secret=SECRET)


@pytest.fixture
def jwks_verifier(tmp_path, rsa_key, ec_key) -> TokenVerifier:
    rsa_jwk = RSAAlgorithm.to_jwk(rsa_key.public_key(), as_dict=True) | {"kid": "rsa-1", "use": "sig"}
    ec_jwk = ECAlgorithm.to_jwk(ec_key.public_key(), as_dict=True) | {"kid": "ec-1"}
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [rsa_jwk, ec_jwk]}))
    return TokenVerifier(PARTICIPANT, jwks_path=path)


# -- TokenVerifier: accepted payloads --------------------------------------------------------------------------


def test_scope_token(hs):
    verified = hs.verify(jwt.encode(payload(), SECRET, algorithm="HS256"))
    assert (verified.user_id, verified.form, verified.participant_id) == ("alice", "scope", None)


def test_scope_token_with_other_scopes_and_our_participant(hs):
    token = jwt.encode(payload(scope="openid daml_ledger_api", aud=PARTICIPANT), SECRET, algorithm="HS256")
    assert hs.verify(token).participant_id == PARTICIPANT


def test_scp_array(hs):
    claims = payload(scp=["profile", "daml_ledger_api"])
    del claims["scope"]
    assert hs.verify(jwt.encode(claims, SECRET, algorithm="HS256")).user_id == "alice"


def test_audience_token(hs):
    claims = payload(aud=["https://example.com", AUDIENCE_PREFIX + PARTICIPANT])
    del claims["scope"]
    verified = hs.verify(jwt.encode(claims, SECRET, algorithm="HS256"))
    assert (verified.user_id, verified.form, verified.participant_id) == ("alice", "audience", PARTICIPANT)


def test_minted_tokens_verify(hs):
    scope = hs.verify(mint_token(hs256_secret=SECRET, user_id="bob", participant_id=PARTICIPANT))
    audience = hs.verify(
        mint_token(hs256_secret=SECRET, user_id="bob", participant_id=PARTICIPANT, audience_form=True)
    )
    forever = hs.verify(mint_token(hs256_secret=SECRET, user_id="bob", ttl_seconds=None))
    assert (scope.form, audience.form, forever.expires_at) == ("scope", "audience", None)
    assert scope.expires_at is not None and scope.expires_at > time.time()


def test_mint_audience_form_needs_participant():
    with pytest.raises(ValueError):
        mint_token(hs256_secret=SECRET, user_id="bob", audience_form=True)


def test_rs256_public_key_and_certificate(rsa_key):
    token = jwt.encode(payload(), rsa_key, algorithm="RS256")
    for pem in (public_pem(rsa_key), self_signed_cert_pem(rsa_key)):
        assert TokenVerifier(PARTICIPANT, public_key_pem=pem).verify(token).user_id == "alice"


def test_es256_public_key_and_certificate(ec_key):
    token = jwt.encode(payload(), ec_key, algorithm="ES256")
    for pem in (public_pem(ec_key), self_signed_cert_pem(ec_key)):
        assert TokenVerifier(PARTICIPANT, public_key_pem=pem).verify(token).user_id == "alice"


def test_jwks_picks_key_by_kid(jwks_verifier, rsa_key, ec_key):
    by_rsa = jwt.encode(payload(sub="r"), rsa_key, algorithm="RS256", headers={"kid": "rsa-1"})
    by_ec = jwt.encode(payload(sub="e"), ec_key, algorithm="ES256", headers={"kid": "ec-1"})
    assert jwks_verifier.verify(by_rsa).user_id == "r"
    assert jwks_verifier.verify(by_ec).user_id == "e"


def test_leeway(hs):
    token = jwt.encode(payload(exp=int(time.time()) - 2), SECRET, algorithm="HS256")
    assert hs.verify(token).user_id == "alice"  # default leeway 5 s
    with pytest.raises(errors.LedgerError) as exc:
        TokenVerifier(PARTICIPANT, hs256_secret=SECRET, leeway_seconds=0).verify(token)
    assert unauthenticated(exc)


def test_verifier_needs_exactly_one_key_source(rsa_key):
    with pytest.raises(ValueError):
        TokenVerifier(PARTICIPANT)
    with pytest.raises(ValueError):
        TokenVerifier(PARTICIPANT, hs256_secret=SECRET, public_key_pem=public_pem(rsa_key))


# -- TokenVerifier: rejections ---------------------------------------------------------------------------------


def hs_token(**claims) -> str:
    return jwt.encode(payload(**claims), SECRET, algorithm="HS256")


def audience_token(participant: str) -> str:
    claims = payload(aud=AUDIENCE_PREFIX + participant)
    del claims["scope"]
    return jwt.encode(claims, SECRET, algorithm="HS256")


def unsigned_token() -> str:
    def part(obj: dict) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj).encode()).rstrip(b"=").decode()

    return f"{part({'alg': 'none', 'typ': 'JWT'})}.{part(payload())}."


def no_sub_token() -> str:
    claims = payload()
    del claims["sub"]
    return jwt.encode(claims, SECRET, algorithm="HS256")


@pytest.mark.parametrize(
    "make_token",
    [
        pytest.param(lambda: audience_token(""), id="participant-audience-without-id"),
        pytest.param(lambda: hs_token(aud=[PARTICIPANT, "other"]), id="scope-token-two-audiences"),
        pytest.param(
            lambda: hs_token(scope="openid", scp=["daml_ledger_api"]), id="scp-ignored-when-scope-is-given"
        ),
        pytest.param(lambda: hs_token(scope=["daml_ledger_api"]), id="scope-array-is-no-scope"),
        pytest.param(lambda: hs_token(exp=int(time.time()) - 60), id="expired"),
        pytest.param(lambda: hs_token(nbf=int(time.time()) + 60), id="nbf-in-future"),
        pytest.param(lambda: jwt.encode(payload(), SECRET + "x", algorithm="HS256"), id="bad-signature"),
        pytest.param(lambda: hs_token()[:-4] + "AAAA", id="tampered-signature"),
        pytest.param(unsigned_token, id="alg-none"),
        pytest.param(no_sub_token, id="missing-sub"),
        pytest.param(lambda: hs_token(sub=""), id="empty-sub"),
        pytest.param(lambda: hs_token(scope="openid profile"), id="no-daml-scope-nor-audience"),
        pytest.param(lambda: hs_token(scope=42), id="scope-not-a-string"),
        pytest.param(lambda: "not.a.jwt", id="garbage"),
    ],
)
def test_rejected_hs256_tokens(hs, make_token):
    with pytest.raises(errors.LedgerError) as exc:
        hs.verify(make_token())
    assert unauthenticated(exc)


@pytest.mark.parametrize(
    "scope",
    [
        pytest.param({}, id="no-scope"),
        pytest.param({"scope": "openid profile"}, id="unrelated-scope"),
        pytest.param({"scope": "daml_ledger_api"}, id="ledger-api-scope"),
        pytest.param({"scp": ["daml_ledger_api"]}, id="ledger-api-scp"),
    ],
)
def test_a_participant_audience_makes_an_audience_token_whatever_its_scope(hs, scope):
    claims = {k: v for k, v in payload(aud=AUDIENCE_PREFIX + PARTICIPANT).items() if k != "scope"} | scope
    verified = hs.verify(jwt.encode(claims, SECRET, algorithm="HS256"))
    assert (verified.form, verified.participant_id) == ("audience", PARTICIPANT)
    hs.require_this_participant(verified)


def test_empty_participant_audiences_are_skipped(hs):
    claims = payload(aud=[AUDIENCE_PREFIX, AUDIENCE_PREFIX + PARTICIPANT])
    assert hs.verify(jwt.encode(claims, SECRET, algorithm="HS256")).participant_id == PARTICIPANT


@pytest.mark.parametrize(
    "make_token",
    [
        pytest.param(lambda: hs_token(aud="participant2"), id="scope-token-for-another-participant"),
        pytest.param(lambda: hs_token(aud=""), id="scope-token-with-empty-aud"),
        pytest.param(lambda: audience_token("participant2"), id="audience-token-for-another-participant"),
    ],
)
def test_a_token_for_another_participant_verifies_but_is_not_sufficient(hs, make_token):
    verified = hs.verify(make_token())
    with pytest.raises(errors.LedgerError) as exc:
        hs.require_this_participant(verified)
    assert permission_denied(exc)


def test_two_participant_audiences_rejected(hs):
    claims = payload(aud=[AUDIENCE_PREFIX + PARTICIPANT, AUDIENCE_PREFIX + "participant2"])
    del claims["scope"]
    with pytest.raises(errors.LedgerError) as exc:
        hs.verify(jwt.encode(claims, SECRET, algorithm="HS256"))
    assert unauthenticated(exc)


def test_hs_rs_confusion_rejected(rsa_key):
    """The classic attack: sign HS256 with the server's public key bytes as the secret."""
    pem = public_pem(rsa_key)
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').rstrip(b"=")
    body = base64.urlsafe_b64encode(json.dumps(payload()).encode()).rstrip(b"=")
    signature = base64.urlsafe_b64encode(hmac.new(pem, header + b"." + body, sha256).digest()).rstrip(b"=")
    forged = b".".join([header, body, signature]).decode()
    with pytest.raises(errors.LedgerError) as exc:
        TokenVerifier(PARTICIPANT, public_key_pem=pem).verify(forged)
    assert unauthenticated(exc)


def test_rs256_token_rejected_by_hs256_verifier(hs, rsa_key):
    with pytest.raises(errors.LedgerError) as exc:
        hs.verify(jwt.encode(payload(), rsa_key, algorithm="RS256"))
    assert unauthenticated(exc)


def test_es256_token_rejected_by_rsa_verifier(rsa_key, ec_key):
    with pytest.raises(errors.LedgerError) as exc:
        TokenVerifier(PARTICIPANT, public_key_pem=public_pem(rsa_key)).verify(
            jwt.encode(payload(), ec_key, algorithm="ES256")
        )
    assert unauthenticated(exc)


def test_jwks_rejects_unknown_kid_missing_kid_and_wrong_key(jwks_verifier, rsa_key, ec_key):
    tokens = [
        jwt.encode(payload(), rsa_key, algorithm="RS256", headers={"kid": "rsa-2"}),
        jwt.encode(payload(), rsa_key, algorithm="RS256"),
        jwt.encode(payload(), ec_key, algorithm="ES256", headers={"kid": "rsa-1"}),  # kid of the other key
    ]
    for token in tokens:
        with pytest.raises(errors.LedgerError) as exc:
            jwks_verifier.verify(token)
        assert unauthenticated(exc)


def test_jwks_without_usable_keys_is_a_config_error(tmp_path):
    path = tmp_path / "jwks.json"
    path.write_text(json.dumps({"keys": [{"kty": "oct", "kid": "k", "k": "c2VjcmV0"}]}))
    with pytest.raises(ValueError):
        TokenVerifier(PARTICIPANT, jwks_path=path)


def test_unsupported_curve_is_a_config_error():
    pem = public_pem(ec.generate_private_key(ec.SECP384R1()))
    with pytest.raises(ValueError):
        TokenVerifier(PARTICIPANT, public_key_pem=pem)


# -- Authenticator ---------------------------------------------------------------------------------------------

USERS = {
    "alice": UserRecord("alice", False, (("CanActAs", "Alice::1220"), ("CanReadAs", "Bob::1220"))),
    "admin": UserRecord("admin", False, (("ParticipantAdmin", None),)),
    "gone": UserRecord("gone", True, (("ParticipantAdmin", None),)),
}


async def load_user(user_id: str) -> UserRecord | None:
    return USERS.get(user_id)


@pytest.fixture
def authenticator(hs) -> Authenticator:
    return Authenticator(hs, load_user)


def bearer(user_id: str) -> dict[str, str]:
    return {"Authorization": "Bearer " + mint_token(hs256_secret=SECRET, user_id=user_id)}


async def test_no_auth_gives_wildcard():
    no_auth = Authenticator(None, load_user)
    assert await no_auth.claims_for({}) == Claims.wildcard()
    assert await no_auth.claims_for_websocket({}) == Claims.wildcard()
    assert not no_auth.enabled


async def test_user_rights_become_claims(authenticator):
    claims = await authenticator.claims_for(bearer("alice"))
    assert claims.user_id == "alice"
    assert claims.act_as == {"Alice::1220"}
    assert claims.read_as == {"Alice::1220", "Bob::1220"}
    assert not claims.admin
    assert (await authenticator.claims_for(bearer("admin"))).admin


async def test_header_lookup_is_case_insensitive(authenticator):
    token = mint_token(hs256_secret=SECRET, user_id="alice")
    assert (await authenticator.claims_for({"authorization": f"bearer {token}"})).user_id == "alice"


async def test_missing_header_is_401(authenticator):
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for({})
    assert unauthenticated(exc)


async def test_other_scheme_is_401(authenticator):
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for({"Authorization": "Basic YWxpY2U6c2VjcmV0"})
    assert unauthenticated(exc)


@pytest.mark.parametrize("value", ["Bearer ", "Bearer", "Bearer    "])
async def test_empty_bearer_is_bad_request(authenticator, value):
    with pytest.raises(errors.BadRequestBody) as exc:
        await authenticator.claims_for({"Authorization": value})
    assert exc.value.text.startswith("Invalid value for: header Authorization")


async def test_invalid_token_is_401(authenticator):
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for({"Authorization": "Bearer " + hs_token(exp=int(time.time()) - 60)})
    assert unauthenticated(exc)


@pytest.mark.parametrize("user_id", ["nobody", "gone"])
async def test_unknown_or_deactivated_user_is_403_invalid_token(authenticator, user_id):
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for(bearer(user_id))
    assert permission_denied(exc)
    body = exc.value.body()
    # Redacted, but with the JSON layer's mark of a token problem (Canton's JsonApiAuthIT asserts it).
    assert (body["code"], body["errorCategory"], body["grpcCodeValue"]) == ("NA", -1, 7)
    assert body["context"] == {"ledger_api_error": "invalid token"}


async def test_a_token_for_another_participant_is_403_without_the_token_mark(authenticator):
    token = mint_token(hs256_secret=SECRET, user_id="alice", participant_id="participant2")
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for({"Authorization": f"Bearer {token}"})
    assert permission_denied(exc)
    assert exc.value.body()["context"] == {}


async def test_the_user_is_resolved_before_the_participant_is_checked(authenticator):
    token = mint_token(hs256_secret=SECRET, user_id="nobody", participant_id="participant2")
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for({"Authorization": f"Bearer {token}"})
    assert exc.value.body()["context"] == {"ledger_api_error": "invalid token"}


async def test_websocket_subprotocol_token(authenticator):
    token = mint_token(hs256_secret=SECRET, user_id="alice")
    claims = await authenticator.claims_for_websocket(
        {"sec-websocket-protocol": f"jwt.token.{token}, daml.ws.auth"}
    )
    assert claims.user_id == "alice"
    # An Authorization header is the fallback when the subprotocols carry no token.
    fallback = await authenticator.claims_for_websocket(
        {"sec-websocket-protocol": "daml.ws.auth"} | bearer("admin")
    )
    assert fallback.admin


@pytest.mark.parametrize("protocols", [None, "daml.ws.auth", "jwt.token., daml.ws.auth", "jwt.token.garbage"])
async def test_websocket_without_valid_token_is_401(authenticator, protocols):
    headers = {} if protocols is None else {"Sec-WebSocket-Protocol": protocols}
    with pytest.raises(errors.LedgerError) as exc:
        await authenticator.claims_for_websocket(headers)
    assert unauthenticated(exc)


# -- Claims ----------------------------------------------------------------------------------------------------


def test_from_rights_mapping():
    claims = Claims.from_rights(
        "u",
        [
            ("CanActAs", "A"),
            ("CanReadAs", "B"),
            ("CanExecuteAs", "C"),
            ("IdentityProviderAdmin", None),
            ("CanReadAsAnyParty", None),
            ("CanExecuteAsAnyParty", None),
        ],
    )
    assert claims.act_as == {"A"} and claims.read_as == {"A", "B"} and claims.execute_as == {"C"}
    assert claims.idp_admin and not claims.admin
    assert claims.read_as_any_party and claims.execute_as_any_party and not claims.act_as_any_party


@pytest.mark.parametrize("rights", [[("CanActAs", None)], [("SuperUser", None)]])
def test_from_rights_rejects_bad_rows(rights):
    with pytest.raises(ValueError):
        Claims.from_rights("u", rights)


def test_read_act_execute_checks():
    claims = Claims.from_rights("u", [("CanActAs", "A"), ("CanReadAs", "B"), ("CanExecuteAs", "C")])
    claims.require_read(["A", "B"])
    claims.require_act(["A"])
    claims.require_execute(["A", "C"])
    assert claims.can_read("A") and not claims.can_read("C")
    for check, parties in [
        (claims.require_read, ["A", "C"]),
        (claims.require_act, ["B"]),
        (claims.require_execute, ["B"]),
    ]:
        with pytest.raises(errors.LedgerError) as exc:
            check(parties)
        assert permission_denied(exc)
    for require in (claims.require_admin, claims.require_idp_admin, claims.require_read_any_party):
        with pytest.raises(errors.LedgerError) as exc:
            require()
        assert permission_denied(exc)


def test_hand_built_act_as_implies_read():
    assert Claims(user_id="u", act_as=frozenset({"A"})).can_read("A")


def test_read_any_party():
    Claims.from_rights("u", [("CanReadAsAnyParty", None)]).require_read_any_party()
    reader = Claims.from_rights("u", [("CanReadAsAnyParty", None)])
    reader.require_read(["anyone"])
    with pytest.raises(errors.LedgerError) as exc:
        reader.require_act(["anyone"])
    assert permission_denied(exc)


def test_admin_alone_cannot_submit():
    admin = Claims.from_rights("root", [("ParticipantAdmin", None)])
    admin.require_admin()
    with pytest.raises(errors.LedgerError) as exc:
        admin.require_act(["A"])
    assert permission_denied(exc)


def test_wildcard_allows_everything_but_has_no_user():
    claims = Claims.wildcard()
    assert claims.user_id is None
    claims.require_admin()
    claims.require_act(["A"])
    claims.require_read(["B"])
    claims.require_read_any_party()
    claims.require_self_or_admin("anyone")


def test_resolve_user_id():
    user = Claims.from_rights("alice", [])
    assert user.resolve_user_id("") == "alice"
    assert user.resolve_user_id("alice") == "alice"
    with pytest.raises(errors.LedgerError) as exc:
        user.resolve_user_id("bob")
    assert permission_denied(exc)

    wildcard = Claims.wildcard()
    assert wildcard.resolve_user_id("bob") == "bob"
    with pytest.raises(errors.LedgerError) as exc:
        wildcard.resolve_user_id("")
    assert (exc.value.code.id, exc.value.status) == ("INVALID_TOKEN", 400)
    assert exc.value.cause.startswith("The submitted request is missing a user-id: ")


def test_require_self_or_admin():
    alice = Claims.from_rights("alice", [])
    alice.require_self_or_admin("alice")
    with pytest.raises(errors.LedgerError) as exc:
        alice.require_self_or_admin("bob")
    assert permission_denied(exc)
    Claims.from_rights("root", [("ParticipantAdmin", None)]).require_self_or_admin("bob")
    Claims.from_rights("idp", [("IdentityProviderAdmin", None)]).require_self_or_admin("bob")
