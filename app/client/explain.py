"""Canton's error ids in plain words, with what to do about them (docs/ledger-api.md §6.4)."""

from __future__ import annotations

_EXPLAINED: dict[str, str] = {
    "NA": "The participant hides the details of security errors. Check that the token is valid, not expired, for "
    "this participant, and that its user exists and has the rights this needs.",
    "CONTRACT_NOT_FOUND": "The contract is unknown, archived, or not visible to the acting and reading parties. "
    "Refresh the contracts view; add a reading party (readAs) if another party can see it.",
    "CONTRACT_NOT_ACTIVE": "The contract was consumed earlier in the same transaction.",
    "CONTRACT_EVENTS_NOT_FOUND": "No create event of that contract is visible to the chosen parties, or it was "
    "pruned.",
    "CONTRACT_PAYLOAD_NOT_FOUND": "The contract is unknown to this participant or not visible to the querying "
    "parties.",
    "CONTRACT_KEY_NOT_FOUND": "No active contract has that key for the submitting parties.",
    "DAML_AUTHORIZATION_ERROR": "The acting parties lack the authority this needs: the choice's controllers or the "
    "template's signatories must be among actAs.",
    "UNHANDLED_EXCEPTION": "The Daml code threw an exception nothing caught: the template's ensure clause (a "
    "precondition such as a positive amount), an assert, an error, an arithmetic error, or the package's own "
    "exception. The cause names its type and its message.",
    "TEMPLATE_PRECONDITION_VIOLATED": "The arguments fail the template's ensure clause (its precondition).",
    "INTERPRETATION_USER_ERROR": "The Daml code raised an error (abort, assert or error); the cause has its message.",
    "DAML_FAILURE": "The Daml code failed on purpose (failWithStatus); the cause has its message.",
    "DAML_INTERPRETER_INVALID_ARGUMENT": "The Daml code was given an argument it cannot use; the cause says which.",
    "WRONGLY_TYPED_CONTRACT": "The contract is not of the template (or interface) the command names.",
    "PACKAGE_NOT_FOUND": "A package the command needs is not on this participant.",
    "UNRESOLVED_PACKAGE_NAME": "No package of that name is vetted for the parties of the command.",
    "PACKAGE_SELECTION_FAILED": "No version of the package is vetted by all the parties involved. Check the package "
    "name, or name a package id (packageIdSelectionPreference).",
    "DAML_INTERPRETATION_ERROR": "The Daml code could not be run with these arguments.",
    "COMMAND_PREPROCESSING_FAILED": "The arguments do not match the template or choice: a field is missing, "
    "extra, or of the wrong type (Int64 and Numeric are strings).",
    "DUPLICATE_COMMAND": "A command with this commandId was already accepted within the deduplication period. "
    "Submit with a fresh commandId to run it again.",
    "SUBMISSION_ALREADY_IN_FLIGHT": "The same command is still being processed. Wait for its outcome.",
    "TEMPLATES_OR_INTERFACES_NOT_FOUND": "The template or interface id is unknown to this participant. Use the "
    "#package-name:Module:Entity form or a package id it has.",
    "PACKAGE_NAMES_NOT_FOUND": "No package of that name is known to this participant.",
    "NO_TEMPLATES_FOR_PACKAGE_NAME_AND_QUALIFIED_NAME": "The package has no template of that name.",
    "JSON_API_PACKAGE_SELECTION_FAILED": "No vetted package of that name could be chosen for the first actAs party.",
    "INVALID_ARGUMENT": "The request is invalid; the cause says which part.",
    "INVALID_FIELD": "A field has an invalid value; the cause names it.",
    "MISSING_FIELD": "A required field is missing; the cause names it.",
    "OFFSET_AFTER_LEDGER_END": "The offset is beyond the ledger end. Choose an offset at or before the ledger end.",
    "PARTICIPANT_PRUNED_DATA_ACCESSED": "That offset was pruned away. Choose an offset at or after the pruning "
    "offset (earliest_offset in the context).",
    "JSON_API_MAXIMUM_LIST_ELEMENTS_NUMBER_REACHED": "More elements than the participant's list limit. The client "
    "reads large results page by page.",
    "PERMISSION_DENIED": "The user lacks a right this needs (actAs or readAs of a party, or admin).",
    "UNAUTHENTICATED": "The token is missing, invalid or expired.",
    "INVALID_TOKEN": "The request carries no user id: give a token for a user, or a userId.",
    "USER_NOT_FOUND": "No such user on this participant.",
    "USER_ALREADY_EXISTS": "A user with that id exists already.",
    "PARTY_NOT_KNOWN_ON_LEDGER": "A party in the command is not known to this participant.",
    "SUBMITTING_PARTY_NOT_KNOWN_ON_LEDGER": "An acting party is not hosted on this participant.",
    "DUPLICATE_CONTRACT_KEY": "An active contract with the same key exists already.",
    "UPDATE_NOT_FOUND": "No update at that offset or id is visible to the chosen parties.",
    "LEDGER_API_INTERNAL_ERROR": "The participant failed internally. Its log has the details.",
}

_BY_STATUS = {
    401: "The token was refused: it may be expired, signed with another key, or meant for another participant. "
    "Check the token source.",
    403: "The user behind the token lacks a right this needs, or the user is unknown or deactivated.",
    429: "The participant is overloaded; try again shortly.",
    503: "The participant is not ready or overloaded; try again shortly.",
}


def explain(code: str | None, status: int | None = None) -> str:
    """What an error means for the user and what to do; "" when there is nothing to add to the cause."""
    if code and code in _EXPLAINED:
        return _EXPLAINED[code]
    return _BY_STATUS.get(status or 0, "")
