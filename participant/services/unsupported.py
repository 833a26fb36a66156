"""The endpoints of the spec that a participant made of Python definitions and one SQLite file cannot be, and why.

Each is answered with `errors.Unimplemented` (HTTP 501) once the request has passed what Canton checks first: a JSON
body must be a JSON object (else Canton's 400 text answer), and a caller without the rights gets the same 401/403 as
on Canton; only then does it learn that the endpoint is missing.
"""

from __future__ import annotations

from dataclasses import dataclass

from participant.auth import Claims
from participant.base import errors

_VETTING = (
    "this participant keeps no topology state: every loaded package is usable on every connected "
    "synchronizer, and there is no vetting to list or change"
)
_INTERACTIVE = (
    "interactive submission hands out Daml-LF transactions and their hashes for external signing, and "
    "this participant interprets Python templates: it neither produces nor verifies them"
)
_EXTERNAL = (
    "external parties are made of topology transactions signed with the party's own keys, and this "
    "participant keeps no topology state and checks no such signatures"
)

_PACKAGES = "com.daml.ledger.api.v2.admin.PackageManagementService"
_INTERACTIVE_SERVICE = "com.daml.ledger.api.v2.interactive.InteractiveSubmissionService"
_PARTIES = "com.daml.ledger.api.v2.admin.PartyManagementService"


@dataclass(frozen=True)
class Unsupported:
    method: str  # the gRPC method Canton serves the endpoint with
    reason: str
    rights: str  # "admin" or "any" (a valid token): what Canton checks before the service runs


ENDPOINTS: dict[tuple[str, str], Unsupported] = {
    ("GET", "/v2/package-vetting"): Unsupported(
        "com.daml.ledger.api.v2.PackageService/ListVettedPackages", _VETTING, "any"
    ),
    ("POST", "/v2/package-vetting/list"): Unsupported(
        "com.daml.ledger.api.v2.PackageService/ListVettedPackages", _VETTING, "any"
    ),
    ("POST", "/v2/package-vetting"): Unsupported(f"{_PACKAGES}/UpdateVettedPackages", _VETTING, "admin"),
    ("POST", "/v2/package-vetting/update"): Unsupported(
        f"{_PACKAGES}/UpdateVettedPackages", _VETTING, "admin"
    ),
    ("POST", "/v2/interactive-submission/prepare"): Unsupported(
        f"{_INTERACTIVE_SERVICE}/PrepareSubmission", _INTERACTIVE, "any"
    ),
    ("POST", "/v2/interactive-submission/execute"): Unsupported(
        f"{_INTERACTIVE_SERVICE}/ExecuteSubmission", _INTERACTIVE, "any"
    ),
    ("POST", "/v2/interactive-submission/executeAndWait"): Unsupported(
        f"{_INTERACTIVE_SERVICE}/ExecuteSubmissionAndWait", _INTERACTIVE, "any"
    ),
    ("POST", "/v2/interactive-submission/executeAndWaitForTransaction"): Unsupported(
        f"{_INTERACTIVE_SERVICE}/ExecuteSubmissionAndWaitForTransaction", _INTERACTIVE, "any"
    ),
    # Canton also lets a user allocate an external party for itself, so any caller with a valid token gets here.
    ("POST", "/v2/parties/external/allocate"): Unsupported(
        f"{_PARTIES}/AllocateExternalParty", _EXTERNAL, "any"
    ),
    ("POST", "/v2/parties/external/generate-topology"): Unsupported(
        f"{_PARTIES}/GenerateExternalPartyTopology", _EXTERNAL, "any"
    ),
}


def refuse(endpoint: Unsupported, c: Claims) -> errors.Unimplemented:
    """The caller's rights first, as Canton checks them; then the reason this participant cannot serve it."""
    if endpoint.rights == "admin":
        c.require_admin()
    return errors.Unimplemented(endpoint.method, f"Not supported by this participant: {endpoint.reason}.")
