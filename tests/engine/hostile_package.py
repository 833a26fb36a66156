"""Hostile Daml-LF packages, made by hand from the richtypes DAR: real DARs (uploadable, readable by `read_dar`)
whose `Marker` template runs code that never ends, or ends only by taking the machine's memory.

Each builder takes the richtypes DAR's bytes (`tests/daml_lf/conftest.py`'s `dar_bytes(RICHTYPES)`) and returns a
new DAR: the main package renamed (its own package name, so several load side by side), a few definitions added to
module `RichTypes`, and `Marker`'s `ensure` (or a new choice of it) replaced:

- `looping_ensure`: `ensure hostileLoop 0`, `hostileLoop n = hostileLoop (n + 1)`: a tail call, constant stack,
  never ends.
- `recursing_ensure`: `ensure hostileGrow 0 == 0`, `hostileGrow n = 1 + hostileGrow n`: a stack that grows for ever.
- `doubling_ensure`: `ensure hostileDouble "ab"`, `hostileDouble t = hostileDouble (t <> t)`: a text that doubles.
- `deep_ensure(depth)`: `ensure hostileDeep == -1`, `hostileDeep = 1 + (1 + (… + 0))` nested `depth` deep (False
  in the end, after `depth` stack frames); its bytes are spliced level by level, so a deep one is cheap to make.
  `install_deep_sum` puts the deep sum, built in memory, into a loaded package (decoding it is the reader's part).
- `nesting_choice`: a choice `Nest : Optional (Optional …) with nickname : Text; level : Int` (the argument is
  richtypes' `Profile`) whose result is `Some (Some (… None))`, `level` deep: stored as the exercise's result, so
  `level` 101 is past Daml's nesting limit of 100.
- `recursing_choice`: a choice `Recurse` (argument `Profile`) that exercises itself on the same contract.
- `slow_constant(count)`: a top-level constant `hostileConstant = hostileCount count`, counting down to 0, which
  `ensure hostileConstant == 0` reads: to interrupt a constant's evaluation half way.

`MARKER` is the template (by package name: `marker_id(name)`), `NEST` the choice; the Marker's argument is
`{"owner": party}`.
"""

from __future__ import annotations

import hashlib
import io
import zipfile
from collections.abc import Callable

from participant.daml_lf import ast
from participant.daml_lf._proto import daml_lf2_lazy_pb2 as lazy
from participant.daml_lf._proto import daml_lf2_pb2 as lf
from participant.daml_lf._proto import daml_lf_pb2
from participant.daml_lf.archive import read_dar
from participant.daml_lf.eval.compile import compile_expr
from participant.daml_lf.eval.program import Program

MODULE = "RichTypes"
MARKER = "RichTypes:Marker"
NEST = "Nest"
RECURSE = "Recurse"
OPTIONAL_DEPTH = 120  # the choice's result type: Optional nested this deep, deeper than any level tried


def marker_id(package_name: str) -> str:
    """The Marker template of a hostile package, by package name (`#name:RichTypes:Marker`)."""
    return f"#{package_name}:{MARKER}"


class HostileBuilder:
    """The richtypes main package opened for changes: interned tables grown on demand, definitions added to module
    `RichTypes`, then written back as a DAR."""

    def __init__(self, dar: bytes, package_name: str) -> None:
        self.dar = dar
        self.main_path = read_dar(dar).main.path
        with zipfile.ZipFile(io.BytesIO(dar)) as archive:
            dalf = daml_lf_pb2.Archive.FromString(archive.read(self.main_path))
        self.payload = daml_lf_pb2.ArchivePayload.FromString(dalf.payload)
        self.package = lazy.Package.FromString(self.payload.daml_lf_2)
        self._strings = {text: index for index, text in enumerate(self.package.interned_strings)}
        self._dotted: dict[str, int] = {}
        for index, name in enumerate(self.package.interned_dotted_names):
            self._dotted[".".join(self.package.interned_strings[i] for i in name.segments_interned_str)] = (
                index
            )
        self.module = next(
            m for m in self.package.modules if self._dname_text(m.name_interned_dname) == MODULE
        )
        self.marker = next(
            t for t in self.module.templates if self._dname_text(t.tycon_interned_dname) == "Marker"
        )
        self.package.metadata.name_interned_str = self.string(package_name)

    # --- Interned tables

    def _dname_text(self, index: int) -> str:
        name = self.package.interned_dotted_names[index]
        return ".".join(self.package.interned_strings[i] for i in name.segments_interned_str)

    def string(self, text: str) -> int:
        index = self._strings.get(text)
        if index is None:
            index = self._strings[text] = len(self.package.interned_strings)
            self.package.interned_strings.append(text)
        return index

    def dname(self, dotted: str) -> int:
        index = self._dotted.get(dotted)
        if index is None:
            index = self._dotted[dotted] = len(self.package.interned_dotted_names)
            self.package.interned_dotted_names.add(
                segments_interned_str=[self.string(s) for s in dotted.split(".")]
            )
        return index

    def type(self, type_: lf.Type) -> lf.Type:
        """`type_` interned: the reference to it."""
        self.package.interned_types.append(lazy.Type.FromString(type_.SerializeToString()))
        return lf.Type(interned_type=len(self.package.interned_types) - 1)

    def builtin_type(self, name: str, *args: lf.Type) -> lf.Type:
        return self.type(lf.Type(builtin=lf.Type.Builtin(builtin=name, args=args)))

    def arrow(self, argument: lf.Type, result: lf.Type) -> lf.Type:
        return self.builtin_type("ARROW", argument, result)

    def module_id(self) -> lf.ModuleId:
        return lf.ModuleId(
            package_id=lf.SelfOrImportedPackageId(self_package_id=lf.Unit()),
            module_name_interned_dname=self.module.name_interned_dname,
        )

    def marker_tycon(self) -> lf.Type.Con:
        return lf.Type.Con(
            tycon=lf.TypeConId(module=self.module_id(), name_interned_dname=self.marker.tycon_interned_dname)
        )

    # --- Expressions

    def var(self, name: str) -> lf.Expr:
        return lf.Expr(var_interned_str=self.string(name))

    def val(self, name: str) -> lf.Expr:
        return lf.Expr(val=lf.ValueId(module=self.module_id(), name_interned_dname=self.dname(name)))

    def int64(self, value: int) -> lf.Expr:
        return lf.Expr(builtin_lit=lf.BuiltinLit(int64=value))

    def text(self, value: str) -> lf.Expr:
        return lf.Expr(builtin_lit=lf.BuiltinLit(text_interned_str=self.string(value)))

    def call(self, builtin: str, *args: lf.Expr) -> lf.Expr:
        function = lf.Expr(builtin=builtin)
        return lf.Expr(app=lf.Expr.App(fun=function, args=args))

    def apply(self, function: lf.Expr, *args: lf.Expr) -> lf.Expr:
        return lf.Expr(app=lf.Expr.App(fun=function, args=args))

    def lam(self, param: str, type_: lf.Type, body: lf.Expr) -> lf.Expr:
        binder = lf.VarWithType(var_interned_str=self.string(param), type=type_)
        return lf.Expr(abs=lf.Expr.Abs(param=[binder], body=body))

    def if_zero(self, value: lf.Expr, then: lf.Expr, otherwise: lf.Expr) -> lf.Expr:
        scrutinee = self.call("EQUAL", value, self.int64(0))
        alternatives = [
            lf.CaseAlt(builtin_con="CON_TRUE", body=then),
            lf.CaseAlt(default=lf.Unit(), body=otherwise),
        ]
        return lf.Expr(case=lf.Case(scrut=scrutinee, alts=alternatives))

    # --- Definitions

    def define(self, name: str, type_: lf.Type, body: lf.Expr | bytes) -> None:
        encoded = body if isinstance(body, bytes) else body.SerializeToString()
        name_with_type = lazy.DefValue.NameWithType(
            name_interned_dname=self.dname(name), type=lazy.Type.FromString(type_.SerializeToString())
        )
        self.module.values.add(name_with_type=name_with_type, expr=encoded)

    def ensure(self, body: lf.Expr | bytes) -> None:
        self.marker.precond = body if isinstance(body, bytes) else body.SerializeToString()

    def profile(self) -> lf.TypeConId:
        """richtypes' record `Profile` (`nickname : Text`, `level : Int`): the argument of the choices added."""
        return lf.TypeConId(module=self.module_id(), name_interned_dname=self.dname("Profile"))

    def choice(self, name: str, result: lf.Type, update: lf.Expr) -> None:
        """A nonconsuming choice `name` of Marker, argument `arg : Profile`, controller the owner, body `update`
        (`this` the contract, `self` its id)."""
        owner = lf.Expr(
            rec_proj=lf.Expr.RecProj(
                tycon=self.marker_tycon(), field_interned_str=self.string("owner"), record=self.var("this")
            )
        )
        party = self.builtin_type("PARTY")
        controllers = lf.Expr(
            cons=lf.Expr.Cons(type=party, front=[owner], tail=lf.Expr(nil=lf.Expr.Nil(type=party)))
        )
        profile = self.type(lf.Type(con=lf.Type.Con(tycon=self.profile())))
        self.marker.choices.add(
            name_interned_str=self.string(name),
            consuming=False,
            controllers=controllers.SerializeToString(),
            arg_binder=lazy.VarWithType.FromString(
                lf.VarWithType(var_interned_str=self.string("arg"), type=profile).SerializeToString()
            ),
            ret_type=lazy.Type.FromString(result.SerializeToString()),
            update=update.SerializeToString(),
            self_binder_interned_str=self.string("self"),
        )

    def build(self) -> bytes:
        """The DAR: the changed package in place of richtypes' main DALF, its hash recomputed."""
        self.payload.daml_lf_2 = self.package.SerializeToString()
        encoded = self.payload.SerializeToString()
        archive = daml_lf_pb2.Archive(payload=encoded, hash=hashlib.sha256(encoded).hexdigest())
        out = io.BytesIO()
        with zipfile.ZipFile(io.BytesIO(self.dar)) as source, zipfile.ZipFile(out, "w") as target:
            for info in source.infolist():
                if info.filename == self.main_path:
                    target.writestr(info.filename, archive.SerializeToString())
                else:
                    target.writestr(info, source.read(info.filename))
        return out.getvalue()


def _hostile(change: Callable[[HostileBuilder], None]) -> Callable[[bytes, str], bytes]:
    def build(dar: bytes, package_name: str) -> bytes:
        builder = HostileBuilder(dar, package_name)
        change(builder)
        return builder.build()

    build.__doc__ = change.__doc__
    return build


@_hostile
def looping_ensure(b: HostileBuilder) -> None:
    """`ensure hostileLoop 0` where `hostileLoop n = hostileLoop (n + 1)`."""
    int64 = b.builtin_type("INT64")
    loop = b.lam("n", int64, b.apply(b.val("hostileLoop"), b.call("ADD_INT64", b.var("n"), b.int64(1))))
    b.define("hostileLoop", b.arrow(int64, b.builtin_type("BOOL")), loop)
    b.ensure(b.apply(b.val("hostileLoop"), b.int64(0)))


@_hostile
def recursing_ensure(b: HostileBuilder) -> None:
    """`ensure hostileGrow 0 == 0` where `hostileGrow n = 1 + hostileGrow n`."""
    int64 = b.builtin_type("INT64")
    grow = b.lam("n", int64, b.call("ADD_INT64", b.int64(1), b.apply(b.val("hostileGrow"), b.var("n"))))
    b.define("hostileGrow", b.arrow(int64, int64), grow)
    b.ensure(b.call("EQUAL", b.apply(b.val("hostileGrow"), b.int64(0)), b.int64(0)))


@_hostile
def doubling_ensure(b: HostileBuilder) -> None:
    """`ensure hostileDouble "ab"` where `hostileDouble t = hostileDouble (t <> t)`."""
    text = b.builtin_type("TEXT")
    double = b.lam("t", text, b.apply(b.val("hostileDouble"), b.call("APPEND_TEXT", b.var("t"), b.var("t"))))
    b.define("hostileDouble", b.arrow(text, b.builtin_type("BOOL")), double)
    b.ensure(b.apply(b.val("hostileDouble"), b.text("ab")))


def deep_sum(b: HostileBuilder, depth: int) -> bytes:
    """`1 + (1 + (… + 0))`, `depth` additions, encoded without building the nested messages (protobuf's own
    encoder would recurse): a level is `Expr{app: App{fun: ADD_INT64, args: [1, <child>]}}`, whose bytes are a
    prefix (the tags and lengths, which depend on the child's length) then the child's bytes, the child being the
    last field. The prefixes are computed from the inside out and joined once: linear in `depth`."""
    head = lf.Expr.App(fun=lf.Expr(builtin="ADD_INT64"), args=[b.int64(1)])
    head_bytes = head.SerializeToString()
    innermost = b.int64(0).SerializeToString()
    prefixes: list[bytes] = []
    child = len(innermost)
    for _ in range(depth):
        argument = _ARGS_TAG + _varint(child)
        app_length = len(head_bytes) + len(argument) + child
        prefix = _APP_TAG + _varint(app_length) + head_bytes + argument
        prefixes.append(prefix)
        child += len(prefix)
    prefixes.reverse()
    prefixes.append(innermost)
    return b"".join(prefixes)


_APP_TAG = bytes([15 << 3 | 2])  # Expr.app, length-delimited
_ARGS_TAG = bytes([2 << 3 | 2])  # Expr.App.args, length-delimited


def deep_ensure(dar: bytes, package_name: str, depth: int) -> bytes:
    """`ensure hostileDeep == -1`, `hostileDeep = 1 + (1 + (… + 0))` nested `depth` deep: False after `depth`
    stack frames. Decoding a body that deep is the archive reader's concern (it may refuse it): to evaluate one,
    `install_deep_sum` puts the expression, built in memory, in place of a shallow `hostileDeep`."""
    b = HostileBuilder(dar, package_name)
    b.define("hostileDeep", b.builtin_type("INT64"), deep_sum(b, depth) if depth else b.int64(0))
    b.ensure(b.call("EQUAL", b.val("hostileDeep"), b.int64(-1)))
    return b.build()


def deep_sum_expr(depth: int) -> ast.Expr:
    """`1 + (1 + (… + 0))`, `depth` additions, as the decoder would give it."""
    add = ast.Expr("builtin", "ADD_INT64")
    one = ast.Expr("builtin_lit", ast.Node("BuiltinLit", (("int64", 1),)))
    expr = ast.Expr("builtin_lit", ast.Node("BuiltinLit", (("int64", 0),)))
    for _ in range(depth):
        expr = ast.Expr("app", ast.Node("Expr.App", (("fun", add), ("args", (one, expr)))))
    return expr


def install_deep_sum(program: Program, package_id: str, depth: int) -> None:
    """Make `hostileDeep` of a `deep_ensure(…, 0)` package the sum nested `depth` deep, compiled from memory."""
    top = program.top_level(ast.ValueRef(package_id, MODULE, "hostileDeep"))
    top.body, top.size = compile_expr(deep_sum_expr(depth), program, "hostileDeep")


def nesting_choice(dar: bytes, package_name: str) -> bytes:
    """Marker's choice `Nest`, argument richtypes' `Profile` (`nickname`, `level`), result `Some (… None)` nested
    `level` deep (`hostileWrap level`), of type `Optional` nested `OPTIONAL_DEPTH` deep."""
    b = HostileBuilder(dar, package_name)
    int64 = b.builtin_type("INT64")
    result = b.builtin_type("UNIT")
    for _ in range(OPTIONAL_DEPTH):
        result = b.builtin_type("OPTIONAL", result)
    wrap = b.lam(
        "n",
        int64,
        b.if_zero(
            b.var("n"),
            lf.Expr(optional_none=lf.Expr.OptionalNone(type=result)),
            lf.Expr(
                optional_some=lf.Expr.OptionalSome(
                    type=result,
                    value=b.apply(b.val("hostileWrap"), b.call("SUB_INT64", b.var("n"), b.int64(1))),
                )
            ),
        ),
    )
    b.define("hostileWrap", b.arrow(int64, result), wrap)
    level = lf.Expr(
        rec_proj=lf.Expr.RecProj(
            tycon=lf.Type.Con(tycon=b.profile()), field_interned_str=b.string("level"), record=b.var("arg")
        )
    )
    update = lf.Expr(update=lf.Update(pure=lf.Pure(type=result, expr=b.apply(b.val("hostileWrap"), level))))
    b.choice(NEST, result, update)
    return b.build()


def recursing_choice(dar: bytes, package_name: str) -> bytes:
    """Marker's choice `Recurse` (argument `Profile`, result `()`) whose body exercises `Recurse` again on the same
    contract: a transaction nested without end."""
    b = HostileBuilder(dar, package_name)
    marker = lf.TypeConId(module=b.module_id(), name_interned_dname=b.marker.tycon_interned_dname)
    again = lf.Update.Exercise(
        template=marker, choice_interned_str=b.string(RECURSE), cid=b.var("self"), arg=b.var("arg")
    )
    b.choice(RECURSE, b.builtin_type("UNIT"), lf.Expr(update=lf.Update(exercise=again)))
    return b.build()


def slow_constant(dar: bytes, package_name: str, count: int) -> bytes:
    """`ensure hostileConstant == 0`, `hostileConstant = hostileCount count`, `hostileCount n = if n == 0 then 0
    else hostileCount (n - 1)`: a top-level constant that takes `count` steps to evaluate."""
    b = HostileBuilder(dar, package_name)
    int64 = b.builtin_type("INT64")
    count_down = b.lam(
        "n",
        int64,
        b.if_zero(
            b.var("n"),
            b.int64(0),
            b.apply(b.val("hostileCount"), b.call("SUB_INT64", b.var("n"), b.int64(1))),
        ),
    )
    b.define("hostileCount", b.arrow(int64, int64), count_down)
    b.define("hostileConstant", int64, b.apply(b.val("hostileCount"), b.int64(count)))
    b.ensure(b.call("EQUAL", b.val("hostileConstant"), b.int64(0)))
    return b.build()


def _varint(value: int) -> bytes:
    out = bytearray()
    while True:
        byte = value & 0x7F
        value >>= 7
        if value:
            out.append(byte | 0x80)
        else:
            out.append(byte)
            return bytes(out)
