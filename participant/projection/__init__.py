"""The ledger as a reader sees it: which events a request's filter lets through (filters), the JSON events built
from stored contracts and transaction nodes (shaping), the deprecated transaction-tree shape (trees), and active
contract snapshots read page by page (acs). Only reads: writing the ledger is the committer's."""
