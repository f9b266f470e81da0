"""The measurements, run as ``semaprax bench NAME [options]`` and ``semaprax report``.

One module per benchmark; each has ``main(argv) -> int`` with its own ``--help``.
Every default finishes within about two minutes on a shared 2-core machine and still
measures something (a smaller document, fewer rounds); the full-size runs the docs
quote are behind options, named in each ``--help``. Progress goes to standard
error, figures to standard output. Only the command line (``semaprax.cli``)
imports this package; it may import every package below it.

Benchmarks that need the checkout's files (``examples/``, ``docs/``, ``fuzz/``)
find them beside this package, so they are run from an editable install
(``make test`` makes one).
"""

from __future__ import annotations

import difflib
import importlib
import importlib.util
import os
import sys
import time
from collections.abc import Sequence
from typing import NamedTuple

from analysis.sources import WorkspaceError
from codec import CompactError
from codec.visible import visible


class Bench(NamedTuple):
    module: str
    summary: str
    #: options put before the caller's for a module whose own defaults are the full run
    #: (an option the caller gives again wins)
    preset: tuple[str, ...] = ()
    #: a tool that prints a view rather than a measurement: no progress lines
    tool: bool = False
    #: (module, how to install it) that a run needs; checked first, so a missing extra is said at once
    needs: tuple[str, str] | None = None


BENCHES: dict[str, Bench] = {
    "codec": Bench("codec", "encoders and verified decoders against json.loads + json.dumps, per shape"),
    "producers": Bench("producers", "every profile's time and memory as modules and classes grow"),
    "servers": Bench("servers", "first and second requests through the route, serve and mcp (warm index)"),
    "inspector": Bench("inspector", "the real inspector in tmux: first paint, verified, keys, tokens, memory",
                       ("--size-mib", "2", "--rounds", "1", "--keys", "5")),
    "body": Bench("body", "the Body pane in tmux: fold, unfold, cursor moves on a large document"),
    "tree": Bench("tree", "the Tree tab headless: open, expand, cursor moves on a large wire"),
    "tokens-view": Bench("tokens_view", "the token view and cost ledger headless on a large wire"),
    "compare": Bench("compare", "the compare view's work on a large wire against an edited copy"),
    "tap": Bench("tap", "the delay semaprax tap adds to each message"),
    "mcp": Bench("mcp", "semaprax mcp: result bytes over wire bytes, warm times per profile, start with the "
                 "tokenizer preloaded"),
    "hostile": Bench("hostile", "time and memory of every decoder on hostile and limit-case wires",
                     ("--sizes", "1", "--repeat", "1")),
    "fuzz": Bench("fuzz", "coverage-guided fuzzing campaigns of the decoders (needs the fuzz extra)",
                  ("--minutes-per-target", "0.2"), needs=("atheris", "pip install -e '.[fuzz]'")),
    "corpus": Bench("corpus", "view shapes against the plain-text listing over the standard library"),
    "shapes": Bench("shapes", "token cost of candidate graph shapes on the examples"),
    "view-vs-source": Bench("view_vs_source", "a graph view's tokens against its source, and model-text against "
                            "full JSON by view size, on a held-out half of the standard library"),
    "cache": Bench("cache", "one run per change: project-graph cold, from the per-file cache and --no-cache, "
                   "and a server's request after a one-file edit (give a workspace with a manifest)"),
    "fit": Bench("fit", "what fitting a view to a token budget costs against producing it whole"),
    "startup": Bench("startup", "what each CLI command imports and its cost (python -X importtime), against "
                     "another checkout with --baseline DIR"),
    "recall": Bench("recall", "call targets and references against jedi (needs the dev extra)"),
    "oracle": Bench("oracle", "references on tiny synthetic workspaces, one per grammar place and way a value gets "
                    "its class, against jedi (needs the dev extra)", needs=("jedi", "pip install -e '.[dev]'")),
    "listing": Bench("listing", "print a view's minimal plain-text listing (the floor the shapes are measured "
                     "against)", tool=True),
    "long-view": Bench("long_view", "print a view in the long shape (before the compact shapes), or expand a wire",
                       tool=True),
}
REPORT = Bench("report", "every wire form of the measured views, in bytes and tokens: writes "
               "docs/measurements.md")


def usage() -> str:
    width = max(map(len, BENCHES))
    lines = ["usage: semaprax bench NAME [options]   (semaprax bench NAME --help for its options)",
             "       semaprax report [--quick] [--output-dir DIR]", "",
             "Measurements. Each default finishes within about two minutes; the full-size runs the",
             "docs quote are behind options, named in each --help. Progress goes to standard error.", ""]
    for name, bench in BENCHES.items():
        preset = f" [runs with {' '.join(bench.preset)} unless given]" if bench.preset else ""
        lines.append(f"  {name:{width}}  {bench.summary}{preset}")
    lines += ["", f"  {'report':{width}}  (semaprax report) {REPORT.summary}"]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    """``argv`` starts with ``bench`` or ``report``, as typed after ``semaprax``. A
    failure the measurement reports (a missing file, a workspace or wire problem) is
    one line on stderr and exit 1, as for every other command."""
    try:
        return _dispatch(argv)
    except BrokenPipeError:  # `| head`: stop quietly, and let the exit's flush go nowhere
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (CompactError, WorkspaceError) as exc:
        print(f"semaprax {argv[0]}: {visible(str(exc))}", file=sys.stderr)
        return 1
    except OSError as exc:
        where = f"{visible(os.fsdecode(exc.filename))}: " if isinstance(exc.filename, (str, bytes)) else ""
        print(f"semaprax {argv[0]}: {where}{exc.strerror or exc}", file=sys.stderr)
        return 1


def _dispatch(argv: Sequence[str]) -> int:
    command, rest = argv[0], list(argv[1:])
    if command == "report":
        return _run("report", REPORT, rest)
    if not rest or rest[0] in ("-h", "--help"):
        print(usage(), file=sys.stdout if rest else sys.stderr)
        return 0 if rest else 2
    name, rest = rest[0], rest[1:]
    if name not in BENCHES:
        close = difflib.get_close_matches(name, BENCHES, n=3)
        hint = f"; did you mean {' or '.join(close)}?" if close else f"; one of {', '.join(BENCHES)}"
        print(f"semaprax bench: no benchmark {name!r}{hint}", file=sys.stderr)
        return 2
    return _run(f"bench {name}", BENCHES[name], rest)


def _run(label: str, bench: Bench, rest: list[str]) -> int:
    quiet = bench.tool or any(a in ("-h", "--help") for a in rest)
    if bench.needs and not quiet and "--replay" not in rest and importlib.util.find_spec(bench.needs[0]) is None:
        print(f"semaprax {label}: needs {bench.needs[0]}, which is not installed: {bench.needs[1]}", file=sys.stderr)
        return 1
    module = importlib.import_module(f"semaprax.bench.{bench.module}")
    saved = sys.argv[0]
    sys.argv[0] = f"semaprax {label}"  # argparse's prog: the usage line names the command typed
    started = time.monotonic()
    if not quiet:
        preset = f" with {' '.join(bench.preset)}" if bench.preset else ""
        print(f"semaprax {label}: running{preset} (progress on standard error, figures on standard output)",
              file=sys.stderr, flush=True)
    try:
        code = module.main([*bench.preset, *rest])
    except KeyboardInterrupt:
        print(f"semaprax {label}: interrupted", file=sys.stderr)
        return 130
    finally:
        sys.argv[0] = saved
    if not quiet:
        print(f"semaprax {label}: done in {time.monotonic() - started:.0f} s (exit {code})", file=sys.stderr)
    return int(code or 0)
