"""One script's run: its program, ledger and budget, and the loop that runs a ``Free ScriptF`` value to its end.

A question is answered by ``answer`` (`questions.answer`, handed in so that the questions, which run scripts too,
``Catch`` and ``TryCommands``, are not imported here). Every machine run is within the script's `Budget`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.budget import Budget, limited
from participant.daml_script.failures import ScriptFailure, location_of
from participant.daml_script.ledger import ScriptLedger
from participant.daml_script.library import Library
from participant.daml_script.library import field as field_of
from participant.engine.lf.definitions import LfPackages

Answer = Callable[["Run", str, int, Any, Any], Awaitable[Any]]


@dataclass
class Run:
    """One script's run: what every question needs."""

    code: LfPackages
    library: Library
    ledger: ScriptLedger
    budget: Budget
    main_package_ids: frozenset[str]
    answer: Answer
    transactions: int = 0
    locations: list[Any] = field(default_factory=list)

    def call(self, function: Any, *args: Any) -> Any:
        with limited(self.budget):
            return self.library.program.call(function, *args)

    async def run_free(self, free: Any) -> Any:
        """Run a ``Free ScriptF (a, ())`` to its end: ``a``."""
        while True:
            if not isinstance(free, rt.Variant):
                raise ScriptFailure(f"a script step that is not a Free value: {free!r}")
            if free.constructor == "Pure":
                return field_of(free.value, "_1") if isinstance(free.value, rt.Record) else free.value
            question = free.value
            if isinstance(question, rt.Record) and question.tycon.name == "ScriptF":
                question = question.values[0]
            name = field_of(question, "commandName")
            version = field_of(question, "commandVersion")
            locations = field_of(question, "locations")
            self.locations = list(locations)
            reply = await self.answer(self, name, version, field_of(question, "payload"), locations)
            free = self.call(field_of(question, "continue"), reply)

    async def run_script_value(self, script: Any) -> Any:
        """Run a ``Script a`` value: ``a``."""
        return await self.run_free(self.call(field_of(script, "runScript"), rt.UNIT))

    def location(self, locations: Any = None) -> str | None:
        return location_of(
            self.library, self.main_package_ids, self.locations if locations is None else locations
        )
