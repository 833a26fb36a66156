"""The participant's settings: what `ledger-participant serve` is given on its command line."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    db: Path
    host: str = "127.0.0.1"
    port: int = 7575
    hs256_secret: str | None = None
    public_key: Path | None = None
    jwks: Path | None = None
    no_auth: bool = False
    demo: bool = False
    packages: tuple[str, ...] = field(default_factory=tuple)
    max_list_elements: int = 200
    offset_checkpoint_interval_s: float = 15.0
    max_body_bytes: int = 4 * 1024 * 1024
    max_dar_bytes: int = 32 * 1024 * 1024  # what a DAR's entries may decompress to (daml_lf.limits' default)
    synchronizer_aliases: tuple[str, ...] = ("global", "private")
    log_requests: bool = True
    # An interpretation's deadline is its ledger time plus this: Canton's ledger-time-record-time tolerance, whose
    # default is 60 s.
    ledger_time_tolerance_s: float = 60.0
    # Bytes one evaluation may grow the process by: far above what Canton Coin's flows take (a few MB), far below
    # what would take the machine.
    max_interpretation_memory: int = 256 * 1024 * 1024
    # The ledger's clock starts at 1970-01-01T00:00:00Z and moves only when set (`participant.ledger.clock`).
    static_time: bool = False
