"""Daml-LF packages: read DARs and DALFs (archive), decode them into an immutable AST (decode, ast), and the
signatures a client needs (signatures). Imports nothing else of the participant: the terminal client uses it too.
"""
