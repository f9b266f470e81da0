"""The delay ``semaprax tap`` adds to each message: round trips of JSON-RPC-sized
lines to a small echo server on stdio, direct and through the tap, alternated
in rounds; medians with the spread (docs/performance.md, "The tap")."""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ECHO = "import sys\nfor line in sys.stdin.buffer:\n    sys.stdout.buffer.write(line); sys.stdout.buffer.flush()\n"


def round_trips(command: list[str], messages: int, size: int) -> list[float]:
    proc = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    assert proc.stdin is not None and proc.stdout is not None
    line = (json.dumps({"jsonrpc": "2.0", "id": 1, "method": "tools/call",
                        "params": {"name": "x", "arguments": {"pad": "p" * size}}}) + "\n").encode()
    times = []
    try:
        for _ in range(messages):
            start = time.perf_counter()
            proc.stdin.write(line)
            got = proc.stdout.readline()
            times.append(time.perf_counter() - start)
            assert got == line
    finally:
        proc.stdin.close()
        proc.wait(30)
    return times


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--messages", type=int, default=2000, help="round trips per run (default 2000)")
    parser.add_argument("--size", type=int, default=1000, help="bytes of padding per message (default 1000)")
    parser.add_argument("--rounds", type=int, default=3, help="alternated direct/tapped rounds (default 3)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        echo = [sys.executable, "-c", ECHO]
        session = str(Path(tmp) / "s.jsonl")
        tap = [sys.executable, "-m", "semaprax", "tap", "--session", session, "--", *echo]
        direct: list[float] = []
        tapped: list[float] = []
        for r in range(args.rounds):
            print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
            direct_run = round_trips(echo, args.messages, args.size)
            tapped_run = round_trips(tap, args.messages, args.size)
            direct.append(statistics.median(direct_run))
            tapped.append(statistics.median(tapped_run))
            print(f"  direct median {direct[-1] * 1e6:.0f} us, tapped median {tapped[-1] * 1e6:.0f} us",
                  file=sys.stderr)
    added = [t - d for t, d in zip(tapped, direct, strict=True)]
    print(f"round trip, median of {args.rounds} rounds of {args.messages} messages of ~{args.size + 90} bytes:")
    print(f"  direct {statistics.median(direct) * 1e6:.0f} us ({min(direct) * 1e6:.0f}-{max(direct) * 1e6:.0f})")
    print(f"  tapped {statistics.median(tapped) * 1e6:.0f} us ({min(tapped) * 1e6:.0f}-{max(tapped) * 1e6:.0f})")
    print(f"  added per round trip (two messages through the tap) {statistics.median(added) * 1e6:.0f} us "
          f"({min(added) * 1e6:.0f}-{max(added) * 1e6:.0f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
