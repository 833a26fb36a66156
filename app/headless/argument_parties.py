"""The parties inside a submitted document's commands (create arguments, choice arguments, contract keys) written by
a short name, expanded as the composer's typed form expands them: only where the Daml type says Party, found
through the package signatures (a Text that reads "Alice" stays text).

The packages are read only when some text of the arguments could be a known party's short name: a document that
names parties by id, as scripts usually do, costs no more than before.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from app.client import LedgerClient
from app.compose.types import (
    FieldType,
    GenMapT,
    ListT,
    OptionalT,
    RecordT,
    Scalar,
    TextMapT,
    TypeResolver,
    VariantT,
)
from app.ids import PARTY_SEPARATOR, expand_party

Json = Any
# the command kinds of JsCommands whose arguments hold Daml values, and the keys that hold them
VALUE_KEYS = {
    "CreateCommand": ("createArguments",),
    "ExerciseCommand": ("choiceArgument",),
    "CreateAndExerciseCommand": ("createArguments", "choiceArgument"),
    "ExerciseByKeyCommand": ("contractKey", "choiceArgument"),
}


def could_name_a_party(document: dict, known: list[str]) -> bool:
    """Some text of the commands' arguments is not a party id but stands for a known party."""
    return any(
        PARTY_SEPARATOR not in text and expand_party(text, known).expanded
        for _, _, value in _values(document)
        for text in _texts(value)
    )


async def expand_in_arguments(
    client: LedgerClient, cache_dir: Path, document: dict, expand: Callable[[str], str]
) -> None:
    """Replace, in place, each Party-typed text of the commands' arguments by what `expand` makes of it. A template
    or choice the packages do not have keeps its arguments as written (the participant answers for them)."""
    from app.packages import PackageCatalog

    catalog = PackageCatalog(client, cache_dir)
    await catalog.load()
    resolver = TypeResolver(catalog.packages)
    for body, key, value in list(_values(document)):
        template = await catalog.template(str(body.get("templateId") or ""))
        if template is None:
            continue
        type_: FieldType | None = None
        if key == "createArguments":
            type_ = resolver.template_arguments(template)
        elif key == "contractKey" and template.key_type is not None:
            type_ = resolver.of(template.key_type)
        elif key == "choiceArgument":
            choice = template.choice(str(body.get("choice") or ""))
            type_ = resolver.choice_argument(choice) if choice is not None else None
        if type_ is not None:
            body[key] = expand_parties(value, type_, expand)


def expand_parties(value: Json, type_: FieldType, expand: Callable[[str], str], nested: bool = False) -> Json:
    """`value` (the JSON Ledger API's encoding of a `type_`) with each Party text expanded. `nested`: an Optional
    inside an Optional, which the encoding writes as a list of none or one."""
    if isinstance(type_, Scalar):
        return expand(value) if type_.kind == "PARTY" and isinstance(value, str) else value
    if isinstance(type_, OptionalT):
        inner = isinstance(type_.element, OptionalT)
        if (nested or inner) and isinstance(value, list):
            return [expand_parties(v, type_.element, expand, nested=True) for v in value]
        return None if value is None else expand_parties(value, type_.element, expand)
    if isinstance(type_, ListT) and isinstance(value, list):
        return [expand_parties(v, type_.element, expand) for v in value]
    if isinstance(type_, TextMapT) and isinstance(value, dict):
        return {k: expand_parties(v, type_.value, expand) for k, v in value.items()}
    if isinstance(type_, GenMapT) and isinstance(value, list):
        return [
            [expand_parties(p[0], type_.key, expand), expand_parties(p[1], type_.value, expand)]
            if isinstance(p, list) and len(p) == 2
            else p
            for p in value
        ]
    if isinstance(type_, RecordT) and isinstance(value, dict):
        fields = dict(type_.fields)
        return {k: expand_parties(v, fields[k], expand) if k in fields else v for k, v in value.items()}
    if isinstance(type_, VariantT) and isinstance(value, dict) and "value" in value:
        payload = type_.constructor(str(value.get("tag")))
        if payload is not None:
            return {**value, "value": expand_parties(value["value"], payload, expand)}
    return value


def _values(document: dict) -> Iterator[tuple[dict, str, Json]]:
    """(a command's body, the key of one of its Daml values, that value) for each command of the document."""
    commands = document.get("commands")
    for command in commands if isinstance(commands, list) else []:
        if not isinstance(command, dict):
            continue
        for kind, body in command.items():
            if isinstance(body, dict):
                for key in VALUE_KEYS.get(kind, ()):
                    if key in body:
                        yield body, key, body[key]


def _texts(value: Json) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, list):
        for v in value:
            yield from _texts(v)
    elif isinstance(value, dict):
        for v in value.values():
            yield from _texts(v)
