"""Where ledger-tui keeps things: config (profiles, key bindings), data (the bundled participant, command history),
cache (snapshot files) and logs. Each can be moved by an environment variable (tests use them)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from platformdirs import PlatformDirs

APP = "ledger-tui"
CONFIG_ENV = "LEDGER_TUI_CONFIG"  # the config file itself
DATA_ENV = "LEDGER_TUI_DATA_DIR"
CACHE_ENV = "LEDGER_TUI_CACHE_DIR"
LOG_ENV = "LEDGER_TUI_LOG_DIR"


@dataclass(frozen=True)
class Locations:
    config_file: Path
    data_dir: Path
    cache_dir: Path
    log_dir: Path

    @classmethod
    def default(cls) -> Locations:
        dirs = PlatformDirs(APP, appauthor=False)
        env = os.environ
        return cls(
            config_file=Path(env[CONFIG_ENV]).expanduser()
            if env.get(CONFIG_ENV)
            else Path(dirs.user_config_dir) / "config.toml",
            data_dir=Path(env.get(DATA_ENV) or dirs.user_data_dir).expanduser(),
            cache_dir=Path(env.get(CACHE_ENV) or dirs.user_cache_dir).expanduser(),
            log_dir=Path(env.get(LOG_ENV) or dirs.user_log_dir).expanduser(),
        )

    @property
    def bundled_dir(self) -> Path:
        return self.data_dir / "bundled"

    @property
    def history_file(self) -> Path:
        return self.data_dir / "history.jsonl"

    @property
    def columns_file(self) -> Path:
        return self.data_dir / "columns.json"

    @property
    def snapshots_dir(self) -> Path:
        return self.cache_dir / "snapshots"

    @property
    def exports_dir(self) -> Path:
        return Path.cwd()

    def describe(self) -> str:
        return "\n".join(
            [
                f"config file:   {self.config_file}   (${CONFIG_ENV})",
                f"data:          {self.data_dir}   (${DATA_ENV}; the bundled participant, command history)",
                f"cache:         {self.cache_dir}   (${CACHE_ENV}; snapshot files, removed on exit but the last session's; package signatures)",
                f"logs:          {self.log_dir}   (${LOG_ENV})",
            ]
        )
