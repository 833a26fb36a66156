"""ERROR, FAIL_WITH_STATUS and TRACE; Any and TypeRep."""

from __future__ import annotations

import logging

import pytest

from participant.daml_lf.ast import TApp, TBuiltin, TCon, TypeConRef
from participant.daml_lf.eval.builtins import from_any, to_any
from participant.daml_lf.eval.errors import FailureStatus, UserError
from participant.daml_lf.eval.values import FAILURE_CATEGORIES, NIL, Some, TypeRep

from .helpers import call


def test_error_is_a_fatal_user_error() -> None:
    with pytest.raises(UserError) as caught:
        call("ERROR", "no such thing")
    assert caught.value.message == "no such thing"


def test_fail_with_status_carries_id_category_message_and_metadata() -> None:
    meta = call("TEXTMAP_INSERT", "b", "2", call("TEXTMAP_INSERT", "a", "1", call("TEXTMAP_EMPTY")))
    category = FAILURE_CATEGORIES["INVALID_INDEPENDENT_OF_SYSTEM_STATE"]
    with pytest.raises(FailureStatus) as caught:
        call("FAIL_WITH_STATUS", "splice.lucky/NOT_ENOUGH", category, "not enough funds", meta)
    failure = caught.value
    assert (failure.error_id, failure.category, failure.message) == (
        "splice.lucky/NOT_ENOUGH",
        1,
        "not enough funds",
    )
    assert failure.metadata == {"a": "1", "b": "2"}


def test_trace_returns_its_value_and_logs_the_message(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="participant.daml_lf.trace"):
        assert call("TRACE", "hello", 42) == 42
    assert [r.getMessage() for r in caplog.records] == ["hello"]


def test_type_rep_tycon_name() -> None:
    ref = TypeConRef("cafe", "Main.Sub", "T.Inner")
    assert call("TYPE_REP_TYCON_NAME", TypeRep(TCon(ref))).value == "cafe:Main.Sub:T.Inner"
    assert call("TYPE_REP_TYCON_NAME", TypeRep(TCon(ref, (TBuiltin("INT64"),)))) is None  # an application
    assert call("TYPE_REP_TYCON_NAME", TypeRep(TBuiltin("INT64"))) is None


def test_from_any_gives_the_value_only_at_its_type() -> None:
    packed = to_any(TBuiltin("INT64"), 5)
    result = from_any(TBuiltin("INT64"), packed)
    assert isinstance(result, Some) and result.value == 5
    assert from_any(TBuiltin("TEXT"), packed) is None
    listed = to_any(TBuiltin("LIST", (TBuiltin("INT64"),)), NIL)
    assert isinstance(from_any(TApp(TBuiltin("LIST"), TBuiltin("INT64")), listed), Some)
