"""The Daml types a runner answers with, found among the script's packages, and the values built of them.

The library's questions and answers cross as the interpreter's own values (``LowLevel.dangerousCast`` is the
identity here), so an answer is built exactly as Daml code would build it: records, variants, pairs, ``Either``,
``Optional``, ``AnyTemplate`` and ``TemplateTypeRep``. Their type constructors are looked up by module and name in
the packages the script was compiled with (daml-prim, daml-stdlib, daml-script), once.
"""

from __future__ import annotations

from typing import Any

from participant.daml_lf import ast
from participant.daml_lf.eval import values as rt
from participant.daml_lf.eval.compile import Local
from participant.daml_lf.eval.machine import Closure, Code
from participant.daml_lf.eval.program import Program

SCRIPT_PACKAGE = "daml-script"
LOW_LEVEL = "Daml.Script.Internal.LowLevel"
QUESTIONS = "Daml.Script.Internal.Questions"


class NotAScriptProgram(Exception):
    """The packages hold no daml-script library: nothing in them is a script."""


def _identity() -> Closure:
    """``\\x -> x``, as a compiled closure: the runner's ``dangerousCast``."""
    code = Code(1, "dangerousCast (the runner's identity)")
    code.body = Local(1)
    return code_closure(code)


def code_closure(code: Code) -> Closure:
    return Closure(code, ())


class Library:
    """The script's program with the runner's ``dangerousCast``, and builders of the values answers are made of."""

    def __init__(self, program: Program) -> None:
        self.program = program
        self._tycons: dict[tuple[str, str], ast.TypeConRef] = {}
        packages = program.packages
        for package in (*packages.packages.values(), *packages.dependencies.values()):
            for module in package.modules.values():
                for name in module.data_types:
                    self._tycons.setdefault(
                        (module.name, name), ast.TypeConRef(package.package_id, module.name, name)
                    )
        script = [
            ref for (module, name), ref in self._tycons.items() if module == LOW_LEVEL and name == "Script"
        ]
        if not script:
            raise NotAScriptProgram("no package of the DAR is the daml-script library")
        self.script_package_id = script[0].package_id
        self.script_type = script[0]
        cast = ast.ValueRef(self.script_package_id, LOW_LEVEL, "dangerousCast")
        top = program.top_level(cast)
        top.value = _identity()  # the library's body is an `error`; the runner's is the identity
        top.atomic = True

    def tycon(self, module: str, name: str) -> ast.TypeConRef:
        found = self._tycons.get((module, name))
        if found is None:
            raise NotAScriptProgram(f"no package of the DAR defines {module}:{name}")
        return found

    def question_type(self, module: str, name: str) -> ast.TypeConRef:
        return self.tycon(f"{QUESTIONS}.{module}", name)

    # --- Builders

    def record(self, tycon: ast.TypeConRef, **fields: Any) -> rt.Record:
        names = self.program.record_fields(tycon)
        return rt.Record(tycon, names, tuple(fields[name] for name in names))

    def variant(self, tycon: ast.TypeConRef, constructor: str, value: Any = rt.UNIT) -> rt.Variant:
        return rt.Variant(tycon, constructor, self.program.variant_rank(tycon, constructor), value)

    def enum(self, tycon: ast.TypeConRef, constructor: str) -> rt.Enum:
        return rt.Enum(tycon, constructor, self.program.enum_rank(tycon, constructor))

    def tuple2(self, first: Any, second: Any) -> rt.Record:
        return self.program.tuple2(first, second)

    def tuple3(self, first: Any, second: Any, third: Any) -> rt.Record:
        tycon = self.tycon("DA.Types", "Tuple3")
        return rt.Record(tycon, self.program.record_fields(tycon), (first, second, third))

    def left(self, value: Any) -> rt.Variant:
        return self.variant(self.tycon("DA.Types", "Either"), "Left", value)

    def right(self, value: Any) -> rt.Variant:
        return self.variant(self.tycon("DA.Types", "Either"), "Right", value)

    def template_type_rep(self, template: ast.TypeConRef) -> rt.Record:
        tycon = self.tycon("DA.Internal.Any", "TemplateTypeRep")
        return rt.Record(tycon, self.program.record_fields(tycon), (rt.TypeRep(ast.TCon(template)),))

    def any_template(self, template: ast.TypeConRef, argument: Any) -> rt.Record:
        tycon = self.tycon("DA.Internal.Any", "AnyTemplate")
        return rt.Record(tycon, self.program.record_fields(tycon), (rt.Any(ast.TCon(template), argument),))

    def any_choice(self, template: ast.TypeConRef, argument_type: ast.Type, argument: Any) -> rt.Record:
        return self.record(
            self.tycon("DA.Internal.Any", "AnyChoice"),
            getAnyChoice=rt.Any(argument_type, argument),
            getAnyChoiceTemplateTypeRep=self.template_type_rep(template),
        )

    def any_contract_id(self, template: ast.TypeConRef, contract_id: str) -> rt.Record:
        return self.record(
            self.question_type("Util", "AnyContractId"),
            templateId=self.template_type_rep(template),
            contractId=rt.ContractId(contract_id),
        )


def optional(value: Any | None) -> rt.Some | None:
    return None if value is None else rt.Some(value)


def field(record: Any, name: str) -> Any:
    """A record's field by name (records here are the library's, whose shape the runner knows)."""
    if not isinstance(record, rt.Record):
        raise TypeError(f"not a record: {record!r}")
    return record.values[record.fields.index(name)]


def template_of_rep(type_rep: Any) -> ast.TypeConRef:
    """The template or interface a ``TemplateTypeRep`` names."""
    rep = field(type_rep, "getTemplateTypeRep") if isinstance(type_rep, rt.Record) else type_rep
    type_ = rep.type
    if not isinstance(type_, ast.TCon):
        raise TypeError(f"a type rep that names no template: {type_!r}")
    return type_.tycon
