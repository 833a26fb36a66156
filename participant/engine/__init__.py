"""Daml semantics for the bundled participant: values, templates, and the interpreter (see `interpreter.Engine`)."""
