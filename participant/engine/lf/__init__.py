"""Daml-LF packages behind the engine's seam: their types as the engine's value codec, their templates as its
definitions (`participant.engine.definitions`), run by the Daml-LF evaluator."""
