"""One run per change, measured (issue 22, issue 20).

    semaprax bench cache WORKSPACE [--rounds N] [--edit FILE]

WORKSPACE holds a semaprax.toml (or pyproject.toml); a copy of the standard
library with ``[project] name = 'stdlib'`` and ``sources = ['.']`` is the case the
issue names. Two measurements:

1. The CLI: ``semaprax project --profile project-graph`` in a fresh cache folder
   (cold), then again (warm: every file replayed from its record), and with
   ``--no-cache``; wall seconds of each process, the warm/cold ratio per round,
   and whether the three outputs are byte-identical.
2. A server's warm index (analysis/warm.py's IndexCache, the records in memory):
   the request after a one-file edit (``--edit``, a path in the workspace, by
   default the manifest's first source; a comment line is appended, then the file
   is restored), against the warm request before it and a cold build, and whether
   the edited index equals a cold build of the edited files.

The machine is shared: read the medians and the ratios, and say the load.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (an editable install), the CLI's working folder


def _cli(workspace: Path, cache: Path, out: Path, *extra: str) -> float:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "semaprax", "project", "--profile", "project-graph", _manifest(workspace),
                    "--workspace", str(workspace), "-o", str(out), *extra], check=True, env=env, cwd=ROOT)
    return time.perf_counter() - start


def _manifest(workspace: Path) -> str:
    return "semaprax.toml" if (workspace / "semaprax.toml").exists() else "pyproject.toml"


def cli_rounds(workspace: Path, rounds: int) -> None:
    ratios, colds, warms, plains = [], [], [], []
    identical = True
    with tempfile.TemporaryDirectory(prefix="semaprax-bench-cache-") as tmp:
        for _ in range(rounds):
            cache = Path(tmp) / "cache"
            shutil.rmtree(cache, ignore_errors=True)
            cold = _cli(workspace, cache, Path(tmp) / "cold.json")
            warm = _cli(workspace, cache, Path(tmp) / "warm.json")
            plain = _cli(workspace, cache, Path(tmp) / "plain.json", "--no-cache")
            data = {n: (Path(tmp) / f"{n}.json").read_bytes() for n in ("cold", "warm", "plain")}
            identical &= data["cold"] == data["warm"] == data["plain"]
            colds.append(cold)
            warms.append(warm)
            plains.append(plain)
            ratios.append(cold / warm)
            print(f"round: cold {cold:.2f} s, warm {warm:.2f} s ({cold / warm:.1f}x), --no-cache {plain:.2f} s, "
                  f"load {os.getloadavg()[0]:.1f}", flush=True)
    print(f"CLI project-graph: cold median {statistics.median(colds):.2f} s ({min(colds):.2f}-{max(colds):.2f}), "
          f"warm {statistics.median(warms):.2f} s ({min(warms):.2f}-{max(warms):.2f}), "
          f"--no-cache {statistics.median(plains):.2f} s; cold/warm median {statistics.median(ratios):.1f}x "
          f"({min(ratios):.1f}-{max(ratios):.1f}); outputs identical: {identical}")


def warm_edit(workspace: Path, edit: str | None, rounds: int) -> None:
    from analysis import filecache
    from analysis.index import WorkspaceIndex
    from analysis.sources import Workspace
    from analysis.warm import IndexCache
    from servers.route import make_projection
    from views.common import manifest_root

    filecache.use_disk = False  # a server's records in memory only: the edit is the only change
    manifest = _manifest(workspace)
    cache = IndexCache()
    start = time.perf_counter()
    make_projection("project-graph", manifest, workspace, index_cache=cache)
    cold = time.perf_counter() - start
    target = workspace / (edit or manifest_root(Workspace(workspace), manifest).sources[0])
    original = target.read_bytes()
    warm, edited = [], []
    try:
        for k in range(rounds):
            start = time.perf_counter()
            make_projection("project-graph", manifest, workspace, index_cache=cache)
            warm.append(time.perf_counter() - start)
            target.write_bytes(original + f"\n# edit {k}\n".encode())
            start = time.perf_counter()
            make_projection("project-graph", manifest, workspace, index_cache=cache)
            edited.append(time.perf_counter() - start)
        ws = Workspace(workspace)
        files = list(manifest_root(ws, manifest).sources)
        fresh = WorkspaceIndex(ws, files)  # cold, no records
        kept = next(iter(cache._entries.values())).index
        same = [(a.module, a.definitions, a.uses, a.imports, a.problems) for a in kept.modules] == \
               [(a.module, a.definitions, a.uses, a.imports, a.problems) for a in fresh.modules]
    finally:
        target.write_bytes(original)
    print(f"warm index: cold request {cold:.2f} s; warm request median {statistics.median(warm):.3f} s; "
          f"request after a one-file edit of {target.relative_to(workspace)} median {statistics.median(edited):.3f} s "
          f"({min(edited):.3f}-{max(edited):.3f}, {rounds} rounds); equals a cold build: {same}; "
          f"load {os.getloadavg()[0]:.1f}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--edit", help="the file the warm-index measurement edits (workspace-relative)")
    parser.add_argument("--skip-cli", action="store_true")
    parser.add_argument("--skip-warm", action="store_true")
    args = parser.parse_args(argv)
    if not args.skip_cli:
        cli_rounds(args.workspace, args.rounds)
    if not args.skip_warm:
        warm_edit(args.workspace, args.edit, args.rounds)
    return 0


if __name__ == "__main__":
    sys.exit(main())
