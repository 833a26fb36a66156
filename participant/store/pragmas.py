"""Every connection's settings, in a module of its own so that the write process imports nothing else."""

BUSY_TIMEOUT_MS = 10_000
READ_PRAGMAS = (f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}", "PRAGMA foreign_keys = ON")
# The writer's connection alone also sets the journal and sync modes.
WRITE_PRAGMAS = ("PRAGMA journal_mode = WAL", "PRAGMA synchronous = FULL")
