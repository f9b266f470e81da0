"""What the view shapes cost over a corpus: every standard-library module and
package, and a few installed third-party packages, in today's long shapes and
the compact ones, against the minimal plain-text listing of the same facts.

For each view the long form is made by the producer (``LONG_PRODUCERS``), the
compact view by its rewrite (``shapes.COMPACT``, what ``semaprax project``
sends), and the run checks that ``expand`` gives the long form back byte for
byte and that the listing parses back to the view: a mismatch stops the run.
Then it counts ``cl100k_base`` tokens of the full JSON of both shapes and of the
listing (semaprax/bench/listing.py), and, for every graph whose long JSON is 32 KiB or
more, of the model-text wire of the compact view.

Views made:

- every top-level standard-library module (``X.py``): graph, symbols, diagnostics;
- every standard-library package (``test`` and ``idlelib`` left out) and each
  third-party package, copied into a temporary workspace with a minimal
  ``semaprax.toml``: graph of each module, symbols of the package, references of
  its first five public module-level classes and functions, diagnostics and
  project-graph of the manifest.

The run is bounded: ``--budget`` seconds (default 1200), after which no new
workspace is started and the report says how much of the corpus it covers.

    nice -n 10 semaprax bench corpus [--budget S] [--output-dir docs]

prints the table; with ``--output-dir`` it also writes ``view-corpus.json`` and
``view-corpus.md`` there. Counts depend on the Python and package versions, which
the report names.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import os
import platform
import shutil
import sys
import tempfile
import time
import typing
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from analysis.sources import Workspace, WorkspaceError
from semaprax.bench import listing
from views import LONG_PRODUCERS, shapes, tokens
from views.expand import expand

SCHEMA = "semaprax/corpus-tokens/1"
PROFILES = ("graph", "symbols", "references", "diagnostics", "project-graph")
#: Full-JSON saving the issue asks of each profile, against today's shapes.
TARGETS = {"graph": 25.0, "symbols": 20.0, "references": 30.0, "diagnostics": 15.0}
#: Model-text of every graph view this large (long JSON bytes) at most this many listings.
LARGE_GRAPH = 32 * 1024
MODEL_TEXT_CEILING = 1.3
THIRD_PARTY = ("rich", "markdown_it", "click", "jinja2", "attr", "packaging", "cbor2")
SKIP_STDLIB = frozenset({"test", "idlelib", "site-packages", "__pycache__"})


class CorpusError(Exception):
    """A view whose shapes disagree: the run stops, nothing is written."""


@dataclass
class Totals:
    views: int = 0
    long: int = 0
    compact: int = 0
    listing: int = 0

    def add(self, long: int, compact: int, floor: int) -> None:
        self.views += 1
        self.long += long
        self.compact += compact
        self.listing += floor


@dataclass
class Run:
    totals: dict[str, Totals] = field(default_factory=lambda: {p: Totals() for p in PROFILES})
    large_graphs: list[dict[str, Any]] = field(default_factory=list)
    over_source: dict[str, int] = field(default_factory=lambda: {"long": 0, "compact": 0, "graphs": 0})
    workspaces: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


_ENCODING = tokens.get_encoding("cl100k_base")


def count(data: bytes | str) -> int:
    text = data.decode("utf-8") if isinstance(data, bytes) else data
    return len(_ENCODING.encode_ordinary(text))


def measure(run: Run, folder: Path, profile: str, root: str, label: str) -> None:
    ws = Workspace(folder)
    try:
        normalized, long = LONG_PRODUCERS[profile](ws, root)
    except WorkspaceError as exc:
        run.errors.append(f"{label} {profile} {root}: {exc}")
        return
    view = shapes.COMPACT[profile](long)
    long_json, view_json = codec.canonical_json(long), codec.canonical_json(view)
    if codec.canonical_json(expand(profile, view)) != long_json:
        raise CorpusError(f"{label}: expanding the {profile} view of {root} does not give the long form")
    text = listing.listing(profile, view)
    if codec.canonical_json(listing.parse(profile, text)) != view_json:
        raise CorpusError(f"{label}: the listing of the {profile} view of {root} does not parse back")
    n_long, n_view, n_list = count(long_json), count(view_json), count(text)
    run.totals[profile].add(n_long, n_view, n_list)
    if profile == "graph":
        source = count(ws.read(root))
        run.over_source["graphs"] += 1
        run.over_source["long"] += n_long > source
        run.over_source["compact"] += n_view > source
        if len(long_json) >= LARGE_GRAPH:
            projection = codec.CompactProjection.from_value(profile, normalized, ws.revision(), view)
            model_text = count(codec.ENCODERS["model-text"](projection))
            run.large_graphs.append({"view": f"{label}:{root}", "long_bytes": len(long_json),
                                     "compact_bytes": len(view_json), "long": n_long, "compact": n_view,
                                     "model_text": model_text, "listing": n_list,
                                     "ratio": round(model_text / n_list, 3)})


def stdlib_folder() -> Path:
    return Path(os.path.dirname(typing.__file__))


def manifest(name: str) -> str:
    return f'[project]\nname = "{name}"\nsources = ["{name}"]\n'


def public_symbols(folder: Path, package: str, n: int = 5) -> list[str]:
    """The first ``n`` public module-level classes and functions of the package,
    in path order: symbols worth listing references of, picked the same way on
    every run."""
    from views.common import analysed_file

    ws = Workspace(folder)
    found = []
    for path in ws.python_files(package):
        a = analysed_file(ws, path)
        for d in a.definitions:
            local = d.qualname[len(a.module) + 1 :]
            if d.kind in ("class", "function") and "." not in local and not local.startswith("_") \
                    and not any(p.startswith("_") for p in a.module.split(".")):
                found.append(d.qualname)
                if len(found) == n:
                    return found
    return found


def _python_sources_only(folder: str, names: list[str]) -> set[str]:
    return {n for n in names if n == "__pycache__" or (not n.endswith(".py") and not os.path.isdir(os.path.join(folder, n)))}


def package_views(run: Run, source: Path, name: str, label: str) -> None:
    with tempfile.TemporaryDirectory(prefix="semaprax-corpus-") as tmp:
        folder = Path(tmp)
        shutil.copytree(source, folder / name, ignore=_python_sources_only)
        (folder / "semaprax.toml").write_text(manifest(name))
        ws = Workspace(folder)
        for path in ws.python_files(name):
            measure(run, folder, "graph", path, label)
        measure(run, folder, "symbols", name, label)
        for symbol in public_symbols(folder, name):
            measure(run, folder, "references", symbol, label)
        measure(run, folder, "diagnostics", "semaprax.toml", label)
        measure(run, folder, "project-graph", "semaprax.toml", label)


def corpus() -> Iterator[tuple[str, Any]]:
    """(label, job) in a fixed order: stdlib modules, stdlib packages, third party."""
    lib = stdlib_folder()
    for entry in sorted(lib.iterdir(), key=lambda p: p.name.encode()):
        if entry.suffix == ".py" and entry.is_file():
            yield f"stdlib:{entry.name}", ("module", lib, entry.name)
    for entry in sorted(lib.iterdir(), key=lambda p: p.name.encode()):
        if entry.is_dir() and entry.name not in SKIP_STDLIB and (entry / "__init__.py").is_file():
            yield f"stdlib:{entry.name}", ("package", entry, entry.name)
    for name in THIRD_PARTY:
        spec = importlib.util.find_spec(name)
        if spec is None or not spec.submodule_search_locations:
            continue
        yield f"{name}", ("package", Path(next(iter(spec.submodule_search_locations))), name)


def run_corpus(budget: float) -> Run:
    run = Run()
    started = time.monotonic()
    jobs = list(corpus())
    for i, (label, (kind, folder, name)) in enumerate(jobs):
        if time.monotonic() - started > budget:
            run.skipped.extend(lbl for lbl, _ in jobs[i:])
            break
        print(f"[{i + 1}/{len(jobs)} {time.monotonic() - started:6.0f}s] {label}", file=sys.stderr)
        if kind == "module":
            for profile in ("graph", "symbols", "diagnostics"):
                measure(run, folder, profile, name, label)
        else:
            package_views(run, folder, name, label)
        run.workspaces.append(label)
    return run


def versions() -> dict[str, str]:
    out = {"python": f"{platform.python_implementation()} {platform.python_version()}"}
    for name in THIRD_PARTY:
        dist = {"markdown_it": "markdown-it-py", "attr": "attrs"}.get(name, name)
        try:
            out[name] = importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return out


def summary(run: Run) -> dict[str, Any]:
    profiles = {}
    for profile, t in run.totals.items():
        if not t.views:
            continue
        saving = round(100 * (t.long - t.compact) / t.long, 1)
        target = TARGETS.get(profile)
        profiles[profile] = {"views": t.views, "long": t.long, "compact": t.compact, "listing": t.listing,
                             "saving_percent": saving, "target_percent": target,
                             "meets_target": None if target is None else saving >= target,
                             "compact_over_listing": round(t.compact / t.listing, 3),
                             "long_over_listing": round(t.long / t.listing, 3)}
    worst = max((g["ratio"] for g in run.large_graphs), default=None)
    return {
        "schema": SCHEMA,
        "versions": versions(),
        "workspaces": len(run.workspaces),
        "skipped_for_time": run.skipped,
        "errors": run.errors,
        "profiles": profiles,
        "graphs_costing_more_than_their_source": run.over_source,
        "large_graphs": {"threshold_bytes": LARGE_GRAPH, "ceiling": MODEL_TEXT_CEILING,
                         "count": len(run.large_graphs), "worst_model_text_over_listing": worst,
                         "meets_ceiling": None if worst is None else worst <= MODEL_TEXT_CEILING,
                         "views": run.large_graphs},
    }


def markdown(s: dict[str, Any]) -> str:
    v = s["versions"]
    third = ", ".join(f"{k} {x}" for k, x in v.items() if k != "python")
    lines = ["# View shapes over a corpus", "",
             ("Written by `nice -n 10 semaprax bench corpus --budget 1200 --output-dir docs` from "
             "`view-corpus.json` beside it; do not edit by hand."), "",
             (f"Corpus: every module of the standard library of {v['python']}, every package of it but "
             f"`test` and `idlelib`, and the installed {third}: {s['workspaces']} modules and packages in "
             "all. Every view was checked: `expand` gives today's long form back byte for byte and the listing parses back to the view. "
             "Tokens are `cl100k_base` on the full JSON of the view (no envelope). Local measurements of "
             "these inputs on one machine, not universal savings."), "",
             ("| Profile | Views | Today's JSON | Compact JSON | Saving | Target | Listing (floor) | "
             "Compact / listing |"), "|---|---:|---:|---:|---:|---:|---:|---:|"]
    for profile, p in s["profiles"].items():
        target = "" if p["target_percent"] is None else f"≥{p['target_percent']:.0f}%"
        lines.append(f"| {profile} | {p['views']:,} | {p['long']:,} | {p['compact']:,} | -{p['saving_percent']}% "
                     f"| {target} | {p['listing']:,} | {p['compact_over_listing']:.2f}x |")
    g = s["large_graphs"]
    lines.append("")
    lines.append(f"Graph views of {g['threshold_bytes'] // 1024} KiB or more (today's JSON): {g['count']}; "
                 f"model-text / listing at most {g['worst_model_text_over_listing']}x "
                 f"(ceiling {g['ceiling']}x).")
    o = s["graphs_costing_more_than_their_source"]
    lines.append(f"Graphs costing more tokens than their module's source: {o['long']} of {o['graphs']} today, "
                 f"{o['compact']} compact.")
    if s["skipped_for_time"]:
        lines.append(f"Stopped at the time budget: {len(s['skipped_for_time'])} workspaces not measured.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--budget", type=float, default=90.0,
                        help="seconds before no new workspace starts (default 90; the committed report: 1200)")
    parser.add_argument("--output-dir", type=Path, help="write view-corpus.json and view-corpus.md here")
    args = parser.parse_args(argv)
    try:
        run = run_corpus(args.budget)
    except CorpusError as exc:
        print(f"corpus_tokens: {exc}", file=sys.stderr)
        return 1
    stored = json.dumps(summary(run), indent=1, sort_keys=True, ensure_ascii=False) + "\n"
    text = markdown(json.loads(stored))  # from the JSON as stored, so the two files always agree
    if args.output_dir:
        args.output_dir.mkdir(parents=True, exist_ok=True)
        (args.output_dir / "view-corpus.json").write_text(stored, encoding="utf-8")
        (args.output_dir / "view-corpus.md").write_text(text, encoding="utf-8")
    sys.stdout.write(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
