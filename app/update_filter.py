"""What the transactions screen's `/` filter says, read from one line: `party:` (or `p:`), `template:` (`t:`),
`interface:` (`i:`) and `command:` (`c:`) terms, each as often as wanted, and any other words as text to look for.

The participant filters by party, template and interface itself (they are the update format's filters); the
command id and the text are looked for in the rows as they arrive."""

from __future__ import annotations

from dataclasses import dataclass

from app.update_rows import TOPOLOGY, UpdateRow

_KEYS = {
    "party": "party",
    "p": "party",
    "template": "template",
    "t": "template",
    "interface": "interface",
    "i": "interface",
    "command": "command",
    "c": "command",
}


@dataclass(frozen=True)
class UpdateFilter:
    parties: tuple[str, ...] = ()  # as typed: full party ids or their hints ("Alice")
    templates: tuple[str, ...] = ()
    interfaces: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()
    text: str = ""

    @property
    def empty(self) -> bool:
        return self == UpdateFilter()

    @property
    def on_server(self) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
        """What the participant filters (a change of it means reading the updates again)."""
        return self.parties, self.templates, self.interfaces

    def matches(self, row: UpdateRow) -> bool:
        """Whether a row passes what is filtered here, in the client (command ids and text; and the topology
        events that come with the parties' updates, which involve no template)."""
        if (self.templates or self.interfaces) and row.kind == TOPOLOGY:
            return False
        if self.commands and not any(c in row.command_id for c in self.commands):
            return False
        return not self.text or all(word in row.searchable() for word in self.text.lower().split())

    def describe(self) -> str:
        return " ".join(
            [f"party:{p}" for p in self.parties]
            + [f"template:{t}" for t in self.templates]
            + [f"interface:{i}" for i in self.interfaces]
            + [f"command:{c}" for c in self.commands]
            + ([self.text] if self.text else [])
        )


def parse_filter(line: str) -> UpdateFilter:
    """The filter a line says (see the module's text); a word with an unknown `key:` is text."""
    terms: dict[str, list[str]] = {"party": [], "template": [], "interface": [], "command": []}
    words: list[str] = []
    for word in line.split():
        key, colon, value = word.partition(":")
        kind = _KEYS.get(key.lower()) if colon else None
        if kind is not None and value:
            terms[kind].append(value)
        else:
            words.append(word)
    return UpdateFilter(
        parties=tuple(terms["party"]),
        templates=tuple(terms["template"]),
        interfaces=tuple(terms["interface"]),
        commands=tuple(terms["command"]),
        text=" ".join(words),
    )


__all__ = ["UpdateFilter", "parse_filter"]
