"""The DAR reader's caps on decompression, in a module of their own so that `serve`'s options can name them
without loading the reader."""

DEFAULT_MAX_DAR_BYTES = 32 * 1024 * 1024
"""What a DAR's entries read may decompress to in all, by default: ten times the DALFs of splice's largest DAR
(splice-wallet 0.1.14, 3.1 MB)."""

MAX_COMPRESSION_RATIO = 50
"""Decompressed over compressed size, beyond which an entry is refused (the real DALFs reach 5.5, deflate 1,000)."""

RATIO_FREE_BYTES = 1024 * 1024
"""An entry smaller than this is never refused for its ratio: a tiny manifest may compress very well."""
