"""Wire models of Canton's JSON Ledger API v2 (spec: canton-3.5 openapi.yaml).

Pydantic models shared by the HTTP client (parsing responses) and the bundled
participant (validating request bodies). Dump with ``model_dump_json()``:
keys are camelCase (``serialize_by_alias``) and tagged unions emit only the
alternative that is set. See :class:`participant.api.base.Variant`.

Each model is imported with its module at its first use (`from participant.api import X` included), not with the
package: the participant answers its first requests, and the client connects, without the models of commands
and updates.
"""

import lazy_loader

# the names are listed once, in __init__.pyi (as imports, for the type checkers); each is imported at its first use
__getattr__, __dir__, __all__ = lazy_loader.attach_stub(__name__, __file__)
