"""What setting a ledger up with a script costs, and a script over HTTP: the real commands, timed from outside.

1. `ledger-participant serve --static-time --dar DAR --init-script SCRIPT` on a new database: from the spawn until
   `/v2/version` answers (the DAR loaded, the script run, the server listening), against the same start without
   `--init-script` (the reference: what the script adds);
2. the same database restarted with `--init-script` (the script not run again): spawn to answering;
3. `ledger-tui script --url … --dar DAR --script-name SCRIPT --json` against a separately started `--static-time`
   participant that already holds the DAR: the command's wall time (interpreter start, DAR decoding, the script's
   HTTP round trips) and the script's own seconds as it reports them.

    python -m bench.init_script [--dar PATH] [--script Module:name]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx

from participant.auth import mint_token

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DAR = ROOT.parent / "shared" / "dars" / "splice" / "test" / "splice-amulet-test-0.1.8.dar"
SECRET = "bench-secret-of-32-bytes-at-the-least"


def _serve(db: Path, *extra: str) -> tuple[subprocess.Popen, str, float]:
    """A server; its URL and the seconds from the spawn until it answered."""
    port_file = db.with_suffix(".port")
    port_file.unlink(missing_ok=True)
    args = [sys.executable, "-m", "participant", "serve", "--db", str(db), "--port", "0", "--quiet"]
    args += ["--port-file", str(port_file), "--hs256-secret", SECRET, *extra]
    started = time.perf_counter()
    process = subprocess.Popen(
        args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    while True:
        if process.poll() is not None:
            said = process.stderr.read().decode() if process.stderr is not None else ""
            raise SystemExit(f"serve exited with {process.returncode}: {said[-2000:]}")
        text = port_file.read_text().strip() if port_file.exists() else ""
        if text:
            url = f"http://127.0.0.1:{text}"
            try:
                if httpx.get(f"{url}/v2/version", timeout=1).status_code == 200:
                    return process, url, time.perf_counter() - started
            except httpx.HTTPError:
                pass
        time.sleep(0.01)


def _stop(process: subprocess.Popen) -> None:
    process.terminate()
    process.wait(timeout=30)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dar", type=Path, default=DEFAULT_DAR)
    parser.add_argument("--script", default="Splice.Scripts.TestTap:testTap")
    args = parser.parse_args()
    dar = str(args.dar)
    print(f"load average before: {os.getloadavg()[0]:.1f}")
    with tempfile.TemporaryDirectory(prefix="bench-init-") as directory:
        tmp = Path(directory)
        process, _, plain = _serve(tmp / "plain.db", "--static-time", "--dar", dar)
        _stop(process)
        init = ("--static-time", "--dar", dar, "--init-script", args.script)
        process, _, first = _serve(tmp / "init.db", *init)
        _stop(process)
        process, _, again = _serve(tmp / "init.db", *init)
        _stop(process)
        print(f"serve --dar, new ledger (reference):        {plain:6.1f} s")
        print(
            f"serve --dar --init-script, new ledger:      {first:6.1f} s  (the script: {first - plain:.1f} s)"
        )
        print(f"the same restarted (the script not run):    {again:6.1f} s")

        process, url, _ = _serve(tmp / "remote.db", "--static-time", "--dar", dar)
        try:
            token = tmp / "admin.jwt"
            token.write_text(mint_token(hs256_secret=SECRET, user_id="participant_admin"))
            command = [sys.executable, "-m", "app", "script", "--url", url, "--token-file", str(token)]
            command += ["--dar", dar, "--script-name", args.script, "--json"]
            started = time.perf_counter()
            done = subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=ROOT)
            wall = time.perf_counter() - started
        finally:
            _stop(process)
        if done.returncode != 0:
            raise SystemExit(f"ledger-tui script exited with {done.returncode}: {done.stderr[-2000:]}")
        report = json.loads(done.stdout.splitlines()[-1])
        print(
            f"ledger-tui script over HTTP:                {wall:6.1f} s  (the script itself: {report['seconds']:.1f} s, "
            f"{report['transactions']} transactions, {report['seconds'] / report['transactions'] * 1000:.0f} ms each)"
        )
    print(f"load average after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
