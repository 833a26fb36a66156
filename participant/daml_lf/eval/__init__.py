"""The Daml-LF interpreter: runtime values, generic equality and order, and the builtin functions."""
