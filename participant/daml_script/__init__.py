"""A Daml Script runner next to the interpreter: runs a DAR's ``Script a`` values against a ledger.

The entry point::

    outcome = await run_script(code, "Module.Path:name", ledger, argument=None)

``code`` is the DAR's packages (`participant.engine.lf.definitions.LfPackages`), ``ledger`` any `ScriptLedger`
(`json_ledger.JsonLedger` speaks the JSON Ledger API v2 over an ``httpx.AsyncClient``), ``argument`` the JSON
argument of a script that is a function of one. The `Outcome` says whether it passed, its result (with its Daml
type, to encode it with ``code.types``), or its error and Daml location, and how many transactions it committed.
A script's own failure never raises.

Modules: `runner` (the loop), `questions` (each question of daml-script 3.3), `library` (the library's types and
the values answers are built of), `ledger` (the protocol), `json_ledger`, `failures` (messages and locations).
"""

from participant.daml_script.ledger import ScriptLedger
from participant.daml_script.runner import Outcome, run_script

__all__ = ["Outcome", "ScriptLedger", "run_script"]
