"""Storage: the SQLite schema, the single writer, reads and pruning. The only place with SQL."""
