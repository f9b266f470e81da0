"""Body pane responsiveness on the 16 MiB document (the wire semaprax bench inspector
builds): folding and unfolding a container near the top of the expanded document,
in the exact and the reading layout, and moving the document cursor with its path
(the breadcrumb) in the status. A benchmark, not a test; it prints figures.

The real ``semaprax-inspect`` process runs in a real terminal (tmux), with token
counting off (``--no-tokens``), so the figures are the body pane's own. Each
operation is timed from the key being sent until the screen shows its result:

- fold: ``f`` until the status says ``1 folded`` and the fold's summary line is on screen;
- unfold: ``f`` on the fold line until the status no longer says ``folded``;
- cursor move: ``down`` near the top (``up`` from the end, where a path step
  counts the siblings of an item among 900,000 values) in the document pane until
  the status shows the new document byte with its path.

It also reads the inspector process's CPU time (utime + stime of /proc/PID/stat)
before and after each operation: on a shared machine that is steadier than the
wall time. Screen polling (``tmux capture-pane``) costs a few milliseconds, so
wall latencies have that resolution. Medians over every repetition, with the range.

    semaprax bench body [--size-mib 16] [--repeat 15] [--wire model-text|json]
        [--moves-only] [--command 'env PYTHONPATH=/other/checkout semaprax-inspect']
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from semaprax.bench import inspector as bi
from semaprax.bench.codec import graph_document

_TICK = os.sysconf("SC_CLK_TCK")
_DOC_BYTE = re.compile(r"document byte ([0-9,]+)( · path \S+)?")


def cpu_seconds() -> float:
    """The inspector process's CPU time so far (user + system)."""
    fields = Path(f"/proc/{bi.inspector_pid()}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / _TICK


def timed(keys: str, done: Callable[[str], bool]) -> tuple[float, float]:
    """Send ``keys``; wall seconds until the screen satisfies ``done``, and CPU seconds."""
    cpu = cpu_seconds()
    t = time.perf_counter()
    bi.tmux("send-keys", "-t", bi.SESSION, keys)
    wall = bi.wait_for(done, timeout=60) - t
    time.sleep(0.05)  # let the frame finish before reading the CPU clock
    return wall, cpu_seconds() - cpu


def status(screen: str) -> tuple[str, str] | None:
    """The status's document byte and path (no path: a build without one, ``--moves-only``)."""
    m = _DOC_BYTE.search(screen)
    return (m.group(1), m.group(2) or "") if m else None


def moved_from(before: tuple[str, str] | None) -> Callable[[str], bool]:
    """A screen whose status shows a document byte other than ``before``'s."""
    return lambda screen: status(screen) not in (None, before)


def run(path: Path, repeat: int, command: str, moves_only: bool) -> dict[str, list[tuple[float, float]]]:
    results: dict[str, list[tuple[float, float]]] = {}
    bi.tmux("new-session", "-d", "-s", bi.SESSION, "-x", "140", "-y", "40", f"exec {command} --no-tokens {path}")
    try:
        bi.wait_for(lambda s: "VALID" in s or "REJECTED" in s, timeout=120)
        bi.tmux("send-keys", "-t", bi.SESSION, "b")

        def path_shown(screen: str) -> bool:
            found = status(screen)
            return found is not None and bool(moves_only or found[1])

        bi.wait_for(path_shown, timeout=120)  # the path shows
        bi.tmux("send-keys", "-t", bi.SESSION, "Tab")  # the document pane
        time.sleep(0.5)
        for layout in ("exact", "reading"):
            print(f"… the {layout} layout", file=sys.stderr, flush=True)
            if layout == "reading":
                bi.tmux("send-keys", "-t", bi.SESSION, "m")
                bi.wait_for(lambda s: "reading view" in s, timeout=60)
                time.sleep(3)  # the reading layout of 16 MiB is made in a worker
            bi.tmux("send-keys", "-t", bi.SESSION, "Down")  # into the first node object, near the top
            time.sleep(0.3)
            folds, unfolds = results.setdefault(f"fold ({layout})", []), results.setdefault(f"unfold ({layout})", [])
            for _ in range(0 if moves_only else repeat):
                folds.append(timed("f", lambda s: "1 folded" in s and "…" in s))
                time.sleep(0.1)
                unfolds.append(timed("f", lambda s: "folded" not in s))
                time.sleep(0.1)
            moves = results.setdefault(f"cursor move with path, near the top ({layout})", [])
            for _ in range(repeat):
                before = status(bi.screen())
                moves.append(timed("Down", moved_from(before)))
                time.sleep(0.1)
            bi.tmux("send-keys", "-t", bi.SESSION, "End")  # the last items of a 900,000-value document
            time.sleep(0.5)
            moves = results.setdefault(f"cursor move with path, at the end ({layout})", [])
            for _ in range(repeat):
                before = status(bi.screen())
                moves.append(timed("Up", moved_from(before)))
                time.sleep(0.1)
            bi.tmux("send-keys", "-t", bi.SESSION, "Home")
            time.sleep(0.5)
    finally:
        # the benchmark's own tmux server (bi.SOCKET), and the inspector in it
        subprocess.run(["tmux", "-L", bi.SOCKET, "kill-server"], check=False, capture_output=True)
        socket = Path(os.environ.get("TMUX_TMPDIR", "/tmp")) / f"tmux-{os.getuid()}" / bi.SOCKET
        socket.unlink(missing_ok=True)
    return results


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=2.0,
                    help="document size (default 2; the figures in docs/performance.md: 16)")
    ap.add_argument("--repeat", type=int, default=5, help="repetitions (default 5; docs: 15)")
    ap.add_argument("--wire", choices=("model-text", "json"), default="model-text")
    ap.add_argument("--moves-only", action="store_true",
                    help="time the cursor moves only (for a build without folding, to compare)")
    ap.add_argument("--command", default=str(bi.INSPECT),
                    help="how to start the inspector, e.g. 'env PYTHONPATH=/other/checkout semaprax-inspect'")
    args = ap.parse_args(argv)
    if shutil.which("tmux") is None or not bi.INSPECT.exists():
        print("needs tmux and the semaprax-inspect script of this environment", file=sys.stderr)
        return 2
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    p = codec.CompactProjection("graph", "acme/service.py", "sha256:" + "0" * 64, doc)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"big.{args.wire}"
        path.write_bytes(codec.encode_model_text(p) if args.wire == "model-text" else doc)
        results = {k: v for k, v in run(path, args.repeat, args.command, args.moves_only).items() if v}
        size = path.stat().st_size
    print(f"{args.wire} wire of {size:,} bytes ({len(doc):,}-byte document), {args.repeat} repetitions each")
    print("| operation | wall ms, median (min-max) | inspector CPU ms, median (min-max) |")
    print("|---|---:|---:|")
    for name, rows in results.items():
        walls, cpus = [w for w, _ in rows], [c for _, c in rows]
        print(f"| {name} | {bi.spread(walls, 1000, '{:.0f}')} | {bi.spread(cpus, 1000, '{:.0f}')} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
