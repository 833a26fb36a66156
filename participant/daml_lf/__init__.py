"""Daml-LF packages: read DARs and DALFs (archive), decode them into an immutable AST (decode, ast), and the
signatures a client needs (signatures), the one walk over Daml-LF types (types) and the builtin scalars' JSON forms
(scalars). Imports nothing else of the participant: the terminal client uses it too.
"""
