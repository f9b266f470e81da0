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

``--pool`` measures the process pool of a cold build instead (analysis/pool.py):
``semaprax project --profile project-graph --no-cache`` with ``--jobs 1`` and
``--jobs 2`` in turn, each a new process, with wall and CPU seconds (the
workers' included), whether the outputs are byte-identical, and the load; then
where a pool starts to pay (``--threshold``: generated workspaces of 8-128
files, in-process builds with and without a pool). By default on a generated
workspace of 240 modules (about a minute); ``--workspace /tmp/stdlib`` for the
standard library:

    nice -n 10 semaprax bench producers --pool --repeats 3 --workspace /tmp/stdlib
    nice -n 10 semaprax bench producers --pool --threshold

``--cli`` measures ``project-graph`` as its users run it (the command, each
run a new process): cold without the cache (``--no-cache``) with ``--jobs 2``
and ``--jobs 1``, cold writing the records (an empty cache folder), and warm
(the same folder again), with wall and CPU seconds, the load, and the sha256 of
each output; ``--against DIR`` runs the checkout at DIR (a ``git archive`` of
another commit) in turn, each round, so both are measured under the same load:

    nice -n 10 semaprax bench producers --cli --repeats 3 --against /tmp/main --workspace /tmp/stdlib

``--estimate`` prints instead the critical path in CPU seconds (per stage run,
the longer of the building process's and the worker's CPU, plus what the
building process does alone) and each process's peak memory; ``--against DIR``
measures the checkout at DIR in turn with this one (a before and after):

    nice -n 10 semaprax bench producers --pool --estimate --repeats 3 --against /work/main --workspace /tmp/stdlib
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


def _counted(cls: Any, made: str, into: list[tuple[int, int]]) -> None:
    """Patch ``cls`` (a workspace-wide build: analysis.index.WorkspaceIndex,
    analysis.outlines.WorkspaceOutline) to record, per build, its files and
    its count ``made`` (files analysed, files outlined), so a view's cost is
    told with the work it did."""
    real = cls.__init__

    def init(self: Any, ws: Any, files: Any, store: Any = None, processes: int | None = None) -> None:
        real(self, ws, files, store, processes)
        into.append((len(files), getattr(self, made)))

    cls.__init__ = init


def _one(profile: str, root: str, workspace: str) -> None:
    """Child mode: make one view, print its cost as JSON."""
    sys.path.insert(0, str(ROOT))
    from analysis import index, outlines
    from servers.route import make_projection

    analyses: list[tuple[int, int]] = []
    _counted(index.WorkspaceIndex, "analyses", analyses)  # the analyses a workspace-wide view made
    _counted(outlines.WorkspaceOutline, "read", analyses)  # project-graph's reading: files outlined now
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


def chained_module(i: int, functions: int = 24) -> str:
    """Module i: a class deriving from module i-1's, functions returning it and
    calling through it, so what a module tells others settles over rounds."""
    head = f"from m{i - 1} import Box{i - 1}, make{i - 1}\n\n\n" if i else "class Box0:\n    pass\n\n\ndef make0() -> Box0:\n    return Box0()\n\n\n"
    out = [head]
    if i:
        out.append(f"class Box{i}(Box{i - 1}):\n    def get{i}(self) -> 'Box{i}':\n        return self\n\n\n"
                   f"def make{i}() -> Box{i}:\n    return Box{i}()\n\n\n")
        for k in range(functions):
            out.append(f"def f{k}(x: Box{i - 1}) -> int:\n    b = make{i}()\n    c = make{i - 1}()\n"
                       f"    b.get{i}().get{i}()\n    return len(str(x)) + len(repr(c)) + {k}\n\n\n")
    return "".join(out)


def _chained(base: Path, modules: int) -> Path:
    folder = base / f"chained{modules}"
    folder.mkdir()
    (folder / "semaprax.toml").write_text(f'[project]\nname = "chained{modules}"\nsources = ["."]\n')
    for i in range(modules):
        (folder / f"m{i}.py").write_text(chained_module(i))
    return folder


def _cli_cold(workspace: Path, jobs: int, out: Path) -> tuple[float, float]:
    """Wall and CPU seconds (the command's and its workers') of a cold project-graph."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    manifest = "semaprax.toml" if (workspace / "semaprax.toml").exists() else "pyproject.toml"
    subprocess.run([sys.executable, "-m", "semaprax", "project", "--profile", "project-graph", manifest,
                    "--workspace", str(workspace), "--no-cache", "--jobs", str(jobs), "-o", str(out)],
                   check=True, cwd=ROOT)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def _spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def pool_rounds(workspace: Path, repeats: int) -> None:
    """jobs=1 and jobs=2 in turn, ``repeats`` times each."""
    figures: dict[int, tuple[list[float], list[float]]] = {1: ([], []), 2: ([], [])}
    outputs: set[bytes] = set()
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench_pool.") as tmp:
        for k in range(repeats):
            for jobs in (1, 2):
                out = Path(tmp) / f"out{jobs}.json"
                wall, cpu = _cli_cold(workspace, jobs, out)
                figures[jobs][0].append(wall)
                figures[jobs][1].append(cpu)
                outputs.add(out.read_bytes())
                loads.append(os.getloadavg()[0])
                print(f"round {k + 1}, --jobs {jobs}: wall {wall:.2f} s, CPU {cpu:.2f} s, load {loads[-1]:.1f}",
                      file=sys.stderr, flush=True)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {min(loads):.1f}-{max(loads):.1f}; "
          f"cold `project-graph` of {workspace.name} (--no-cache), {repeats} runs each, median (min-max)\n")
    print("| --jobs | wall s | CPU s (all processes) |")
    print("|---:|---:|---:|")
    for jobs, (walls, cpus) in figures.items():
        print(f"| {jobs} | {_spread(walls)} | {_spread(cpus)} |")
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * (1 if sys.platform == "darwin" else 1024)
    print(f"\nthe largest process of all the runs peaked at {peak / 2**20:.0f} MB")
    ratios = [a / b for a, b in zip(figures[1][0], figures[2][0], strict=True)]
    print(f"\nwall jobs=1 / jobs=2, per round: median {_spread(ratios)}; outputs byte-identical: {len(outputs) == 1}")


_IN_PROCESS = """
import json, resource, sys, time
from analysis import pool
from analysis.index import WorkspaceIndex
from analysis.sources import Workspace
pool.POOL_MIN_FILES = 0
ws = Workspace(sys.argv[1])
files = ws.python_files()
out = []
for jobs in json.loads(sys.argv[2]):
    wall, cpu = time.perf_counter(), time.process_time()
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    index = WorkspaceIndex(Workspace(sys.argv[1]), files, None, processes=jobs)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    out.append([jobs, time.perf_counter() - wall, time.process_time() - cpu + after.ru_utime - child.ru_utime
                + after.ru_stime - child.ru_stime])
print(json.dumps(out))
"""


_CRITICAL = """
import json, resource, sys, time
from analysis.index import WorkspaceIndex
from analysis.sources import Workspace
from views.common import manifest_root
jobs = int(sys.argv[3])
ws = Workspace(sys.argv[1])
files = list(manifest_root(ws, sys.argv[2]).sources)
cpu = time.process_time()
index = WorkspaceIndex(ws, files, None, processes=jobs)
own = time.process_time() - cpu
mb = lambda who: resource.getrusage(who).ru_maxrss / 1024
print(json.dumps([own, index.worker_cpu, getattr(index, "phases", None), mb(resource.RUSAGE_SELF),
                  mb(resource.RUSAGE_CHILDREN)]))
"""


def _critical(workspace: Path, code: Path, jobs: int) -> list[Any]:
    """One build's CPU and memory in a fresh process, with the analysis of the checkout at ``code``."""
    manifest = "semaprax.toml" if (workspace / "semaprax.toml").exists() else "pyproject.toml"
    done = subprocess.run([sys.executable, "-P", "-c", f"import sys; sys.path.insert(0, {str(code)!r})\n" + _CRITICAL,
                           str(workspace), manifest, str(jobs)], check=True, cwd=code, capture_output=True, text=True)
    return list(json.loads(done.stdout))


def _path(own: float, workers: list[float], phases: list[Any] | None) -> float:
    """The critical path of a build with a pool, in CPU seconds: with the
    building process's share (``phases``), each stage run takes the longer of
    its processes' CPU for it and the rest is the building process's alone;
    without (a pool whose building process only waits and merges), its own
    CPU plus the slowest worker's."""
    if phases is None:
        return own + max(workers)
    in_phases = sum(mine for mine, _ in phases)
    return own - in_phases + sum(max(mine, *theirs) for mine, theirs in phases)


def pool_estimate(workspace: Path, repeats: int = 1, against: Path | None = None) -> None:
    """The cold build's critical path in CPU seconds, which the load does not
    stretch much (two processes; see ``_path``), and each process's peak
    memory; with ``against``, the checkout there measured in turn with this
    one (a before and after in one session)."""
    codes = [("this checkout", ROOT)] + ([("against " + str(against), against)] if against is not None else [])
    rows: dict[str, dict[str, list[float]]] = {name: {} for name, _ in codes}
    for k in range(repeats):
        for name, code in codes:
            one, _, _, one_mb, _ = _critical(workspace, code, 1)
            own, workers, phases, own_mb, worker_mb = _critical(workspace, code, 2)
            if not workers:
                print(f"\nno pool started for {workspace.name} (fewer files than the pool's threshold)")
                return
            path = _path(own, workers, phases)
            figures = {"one process, CPU s": one, "pool of two, critical path s": path, "speed-up": one / path,
                       "building process, CPU s": own, "worker(s), CPU s": max(workers),
                       "one process, peak MB": one_mb, "pool: building process, peak MB": own_mb,
                       "pool: largest worker, peak MB": worker_mb}
            for key, value in figures.items():
                rows[name].setdefault(key, []).append(value)
            print(f"run {k + 1}, {name}: " + ", ".join(f"{key} {value:.2f}" for key, value in figures.items())
                  + f"; load {os.getloadavg()[0]:.1f}", file=sys.stderr, flush=True)
    print(f"\n{workspace.name}, cold, {repeats} run(s) each, median (min-max); load average now "
          f"{os.getloadavg()[0]:.1f}\n")
    print("| figure | " + " | ".join(name for name, _ in codes) + " |")
    print("|---|" + "---:|" * len(codes))
    for key in rows[codes[0][0]]:
        print(f"| {key} | " + " | ".join(_spread(rows[name][key]) for name, _ in codes) + " |")


def pool_threshold(repeats: int) -> None:
    """In-process builds of generated workspaces with no pool and with two
    workers (their start included): where the pool starts to pay."""
    print(f"load average {os.getloadavg()[0]:.1f}; wall s of an in-process build, median of {repeats} "
          "(min-max)\n")
    print("| files | no pool | pool of 2 | pool / no pool |")
    print("|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="bench_pool.") as tmp:
        for n in (8, 16, 32, 48, 64, 128):
            ws = _chained(Path(tmp), n)
            walls: dict[int, list[float]] = {1: [], 2: []}
            for _ in range(repeats):
                done = subprocess.run([sys.executable, "-c", _IN_PROCESS, str(ws), "[1, 2]"], check=True, cwd=ROOT,
                                      capture_output=True, text=True)
                for jobs, wall, _cpu in json.loads(done.stdout):
                    walls[jobs].append(wall)
            one, two = statistics.median(walls[1]), statistics.median(walls[2])
            print(f"| {n} | {_spread(walls[1])} | {_spread(walls[2])} | {two / one:.2f} |", flush=True)


def _cli_run(code: Path, workspace: Path, out: Path, *extra: str, cache: Path | None = None
             ) -> tuple[float, float, str]:
    """Wall and CPU seconds (the command's and its workers') of one project-graph
    run of the checkout at ``code``, and the sha256 of its output. Compiled
    modules are written and read as a user's installation does."""
    import hashlib

    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    if cache is not None:
        env["XDG_CACHE_HOME"] = str(cache)
    manifest = "semaprax.toml" if (workspace / "semaprax.toml").exists() else "pyproject.toml"
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run([sys.executable, "-m", "semaprax", "project", "--profile", "project-graph", manifest,
                    "--workspace", str(workspace), "-o", str(out), *extra], check=True, cwd=code, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, hashlib.sha256(out.read_bytes()).hexdigest()


def cli_rounds(workspace: Path, repeats: int, against: Path | None = None) -> None:
    """project-graph from the command line, as ``--cli`` in the module docstring says."""
    codes = [("this checkout", ROOT)] + ([(f"against {against}", against)] if against is not None else [])
    kinds = ("cold --no-cache --jobs 2", "cold --no-cache --jobs 1", "cold, writing the records, --jobs 2",
             "warm (records on disk), --jobs 2")
    figures: dict[tuple[str, str], tuple[list[float], list[float]]] = {}
    hashes: set[str] = set()
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory(prefix="bench_cli.") as tmp:
        out = Path(tmp) / "out.json"
        for name, code in codes:  # each checkout's compiled modules written before the first timed run
            subprocess.run([sys.executable, "-m", "semaprax", "--help"], check=True, cwd=code, capture_output=True,
                           env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
        for k in range(repeats):
            for name, code in codes:
                cache = Path(tmp) / f"cache-{k}-{len(name)}"
                runs = (_cli_run(code, workspace, out, "--no-cache", "--jobs", "2"),
                        _cli_run(code, workspace, out, "--no-cache", "--jobs", "1"),
                        _cli_run(code, workspace, out, "--jobs", "2", cache=cache),
                        _cli_run(code, workspace, out, "--jobs", "2", cache=cache))
                for kind, (wall, cpu, digest) in zip(kinds, runs, strict=True):
                    walls, cpus = figures.setdefault((name, kind), ([], []))
                    walls.append(wall)
                    cpus.append(cpu)
                    hashes.add(digest)
                loads.append(os.getloadavg()[0])
                print(f"round {k + 1}, {name}: " + ", ".join(f"{kind} {r[0]:.2f} s" for kind, r in zip(kinds, runs))
                      + f"; load {loads[-1]:.1f}", file=sys.stderr, flush=True)
    print(f"Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {min(loads):.1f}-{max(loads):.1f}; "
          f"`project-graph` of {workspace.name} from the command line, {repeats} run(s) each, median (min-max)\n")
    print("| run | " + " | ".join(f"{name}: wall s | CPU s" for name, _ in codes) + " |")
    print("|---|" + "---:|---:|" * len(codes))
    for kind in kinds:
        cells = [f"{_spread(figures[(name, kind)][0])} | {_spread(figures[(name, kind)][1])}" for name, _ in codes]
        print(f"| {kind} | " + " | ".join(cells) + " |")
    for name, _ in codes:
        cold = statistics.median(figures[(name, kinds[2])][0])
        warm = statistics.median(figures[(name, kinds[3])][0])
        print(f"\n{name}: warm / cold writing the records, wall: {warm / cold:.3f} ({cold / warm:.1f}x faster)")
    print(f"\noutputs: {len(hashes)} distinct sha256 ({', '.join(sorted(h[:16] + '...' for h in hashes))})")


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
    parser.add_argument("--pool", action="store_true",
                        help="measure a cold build with --jobs 1 and --jobs 2 instead (analysis/pool.py)")
    parser.add_argument("--workspace", type=Path, metavar="DIR",
                        help="with --pool: the workspace (default: 240 generated modules)")
    parser.add_argument("--threshold", action="store_true",
                        help="with --pool: where a pool starts to pay, on generated workspaces of 8-128 files")
    parser.add_argument("--estimate", action="store_true",
                        help="with --pool: only the critical path in CPU seconds (the command's own CPU plus the "
                        "slowest worker's), which the machine's load does not stretch")
    parser.add_argument("--against", type=Path, metavar="DIR",
                        help="with --pool --estimate or --cli: also measure the checkout at DIR, in turn (before and after)")
    parser.add_argument("--cli", action="store_true",
                        help="measure project-graph from the command line: cold with --jobs 2 and 1, cold writing "
                        "the records, warm")
    args = parser.parse_args(given)
    # the runs start in a checkout's folder: the folders named here are the caller's
    for name in ("workspace", "against"):
        folder = getattr(args, name)
        if folder is not None:
            if not folder.is_dir():
                parser.error(f"--{name} {str(folder)!r} is not a folder")
            setattr(args, name, folder.resolve())
    try:
        return _measure(args)
    except subprocess.CalledProcessError as exc:  # (its own message is on stderr above)
        command = " ".join(map(str, exc.cmd))
        print(f"bench producers: a measured run failed (exit status {exc.returncode}): {command}", file=sys.stderr)
        return 1


def _measure(args: argparse.Namespace) -> int:
    if args.cli:
        with tempfile.TemporaryDirectory(prefix="bench_cli.") as tmp:
            workspace = args.workspace if args.workspace is not None else _chained(Path(tmp), 240)
            cli_rounds(workspace, args.repeats, args.against)
        return 0
    if args.pool:
        if args.threshold:
            pool_threshold(max(args.repeats, 3))
            return 0
        with tempfile.TemporaryDirectory(prefix="bench_pool.") as tmp:
            workspace = args.workspace if args.workspace is not None else _chained(Path(tmp), 240)
            if not args.estimate:
                pool_rounds(workspace, args.repeats)
            pool_estimate(workspace, args.repeats, args.against)
        return 0
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
