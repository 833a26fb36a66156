"""The table holds every builtin function of the Daml-LF 2 schema, each runnable or marked as needing the machine."""

from __future__ import annotations

from participant.daml_lf._proto import daml_lf2_pb2
from participant.daml_lf.eval.builtins import BUILTINS

CALLING_BACK = {"FOLDL", "FOLDR", "EQUAL_LIST", "ANY_EXCEPTION_MESSAGE"}


def test_every_builtin_function_of_the_schema_is_in_the_table() -> None:
    schema = set(daml_lf2_pb2.BuiltinFunction.keys())
    assert schema - set(BUILTINS) == set()
    assert set(BUILTINS) - schema == set()


def test_each_entry_either_runs_or_needs_the_machine() -> None:
    for name, builtin in BUILTINS.items():
        assert builtin.name == name
        assert (builtin.run is None) == builtin.needs_machine, name
    assert {name for name, b in BUILTINS.items() if b.needs_machine} == CALLING_BACK


def test_arities_count_value_arguments_with_scale_witnesses() -> None:
    arities = {name: b.arity for name, b in BUILTINS.items()}
    assert arities["GENMAP_EMPTY"] == arities["TEXTMAP_EMPTY"] == 0
    assert arities["ADD_NUMERIC"] == 2
    assert arities["MUL_NUMERIC"] == arities["DIV_NUMERIC"] == 3  # witness, x, y
    assert arities["CAST_NUMERIC"] == arities["SHIFT_NUMERIC"] == arities["TEXT_TO_NUMERIC"] == 2
    assert arities["FAIL_WITH_STATUS"] == 4
    assert arities["FOLDL"] == arities["FOLDR"] == arities["EQUAL_LIST"] == 3
    assert arities["SECP256K1_BOOL"] == arities["SECP256K1_WITH_ECDSA_BOOL"] == 3
