"""Start-up: what each CLI command imports, and what that costs (issue 22).

    semaprax bench startup [--rounds N] [--baseline DIR]

Each round runs, in fresh processes under ``python -X importtime``, ``semaprax
--help`` (the CLI's own import), a graph view of one small file (``project FILE
--profile graph``), a project-graph view of its manifest and ``replay`` of the
graph view's v1 text wire (an unfitted view) over a small generated workspace,
with ``--no-cache``. Reported per command, medians over
the rounds with their spread: the CLI module's import (self and cumulative ms),
the imports the request made after it (ms, the sum of the top-level cumulative
figures), the number of modules loaded, and the process's wall time and CPU
time (user and system; less disturbed than wall time by other processes).

``--baseline DIR`` runs the same commands with another checkout's code (a folder
holding ``codec/``, ``analysis/``, ... and ``semaprax/``, e.g. ``git archive`` of
an older commit), interleaved round by round with this one, and prints the ratio
of each median: the machine is shared, so read the ratios and say the load.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # this checkout
LINE = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)")
FILES = {
    "semaprax.toml": "[project]\nname = 'demo'\n",
    "pkg/__init__.py": '"""A package."""\n',
    "pkg/a.py": 'import os\n\nfrom pkg.b import helper\n\n\ndef run() -> str:\n    """Run."""\n'
                '    return helper() + os.sep\n',
    "pkg/b.py": 'def helper() -> str:\n    """Help."""\n    return "b"\n',
}


def _command(name: str, workspace: Path, wire: Path) -> list[str]:
    ws = ["--workspace", str(workspace), "--no-cache"]
    return {
        "cli --help": ["--help"],
        "project graph": ["project", "pkg/a.py", "--profile", "graph", *ws],
        "project project-graph": ["project", "semaprax.toml", "--profile", "project-graph", *ws],
        "replay (unfitted graph)": ["replay", str(wire), *ws],
    }[name]


COMMANDS = ("cli --help", "project graph", "project project-graph", "replay (unfitted graph)")


def run_once(checkout: Path, argv: list[str], cache: Path) -> dict[str, float]:
    """One process: the CLI's import (self, cumulative), the imports after it, modules, wall and CPU ms."""
    code = ("import sys; from semaprax.cli import main; sys.argv[0] = 'semaprax'; "
            f"sys.exit(main({argv!r}))")
    env = dict(os.environ, XDG_CACHE_HOME=str(cache))
    env.pop("PYTHONPATH", None)
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", code], check=False, cwd=checkout, env=env,
                          capture_output=True, text=True)
    wall = (time.perf_counter() - start) * 1000
    now = resource.getrusage(resource.RUSAGE_CHILDREN)  # this child's alone: they run one at a time
    cpu = (now.ru_utime + now.ru_stime - used.ru_utime - used.ru_stime) * 1000
    if done.returncode != 0:
        raise SystemExit(f"semaprax bench startup: {argv} failed in {checkout}:\n{done.stderr[-2000:]}")
    cli_self = cli_cum = after = 0.0
    modules = 0
    seen_cli = False
    for line in done.stderr.splitlines():
        found = LINE.match(line)
        if not found:
            continue
        modules += 1
        own, cumulative, indent, name = int(found[1]), int(found[2]), len(found[3]), found[4]
        if name == "semaprax.cli":
            cli_self, cli_cum, seen_cli = own / 1000, cumulative / 1000, True
        elif seen_cli and indent == 1:  # a top-level import made by the request, after the CLI's
            after += cumulative / 1000
    return {"cli self": cli_self, "cli cumulative": cli_cum, "request imports": after,
            "modules": modules, "wall": wall, "cpu": cpu}


def _median(values: list[float]) -> str:
    med = statistics.median(values)
    return f"{med:7.1f} [{min(values):.1f}-{max(values):.1f}]"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=7, help="processes per command and checkout (default: 7)")
    parser.add_argument("--baseline", type=Path, metavar="DIR",
                        help="another checkout's code to compare with, interleaved round by round")
    args = parser.parse_args(argv)
    checkouts = {"this": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    figures: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory(prefix="semaprax-bench-startup-") as tmp:
        workspace = Path(tmp) / "ws"
        for rel, text in FILES.items():
            (workspace / rel).parent.mkdir(parents=True, exist_ok=True)
            (workspace / rel).write_text(text)
        wire = Path(tmp) / "graph.wire"
        subprocess.run([sys.executable, "-m", "semaprax", "project", "pkg/a.py", "--profile", "graph",
                        "--encoding", "text", "--workspace", str(workspace), "--no-cache", "-o", str(wire)],
                       cwd=ROOT, check=True, env=dict(os.environ, XDG_CACHE_HOME=str(Path(tmp) / "c")))
        for n in range(-1, args.rounds):  # round -1 writes the bytecode caches and is not counted
            print(f"round {n + 1} of {args.rounds}", file=sys.stderr, flush=True)
            for command in COMMANDS:
                for label, checkout in checkouts.items():
                    cache = Path(tmp) / f"cache-{label}"
                    once = run_once(checkout, _command(command, workspace, wire), cache)
                    if n >= 0:
                        figures.setdefault((command, label), []).append(once)
    load = os.getloadavg()
    print(f"python {sys.version.split()[0]}, {args.rounds} rounds, load average {load[0]:.1f} {load[1]:.1f} "
          f"{load[2]:.1f} on {os.cpu_count()} cores; medians in ms [min-max]")
    keys = ("cli self", "cli cumulative", "request imports", "modules", "wall", "cpu")
    for command in COMMANDS:
        print(f"\n{command}: semaprax {' '.join(_command(command, Path('WS'), Path('graph.wire')))}")
        for label in checkouts:
            rows = figures[(command, label)]
            print(f"  {label:8} " + "  ".join(f"{k} {_median([r[k] for r in rows])}" for k in keys))
        if args.baseline:
            ratios = []
            for k in keys:
                base = statistics.median(r[k] for r in figures[(command, 'baseline')])
                this = statistics.median(r[k] for r in figures[(command, 'this')])
                ratios.append(f"{k} {this / base:.2f}" if base else f"{k} -")
            print("  this/baseline " + "  ".join(ratios))
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main(sys.argv[1:]))
