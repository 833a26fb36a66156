"""What a running participant hands its routes (and the demo seeder): settings, store, committer, packages,
identity and authenticator, built once by `participant.server.app.create_app`'s lifespan."""

from __future__ import annotations

from dataclasses import dataclass, field

from participant.auth import Authenticator
from participant.base.settings import Settings
from participant.engine.registry import PackageRegistry
from participant.ledger.clock import LedgerClock, WallClock
from participant.ledger.committer import Committer
from participant.ledger.daml_packages import DamlPackages, FilterPackages
from participant.ledger.identity import Identity
from participant.services.shared_pages import SharedPages
from participant.store.store import Store


@dataclass
class Context:
    settings: Settings
    store: Store
    committer: Committer
    registry: PackageRegistry
    identity: Identity
    authenticator: Authenticator
    daml_packages: DamlPackages = field(default_factory=DamlPackages)  # loaded from DARs
    shared_pages: SharedPages = field(default_factory=SharedPages)  # of the update streams
    clock: LedgerClock = field(default_factory=WallClock)  # the committer's: ledger and record times

    @property
    def filter_packages(self) -> FilterPackages:
        """What event filters resolve their template and interface references against."""
        return FilterPackages(self.registry, self.daml_packages)
