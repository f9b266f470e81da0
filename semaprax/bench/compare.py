"""The compare view's work on a 16 MiB wire against an edited copy, as the
compare worker does it (``inspector/compare.py``): the left wire is loaded (the
inspector has it open), the right one is read and laid out, then compared.
A benchmark, not a test; it prints figures.

The document is the code-graph shape the other benchmarks use
(``semaprax.bench.codec.graph_document``); the edited copy has one value changed in the
middle, one node removed near the start and one added near the end, so the
walk has to reach the middle of a 40,000-item array and align it.

For each round it records, from the moment the worker starts:

- right side loaded: ``load_bytes`` and ``prepare`` of the edited wire;
- first result: the first snapshot (envelopes, dictionary, sizes) on screen;
- first change: the first snapshot naming a changed JSON path;
- diff done: every change found and counted;
- tokens: both wires counted (cl100k_base and o200k_base), the last step.

Wall and CPU time of this process; medians over rounds, with the range.

    semaprax bench compare [--size-mib 16] [--rounds 5]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]  # the checkout (examples/, docs/)

import codec
from inspector.compare import Target, compare, resolve
from inspector.model import load_bytes
from semaprax.bench.codec import graph_document


def edited(doc: bytes) -> bytes:
    value = json.loads(doc)
    nodes = value["nodes"]
    nodes[len(nodes) // 2]["signature"] = "(self) -> None"
    del nodes[10]
    nodes.insert(len(nodes) - 10, {"name": "acme.service.added", "kind": "function", "span": [1, 2],
                                   "signature": "()", "calls": [], "references": [], "doc": None})
    return codec.canonical_json(value)


def one_round(left_wire: bytes, right_wire: bytes) -> tuple[dict[str, float], dict[str, float], int]:
    from inspector import counting

    counting._CACHE.clear()  # a large wire's counts are made in a child process, so never cached here
    left = load_bytes(left_wire, "left").prepare()
    marks: dict[str, float] = {}
    cpu: dict[str, float] = {}
    t0, c0 = time.perf_counter(), time.process_time()

    def mark(name: str) -> None:
        if name not in marks:
            marks[name] = time.perf_counter() - t0
            cpu[name] = time.process_time() - c0

    right = resolve(left, Target("bytes", data=right_wire, name="right"))
    mark("right side loaded")
    last = None
    for snapshot in compare(left, right):
        mark("first result")
        if snapshot.changes:
            mark("first change")
        if snapshot.progress >= 1.0:
            mark("diff done")
        last = snapshot
    mark("tokens")
    assert last is not None
    return marks, cpu, last.total_changes


def spread(values: list[float]) -> str:
    return f"{statistics.median(values):.2f} ({min(values):.2f}-{max(values):.2f})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size-mib", type=float, default=2.0,
                    help="document size (default 2; the figures in docs/performance.md: 16)")
    ap.add_argument("--rounds", type=int, default=3, help="rounds (default 3; docs: 5)")
    args = ap.parse_args(argv)
    doc = graph_document(int(args.size_mib * 1024 * 1024) - 4096)
    other = edited(doc)
    meta = ("graph", "acme/service.py", "sha256:" + "0" * 64)
    left_wire = codec.encode_model_text(codec.CompactProjection(*meta, doc))
    right_wire = codec.encode_model_text(codec.CompactProjection(*meta, other))
    from views import tokens

    tokens.count_tokens(b"warm")  # the vocabularies load once per process: not part of a compare
    rounds = []
    for r in range(args.rounds):
        print(f"… round {r + 1} of {args.rounds}", file=sys.stderr, flush=True)
        rounds.append(one_round(left_wire, right_wire))
    print(f"model-text {len(left_wire):,} bytes against {len(right_wire):,} bytes (documents {len(doc):,} and "
          f"{len(other):,}); {rounds[0][2]} structural changes; {args.rounds} rounds")
    print("| step, from the worker's start | wall s | CPU s |")
    print("|---|---:|---:|")
    for name in rounds[0][0]:
        print(f"| {name} | {spread([r[0][name] for r in rounds])} | {spread([r[1][name] for r in rounds])} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
