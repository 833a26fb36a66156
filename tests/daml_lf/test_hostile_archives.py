"""The reader refuses what Canton's refuses, before decoding more than it must: protobuf nested past Canton's
recursion limit, a package without metadata or with a field the schema does not know, a manifest naming a DALF
twice, entries decompressing past the cap or the ratio. And an expression body decodes in memory linear in its
size, however deep."""

from __future__ import annotations

import io
import os
import subprocess
import sys
import tracemalloc
import zipfile

import pytest
from google.protobuf.message import DecodeError

from participant.daml_lf import ast
from participant.daml_lf._proto import daml_lf2_lazy_pb2 as lf
from participant.daml_lf._proto import daml_lf2_pb2
from participant.daml_lf.archive import read_dar
from participant.daml_lf.decode import Context
from participant.daml_lf.errors import MalformedArchive, MalformedManifest, NotAZip, ZipBomb
from participant.daml_lf.expressions import decode_expr
from participant.daml_lf.limits import DEFAULT_MAX_DAR_BYTES, MAX_COMPRESSION_RATIO
from participant.daml_lf.nesting import RECURSION_LIMIT, NestedTooDeep, check_nesting
from participant.daml_lf.packages import read_packages
from tests.daml_lf import bombs
from tests.daml_lf.conftest import REPO_ROOT, RICHTYPES

MiB = 1024 * 1024


# --- Nesting


@pytest.mark.parametrize("depth", range(45, 56))
def test_the_depth_scan_agrees_with_protobuf_on_where_the_limit_is(depth: int) -> None:
    """upb, decoding with the full schema, has a recursion limit of 100 counted as Canton's protobuf counts it:
    the scan, given the same limit, refuses exactly what upb refuses."""
    encoded = bombs.nested_some(depth)
    try:
        daml_lf2_pb2.Expr.FromString(encoded)
        protobuf_refuses = False
    except DecodeError:
        protobuf_refuses = True
    try:
        check_nesting(encoded, "expr", daml_lf2_pb2.Expr.DESCRIPTOR, limit=100)
        scan_refuses = False
    except NestedTooDeep:
        scan_refuses = True
    assert scan_refuses == protobuf_refuses
    assert scan_refuses == (depth >= 50)  # the deepest message is two levels below the deepest Some


def test_a_body_nested_past_cantons_limit_is_refused_at_reading(dar_bytes) -> None:
    """Canton's limit for an LF 2.1 package is 1000: the ensure sits three levels below the package, each Some
    adds two, so 498 levels pass and 499 do not."""
    assert RECURSION_LIMIT == 1000
    read_packages(bombs.deep_ensure(dar_bytes(RICHTYPES), 498))
    with pytest.raises(NestedTooDeep, match="too many levels of nesting"):
        read_packages(bombs.deep_ensure(dar_bytes(RICHTYPES), 499))


def test_an_ensure_100000_deep_is_refused_before_it_is_decoded(dar_bytes) -> None:
    dar = bombs.deep_ensure(dar_bytes(RICHTYPES), 100_000)
    tracemalloc.start()
    try:
        with pytest.raises(NestedTooDeep):
            read_dar(dar)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 4 * len(dar), peak  # the entries read, not a copy per level


@pytest.mark.parametrize(
    "tail", [b"\x08", b"\x12\x05ab", b"\x0b", b"\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01"]
)
def test_wire_bytes_protobuf_would_not_read_are_refused_by_the_scan(tail: bytes) -> None:
    # a truncated varint, a field longer than its message, a group, a varint of eleven bytes
    with pytest.raises(MalformedArchive):
        check_nesting(tail, "package")


# --- Decoding a deep body


_DECODE_DEEP = """
import resource, sys
from participant.daml_lf import ast
from participant.daml_lf._proto import daml_lf2_lazy_pb2
from participant.daml_lf.decode import Context
from participant.daml_lf.expressions import decode_expr
from tests.daml_lf.bombs import nested_some

depth = int(sys.argv[1])
body = ast.ExprBody(nested_some(depth), Context("p" * 64, daml_lf2_lazy_pb2.Package(interned_strings=["x"])))
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
expr = decode_expr(body)
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
levels = 0
while expr.kind == "optional_some":
    expr, levels = expr.value.get("value"), levels + 1
assert levels == depth and expr == ast.Expr("var", "x")
print((after - before) * 1024)
"""


def test_decoding_a_deep_body_takes_memory_linear_in_its_size() -> None:
    """10,000 levels, 130 KB: a copy of the rest of the body per level (protobuf's, outside Python's heap) held
    650 MB; in place, the tree decoded is all that grows. Measured in a process of its own (peak RSS)."""
    r = subprocess.run(
        [sys.executable, "-c", _DECODE_DEEP, "10000"],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
    )
    assert r.returncode == 0, r.stderr
    growth = int(r.stdout)
    assert growth < 64 * MiB, growth


def test_an_empty_expression_chosen_in_a_oneof_is_refused_as_malformed() -> None:
    """``ledger_time_lt`` is an expression in Update's oneof: chosen but empty, it is an expression without a case
    (absent, outside a oneof, an empty field would be no expression at all)."""
    update = lf.Update(ledger_time_lt=b"")
    assert update.WhichOneof("Sum") == "ledger_time_lt"
    body = ast.ExprBody(lf.Expr(update=update).SerializeToString(), Context("p" * 64, lf.Package()))
    with pytest.raises(MalformedArchive, match="expression without a case"):
        decode_expr(body)


# --- Metadata and unknown fields


def test_a_package_without_metadata_is_refused_as_canton_refuses_it(dar_bytes) -> None:
    with pytest.raises(MalformedArchive, match=r"Package\.metadata is required in Daml-LF 2\.1"):
        read_packages(bombs.without_metadata(dar_bytes(RICHTYPES)))


def test_a_package_of_an_unknown_field_only_is_refused_as_canton_refuses_it(dar_bytes) -> None:
    with pytest.raises(
        MalformedArchive, match="Message of type daml_lf_2.Package contains unknown field numbered 99"
    ):
        read_packages(bombs.only_an_unknown_field(dar_bytes(RICHTYPES)))


# --- The container


def test_a_manifest_naming_a_dalf_twice_is_refused(dar_bytes) -> None:
    with pytest.raises(MalformedManifest, match="more than once"):
        read_dar(bombs.named_twice(dar_bytes(RICHTYPES)))


def test_the_probes_bomb_is_refused_before_anything_is_decompressed(dar_bytes) -> None:
    """100 MB of zeros named eight times: refused for the repetition, then, named once, for its size."""
    with pytest.raises(MalformedManifest, match="more than once"):
        read_dar(bombs.inflating(dar_bytes(RICHTYPES), 100 * MiB, 8))
    dar = bombs.inflating(dar_bytes(RICHTYPES), 100 * MiB, 1)
    tracemalloc.start()
    try:
        with pytest.raises(
            ZipBomb, match=f"declares {100 * MiB} bytes, past the {DEFAULT_MAX_DAR_BYTES} bytes"
        ):
            read_dar(dar)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MiB, peak


def test_entries_are_counted_together_against_the_cap(dar_bytes) -> None:
    dar = dar_bytes(RICHTYPES)
    total = sum(len(dalf.payload) for dalf in read_dar(dar).dalfs)
    read_dar(dar, max_bytes=total + 64 * 1024)
    with pytest.raises(ZipBomb, match="past"):
        read_dar(dar, max_bytes=total // 2)


def test_an_entry_past_the_ratio_is_refused(dar_bytes) -> None:
    dar = bombs.inflating(dar_bytes(RICHTYPES), 8 * MiB, 1)  # under the cap, a thousand times its size
    with pytest.raises(ZipBomb, match=f"more than {MAX_COMPRESSION_RATIO} times its compressed size"):
        read_dar(dar)


def test_an_entry_lying_about_its_size_is_read_no_further_than_it_says(dar_bytes) -> None:
    """The central directory says 1 MiB, the data holds 64: decompression stops at the declared size, and the
    checksum then fails."""
    dar = bytearray(bombs.inflating(dar_bytes(RICHTYPES), 64 * MiB, 1))
    declared = (64 * MiB).to_bytes(4, "little")  # in the central directory, read last
    at = bytes(dar).rindex(declared)
    dar[at : at + 4] = MiB.to_bytes(4, "little")
    with zipfile.ZipFile(io.BytesIO(bytes(dar))) as zf:
        assert zf.getinfo("bomb/zeros.dalf").file_size == MiB
    tracemalloc.start()
    try:
        with pytest.raises(NotAZip, match="Bad CRC-32"):
            read_dar(bytes(dar))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 8 * MiB, peak
