"""Codec speed and memory on the shapes documents really have.

For each shape (a graph-like document; the same with one ``\\"`` and one ``@`` in
a string; few long strings; many short ones; heavy escapes and non-ASCII; deep
nesting; real graph views of the standard library) this times every form's
encoder and verified decoder against ``json.loads`` + ``json.dumps`` of the same
bytes, interleaved: each round times the baseline right before each operation, so
a machine whose speed drifts (a shared VM) moves both alike; the clock is this
process's CPU time unless ``--clock wall`` is given. It reports the median
of the per-round ratios with their range, and the peak memory (tracemalloc) of one
run of each. A benchmark, not a test: it prints figures and asserts nothing about
time.

    semaprax bench codec                       # every shape, 1 MiB, 3 rounds (about 40 s of CPU)
    semaprax bench codec --size-mib 16 --rounds 7   # the full run
    semaprax bench codec --size-mib 4 --rounds 9 --shapes graph,escapes
    semaprax bench codec --markdown            # the table for docs/performance.md
    semaprax bench codec --stdlib-note         # all stdlib graph views vs the limits

The targets (issue 14): every encode at most 1.5x, every verified decode at most
3x the JSON round trip. Full JSON's encoder is the selected bytes themselves (no
work), so only its decoder is timed.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import statistics
import sys
import time
import tracemalloc
import typing
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import codec
from codec import limits

ENCODE_TARGET = 1.5
DECODE_TARGET = 3.0
REVISION = "sha256:" + "0" * 64


# --- the shapes ------------------------------------------------------------------------


def _fill(target: int, make: Callable[[int], Any], wrap: Callable[[list[Any]], Any] = lambda items: items) -> bytes:
    """The canonical JSON of ``wrap([make(0), make(1), ...])``, as many items as fit
    under ``target`` bytes."""
    items: list[Any] = []
    size = 64
    i = 0
    while True:
        item = make(i)
        piece = len(codec.canonical_json(item)) + 1
        if size + piece >= target:
            break
        items.append(item)
        size += piece
        i += 1
    return codec.canonical_json(wrap(items))


def graph_document(target: int) -> bytes:
    """A code-graph-shaped document: many definition objects whose qualified names
    recur as call and reference targets, as they do in a real module graph."""
    modules = [f"acme.service.module_{m:03d}" for m in range(180)]
    names = [f"{modules[i % 180]}.Handler{i % 37}.method_{i:05d}" for i in range(40_000)]

    def node(i: int) -> dict[str, Any]:
        return {
            "name": names[i % len(names)],
            "kind": "method" if i % 5 else "function",
            "span": [i % 4000 + 1, i % 4000 + 1 + i % 37],
            "signature": f"(self, request: acme.http.Request, limit: int = {i % 100}) -> acme.http.Response",
            "calls": [names[(i * 7 + 3) % len(names)], names[(i * 13 + 5) % len(names)]],
            "references": [modules[(i * 3) % 180] + ".CONFIG", "acme.http.Response"],
            "doc": f"Handle request number {i} and return its response." if i % 3 == 0 else None,
        }

    return _fill(target, node, lambda nodes: {"module": "acme.service", "nodes": nodes})


def graph_with_quote_and_at(target: int) -> bytes:
    """The graph document with one ``\\"`` and one ``@`` inside one string: each
    alone takes the decoders and the encoder off their fastest path."""
    value = json.loads(graph_document(target - 64))
    value["nodes"][len(value["nodes"]) // 2]["doc"] = 'Say "hello" to admin@example.com'
    return codec.canonical_json(value)


def few_long_strings(target: int) -> bytes:
    """Sixteen strings of about 1/16 of the document each (a source file's text
    carried whole), four of them repeated."""
    chunk = max(target // 20, 64)
    line = "    def handle(self, request):  # returns the response\n"
    texts = [(f"{k}:" + line * (chunk // len(line)))[:chunk] for k in range(12)]
    return codec.canonical_json(texts + texts[:4])


def many_short_strings(target: int) -> bytes:
    """Millions of short strings (identifiers, kinds): the per-token overhead."""
    words = ["def", "class", "self", "name", "kind", "args", "call", "ref", "doc", "span"]
    return _fill(target, lambda i: [words[i % 10], words[(i * 3) % 10] + str(i % 97), i % 1000])


def escapes_and_non_ascii(target: int) -> bytes:
    """Strings full of escapes (quotes, backslashes, newlines, control characters)
    and non-ASCII text (accents, CJK, emoji), repeated and unique."""

    def item(i: int) -> dict[str, Any]:
        return {
            "text": f'line {i}\n\t"quoted" \\path\\to\\{i % 50}\u0001 café 東京 😀',
            "path": f"C:\\Users\\né\\{i % 300}\\file.py",
            "msg": "défini « ici » — voir\nl'exemple",
        }

    return _fill(target, item)


def deep_nesting(target: int) -> bytes:
    """Many values nested 500 levels deep (the limit is 512)."""

    def item(i: int) -> Any:
        value: Any = {"leaf": i, "name": f"acme.deep.level_{i % 200:03d}"}
        for depth in range(498):
            value = [value] if depth % 2 else {"k": value}
        return value

    return _fill(target, item)


def stdlib_folder() -> Path:
    return Path(os.path.dirname(typing.__file__))


def stdlib_modules(include_tests: bool = False) -> list[str]:
    """Every ``.py`` file of the standard library folder outside site-packages (and
    test folders, unless asked), as workspace-relative paths in bytewise order."""
    root = stdlib_folder()
    out = []
    for path in root.rglob("*.py"):
        rel = path.relative_to(root).as_posix()
        parts = rel.split("/")
        if parts[0] in ("site-packages", "idlelib", "lib2to3") or parts[0].startswith("config-"):
            continue
        if not include_tests and any(p in ("test", "tests") or p.startswith("test_") for p in parts):
            continue
        out.append(rel)
    return sorted(out, key=str.encode)


def stdlib_views(paths: list[str]) -> Iterator[tuple[str, Any]]:
    """The graph view of each module, skipping any the producer refuses."""
    from servers.route import make_projection

    root = stdlib_folder()
    for rel in paths:
        try:
            yield rel, make_projection("graph", rel, root).value()
        except Exception as exc:  # noqa: BLE001 - a module the producer cannot read is not a codec figure
            print(f"skipped {rel}: {type(exc).__name__}: {exc}", file=sys.stderr)


LARGEST_STDLIB = ("_pydecimal.py", "typing.py", "inspect.py")


def stdlib_largest(target: int) -> bytes:
    """The graph views of the largest standard-library modules together (real
    names, signatures, docstrings), as one document."""
    return codec.canonical_json([v for _, v in stdlib_views(list(LARGEST_STDLIB))])


def stdlib_many(target: int) -> bytes:
    """As many real stdlib graph views (bytewise path order) as fit in ``target``
    bytes and the dictionary's 65,536 entries: the largest real case."""
    views: list[Any] = []
    size = 2
    for _, value in stdlib_views(stdlib_modules()):
        piece = len(codec.canonical_json(value)) + 1
        if size + piece > target:
            break
        views.append(value)
        size += piece
    while True:
        doc = codec.canonical_json(views)
        if entries_needed(doc) <= limits.MAX_DICTIONARY_ENTRIES:
            return doc
        views = views[: len(views) * 9 // 10]


SHAPES: dict[str, Callable[[int], bytes]] = {
    "graph": graph_document,
    "graph, one \\\" and one @": graph_with_quote_and_at,
    "few long strings": few_long_strings,
    "many short strings": many_short_strings,
    "escapes, non-ASCII": escapes_and_non_ascii,
    "deep nesting (500)": deep_nesting,
    "stdlib: 3 largest views": stdlib_largest,
    "stdlib: many views": stdlib_many,
}
SHAPE_KEYS = {
    "graph": "graph",
    "quote": "graph, one \\\" and one @",
    "long": "few long strings",
    "short": "many short strings",
    "escapes": "escapes, non-ASCII",
    "deep": "deep nesting (500)",
    "stdlib3": "stdlib: 3 largest views",
    "stdlib": "stdlib: many views",
}


def entries_needed(doc: bytes) -> int:
    """How many v2 dictionary entries ``doc`` needs by docs/wire-format.md §5.1
    (every string spelling of 16 bytes or more, quotes included, occurring twice),
    counted from the value's strings and their canonical spellings."""
    counts: Counter[str] = Counter()

    def walk(v: Any) -> None:
        if isinstance(v, str):
            counts[v] += 1
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, dict):
            for k, x in v.items():
                counts[k] += 1
                walk(x)

    sys.setrecursionlimit(10_000)
    walk(json.loads(doc))
    return sum(
        1 for s, n in counts.items()
        if n >= limits.MIN_ENTRY_OCCURRENCES and len(codec.canonical_json(s)) >= limits.MIN_ENTRY_BYTES
    )


# --- timing -----------------------------------------------------------------------------


#: What ``timed`` reads: this process's CPU time by default, since on a shared
#: machine wall time also counts the turns other processes take on the cores.
CLOCK: Callable[[], float] = time.process_time


def timed(fn: Callable[[], object]) -> float:
    gc.collect()
    start = CLOCK()
    fn()
    return CLOCK() - start


def peak_memory(fn: Callable[[], object]) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def operations(p: codec.CompactProjection) -> dict[str, Callable[[], object]]:
    wires = {form: codec.ENCODERS[form](p) for form in ("model-text", "text", "binary")}
    for form, wire in wires.items():  # every wire decodes back before it is timed
        assert codec.decode_wire(wire).selected == p.selected, form
    return {
        "encode model-text": lambda: codec.encode_model_text(p),
        "decode model-text": lambda: codec.decode_model_text(wires["model-text"]),
        "encode text": lambda: codec.encode_text(p),
        "decode text": lambda: codec.decode_text(wires["text"]),
        "encode binary": lambda: codec.encode_binary(p),
        "decode binary": lambda: codec.decode_binary(wires["binary"]),
        "decode json": lambda: codec.decode_json(p.selected),
    }


def measure(doc: bytes, rounds: int, memory: bool) -> dict[str, Any]:
    p = codec.CompactProjection("graph", "bench.py", REVISION, doc)
    ops = operations(p)

    def baseline() -> None:
        json.dumps(json.loads(doc), ensure_ascii=False, separators=(",", ":")).encode()

    base: list[float] = []
    ratios: dict[str, list[float]] = {name: [] for name in ops}
    seconds: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(rounds):
        for name, fn in ops.items():
            b = timed(baseline)
            t = timed(fn)
            base.append(b)
            seconds[name].append(t)
            ratios[name].append(t / b)
    layout = codec.layout_wire(codec.encode_model_text(p))
    out: dict[str, Any] = {
        "document_bytes": len(doc),
        "entries": len(layout.entries),
        "references": len(layout.ref_wire),
        "baseline_seconds": statistics.median(base),
        "ops": {
            name: {
                "ratio": statistics.median(r),
                "ratio_min": min(r),
                "ratio_max": max(r),
                "seconds": statistics.median(seconds[name]),
            }
            for name, r in ratios.items()
        },
    }
    if memory:
        out["peak_bytes"] = {"json round trip": peak_memory(baseline)}
        out["peak_bytes"].update({name: peak_memory(fn) for name, fn in ops.items()})
    return out


def over_target(name: str, ratio: float) -> bool:
    return ratio > (ENCODE_TARGET if name.startswith("encode") else DECODE_TARGET)


def print_table(results: dict[str, dict[str, Any]], markdown: bool) -> None:
    names = list(next(iter(results.values()))["ops"])
    if markdown:
        print("| shape | bytes | " + " | ".join(names) + " |")
        print("|---|---:|" + "---:|" * len(names))
        for shape, r in results.items():
            cells = []
            for n in names:
                o = r["ops"][n]
                mark = " **!**" if over_target(n, o["ratio"]) else ""
                cells.append(f"{o['ratio']:.2f}x ({o['ratio_min']:.2f}-{o['ratio_max']:.2f}){mark}")
            print(f"| {shape} | {r['document_bytes']:,} | " + " | ".join(cells) + " |")
        if any("peak_bytes" in r for r in results.values()):
            print()
            print("| shape | JSON round trip | " + " | ".join(names) + " |")
            print("|---|---:|" + "---:|" * len(names))
            for shape, r in results.items():
                peaks = r.get("peak_bytes", {})
                doc = r["document_bytes"]
                cells = [f"{peaks[n] / doc:.1f}x" for n in ["json round trip", *names] if n in peaks]
                print(f"| {shape} | " + " | ".join(cells) + " |")
        return
    for shape, r in results.items():
        print(f"{shape}: {r['document_bytes']:,} bytes, {r['entries']:,} entries, {r['references']:,} references; "
              f"JSON round trip {r['baseline_seconds']:.3f} s")
        for n, o in r["ops"].items():
            flag = "  over target" if over_target(n, o["ratio"]) else ""
            peak = r.get("peak_bytes", {}).get(n)
            mem = f"  peak {peak / r['document_bytes']:.1f}x the document" if peak else ""
            print(f"  {n:20} {o['seconds']:7.3f} s  {o['ratio']:5.2f}x "
                  f"({o['ratio_min']:.2f}-{o['ratio_max']:.2f}){mem}{flag}")


def stdlib_note(include_tests: bool = False) -> dict[str, Any]:
    """All stdlib graph views, in bytewise path order, as one growing document:
    where it first needs more than 65,536 dictionary entries or more than 16 MiB
    (the limit that bites first), and the totals for all of them. The encoder
    refuses such a document with compact.limit."""
    counts: Counter[str] = Counter()
    entries = 0
    size = 1
    first_over: dict[str, Any] = {}
    views = 0

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                add(k)
                walk(x)
        elif isinstance(v, list):
            for x in v:
                walk(x)
        elif isinstance(v, str):
            add(v)

    def add(text: str) -> None:
        nonlocal entries
        n = counts[text] = counts[text] + 1
        if n == limits.MIN_ENTRY_OCCURRENCES and len(codec.canonical_json(text)) >= limits.MIN_ENTRY_BYTES:
            entries += 1

    modules = stdlib_modules(include_tests)
    for rel, value in stdlib_views(modules):
        views += 1
        walk(value)
        size += len(codec.canonical_json(value)) + 1
        if entries > limits.MAX_DICTIONARY_ENTRIES and "entries" not in first_over:
            first_over["entries"] = {"views": views, "module": rel, "bytes": size, "entries": entries}
        if size > limits.MAX_SELECTED_BYTES and "bytes" not in first_over:
            first_over["bytes"] = {"views": views, "module": rel, "bytes": size, "entries": entries}
    return {"modules": len(modules), "views": views, "document_bytes": size, "entries_needed": entries,
            "limits_crossed_first_at": first_over}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=1.0,
                    help="synthetic document size (default 1; the full run: --size-mib 16 --rounds 7)")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds per shape (default 3)")
    ap.add_argument("--shapes", default=",".join(SHAPE_KEYS), help="comma-separated: " + ", ".join(SHAPE_KEYS))
    ap.add_argument("--no-memory", action="store_true", help="skip the peak-memory pass")
    ap.add_argument("--clock", choices=("cpu", "wall"), default="cpu",
                    help="time CPU time of this process (default) or wall-clock time")
    ap.add_argument("--markdown", action="store_true", help="print the tables as markdown")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    ap.add_argument("--stdlib-note", action="store_true", help="only: all stdlib graph views against the limits")
    ap.add_argument("--with-tests", action="store_true", help="--stdlib-note: include the stdlib's test modules")
    args = ap.parse_args(argv)

    global CLOCK
    CLOCK = time.process_time if args.clock == "cpu" else time.perf_counter
    if args.stdlib_note:
        print(json.dumps(stdlib_note(args.with_tests), indent=2))
        return 0
    target = min(int(args.size_mib * 1024 * 1024), limits.MAX_SELECTED_BYTES) - 4096
    results: dict[str, dict[str, Any]] = {}
    for key in args.shapes.split(","):
        shape = SHAPE_KEYS[key]
        doc = SHAPES[shape](target)
        print(f"… {shape}: {len(doc):,} bytes", file=sys.stderr)
        results[shape] = measure(doc, args.rounds, not args.no_memory)
    if args.json:
        print(json.dumps({"python": platform.python_version(), "machine": platform.machine(),
                          "rounds": args.rounds, "shapes": results}, indent=2))
        return 0
    print(f"Python {platform.python_version()} on {platform.machine()}; median of {args.rounds} interleaved "
          f"rounds (range in brackets) of {args.clock} time; ratios to json.loads + json.dumps of the same document")
    print_table(results, args.markdown)
    return 0


if __name__ == "__main__":
    sys.exit(main())
