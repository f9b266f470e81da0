"""How the producers' cost grows with the code: every profile on generated
modules of 1k..16k functions and on one class of 1k..8k methods, and the
standard library as a workspace. Each run is a fresh process, so its time
(CPU and wall) and its peak memory (max RSS) are its own. Not a test: it prints
a Markdown table of medians (with min..max over the repeats) and the growth
factor per doubling. Run it niced and bounded:

    nice -n 10 semaprax bench producers                   # up to 2,000 functions, about a minute
    nice -n 10 semaprax bench producers --max-size 16000 --repeats 3 --budget 900 --stdlib   # the full run

``--budget`` bounds the whole run in seconds: what does not fit is reported as
skipped, never silently dropped.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import sysconfig
import tarfile
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

FUNCTION_SIZES = (1000, 2000, 4000, 8000, 16000)
METHOD_SIZES = (1000, 2000, 4000, 8000)


def functions_module(n: int) -> str:
    """n top-level functions, each calling the one before it, and a class used by them."""
    head = ('"""Generated: many top-level functions."""\n\nimport os\n\n\nclass Box:\n'
            '    def __init__(self, v: int) -> None:\n        self.v = v\n\n    def get(self) -> int:\n'
            '        return self.v\n')
    out = [head]
    for i in range(n):
        prev = f"f{i - 1}(x)" if i else "x"
        out.append(f"\n\ndef f{i}(x: int) -> int:\n    b = Box(x)\n    return {prev} + b.get() + len(os.sep)\n")
    return "".join(out)


def methods_module(n: int) -> str:
    """One class of n methods, each setting an attribute and calling the one before it."""
    out = ['"""Generated: one class of many methods."""\n\n\nclass Big:\n']
    for i in range(n):
        prev = f"self.m{i - 1}(x)" if i else "x"
        out.append(f"    def m{i}(self, x: int) -> int:\n        self.a{i} = x\n        return {prev}\n\n")
    return "".join(out)


def _workspace(base: Path, name: str, source: str) -> Path:
    folder = base / name
    folder.mkdir()
    (folder / "semaprax.toml").write_text(f'[project]\nname = "{name}"\nsources = ["gen.py"]\n')
    (folder / "gen.py").write_text(source)
    return folder


def _stdlib(base: Path) -> Path:
    """The standard library's .py files (no site-packages) copied into a
    workspace with a manifest whose source root is Lib/."""
    folder = base / "stdlib"
    lib = Path(sysconfig.get_paths()["stdlib"])
    with tarfile.open(base / "stdlib.tar", "w") as tar:
        for path in sorted(lib.rglob("*.py")):
            rel = path.relative_to(lib)
            if rel.parts[0] in ("site-packages", "dist-packages") or "__pycache__" in rel.parts:
                continue
            tar.add(path, arcname=f"Lib/{rel.as_posix()}")
    with tarfile.open(base / "stdlib.tar") as tar:
        tar.extractall(folder, filter="data")
    (folder / "semaprax.toml").write_text('[project]\nname = "stdlib"\nsources = ["Lib"]\n')
    return folder


def _one(profile: str, root: str, workspace: str) -> None:
    """Child mode: make one view, print its cost as JSON."""
    sys.path.insert(0, str(ROOT))
    from analysis import index
    from servers.route import make_projection

    analyses: list[tuple[int, int]] = []
    real = index.WorkspaceIndex.__init__

    def counting(self: index.WorkspaceIndex, ws: Any, files: Any, store: Any = None) -> None:
        """The analyses a workspace-wide view made."""
        real(self, ws, files, store)
        analyses.append((len(files), self.analyses))

    index.WorkspaceIndex.__init__ = counting  # type: ignore[method-assign]  # patched on purpose
    wall, cpu = time.perf_counter(), time.process_time()
    p = make_projection(profile, root, workspace)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    print(json.dumps({"wall": wall, "cpu": cpu, "rss": rss, "bytes": len(p.selected),
                      "files": analyses[0][0] if analyses else 1,
                      "analyses": analyses[0][1] if analyses else 1}))


def _run(profile: str, root: str, workspace: Path, timeout: float) -> dict[str, Any] | None:
    try:
        done = subprocess.run([sys.executable, "-m", "semaprax.bench.producers", "--one", profile, root,
                               str(workspace)], capture_output=True, text=True, timeout=timeout, check=True)
    except subprocess.TimeoutExpired:
        return None
    except subprocess.CalledProcessError as exc:
        raise SystemExit(f"{profile} {root}: {exc.stderr.strip().splitlines()[-1]}") from None
    found: dict[str, Any] = json.loads(done.stdout)
    return found


def _cases(base: Path, stdlib: bool, max_size: int = 16000) -> list[tuple[str, str, str, Path, int]]:
    """(series, profile, root, workspace, size)."""
    cases = []
    series = (("functions", FUNCTION_SIZES, functions_module, "gen.Box.get", "gen.f{}"),
              ("methods", METHOD_SIZES, methods_module, "gen.Big.m0", "gen.Big.m{}"))
    for name, sizes, generate, referenced, middle in series:
        for n in (n for n in sizes if n <= max_size):
            ws = _workspace(base, f"{name}{n}", generate(n))
            for profile, root in (("graph", "gen.py"), ("symbols", "gen.py"), ("diagnostics", "gen.py"),
                                  ("project-graph", "semaprax.toml"), ("references", referenced),
                                  ("task-context", middle.format(n // 2))):
                cases.append((name, profile, root, ws, n))
    if stdlib:
        ws = _stdlib(base)
        for profile, root in (("project-graph", "semaprax.toml"), ("diagnostics", "semaprax.toml"),
                              ("references", "posixpath.join"), ("task-context", "json.dumps"),
                              ("symbols", "Lib/email"), ("graph", "Lib/typing.py")):
            cases.append(("stdlib", profile, root, ws, 0))
    return cases


def main(argv: list[str] | None = None) -> int:
    given = sys.argv[1:] if argv is None else argv
    if len(given) == 4 and given[0] == "--one":
        _one(*given[1:])
        return 0
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=1, help="runs per case; medians are reported (default 1)")
    parser.add_argument("--budget", type=float, default=100.0, help="seconds for the whole run (default 100)")
    parser.add_argument("--max-size", type=int, default=2000, metavar="N",
                        help="largest generated module, in functions or methods (default 2000; the full run: "
                        "--max-size 16000 --repeats 3 --budget 900 --stdlib)")
    parser.add_argument("--stdlib", action="store_true", help="also the standard library as a workspace")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds for one run (default 300)")
    parser.add_argument("--no-stdlib", action="store_true", help="leave out the standard library (the default)")
    args = parser.parse_args(argv)
    deadline = time.monotonic() + args.budget
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench_producers.") as tmp:
        for series, profile, root, ws, n in _cases(Path(tmp), args.stdlib and not args.no_stdlib, args.max_size):
            runs = []
            for _ in range(args.repeats if series != "stdlib" else 1):
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                found = _run(profile, root, ws, min(args.timeout, left))
                if found is None:
                    break
                runs.append(found)
            rows.append((series, profile, root, n, runs))
            print(f"{series} {profile} {n or root}: {len(runs)} runs", file=sys.stderr, flush=True)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, {args.repeats} runs per generated case "
          "(1 for the standard library); median (min..max). The machine was shared.\n")
    print("| series | profile | size | CPU s | wall s | peak MB | x per doubling | analyses/files |")
    print("|---|---|---:|---:|---:|---:|---:|---:|")
    previous: dict[tuple[str, str], float] = {}
    for series, profile, root, n, runs in rows:
        size = f"{n:,}" if n else root
        if not runs:
            print(f"| {series} | {profile} | {size} | skipped (budget or timeout) | | | | |")
            continue
        cpu = [r["cpu"] for r in runs]
        wall = statistics.median(r["wall"] for r in runs)
        rss = statistics.median(r["rss"] for r in runs) / 2**20
        median = statistics.median(cpu)
        ratio = ""
        if n and (series, profile) in previous and previous[(series, profile)] > 0:
            ratio = f"{median / previous[(series, profile)]:.2f}"
        if n:
            previous[(series, profile)] = median
        spread = f" ({min(cpu):.2f}..{max(cpu):.2f})" if len(cpu) > 1 else ""
        print(f"| {series} | {profile} | {size} | {median:.2f}{spread} | {wall:.2f} | {rss:.0f} | {ratio} | "
              f"{runs[0]['analyses']}/{runs[0]['files']} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
