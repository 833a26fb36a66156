"""The `ObjectMeta` of users and parties as requests give it: annotations checked as Canton's
`ResourceAnnotationValidator` does, and the resource version an update expects."""

from __future__ import annotations

import re

from participant.base import errors
from participant.store.admin import MAX_ANNOTATIONS_BYTES, annotations_size

_NAME = "([a-zA-Z0-9]+[a-zA-Z0-9-]*)?[a-zA-Z0-9]+"
_KEY_SEGMENT = re.compile(r"([a-zA-Z0-9]+[a-zA-Z0-9.\-_]*)?[a-zA-Z0-9]+")
_DNS_SUBDOMAIN = re.compile(f"({_NAME}[.])*{_NAME}")
_NUMBER = re.compile(r"[+-]?[0-9]{1,18}")  # what Scala's `toLong` takes, short of the overflow


def _shorten(text: str) -> str:
    return text[:50] + "..." if len(text) > 53 else text


def _key_problem(key: str) -> str | None:
    parts = key.split("/")
    if len(parts) > 2:
        return f"Key '{_shorten(key)}' contains more than one forward slash ('/') character"
    if len(parts) == 2:
        prefix = parts[0]
        if len(prefix) > 253:
            return f"Key prefix segment '{_shorten(prefix)}' exceeds maximum length of 253 characters"
        if not _DNS_SUBDOMAIN.fullmatch(prefix):
            return f"Key prefix segment '{_shorten(prefix)}' has invalid syntax"
    name = parts[-1]
    if len(name) > 63:
        return f"Key name segment '{_shorten(name)}' exceeds maximum length of 63 characters"
    if not _KEY_SEGMENT.fullmatch(name):
        return f"Key name segment '{_shorten(name)}' has invalid syntax"
    return None


def check_annotations(
    annotations: dict[str, str], field_name: str, *, allow_empty_values: bool
) -> dict[str, str]:
    """INVALID_ARGUMENT for annotations no resource may have; an update may give empty values (to remove keys)."""
    if annotations_size({k: v for k, v in annotations.items() if v}) > MAX_ANNOTATIONS_BYTES:
        raise errors.INVALID_ARGUMENT(
            f"annotations from field '{field_name}' are larger than the limit of {MAX_ANNOTATIONS_BYTES // 1024}kb"
        )
    for key in annotations:
        if (problem := _key_problem(key)) is not None:
            raise errors.INVALID_ARGUMENT(problem)
    if not allow_empty_values:
        for key, value in annotations.items():
            if not value:
                raise errors.INVALID_ARGUMENT(
                    f"The value of an annotation is empty for key: '{_shorten(key)}'"
                )
    return dict(annotations)


def resource_version(raw: str, field_name: str) -> int | None:
    """The version an update expects (None: any), INVALID_FIELD unless it is a number."""
    if not raw:
        return None
    if not _NUMBER.fullmatch(raw):
        raise errors.INVALID_FIELD(
            f"Invalid field {field_name}: Invalid resource version number", context={"field_name": field_name}
        )
    return int(raw)
