"""DARs changed by hand for the runner's tests, written back with the protobuf classes of the reader.

- `with_literal_changed(dar, old, new)`: the main package with one interned literal (a numeric literal is interned
  as its text, ``"1001100.0000000000"``) replaced, its package id recomputed: the scripts that assert on it fail.
"""

from __future__ import annotations

import hashlib
import io
import zipfile

from participant.daml_lf._proto import daml_lf2_lazy_pb2 as lazy
from participant.daml_lf._proto import daml_lf_pb2
from participant.daml_lf.archive import read_dar


def with_literal_changed(dar: bytes, old: str, new: str) -> bytes:
    main_path = read_dar(dar).main.path
    with zipfile.ZipFile(io.BytesIO(dar)) as archive:
        dalf = daml_lf_pb2.Archive.FromString(archive.read(main_path))
    payload = daml_lf_pb2.ArchivePayload.FromString(dalf.payload)
    package = lazy.Package.FromString(payload.daml_lf_2)
    strings = list(package.interned_strings)
    assert strings.count(old) == 1, f"{old!r} is interned {strings.count(old)} times"
    package.interned_strings[strings.index(old)] = new
    payload.daml_lf_2 = package.SerializeToString()
    encoded = payload.SerializeToString()
    changed = daml_lf_pb2.Archive(
        hash_function=dalf.hash_function, payload=encoded, hash=hashlib.sha256(encoded).hexdigest()
    )
    out = io.BytesIO()
    with (
        zipfile.ZipFile(io.BytesIO(dar)) as source,
        zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target,
    ):
        for item in source.infolist():
            data = changed.SerializeToString() if item.filename == main_path else source.read(item)
            target.writestr(item, data)
    return out.getvalue()
