"""Shared bench helpers: a `ledger-participant serve` subprocess on a fresh database, parties and users, tokens,
the server's memory and CPU from /proc, percentiles, and fast seeding of Ious.

Nothing here touches the server's code: the server is the real CLI, started as a separate process on a free
loopback port, so the client of a bench competes with it for the machine's cores exactly as a real client would.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import httpx
import orjson

from participant.auth import mint_token

SECRET = "bench-secret-with-enough-bytes-for-hs256!"
ADMIN_USER = "participant_admin"
IOU_TEMPLATE = "#model-tests:Iou:Iou"
START_TIMEOUT_S = 60
CLK_TCK = os.sysconf("SC_CLK_TCK")


def token(user: str) -> str:
    return mint_token(hs256_secret=SECRET, user_id=user, ttl_seconds=24 * 3600)


def bearer(user: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token(user)}"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def percentile(values: list[float], p: float) -> float:
    """Nearest-rank percentile (p in 0..100) of `values`; NaN when empty."""
    if not values:
        return float("nan")
    ordered = sorted(values)
    rank = max(1, min(len(ordered), round(p / 100 * len(ordered) + 0.5)))
    return ordered[rank - 1]


def median(values: list[float]) -> float:
    return percentile(values, 50)


@dataclass
class Server:
    """`ledger-participant serve` as a subprocess with a fresh temp database (or the database file `db_file`,
    which is left in place); use as a context manager."""

    extra: tuple[str, ...] = ()
    db_file: Path | None = None
    poll_s: float = 0.1
    url: str = ""
    started_s: float = 0.0
    process: subprocess.Popen | None = None
    tmp: Path | None = None
    log: Path | None = None
    _log_file: IO[str] | None = field(default=None, repr=False)

    def __enter__(self) -> Server:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def pid(self) -> int:
        assert self.process is not None
        return self.process.pid

    @property
    def db(self) -> Path:
        if self.db_file is not None:
            return self.db_file
        assert self.tmp is not None
        return self.tmp / "ledger.db"

    def start(self) -> None:
        self.tmp = Path(tempfile.mkdtemp(prefix="ledger-bench-"))
        self.log = self.tmp / "server.log"
        port = free_port()
        args = [
            sys.executable,
            "-m",
            "participant",
            "serve",
            "--db",
            str(self.db),
            "--port",
            str(port),
            "--hs256-secret",
            SECRET,
            "--quiet",
            *self.extra,
        ]
        self._log_file = open(self.log, "w")  # noqa: SIM115 - closed in stop()
        spawned = time.monotonic()
        self.process = subprocess.Popen(args, stdout=self._log_file, stderr=subprocess.STDOUT)
        self.url = f"http://127.0.0.1:{port}"
        deadline = spawned + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"server exited with {self.process.returncode}: {self.log.read_text()}")
            try:
                if httpx.get(f"{self.url}/v2/version", timeout=1).status_code == 200:
                    self.started_s = time.monotonic() - spawned
                    return
            except httpx.HTTPError:
                pass
            time.sleep(self.poll_s)
        self.stop()
        raise RuntimeError(f"server did not answer /v2/version within {START_TIMEOUT_S} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self._log_file is not None:
            self._log_file.close()
            self._log_file = None
        if self.tmp is not None and not os.environ.get("BENCH_KEEP_DB"):
            shutil.rmtree(self.tmp, ignore_errors=True)

    def log_tail(self, lines: int = 40) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return "\n".join(self.log.read_text(errors="replace").splitlines()[-lines:])

    # --- memory and CPU of the server process

    def _status(self, key: str) -> int:
        """A kB field of /proc/<pid>/status, in bytes."""
        with open(f"/proc/{self.pid}/status") as f:
            for line in f:
                if line.startswith(key + ":"):
                    return int(line.split()[1]) * 1024
        raise KeyError(key)

    def rss(self) -> int:
        """Current resident set size (VmRSS), bytes."""
        return self._status("VmRSS")

    def hwm(self) -> int:
        """Peak resident set size (VmHWM), bytes."""
        return self._status("VmHWM")

    def reset_hwm(self) -> bool:
        """Reset VmHWM to the current RSS (Linux: write 5 to clear_refs); False if not permitted."""
        try:
            with open(f"/proc/{self.pid}/clear_refs", "w") as f:
                f.write("5")
            return True
        except OSError:
            return False

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used so far: its process and its write process."""
        return sum(_cpu_seconds(f"/proc/{pid}/stat") for pid in (self.pid, *self.children()))

    def children(self) -> list[int]:
        """The server's child processes (its write process)."""
        found = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rsplit(")", 1)[1].split()[1]) == self.pid:
                    found.append(int(entry.name))
        return found

    def main_thread_cpu_seconds(self) -> float:
        """User + system CPU time of the server's main thread (its event loop) alone: the one thread every
        request passes through, so its time per request bounds the throughput."""
        return _cpu_seconds(f"/proc/{self.pid}/task/{self.pid}/stat")


def _cpu_seconds(stat_path: str) -> float:
    """User + system CPU time from a /proc stat file; 0 for a process that is gone."""
    try:
        with open(stat_path) as f:
            fields = f.read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / CLK_TCK


def client_cpu_seconds() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


class RawHttp:
    """A minimal HTTP/1.1 keep-alive client over one loopback connection.

    httpx.AsyncClient costs about 1.5-2 ms of client CPU per request on this machine (part of it four failed
    `import sniffio` per request inside httpcore, as sniffio is not installed), which is more than the server
    spends on a simple request; a load generator built on it measures the client. This one only writes a request
    and reads Content-Length or chunked answers."""

    def __init__(self, url: str, headers: dict[str, str] | None = None) -> None:
        host_port = url.removeprefix("http://").rstrip("/")
        self.host, _, port = host_port.partition(":")
        self.port = int(port or 80)
        fixed = {"Host": host_port, **(headers or {})}
        self._fixed = "".join(f"{k}: {v}\r\n" for k, v in fixed.items()).encode()
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawHttp:
        await self.connect()
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def connect(self) -> None:
        self._reader, self._writer = await asyncio.open_connection(self.host, self.port, limit=2**20)

    async def close(self) -> None:
        if self._writer is not None:
            self._writer.close()
            try:
                await self._writer.wait_closed()
            except OSError:
                pass
            self._reader = self._writer = None

    async def request(self, method: str, path: str, body: bytes = b"") -> tuple[int, bytes]:
        if self._writer is None:
            await self.connect()
        assert self._reader is not None and self._writer is not None
        head = f"{method} {path} HTTP/1.1\r\n".encode() + self._fixed
        if body or method in ("POST", "PUT"):
            head += b"Content-Type: application/json\r\nContent-Length: " + str(len(body)).encode() + b"\r\n"
        self._writer.write(head + b"\r\n" + body)
        status_line_and_headers = await self._reader.readuntil(b"\r\n\r\n")
        lines = status_line_and_headers.split(b"\r\n")
        status = int(lines[0].split(b" ", 2)[1])
        length, chunked, close = None, False, False
        for line in lines[1:]:
            name, _, value = line.partition(b":")
            name = name.strip().lower()
            if name == b"content-length":
                length = int(value)
            elif name == b"transfer-encoding" and b"chunked" in value.lower():
                chunked = True
            elif name == b"connection" and b"close" in value.lower():
                close = True
        if chunked:
            parts = []
            while True:
                size = int((await self._reader.readuntil(b"\r\n")).split(b";")[0], 16)
                if size == 0:
                    await self._reader.readuntil(b"\r\n")
                    break
                parts.append(await self._reader.readexactly(size))
                await self._reader.readexactly(2)
            content = b"".join(parts)
        elif length is not None:
            content = await self._reader.readexactly(length)
        else:
            content = await self._reader.read()
            close = True
        if close:
            await self.close()
        return status, content


# --- parties, users and commands


def setup_party(url: str, hint: str) -> str:
    """Allocate a party and a user of the same name with CanActAs and CanReadAs on it; returns the party id."""
    with httpx.Client(base_url=url, headers=bearer(ADMIN_USER), timeout=30) as http:
        r = http.post("/v2/parties", json={"partyIdHint": hint})
        r.raise_for_status()
        party = r.json()["partyDetails"]["party"]
        rights = [
            {"kind": {"CanActAs": {"value": {"party": party}}}},
            {"kind": {"CanReadAs": {"value": {"party": party}}}},
        ]
        r = http.post("/v2/users", json={"user": {"id": hint, "primaryParty": party}, "rights": rights})
        r.raise_for_status()
    return party


def iou_commands(party: str, command_id: str, count: int = 1) -> bytes:
    """A JsCommands body creating `count` Ious in one transaction."""
    create = {
        "CreateCommand": {
            "templateId": IOU_TEMPLATE,
            "createArguments": {
                "issuer": party,
                "owner": party,
                "currency": "USD",
                "amount": "100.0",
                "observers": [],
            },
        }
    }
    return orjson.dumps({"commands": [create] * count, "commandId": command_id, "actAs": [party]})


def submit_body(party: str, command_id: str, count: int = 1) -> bytes:
    """A JsSubmitAndWaitForTransactionRequest body (the JsCommands embedded as `commands`)."""
    return b'{"commands":' + iou_commands(party, command_id, count) + b"}"


def wildcard_event_format(party: str) -> dict:
    return {
        "filtersByParty": {
            party: {
                "cumulative": [
                    {"identifierFilter": {"WildcardFilter": {"value": {"includeCreatedEventBlob": False}}}}
                ]
            }
        },
        "verbose": False,
    }


def ledger_end(url: str, user: str) -> int:
    r = httpx.get(f"{url}/v2/state/ledger-end", headers=bearer(user), timeout=30)
    r.raise_for_status()
    return r.json()["offset"]


async def seed_ious(
    url: str,
    party: str,
    user: str,
    count: int,
    *,
    per_tx: int = 100,
    concurrency: int = 8,
    collect_ids: bool = False,
    timeout_s: float = 1800,
) -> tuple[float, list[str]]:
    """Create `count` Ious, `per_tx` per transaction, `concurrency` submissions in flight.

    Returns (seconds taken, contract ids created if `collect_ids`)."""
    batches = [per_tx] * (count // per_tx) + ([count % per_tx] if count % per_tx else [])
    queue: asyncio.Queue[int] = asyncio.Queue()
    for n in batches:
        queue.put_nowait(n)
    ids: list[str] = []
    prefix = os.urandom(4).hex()
    counter = iter(range(len(batches)))
    started = time.perf_counter()
    deadline = started + timeout_s

    async def worker() -> None:
        async with RawHttp(url, bearer(user)) as http:
            while not queue.empty():
                if time.perf_counter() > deadline:
                    raise TimeoutError(f"seeding {count} contracts took longer than {timeout_s} s")
                n = queue.get_nowait()
                body = submit_body(party, f"seed-{prefix}-{next(counter)}", n)
                status, content = await http.request(
                    "POST", "/v2/commands/submit-and-wait-for-transaction", body
                )
                if status != 200:
                    raise RuntimeError(f"seeding failed: {status} {content[:500]!r}")
                if collect_ids:
                    events = orjson.loads(content)["transaction"]["events"]
                    ids.extend(e["CreatedEvent"]["contractId"] for e in events)

    await asyncio.gather(*(worker() for _ in range(concurrency)))
    return time.perf_counter() - started, ids


def mb(n_bytes: float) -> float:
    return n_bytes / (1024 * 1024)
