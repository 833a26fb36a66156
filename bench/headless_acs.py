"""Headless `ledger-tui acs` over a large ACS, in contracts per second, as a ratio to a bare reader of the same pages.

A participant (`ledger-participant serve`, its own process) holds N Ious of one party (as `bench.tui_acs` makes
them). Measured, runs interleaved:

* headless: `python -m app acs --url URL --hs256-secret-file F --user TuiBench` spawned as a script would, its
  JSON lines read from a pipe and counted by this process; timed from the spawn to its exit (its start included)
  and checked to have printed every contract;
* bare reader, same run, same endpoint: `GET /v2/state/active-contracts-page` with the request the headless
  command sends (its event format, the same page sizes: the first page of `acs.FIRST_PAGE`, then `acs.PAGE`),
  following nextPageToken over one keep-alive connection and counting entries without parsing them;
* parsing reader: the bare reader, and each page parsed with orjson and written out as JSON lines (to /dev/null):
  the least any JSON-lines printer of these pages does, in this process.

The ratios use the faster run of each. Also reported: the headless process's peak RSS (ru_maxrss of the waited
child) and the bytes it printed.

    python -m bench.headless_acs [--contracts 1000000] [--db /tmp/tui-1m.db --keep-db] [--runs 2]

`--db` reuses a database that already holds the contracts (and tops it up when it holds fewer); keep it out of
the repository.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from bench.common import SECRET, RawHttp, Server, bearer, ledger_end
from bench.tui_acs import PAGE_PATH, USER, prepare

ROOT = Path(__file__).resolve().parents[1]


def page_request(offset: int, party: str, size: int, token: str | None) -> bytes:
    """The page request of the headless command (the client's own event format and encoding)."""
    from app.client.http import encode
    from app.client.ledger import event_format
    from participant.api import GetActiveContractsPageRequest

    return encode(
        GetActiveContractsPageRequest(
            active_at_offset=offset, event_format=event_format([party]), max_page_size=size, page_token=token
        )
    )


async def bare_read(url: str, party: str, offset: int, *, parse: bool = False) -> tuple[int, float]:
    import orjson

    from app.client.acs import FIRST_PAGE, PAGE

    sink = open(os.devnull, "wb")  # noqa: SIM115 - closed below
    count = 0
    token: str | None = None
    size = FIRST_PAGE
    started = time.perf_counter()
    async with RawHttp(url, bearer(USER)) as http:
        while True:
            status, content = await http.request("GET", PAGE_PATH, page_request(offset, party, size, token))
            if status != 200:
                raise RuntimeError(f"{PAGE_PATH} answered {status}: {content[:300]!r}")
            if parse:
                entries = orjson.loads(content)["activeContracts"]
                sink.write(b"".join(orjson.dumps(e) + b"\n" for e in entries))
                count += len(entries)
            else:
                count += content.count(b'"contractEntry"')
            tail = content[content.rfind(b'"nextPageToken":') + len(b'"nextPageToken":') :].rstrip(b"}")
            token = None if tail.startswith(b"null") else tail.strip(b'"').decode()
            size = PAGE
            if not token:
                break
    sink.close()
    return count, time.perf_counter() - started


def headless_read(
    url: str, party: str, offset: int, secret_file: Path, home: Path
) -> tuple[int, float, int, float]:
    """Lines printed, seconds from spawn to exit, bytes printed, seconds from spawn to the first line."""
    args = [sys.executable, "-m", "app", "acs", "--url", url, "--hs256-secret-file", str(secret_file)]
    args += ["--user", USER, "--party", party, "--offset", str(offset)]
    env = {"HOME": str(home), "PATH": "/usr/bin:/bin", "PYTHONPYCACHEPREFIX": str(home / "pycache")}
    started = time.perf_counter()
    child = subprocess.Popen(args, cwd=home, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert child.stdout is not None and child.stderr is not None
    lines = size = 0
    first = 0.0
    while chunk := child.stdout.read1(1 << 20):  # type: ignore[attr-defined]  # a pipe is a BufferedReader, typed as IO
        if not lines and b"\n" in chunk:
            first = time.perf_counter() - started
        lines += chunk.count(b"\n")
        size += len(chunk)
    code = child.wait()
    seconds = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"headless acs exited with {code}: {child.stderr.read()[-2000:]!r}")
    return lines, seconds, size, first


async def bench(contracts: int, db: Path | None, keep_db: bool, runs: int) -> None:
    home = Path(tempfile.mkdtemp(prefix="headless-bench-"))
    secret_file = home / "secret"
    secret_file.write_text(SECRET)
    try:
        with Server(db_file=db) as server:
            party = await prepare(server.url, contracts)
            offset = ledger_end(server.url, USER)
            headless_read(server.url, party, offset, secret_file, home)  # warm: compiled modules, page cache
            bare: list[tuple[int, float]] = []
            parsing: list[tuple[int, float]] = []
            headless: list[tuple[int, float, int, float]] = []
            for _ in range(runs):
                bare.append(await bare_read(server.url, party, offset))
                parsing.append(await bare_read(server.url, party, offset, parse=True))
                headless.append(headless_read(server.url, party, offset, secret_file, home))
            peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
    finally:
        shutil.rmtree(home, ignore_errors=True)
        if db is not None and not keep_db:
            for suffix in ("", "-wal", "-shm", ".lock", ".secret", ".serving.json"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
    count = bare[0][0]
    bad = [h[0] for h in headless if h[0] != count] + [n for n, _ in parsing if n != count]
    if bad:
        raise SystemExit(f"headless acs printed {bad[0]:,} contracts, the pages hold {count:,}")
    bare_s = min(s for _, s in bare)
    headless_s = min(h[1] for h in headless)
    parsing_s = min(s for _, s in parsing)
    print(f"contracts: {count:,} at offset {offset:,} ({runs} runs each, best)")
    print(
        f"bare reader (pages of the same requests, counted unparsed): {bare_s:.2f} s, {count / bare_s:,.0f} contracts/s"
    )
    print(
        f"parsing reader (the same, each page parsed and written as JSON lines): {parsing_s:.2f} s, {count / parsing_s:,.0f} contracts/s"
    )
    print(
        f"headless `ledger-tui acs` (spawn to exit, JSON lines read from a pipe): {headless_s:.2f} s, "
        f"{count / headless_s:,.0f} contracts/s"
    )
    print(f"headless, spawn to the first contract printed: {min(h[3] for h in headless) * 1000:,.0f} ms")
    print(
        f"ratio headless / bare: {bare_s / headless_s:.2f}; headless / parsing reader: {parsing_s / headless_s:.2f}"
    )
    print(
        f"printed: {headless[0][2] / 2**20:,.0f} MB; peak RSS of the headless process: {peak / 2**20:,.0f} MB"
    )


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--contracts", type=int, default=1_000_000)
    p.add_argument(
        "--db", type=Path, help="the participant's database file, reused if it holds the contracts"
    )
    p.add_argument("--keep-db", action="store_true", help="keep --db afterwards")
    p.add_argument("--runs", type=int, default=2)
    args = p.parse_args()
    if args.keep_db and args.db is None:
        p.error("--keep-db needs --db")
    asyncio.run(bench(args.contracts, args.db, args.keep_db, args.runs))


if __name__ == "__main__":
    main()
