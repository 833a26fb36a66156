"""Contract-by-id latency with many contracts stored: sequential POST /v2/contracts/contract-by-id from one client.

Seeds `--contracts` Ious (100 per transaction), keeps their ids, then asks for `--requests` ids picked at random
(fixed seed) among them, one request at a time, and reports p50/p99 latency. Every answer must be 200 and carry the
asked contract id.

    python -m bench.contract_by_id [--contracts 100000] [--requests 2000] [--client raw|httpx]
    (--contracts 1000000 works but seeds for about 4-5 minutes at ~4,000 contracts/s)
"""

from __future__ import annotations

import argparse
import asyncio
import random
import time

import httpx
import orjson

from bench.common import RawHttp, Server, bearer, mb, median, percentile, seed_ious, setup_party

WARMUP_REQUESTS = 200
PATH = "/v2/contracts/contract-by-id"


async def measure(
    url: str, party: str, user: str, ids: list[str], requests: int, seed: int = 7, client: str = "raw"
) -> tuple[list[float], list[str]]:
    rng = random.Random(seed)
    latencies: list[float] = []
    errors: list[str] = []
    async with RawHttp(url, bearer(user)) as raw, httpx.AsyncClient(base_url=url, timeout=30) as http:
        headers = {**bearer(user), "Content-Type": "application/json"}

        async def post(body: bytes) -> tuple[int, bytes]:
            if client == "raw":
                return await raw.request("POST", PATH, body)
            r = await http.post(PATH, content=body, headers=headers)
            return r.status_code, r.content

        for i in range(WARMUP_REQUESTS + requests):
            cid = rng.choice(ids)
            body = orjson.dumps({"contractId": cid, "queryingParties": [party]})
            t0 = time.perf_counter()
            status, content = await post(body)
            elapsed = time.perf_counter() - t0
            if status != 200:
                errors.append(f"{status} {content[:300]!r}")
                continue
            got = orjson.loads(content)["createdEvent"]["contractId"]
            if got != cid:
                errors.append(f"asked {cid}, got {got}")
                continue
            if i >= WARMUP_REQUESTS:
                latencies.append(elapsed)
    return latencies, errors


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--contracts", type=int, default=100_000, help="contracts stored (default 100000)")
    parser.add_argument("--requests", type=int, default=2000, help="requests measured (default 2000)")
    parser.add_argument("--per-tx", type=int, default=100, help="Ious created per seeding transaction")
    parser.add_argument(
        "--client",
        choices=["raw", "httpx"],
        default="raw",
        help="raw: minimal keep-alive HTTP/1.1 client (default); httpx: httpx.AsyncClient",
    )
    args = parser.parse_args(argv)
    if not 1 <= args.contracts <= 10_000_000 or not 1 <= args.requests <= 1_000_000:
        parser.error("--contracts in 1..10M, --requests in 1..1M")

    with Server() as server:
        party = setup_party(server.url, "Bench")
        took, ids = asyncio.run(
            seed_ious(server.url, party, "Bench", args.contracts, per_tx=args.per_tx, collect_ids=True)
        )
        print(
            f"server pid {server.pid}; seeded {len(ids)} contracts in {took:.1f} s "
            f"({len(ids) / took:.0f} contracts/s); server RSS {mb(server.rss()):.0f} MB",
            flush=True,
        )
        if len(ids) != args.contracts or len(set(ids)) != len(ids):
            print(
                f"BUG: seeding returned {len(ids)} ids ({len(set(ids))} distinct), expected {args.contracts}"
            )
            return 1
        started = time.perf_counter()
        latencies, errors = asyncio.run(
            measure(server.url, party, "Bench", ids, args.requests, client=args.client)
        )
        wall = time.perf_counter() - started
    p50, p99 = median(latencies) * 1000, percentile(latencies, 99) * 1000
    print(
        f"{'contracts':>9} {'requests':>8} {'p50 ms':>7} {'p99 ms':>7} {'max ms':>7} {'req/s':>6} {'errors':>6}"
    )
    print(
        f"{args.contracts:>9} {len(latencies):>8} {p50:>7.3f} {p99:>7.3f} {max(latencies) * 1000:>7.3f} "
        f"{(WARMUP_REQUESTS + args.requests) / wall:>6.0f} {len(errors):>6}"
    )
    for e in errors[:5]:
        print(f"      error: {e}")
    print(
        f"summary: contract-by-id with {args.contracts} contracts — p50 {p50:.3f} ms, p99 {p99:.3f} ms over "
        f"{len(latencies)} sequential requests ({args.client} client); errors {len(errors)}"
    )
    return 1 if errors else 0


if __name__ == "__main__":
    raise SystemExit(main())
